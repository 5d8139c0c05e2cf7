#include "core/stats_eviction.hpp"
#include "core/stats_file_format.hpp"

#include "stats/stats_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

extern "C" {
#include "catalog/pg_control.h"
#include "common/controldata_utils.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "storage/ipc.h"
}

namespace hotplus {

namespace {

constexpr const char *kPath = PGSTAT_STAT_PERMANENT_DIRECTORY "/hotplus.stat";
constexpr const char *kTempPath = PGSTAT_STAT_PERMANENT_DIRECTORY "/hotplus.stat.tmp";

// The postmaster's copy of what it saves at exit, and whose file it may read.
SharedStats saved{};
core::StatsFileIdentity identity{};

// Messages for the server log, made where C++ objects live and logged from frames without any
// (stats_file.hpp: nothing here may raise an error at start or exit).
char message[512];

void
note(const char *format, const char *detail)
{
	snprintf(message, sizeof(message), format, detail);
}

// Reads the whole file, if it is no longer than the shared tables' bounds allow
// (core::largest_stats_file); false (with a message unless there is none) otherwise.
bool
read_file(std::vector<uint8_t> &bytes)
{
	FILE *file = AllocateFile(kPath, PG_BINARY_R);
	if (file == nullptr)
	{
		if (errno != ENOENT)
			note("hotplus: could not read the statistics file: %s", strerror(errno));
		return false;
	}
	const size_t largest = core::largest_stats_file(identity, static_cast<uint64_t>(saved.max_tables),
													 static_cast<uint64_t>(saved.max_indexes));
	uint8_t buffer[65536];
	size_t n;
	while (message[0] == '\0' && (n = fread(buffer, 1, sizeof(buffer), file)) > 0)
	{
		if (bytes.size() + n > largest)
			note("hotplus: ignoring the statistics file pg_stat/hotplus.stat: %s",
				 "it is longer than a file of hotplus.max_tracked_tables tables can be (damaged, or written "
				 "with a larger hotplus.max_tracked_tables)");
		else
			bytes.insert(bytes.end(), buffer, buffer + n);
	}
	if (ferror(file))
		note("hotplus: could not read the statistics file: %s", strerror(errno));
	FreeFile(file);
	return message[0] == '\0';
}

// A new entry of a shared table for key, or nullptr at the bound (or out of shared memory).
template <typename Entry>
Entry *
enter_within(HTAB *table, long bound, const StatKey &key)
{
	bool found;
	return hash_get_num_entries(table) < bound
			   ? static_cast<Entry *>(hash_search(table, &key, HASH_ENTER_NULL, &found))
			   : nullptr;
}

// Puts the snapshot into the empty shared tables, within their bounds.
void
restore(const core::StatsSnapshot &snapshot)
{
	saved.state->untracked = snapshot.untracked;
	long dropped = 0;
	for (const core::TableRecord &t : snapshot.tables)
	{
		auto *entry = enter_within<SharedTableEntry>(saved.tables, saved.max_tables, StatKey{t.dbid, t.relid});
		if (entry == nullptr)
		{
			dropped++;
			saved.state->untracked += t.counters[kUpdates];
			continue;
		}
		for (int i = 0; i < kTableCounters; i++)
			pg_atomic_init_u64(&entry->counters[i], static_cast<uint64>(t.counters[i]));
		pg_atomic_init_u64(&entry->check_time_ns, static_cast<uint64>(t.check_time_ns));
		// the usage is not kept: what the counts say of it
		pg_atomic_init_u64(&entry->usage, core::usage_of(t.counters[kUpdates] + t.counters[kReadScans]));
	}
	for (const core::IndexRecord &ix : snapshot.indexes)
	{
		auto *entry = enter_within<SharedIndexEntry>(saved.indexes, saved.max_indexes, StatKey{ix.dbid, ix.relid});
		if (entry == nullptr)
			continue;
		entry->id.table_relid = ix.table_relid;
		pg_atomic_init_u64(&entry->blocked_hot, static_cast<uint64>(ix.blocked_hot));
		pg_atomic_init_u64(&entry->usage, core::usage_of(ix.blocked_hot));
	}
	if (dropped > 0)
		snprintf(message, sizeof(message),
				 "hotplus: %ld tables of the statistics file exceed hotplus.max_tracked_tables; their updates "
				 "are counted as untracked",
				 dropped);
}

void
restore_file(bool clean_shutdown)
{
	try
	{
		std::vector<uint8_t> bytes;
		const bool read = read_file(bytes);
		// Removed at once: counts restored now are in shared memory, and a crash from here on
		// must not find them again (pg_stat_statements does the same).
		unlink(kPath);
		if (!read)
			return;
		if (!clean_shutdown)
		{
			note("hotplus: statistics file discarded: %s",
				 "the server did not shut down cleanly (after a crash or an immediate shutdown, "
				 "hotplus's counts start empty, as PostgreSQL's own statistics do)");
			return;
		}
		const core::DecodedStatsFile decoded = core::decode_stats_file(bytes, identity);
		if (!decoded.ok)
		{
			note("hotplus: ignoring the statistics file pg_stat/hotplus.stat: %s", decoded.why_not.c_str());
			return;
		}
		restore(decoded.snapshot);
	}
	catch (...)
	{
		note("hotplus: ignoring the statistics file pg_stat/hotplus.stat: %s", "out of memory");
	}
}

core::StatsSnapshot
snapshot_of_shared()
{
	core::StatsSnapshot s;
	s.untracked = saved.state->untracked;
	HASH_SEQ_STATUS status;
	hash_seq_init(&status, saved.tables);
	while (auto *entry = static_cast<SharedTableEntry *>(hash_seq_search(&status)))
	{
		core::TableRecord t;
		t.dbid = entry->key.dbid;
		t.relid = entry->key.relid;
		for (auto &counter : entry->counters)
			t.counters.push_back(static_cast<int64_t>(pg_atomic_read_u64(&counter)));
		t.check_time_ns = static_cast<int64_t>(pg_atomic_read_u64(&entry->check_time_ns));
		s.tables.push_back(std::move(t));
	}
	hash_seq_init(&status, saved.indexes);
	while (auto *entry = static_cast<SharedIndexEntry *>(hash_seq_search(&status)))
		s.indexes.push_back(core::IndexRecord{entry->id.key.dbid, entry->id.key.relid, entry->id.table_relid,
											  static_cast<int64_t>(pg_atomic_read_u64(&entry->blocked_hot))});
	return s;
}

// Writes the file under a temporary name; false (with a message) if that failed.
bool
write_temp_file()
{
	try
	{
		const std::vector<uint8_t> bytes = core::encode_stats_file(snapshot_of_shared(), identity);
		FILE *file = AllocateFile(kTempPath, PG_BINARY_W);
		if (file == nullptr)
		{
			note("hotplus: could not write the statistics file: %s", strerror(errno));
			return false;
		}
		const bool ok = fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
		const int saved_errno = errno;
		if (FreeFile(file) != 0 || !ok)
		{
			note("hotplus: could not write the statistics file: %s", strerror(ok ? errno : saved_errno));
			unlink(kTempPath);
			return false;
		}
		return true;
	}
	catch (...)
	{
		note("hotplus: could not write the statistics file: %s", "out of memory");
		return false;
	}
}

// on_shmem_exit in the postmaster: every backend has exited, so nothing changes the tables.
void
save_at_exit(int code, Datum)
{
	if (code != 0) // a crash: nothing is saved (and the next start discards what it finds)
		return;
	message[0] = '\0';
	// durable_rename logs its own failure; the temporary file must not stay behind then.
	if (write_temp_file() && durable_rename(kTempPath, kPath, LOG) != 0)
		unlink(kTempPath);
	if (message[0] != '\0')
		ereport(LOG, (errmsg_internal("%s", message)));
}

} // namespace

void
stats_file_restore_and_save_at_exit(const SharedStats &stats)
{
	saved = stats;
	bool crc_ok;
	ControlFileData *control = get_controlfile(DataDir, &crc_ok);
	identity.system_identifier = control->system_identifier;
	identity.server_major = PG_VERSION_NUM / 10000;
	identity.table_counters = kTableCounters;
	const bool clean_shutdown =
		crc_ok && (control->state == DB_SHUTDOWNED || control->state == DB_SHUTDOWNED_IN_RECOVERY);
	pfree(control);
	message[0] = '\0';
	restore_file(clean_shutdown);
	if (message[0] != '\0')
		ereport(LOG, (errmsg_internal("%s", message)));
	on_shmem_exit(save_at_exit, 0);
}

} // namespace hotplus
