// The statistics file (core/stats_file_format.hpp): round trips of random snapshots, and every
// damage a file can take on disk (each truncation, an appended byte, every value of every
// single byte, and two-byte changes at random) rejected, as is a file of another cluster,
// server major, format or a later hotplus; an earlier hotplus's file (fewer counters) is read
// with the missing counters zero.
// Design points: S2
#include <catch2/catch.hpp>

#include "core/stats_file_format.hpp"

#include <cstring>
#include <random>

using namespace hotplus::core;

namespace {

const StatsFileIdentity kIdentity{7315448820195672342ULL, 15, 17};

StatsSnapshot
random_snapshot(std::mt19937_64 &rng, uint32_t counters, size_t tables, size_t indexes)
{
	StatsSnapshot s;
	s.untracked = static_cast<int64_t>(rng() >> 2);
	for (size_t i = 0; i < tables; i++)
	{
		TableRecord t;
		t.dbid = static_cast<uint32_t>(rng());
		t.relid = static_cast<uint32_t>(rng());
		for (uint32_t c = 0; c < counters; c++)
			t.counters.push_back(static_cast<int64_t>(rng()));
		t.check_time_ns = static_cast<int64_t>(rng());
		s.tables.push_back(t);
	}
	for (size_t i = 0; i < indexes; i++)
		s.indexes.push_back(IndexRecord{static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()),
										static_cast<uint32_t>(rng()), static_cast<int64_t>(rng())});
	return s;
}

} // namespace

TEST_CASE("crc32c: the Castagnoli check value", "[stats_file]")
{
	const std::string check = "123456789";
	REQUIRE(crc32c(reinterpret_cast<const uint8_t *>(check.data()), check.size()) == 0xE3069283u);
	// computed in two pieces, as in one
	REQUIRE(crc32c(reinterpret_cast<const uint8_t *>(check.data()) + 4, 5,
				   crc32c(reinterpret_cast<const uint8_t *>(check.data()), 4)) == 0xE3069283u);
}

TEST_CASE("stats file: every snapshot reads back as written", "[stats_file]")
{
	std::mt19937_64 rng(42);
	for (size_t tables : {0, 1, 2, 17, 1000})
		for (size_t indexes : {0, 1, 5, 4000})
		{
			const StatsSnapshot s = random_snapshot(rng, kIdentity.table_counters, tables, indexes);
			const auto decoded = decode_stats_file(encode_stats_file(s, kIdentity), kIdentity);
			INFO(decoded.why_not);
			REQUIRE(decoded.ok);
			REQUIRE(decoded.snapshot == s);
		}
}

TEST_CASE("stats file: any damage rejects the whole file", "[stats_file]")
{
	std::mt19937_64 rng(7);
	const StatsSnapshot s = random_snapshot(rng, kIdentity.table_counters, 3, 4);
	const std::vector<uint8_t> good = encode_stats_file(s, kIdentity);
	REQUIRE(decode_stats_file(good, kIdentity).ok);

	// every truncation, the empty file included
	for (size_t len = 0; len < good.size(); len++)
	{
		const std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<long>(len));
		REQUIRE_FALSE(decode_stats_file(cut, kIdentity).ok);
	}
	// a byte appended
	for (int b = 0; b < 256; b++)
	{
		std::vector<uint8_t> longer = good;
		longer.push_back(static_cast<uint8_t>(b));
		REQUIRE_FALSE(decode_stats_file(longer, kIdentity).ok);
	}
	// every other value of every byte
	for (size_t pos = 0; pos < good.size(); pos++)
		for (int delta = 1; delta < 256; delta++)
		{
			std::vector<uint8_t> bad = good;
			bad[pos] = static_cast<uint8_t>(bad[pos] + delta);
			const auto decoded = decode_stats_file(bad, kIdentity);
			INFO("byte " << pos << " +" << delta);
			REQUIRE_FALSE(decoded.ok);
			REQUIRE_FALSE(decoded.why_not.empty());
		}
	// two bytes changed anywhere (random pairs, a fixed seed): a CRC-32C misses such a change
	// with a probability of about 2^-32 at most
	for (int i = 0; i < 200000; i++)
	{
		std::vector<uint8_t> bad = good;
		const size_t a = rng() % bad.size(), b = rng() % bad.size();
		bad[a] = static_cast<uint8_t>(bad[a] + 1 + rng() % 255);
		bad[b] = static_cast<uint8_t>(bad[b] + 1 + rng() % 255);
		if (bad == good)
			continue;
		REQUIRE_FALSE(decode_stats_file(bad, kIdentity).ok);
	}
}

