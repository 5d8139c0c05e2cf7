// When a backend's pending statistics go to shared memory (shared mode; stats/flush_schedule),
// as pure logic: PostgreSQL's own rule for its cumulative statistics (pgstat.c,
// pgstat_report_stat()), restated.
//
// No PostgreSQL header may be included here.
//
// A backend counts into its own memory and flushes at the end of a top-level transaction,
// but at most once per kMinInterval, without waiting for the lock unless forced. A batched
// backend that keeps counts pending arms an idle timer (kIdleInterval), whose expiry forces
// the flush at the backend's next idle point; counts pending for kMaxInterval (the lock was
// never free) are forced too. Backends that are not batched (background workers such as the
// logical replication apply worker, which never go idle the way a client backend does)
// flush at every transaction end. Exit, the views and hotplus_stat_flush() flush at once
// (stats/stats.cpp).
//
// Invariants (test/unit/stats_flush_policy_test.cpp):
//  1. Nothing pending: nothing to do, no timer.
//  2. Two unforced flushes of a batched backend are at least kMinInterval apart.
//  3. Counts are never pending beyond kMaxInterval at a transaction end, nor beyond the idle
//     timer's expiry at the next idle point: a batched backend with counts pending that did
//     not flush always has its timer armed.
#pragma once

#ifdef POSTGRES_H
#error "src/core headers must be included before PostgreSQL's postgres.h (am/pg.hpp)"
#endif

#include <cstdint>

namespace hotplus::core {

constexpr int64_t kMinFlushIntervalMs = 1000;	  // PGSTAT_MIN_INTERVAL
constexpr int64_t kMaxPendingIntervalMs = 60000; // PGSTAT_MAX_INTERVAL
constexpr int64_t kIdleFlushIntervalMs = 10000;	 // PGSTAT_IDLE_INTERVAL

enum class FlushAction
{
	None,	 // nothing pending
	Keep,	 // too soon: keep the counts pending
	TryFlush, // flush if the lock is free at once; else keep them
	Flush,	 // flush, waiting for the lock
};

struct FlushState
{
	bool pending = false;		  // counts wait in this backend's memory
	bool batched = true;		  // a client backend (or a single-user one), not a background worker
	bool idle_timer_expired = false; // the idle timer fired since the last flush
	int64_t now_ms = 0;
	int64_t last_flush_ms = -1;	 // -1: never flushed
	int64_t pending_since_ms = -1; // -1: no counts were kept pending since the last flush
};

// What to do at the end of a top-level transaction.
inline FlushAction
flush_at_transaction_end(const FlushState &s)
{
	if (!s.pending)
		return FlushAction::None;
	if (!s.batched || s.idle_timer_expired)
		return FlushAction::Flush;
	if (s.pending_since_ms >= 0 && s.now_ms - s.pending_since_ms >= kMaxPendingIntervalMs)
		return FlushAction::Flush;
	if (s.last_flush_ms >= 0 && s.now_ms - s.last_flush_ms < kMinFlushIntervalMs)
		return FlushAction::Keep;
	return FlushAction::TryFlush;
}

// Whether the idle timer must be armed after a transaction end that left counts pending
// (the action taken, and whether a TryFlush found the lock busy).
inline bool
arm_idle_timer(const FlushState &s, bool still_pending, bool timer_armed)
{
	return s.batched && still_pending && !timer_armed;
}

} // namespace hotplus::core
