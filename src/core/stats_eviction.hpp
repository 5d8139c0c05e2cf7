// Which statistics entries make room when shared memory's bound is reached (shared mode;
// stats/stats.cpp), as pure logic: pg_stat_statements' rule (entry_dealloc() in
// pg_stat_statements.c), restated for tables and indexes.
//
// No PostgreSQL header may be included here.
//
// Each shared entry has a usage: the updates and read scans flushed into it (a table), or the
// updates it kept from being HOT (an index), in units of kUsageScale. When an entry must be
// made and the bound leaves no room, every entry's usage decays by 1%, and the least used
// go: eviction_count() of them. So a table that is updated keeps its entry, and entries made
// once and never used again (a role's throwaway tables, touched once) make room first: no
// role can keep later tables out of the statistics by filling the bound, as the first-come,
// first-served bound of hotplus 1.5 and earlier let any role do.
//
// Invariants (test/unit/stats_eviction_test.cpp, against a model that sorts every entry):
//  1. The victims are entries of least decayed usage: none left has a smaller one.
//  2. At least one victim, at most every entry; a twentieth of the bound at once, so that
//     making entries one by one does not sort the table each time.
//  3. Usage only grows by use and only shrinks by decay; decay never makes a used entry's
//     usage zero in one step (a count of 1 decays to 0.99 units, not 0).
#pragma once

#ifdef POSTGRES_H
#error "src/core headers must be included before PostgreSQL's postgres.h (am/pg.hpp)"
#endif

#include <algorithm>
#include <cstdint>

namespace hotplus::core {

constexpr uint64_t kUsageScale = 100; // one use; decay takes 1% of it

// The usage a flush of `uses` updates or read scans adds (at least one use: an entry made
// by a flush was used).
constexpr uint64_t
usage_of(int64_t uses)
{
	return static_cast<uint64_t>(std::max<int64_t>(uses, 1)) * kUsageScale;
}

// A usage after one eviction round's decay.
constexpr uint64_t
decayed(uint64_t usage)
{
	return usage - usage / 100;
}

// How many entries one eviction round removes from `entries` under `bound`.
constexpr long
eviction_count(long entries, long bound)
{
	return std::min(entries, std::max(1L, bound / 20));
}

struct EvictionCandidate
{
	uint64_t usage; // decayed
	void *entry;	// the caller's
};

// Decays every candidate's usage (the caller writes it back) and moves the eviction_count()
// least used to the front; returns that count. No allocation, no exception.
inline long
select_victims(EvictionCandidate *candidates, long n, long bound)
{
	for (long i = 0; i < n; i++)
		candidates[i].usage = decayed(candidates[i].usage);
	const long victims = eviction_count(n, bound);
	if (victims > 0 && victims < n)
		std::nth_element(candidates, candidates + victims - 1, candidates + n,
						 [](const EvictionCandidate &a, const EvictionCandidate &b) { return a.usage < b.usage; });
	return victims;
}

} // namespace hotplus::core
