// When pending statistics are flushed (core/stats_flush_policy.hpp): the rule over its
// inputs, and a simulated backend (random statements, idle gaps, a lock sometimes busy, the
// idle timer firing at its idle point) checked against the invariants: unforced flushes at
// least a second apart, no counts pending past the forcing points, the timer always armed
// while counts wait.
// Design points: S1
#include <catch2/catch.hpp>

#include "core/stats_flush_policy.hpp"

#include <random>

using namespace hotplus::core;

TEST_CASE("flush_at_transaction_end: the rule", "[stats_flush]")
{
	FlushState s;
	REQUIRE(flush_at_transaction_end(s) == FlushAction::None);
	s.pending = true;
	s.now_ms = 5000;
	REQUIRE(flush_at_transaction_end(s) == FlushAction::TryFlush); // never flushed yet
	s.last_flush_ms = 4500;
	REQUIRE(flush_at_transaction_end(s) == FlushAction::Keep);
	s.last_flush_ms = 4000;
	REQUIRE(flush_at_transaction_end(s) == FlushAction::TryFlush); // a second since
	s.last_flush_ms = 4999;
	s.idle_timer_expired = true;
	REQUIRE(flush_at_transaction_end(s) == FlushAction::Flush);
	s.idle_timer_expired = false;
	s.now_ms = 100000;
	s.last_flush_ms = 99999;
	s.pending_since_ms = 100000 - kMaxPendingIntervalMs;
	REQUIRE(flush_at_transaction_end(s) == FlushAction::Flush);
	s.pending_since_ms = 100000 - kMaxPendingIntervalMs + 1;
	REQUIRE(flush_at_transaction_end(s) == FlushAction::Keep);
	s.batched = false;
	REQUIRE(flush_at_transaction_end(s) == FlushAction::Flush);
	s.pending = false;
	REQUIRE(flush_at_transaction_end(s) == FlushAction::None);
	REQUIRE_FALSE(arm_idle_timer(s, false, false));
}

TEST_CASE("flush schedule: a simulated backend keeps the invariants", "[stats_flush]")
{
	std::mt19937_64 rng(3);
	for (int run = 0; run < 200; run++)
	{
		FlushState s;
		s.batched = run % 10 != 0;
		bool timer_armed = false;
		int64_t timer_due = -1;
		int64_t last_unforced = -1;
		int64_t oldest_pending = -1; // when the oldest count still pending was made
		for (int step = 0; step < 2000; step++)
		{
			// time passes: a statement (0-30 ms) or an idle gap (up to 20 s)
			const bool idle_gap = rng() % 50 == 0;
			s.now_ms += idle_gap ? static_cast<int64_t>(rng() % 20000) : static_cast<int64_t>(rng() % 30);
			// the timer fires during an idle gap: the next idle point is a transaction end
			if (timer_armed && s.now_ms >= timer_due)
			{
				s.idle_timer_expired = true;
				timer_armed = false;
			}
			const bool counted = rng() % 4 != 0; // the transaction updated a hotheap table
			if (counted && !s.pending)
				oldest_pending = s.now_ms;
			s.pending = s.pending || counted;
			const FlushAction action = flush_at_transaction_end(s);
			bool flushed = false;
			if (action == FlushAction::Flush)
				flushed = true;
			else if (action == FlushAction::TryFlush)
			{
				flushed = rng() % 5 != 0; // the lock is busy one time in five
				if (flushed)
				{
					// invariant 2: unforced flushes at least a second apart
					if (last_unforced >= 0)
						REQUIRE(s.now_ms - last_unforced >= kMinFlushIntervalMs);
					last_unforced = s.now_ms;
				}
			}
			if (action == FlushAction::None)
				REQUIRE_FALSE(s.pending); // invariant 1
			if (flushed)
			{
				s.pending = false;
				s.last_flush_ms = s.now_ms;
				s.pending_since_ms = -1;
				s.idle_timer_expired = false;
				oldest_pending = -1;
			}
			else if (s.pending)
			{
				if (s.pending_since_ms < 0)
					s.pending_since_ms = s.now_ms;
				// invariant 3: what is kept was not forced, and the timer is armed
				REQUIRE(s.batched);
				REQUIRE_FALSE(s.idle_timer_expired);
				REQUIRE(s.now_ms - s.pending_since_ms < kMaxPendingIntervalMs);
				if (arm_idle_timer(s, true, timer_armed))
				{
					timer_armed = true;
					timer_due = s.now_ms + kIdleFlushIntervalMs;
				}
				REQUIRE(timer_armed);
				// so counts wait at most until the timer's expiry
				REQUIRE(timer_due - oldest_pending <= kIdleFlushIntervalMs + kMaxPendingIntervalMs);
			}
		}
	}
}
