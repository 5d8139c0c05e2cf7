// Which statistics entries make room at the bound (core/stats_eviction.hpp): random tables of
// usages against a model that sorts them all, and the hostile case that made the rule: a bound
// filled by entries used once, then a table in use.
// Design points: S3
#include <catch2/catch.hpp>

#include "core/stats_eviction.hpp"

#include <random>
#include <vector>

using namespace hotplus::core;

TEST_CASE("select_victims: the least used go, as a full sort would choose", "[stats_eviction]")
{
	std::mt19937_64 random(20261206);
	for (int round = 0; round < 2000; round++)
	{
		const long bound = 1 + static_cast<long>(random() % 200);
		const long n = static_cast<long>(random() % (bound + 1));
		std::vector<uint64_t> usages(n);
		for (auto &u : usages) // many ties: entries used once are the common case
			u = random() % 3 == 0 ? usage_of(1) : random() % 100000;
		std::vector<EvictionCandidate> candidates(n);
		std::vector<int> ids(n);
		for (long i = 0; i < n; i++)
		{
			ids[i] = static_cast<int>(i);
			candidates[i] = EvictionCandidate{usages[i], &ids[i]};
		}
		const long victims = select_victims(candidates.data(), n, bound);

		// Invariant 2.
		REQUIRE(victims == (n == 0 ? 0 : std::min(n, std::max(1L, bound / 20))));
		// Every usage decayed, each entry still there once (invariant 3).
		std::vector<int> seen(n, 0);
		for (const EvictionCandidate &c : candidates)
		{
			const int id = *static_cast<int *>(c.entry);
			seen[id]++;
			REQUIRE(c.usage == usages[id] - usages[id] / 100);
		}
		for (int s : seen)
			REQUIRE(s == 1);
		// Invariant 1, against the model: the victims' usages are the `victims` smallest.
		std::vector<uint64_t> model;
		for (uint64_t u : usages)
			model.push_back(decayed(u));
		std::sort(model.begin(), model.end());
		std::vector<uint64_t> chosen;
		for (long i = 0; i < victims; i++)
			chosen.push_back(candidates[i].usage);
		std::sort(chosen.begin(), chosen.end());
		REQUIRE(chosen == std::vector<uint64_t>(model.begin(), model.begin() + victims));
	}
}

TEST_CASE("usage: grows by use, decays by 1%, a used entry never decays to 0 at once", "[stats_eviction]")
{
	REQUIRE(usage_of(0) == kUsageScale); // made by a flush: used once
	REQUIRE(usage_of(1) == kUsageScale);
	REQUIRE(usage_of(250) == 250 * kUsageScale);
	REQUIRE(decayed(usage_of(1)) > 0);
	REQUIRE(decayed(usage_of(1)) < usage_of(1));
	REQUIRE(decayed(0) == 0);
}

TEST_CASE("a bound filled by entries used once does not keep out a table in use", "[stats_eviction]")
{
	// A model of the shared table: a table updated 200 times, then a role's 1,000 tables
	// touched once each, made one by one at a bound of 1,000 (each new entry evicts when full).
	const long bound = 1000;
	struct Entry
	{
		int id;
		uint64_t usage;
	};
	std::vector<Entry> table{{0, usage_of(200)}};
	for (int id = 1; id <= 5000; id++)
	{
		if (static_cast<long>(table.size()) >= bound)
		{
			std::vector<EvictionCandidate> candidates;
			for (Entry &e : table)
				candidates.push_back(EvictionCandidate{e.usage, &e});
			const long victims = select_victims(candidates.data(), static_cast<long>(candidates.size()), bound);
			std::vector<int> gone;
			for (long i = 0; i < victims; i++)
				gone.push_back(static_cast<Entry *>(candidates[i].entry)->id);
			for (const EvictionCandidate &c : candidates)
				static_cast<Entry *>(c.entry)->usage = c.usage;
			table.erase(std::remove_if(table.begin(), table.end(),
									   [&](const Entry &e) { return std::find(gone.begin(), gone.end(), e.id) != gone.end(); }),
						table.end());
		}
		table.push_back(Entry{id, usage_of(1)});
		// The table in use is never the one to go, and each new entry got its place.
		REQUIRE(std::any_of(table.begin(), table.end(), [](const Entry &e) { return e.id == 0; }));
		REQUIRE(table.back().id == id);
		REQUIRE(static_cast<long>(table.size()) <= bound);
	}
}
