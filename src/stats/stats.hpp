// Why updates were or were not HOT: counters per hotheap table and per index.
//
// Two modes:
//  - backend (default): each backend counts in its own memory; the views show the calling
//    backend's counts only.
//  - shared (hotplus in shared_preload_libraries): backends count locally and flush into a
//    bounded shared hash table (hotplus.max_tracked_tables tables, 4x as many indexes) as
//    PostgreSQL's cumulative statistics flush theirs: at the end of a transaction at most
//    once a second, within 10 s of going idle, and at exit (flush_schedule.hpp); the views
//    show cluster-wide counts of the current database (and the reader's own pending counts,
//    flushed first), hotplus_stat_flush() flushes the caller's now. Relations beyond the
//    bound are not tracked (counted in `untracked`). The counts are kept across a clean
//    shutdown and discarded after a crash (stats_file.hpp).
// The entries of a relation go when its DROP commits, all of a database's when it is
// dropped (an object access hook notes drops, the commit applies them, a rolled-back
// subtransaction takes its own back), so churn does not fill the bound for good.
// Counting is a few additions on the update path. A flush takes the lock in shared mode and
// adds to atomic counters when every entry exists (the common case), exclusively only to
// make entries; flushed local entries are removed, the local tables kept.
#pragma once

#include "am/pg.hpp"

namespace hotplus {

// How one update turned out, and why. Exactly one outcome per update.
enum class UpdateOutcome
{
	HotStock,			// HOT, and stock heap would have made it HOT too
	HotByExpression,	// HOT thanks to evaluating an index expression
	HotByPartial,		// HOT thanks to a partial index predicate
	HotByImage,			// HOT thanks to image equality / TOAST datum reuse of an index input
	NonHotIndexChanged, // some index really changed
	NonHotPageFull,		// no index changed, but the new version did not fit on the page
	NonHotOther,		// heap decided alone (nothing to gain, disabled, declined)
	// the new version did not fit on the page, and whether an index changed would have
	// needed evaluating an index expression or predicate, which hotplus skips there (1.4)
	NonHotPageFullUnchecked,
};

struct UpdateReport
{
	UpdateOutcome outcome;
	bool checked;			// hotplus read the old version and compared columns
	int toast_reused;		// datums stored again instead of re-toasted
	Oid blocking_index;		// the index found changed, if known
	int64 check_time_ns;	// time spent deciding (checked updates)
	bool check_failed;		// the decision failed (a C++ exception): heap decided alone
	bool verified;			// hotplus.verify checked what hotplus changed (reused datums, indexes)
	bool verify_sampled_out; // hotplus.verify would have checked it; its sample rate left it out
	// A NonHotPageFull update decided in full as a sample of the NonHotPageFullUnchecked ones:
	// how many of those it stands for (hotplus.page_full_sample_every - 1), else 0.
	int unchecked_hot_weight;
	// Indexes the executor was told this non-HOT update left unchanged (index_hints.hpp).
	int index_hints;
};
static_assert(std::is_trivially_destructible_v<UpdateReport>); // on frames an ERROR may unwind

void stats_init();		   // _PG_init: GUCs and, when preloading, shared memory hooks
void stats_count(Oid relid, const UpdateReport &report);
// An update hotplus left to heap without reading anything (checked = false): HotStock if
// heap made it HOT, else NonHotPageFull when the statement could change no index input
// (nothing_changeable) and NonHotOther otherwise. stats_count's result for that report.
void stats_count_unchecked(Oid relid, bool hot, bool nothing_changeable);
// One HotheapRead node (read_scan.hpp) that ran with the read path on and returned `rows`.
void stats_count_read(Oid relid, int64 rows);

} // namespace hotplus
