// The statistics' entries: per table and per index, as a backend keeps them (local, plain
// integers) and as shared memory keeps them (atomics). stats.cpp counts and flushes them;
// stats_file.cpp saves the shared ones at shutdown and restores them at start.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "port/atomics.h"
}

namespace hotplus {

// Order of the counters as the SQL function returns them: kUpdates..kChecksSkipped, then
// check_time_ms, then the read path's counters (added in 1.1), then check_failures (1.3),
// then the verifier's and the unchecked page-full updates' (1.4), then index_hints (1.6): an
// older definition of the function, still installed before ALTER EXTENSION UPDATE, asks for
// fewer columns. The
// statistics file stores them in this order too (a new counter goes last).
enum TableCounter
{
	kUpdates,
	kHotStock,
	kHotByExpression,
	kHotByPartial,
	kHotByImage,
	kToastReused,
	kNonHotIndexChanged,
	kNonHotPageFull,
	kNonHotOther,
	kChecksSkipped,
	kReadScans, // HotheapRead nodes that ran with the read path on (not in parallel workers)
	kReadRows,	// rows they returned
	kCheckFailures, // updates whose decision failed (a C++ exception; 1.3)
	kVerified,		   // updates hotplus.verify checked (1.4)
	kVerifySampledOut, // updates it would have checked, left out by hotplus.verify_sample_rate (1.4)
	kNonHotPageFullUnchecked, // no room on the page, indexes not evaluated (1.4)
	kUncheckedHotEstimate,	  // of those, how many would have been HOT with room, estimated (1.4)
	kIndexHints,			  // indexes of non-HOT updates hinted unchanged (1.6, index_hints.hpp)
	kTableCounters
};
constexpr int kCountersBeforeCheckTime = kChecksSkipped + 1;

struct StatKey
{
	Oid dbid;
	Oid relid; // a table, or an index
};
static_assert(std::is_trivially_destructible_v<StatKey>); // on frames an ERROR may unwind

// Backend-local entries (the store in backend mode, pending counts in shared mode).
struct TableEntry
{
	StatKey key;
	int64 counters[kTableCounters];
	int64 check_time_ns;
};

struct IndexKey
{
	StatKey key;
	Oid table_relid;
};
static_assert(std::is_trivially_destructible_v<IndexKey>); // on frames an ERROR may unwind

struct IndexEntry
{
	IndexKey id; // first: a pointer to the entry is one to its key
	int64 blocked_hot;
};

// Shared entries: counters are atomics, so a flush into entries that exist takes the lock
// only in shared mode (the table's shape cannot change under it) and adds without
// exclusion, as pg_stat_statements does; inserting and removing entries takes it
// exclusively. `usage` says which entries make room at the bound (core/stats_eviction.hpp):
// a flush adds to it, an eviction round (lock held exclusively) decays it.
struct SharedTableEntry
{
	StatKey key;
	pg_atomic_uint64 counters[kTableCounters];
	pg_atomic_uint64 check_time_ns;
	pg_atomic_uint64 usage;
};

struct SharedIndexEntry
{
	IndexKey id;
	pg_atomic_uint64 blocked_hot;
	pg_atomic_uint64 usage;
};

struct SharedState
{
	LWLock *lock;
	int64 untracked; // counts dropped because no entry could be made (out of shared memory)
	// Entries removed to make room at the bound since the server started (1.6).
	int64 evicted_tables;
	int64 evicted_indexes;
};

} // namespace hotplus
