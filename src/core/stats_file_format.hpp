// The statistics file (stats/stats_file.cpp): what shared mode's counts look like on disk
// between a clean shutdown and the next start, as pure logic.
//
// No PostgreSQL header may be included here. The glue copies the shared hash tables into a
// StatsSnapshot at the postmaster's exit and writes encode_stats_file()'s bytes; at the next
// start it reads the file and hands decode_stats_file()'s snapshot back into shared memory.
//
// Layout (native byte order: the file never leaves the machine that wrote it): the magic
// "HPLUSTAT", format, server major, system identifier, the number of counters per table,
// a reserved word, the numbers of table and index records, the untracked count; the table
// records (database, relation, the counters, the check time); the index records (database,
// index, its table, the count); a CRC-32C of everything before it.
//
// Invariants (test/unit/stats_file_format_test.cpp):
//  1. decode(encode(s)) == s for every snapshot, with the identity it was written with.
//  2. A file is accepted only whole and unchanged: any truncation, any appended byte and any
//     changed byte is rejected (the CRC-32C detects every error of up to 32 bits in a row,
//     and the record counts must match the length exactly), and with it every count: a
//     file is used in full or not at all.
//  3. A file written by another cluster (system identifier), another server major, another
//     format, or a hotplus with more counters per table than this one knows is rejected with
//     a reason; one with fewer (an older hotplus) is accepted, the missing counters zero.
//  4. No file this cluster's hotplus writes with `tables` and `indexes` entries at most is
//     longer than largest_stats_file(identity, tables, indexes): the reader refuses a longer
//     one before reading it whole (a damaged or planted file must not make the postmaster
//     allocate what it says).
#pragma once

#ifdef POSTGRES_H
#error "src/core headers must be included before PostgreSQL's postgres.h (am/pg.hpp)"
#endif

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hotplus::core {

constexpr uint32_t kStatsFileFormat = 1;

// Who may read a file: the cluster and server major that wrote it, and how many counters a
// table record of this hotplus has.
struct StatsFileIdentity
{
	uint64_t system_identifier = 0;
	uint32_t server_major = 0;
	uint32_t table_counters = 0;
};

struct TableRecord
{
	uint32_t dbid = 0;
	uint32_t relid = 0;
	std::vector<int64_t> counters; // StatsFileIdentity::table_counters of them
	int64_t check_time_ns = 0;
	bool operator==(const TableRecord &o) const
	{
		return dbid == o.dbid && relid == o.relid && counters == o.counters && check_time_ns == o.check_time_ns;
	}
};

struct IndexRecord
{
	uint32_t dbid = 0;
	uint32_t relid = 0;
	uint32_t table_relid = 0;
	int64_t blocked_hot = 0;
	bool operator==(const IndexRecord &o) const
	{
		return dbid == o.dbid && relid == o.relid && table_relid == o.table_relid && blocked_hot == o.blocked_hot;
	}
};

struct StatsSnapshot
{
	int64_t untracked = 0;
	std::vector<TableRecord> tables;
	std::vector<IndexRecord> indexes;
	bool operator==(const StatsSnapshot &o) const
	{
		return untracked == o.untracked && tables == o.tables && indexes == o.indexes;
	}
};

// CRC-32C (Castagnoli), as PostgreSQL's pg_crc32c computes it.
uint32_t crc32c(const uint8_t *data, size_t length, uint32_t crc = 0);

// The file's bytes. Every table record must have identity.table_counters counters.
std::vector<uint8_t> encode_stats_file(const StatsSnapshot &snapshot, const StatsFileIdentity &identity);

// The length of the file of a snapshot with `tables` table and `indexes` index records
// (invariant 4).
size_t largest_stats_file(const StatsFileIdentity &identity, uint64_t tables, uint64_t indexes);

struct DecodedStatsFile
{
	bool ok = false;
	std::string why_not; // when !ok: what was wrong, for the server log
	StatsSnapshot snapshot;
};

// The snapshot in a file's bytes, if the file is whole and this cluster's (invariants 2-3).
DecodedStatsFile decode_stats_file(const std::vector<uint8_t> &bytes, const StatsFileIdentity &identity);

} // namespace hotplus::core