TEST_CASE("stats file: another cluster's, server's, format's or later hotplus's file is refused", "[stats_file]")
{
	std::mt19937_64 rng(9);
	const StatsSnapshot s = random_snapshot(rng, kIdentity.table_counters, 2, 2);
	const auto written = encode_stats_file(s, kIdentity);

	StatsFileIdentity other = kIdentity;
	other.system_identifier++;
	auto d = decode_stats_file(written, other);
	REQUIRE_FALSE(d.ok);
	REQUIRE(d.why_not.find("another cluster") != std::string::npos);

	other = kIdentity;
	other.server_major = 18;
	d = decode_stats_file(written, other);
	REQUIRE_FALSE(d.ok);
	REQUIRE(d.why_not.find("PostgreSQL 15") != std::string::npos);

	// read by an older hotplus, with fewer counters per table
	other = kIdentity;
	other.table_counters = kIdentity.table_counters - 1;
	d = decode_stats_file(written, other);
	REQUIRE_FALSE(d.ok);
	REQUIRE(d.why_not.find("later hotplus") != std::string::npos);

	// another format (the field after the magic), with the checksum made to match
	std::vector<uint8_t> format2 = written;
	format2[8] = 2;
	const uint32_t crc = crc32c(format2.data(), format2.size() - 4);
	std::memcpy(format2.data() + format2.size() - 4, &crc, 4);
	d = decode_stats_file(format2, kIdentity);
	REQUIRE_FALSE(d.ok);
	REQUIRE(d.why_not.find("format 2") != std::string::npos);

	// not ours at all
	const std::vector<uint8_t> text{'h', 'e', 'l', 'l', 'o'};
	d = decode_stats_file(text, kIdentity);
	REQUIRE_FALSE(d.ok);
	REQUIRE(d.why_not == "not a hotplus statistics file");
}

TEST_CASE("stats file: an earlier hotplus's file (fewer counters) reads with the rest zero", "[stats_file]")
{
	std::mt19937_64 rng(11);
	StatsFileIdentity older = kIdentity;
	older.table_counters = 10;
	const StatsSnapshot s = random_snapshot(rng, older.table_counters, 3, 1);
	const auto d = decode_stats_file(encode_stats_file(s, older), kIdentity);
	REQUIRE(d.ok);
	REQUIRE(d.snapshot.tables.size() == 3);
	for (size_t i = 0; i < 3; i++)
	{
		REQUIRE(d.snapshot.tables[i].counters.size() == kIdentity.table_counters);
		for (uint32_t c = 0; c < kIdentity.table_counters; c++)
			REQUIRE(d.snapshot.tables[i].counters[c] == (c < 10 ? s.tables[i].counters[c] : 0));
		REQUIRE(d.snapshot.tables[i].check_time_ns == s.tables[i].check_time_ns);
	}
	REQUIRE(d.snapshot.indexes == s.indexes);
	REQUIRE(d.snapshot.untracked == s.untracked);
}

TEST_CASE("stats file: no file written within the bound is longer than largest_stats_file", "[stats_file]")
{
	std::mt19937_64 rng(4);
	for (size_t tables : {0, 1, 10, 300})
		for (size_t indexes : {0, 1, 40, 1200})
		{
			const StatsSnapshot s = random_snapshot(rng, kIdentity.table_counters, tables, indexes);
			const size_t length = encode_stats_file(s, kIdentity).size();
			// exactly as long at the bound, longer than a smaller bound allows
			REQUIRE(length == largest_stats_file(kIdentity, tables, indexes));
			if (tables > 0)
				REQUIRE(length > largest_stats_file(kIdentity, tables - 1, indexes));
			if (indexes > 0)
				REQUIRE(length > largest_stats_file(kIdentity, tables, indexes - 1));
			// an earlier hotplus's file (fewer counters) is shorter still
			StatsSnapshot older = s;
			for (TableRecord &t : older.tables)
				t.counters.resize(kIdentity.table_counters - 3);
			StatsFileIdentity earlier = kIdentity;
			earlier.table_counters -= 3;
			REQUIRE(encode_stats_file(older, earlier).size() <= largest_stats_file(kIdentity, tables, indexes));
		}
}
