#include "core/stats_flush_policy.hpp"

#include "stats/flush_schedule.hpp"

extern "C" {
#include "access/xact.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/sinval.h"
#include "utils/timeout.h"
#include "utils/timestamp.h"
}

namespace hotplus {

namespace {

FlushPending flush_pending = nullptr; // set in shared mode only

// This backend's schedule (core::FlushState without the per-call fields).
TimestampTz last_flush = 0;	   // 0: never
TimestampTz pending_since = 0; // 0: nothing kept pending since the last flush
volatile sig_atomic_t idle_timer_expired = false;
TimeoutId idle_timeout = MAX_TIMEOUTS; // MAX_TIMEOUTS: not registered in this backend yet
bool exit_hook_registered = false;

int64
to_ms(TimestampTz t)
{
	return t == 0 ? -1 : t / 1000;
}

// A client backend (or a single-user one) batches; background workers and the rest flush at
// every transaction end (flush_schedule.hpp invariant 4).
bool
batched()
{
	return !IsUnderPostmaster || MyBackendType == B_BACKEND;
}

// The timeout handler, in signal context: only flags and the latch. The backend catches up
// with invalidations at its next idle point, in a transaction whose end flushes (forced).
void
idle_timer_fired()
{
	idle_timer_expired = true;
	HandleCatchupInterrupt();
}

void
flush_at_exit(int, Datum)
{
	flush_pending(true);
}

void
flushed(TimestampTz now)
{
	last_flush = now;
	pending_since = 0;
	idle_timer_expired = false;
	// the timer is left as it is: if it fires with nothing pending, the transaction it
	// causes finds nothing to do (and a disable here would cost a system call per flush)
}

} // namespace

void
flush_schedule_init(FlushPending flush)
{
	flush_pending = flush;
}

// on_shmem_exit, not before_shmem_exit: this is registered at a backend's first count,
// wherever that happens, and a before_shmem_exit callback registered inside a
// PG_ENSURE_ERROR_CLEANUP block (19's REPACK (CONCURRENTLY) replays concurrent updates into
// the new table inside one) breaks the block's cancel_before_shmem_exit(), which requires
// its own callback to be the latest: an ERROR at its end, then a crash at exit. Nothing
// cancels on_shmem_exit callbacks. The flush needs only the main shared memory segment and
// an LWLock (stats.cpp), both there until the on_shmem_exit callbacks registered before this
// one (ProcKill's among them) run; pgstat_beshutdown_hook, which takes the backend out of
// pg_stat_activity, is one of those (on_shmem_exit from InitPostgres), so a backend's counts
// are flushed before it leaves pg_stat_activity (t/010). ipc.c, shmem_exit(), 15 to 19.
void
flush_schedule_note_counting()
{
	if (flush_pending == nullptr || exit_hook_registered)
		return;
	on_shmem_exit(flush_at_exit, 0);
	exit_hook_registered = true;
}

void
flush_schedule_at_transaction_end(bool pending)
{
	if (flush_pending == nullptr)
		return;
	if (!pending)
	{
		idle_timer_expired = false;
		return;
	}
	const TimestampTz now = GetCurrentTransactionStopTimestamp();
	core::FlushState state;
	state.pending = pending;
	state.batched = batched();
	state.idle_timer_expired = idle_timer_expired;
	state.now_ms = to_ms(now);
	state.last_flush_ms = to_ms(last_flush);
	state.pending_since_ms = to_ms(pending_since);
	bool still_pending = true;
	switch (core::flush_at_transaction_end(state))
	{
		case core::FlushAction::None:
		case core::FlushAction::Keep:
			break;
		case core::FlushAction::TryFlush:
			still_pending = !flush_pending(false);
			break;
		case core::FlushAction::Flush:
			still_pending = !flush_pending(true);
			break;
	}
	if (!still_pending)
	{
		flushed(now);
		return;
	}
	if (pending_since == 0)
		pending_since = now;
	// Only a backend under a postmaster reads client commands at idle points (a single-user
	// backend flushes at its transaction ends and exit).
	if (!IsUnderPostmaster)
		return;
	if (idle_timeout == MAX_TIMEOUTS)
		idle_timeout = RegisterTimeout(USER_TIMEOUT, idle_timer_fired);
	// The timer's state is the server's: an ERROR's recovery disables every timeout
	// (postgres.c), before the abort that brings us here.
	if (core::arm_idle_timer(state, still_pending, get_timeout_active(idle_timeout)))
		enable_timeout_after(idle_timeout, static_cast<int>(core::kIdleFlushIntervalMs));
}

void
flush_schedule_note_flushed()
{
	if (flush_pending != nullptr)
		flushed(GetCurrentTimestamp());
}

} // namespace hotplus
