#include "core/stats_file_format.hpp"

#include <array>
#include <cstring>

namespace hotplus::core {

namespace {

constexpr char kMagic[8] = {'H', 'P', 'L', 'U', 'S', 'T', 'A', 'T'};

// magic, format, major, system identifier, counters per table, reserved, tables, indexes,
// untracked
constexpr size_t kHeaderSize = 8 + 4 + 4 + 8 + 4 + 4 + 8 + 8 + 8;
constexpr size_t kIndexRecordSize = 4 + 4 + 4 + 4 + 8;

size_t
table_record_size(uint32_t counters)
{
	return 4 + 4 + 8 * size_t{counters} + 8;
}

std::array<uint32_t, 256>
make_crc_table()
{
	std::array<uint32_t, 256> table{};
	for (uint32_t i = 0; i < 256; i++)
	{
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		table[i] = c;
	}
	return table;
}

class Writer
{
public:
	explicit Writer(std::vector<uint8_t> &out) : out_(out) {}
	template <typename T>
	void put(T value)
	{
		uint8_t bytes[sizeof(T)];
		std::memcpy(bytes, &value, sizeof(T));
		out_.insert(out_.end(), bytes, bytes + sizeof(T));
	}

private:
	std::vector<uint8_t> &out_;
};

class Reader
{
public:
	explicit Reader(const std::vector<uint8_t> &in) : in_(in) {}
	template <typename T>
	T get()
	{
		T value;
		std::memcpy(&value, in_.data() + pos_, sizeof(T)); // lengths are checked before reading
		pos_ += sizeof(T);
		return value;
	}

private:
	const std::vector<uint8_t> &in_;
	size_t pos_ = 8; // after the magic
};

} // namespace

uint32_t
crc32c(const uint8_t *data, size_t length, uint32_t crc)
{
	static const std::array<uint32_t, 256> table = make_crc_table();
	crc = ~crc;
	for (size_t i = 0; i < length; i++)
		crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
	return ~crc;
}

std::vector<uint8_t>
encode_stats_file(const StatsSnapshot &snapshot, const StatsFileIdentity &identity)
{
	std::vector<uint8_t> out;
	out.reserve(kHeaderSize + snapshot.tables.size() * table_record_size(identity.table_counters) +
				snapshot.indexes.size() * kIndexRecordSize + 4);
	for (char c : kMagic)
		out.push_back(static_cast<uint8_t>(c));
	Writer w(out);
	w.put(kStatsFileFormat);
	w.put(identity.server_major);
	w.put(identity.system_identifier);
	w.put(identity.table_counters);
	w.put(uint32_t{0});
	w.put(uint64_t{snapshot.tables.size()});
	w.put(uint64_t{snapshot.indexes.size()});
	w.put(snapshot.untracked);
	for (const TableRecord &t : snapshot.tables)
	{
		w.put(t.dbid);
		w.put(t.relid);
		for (uint32_t i = 0; i < identity.table_counters; i++)
			w.put(i < t.counters.size() ? t.counters[i] : int64_t{0});
		w.put(t.check_time_ns);
	}
	for (const IndexRecord &ix : snapshot.indexes)
	{
		w.put(ix.dbid);
		w.put(ix.relid);
		w.put(ix.table_relid);
		w.put(uint32_t{0});
		w.put(ix.blocked_hot);
	}
	w.put(crc32c(out.data(), out.size()));
	return out;
}

size_t
largest_stats_file(const StatsFileIdentity &identity, uint64_t tables, uint64_t indexes)
{
	return kHeaderSize + tables * table_record_size(identity.table_counters) + indexes * kIndexRecordSize + 4;
}

DecodedStatsFile
decode_stats_file(const std::vector<uint8_t> &bytes, const StatsFileIdentity &identity)
{
	DecodedStatsFile result;
	auto reject = [&result](std::string why) {
		result.why_not = std::move(why);
		return result;
	};
	if (bytes.size() < kHeaderSize + 4 || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
		return reject("not a hotplus statistics file");
	Reader r(bytes);
	const auto format = r.get<uint32_t>();
	const auto major = r.get<uint32_t>();
	const auto system_identifier = r.get<uint64_t>();
	const auto counters = r.get<uint32_t>();
	r.get<uint32_t>();
	const auto tables = r.get<uint64_t>();
	const auto indexes = r.get<uint64_t>();
	const auto untracked = r.get<int64_t>();
	if (format != kStatsFileFormat)
		return reject("written in format " + std::to_string(format) + ", not " + std::to_string(kStatsFileFormat));
	if (major != identity.server_major)
		return reject("written by PostgreSQL " + std::to_string(major) + ", not " +
					  std::to_string(identity.server_major));
	if (system_identifier != identity.system_identifier)
		return reject("written by another cluster (system identifier " + std::to_string(system_identifier) + ")");
	if (counters > identity.table_counters)
		return reject("written by a later hotplus (" + std::to_string(counters) + " counters per table, not " +
					  std::to_string(identity.table_counters) + ")");
	// the record counts must give the file's length exactly (checked without overflow: each
	// count is at most the file's length)
	const size_t tsize = table_record_size(counters);
	if (tables > bytes.size() / tsize || indexes > bytes.size() / kIndexRecordSize ||
		kHeaderSize + tables * tsize + indexes * kIndexRecordSize + 4 != bytes.size())
		return reject("its length does not match its record counts");
	uint32_t stored_crc;
	std::memcpy(&stored_crc, bytes.data() + bytes.size() - 4, 4);
	if (crc32c(bytes.data(), bytes.size() - 4) != stored_crc)
		return reject("its checksum does not match");
	StatsSnapshot &s = result.snapshot;
	s.untracked = untracked;
	s.tables.resize(tables);
	for (TableRecord &t : s.tables)
	{
		t.dbid = r.get<uint32_t>();
		t.relid = r.get<uint32_t>();
		t.counters.assign(identity.table_counters, 0);
		for (uint32_t i = 0; i < counters; i++)
			t.counters[i] = r.get<int64_t>();
		t.check_time_ns = r.get<int64_t>();
	}
	s.indexes.resize(indexes);
	for (IndexRecord &ix : s.indexes)
	{
		ix.dbid = r.get<uint32_t>();
		ix.relid = r.get<uint32_t>();
		ix.table_relid = r.get<uint32_t>();
		r.get<uint32_t>();
		ix.blocked_hot = r.get<int64_t>();
	}
	result.ok = true;
	return result;
}

} // namespace hotplus::core
