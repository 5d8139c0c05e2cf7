// When a backend's pending counts go to shared memory (shared mode only): the rule of
// core/stats_flush_policy.hpp (PostgreSQL's own for pgstat) applied to this backend, with
// the idle timer and the exit hook it needs. stats.cpp owns the counts and the flush itself.
//
// Invariants:
//  1. No statement writes to shared memory: a transaction end flushes at most once a second
//     (unforced, without waiting for the lock), and then only what the backend counted since.
//  2. Counts left pending by a client backend arrive within the idle interval (10 s) of its
//     last transaction end, also when it goes idle and stays connected: an idle timer asks
//     the backend to catch up with shared invalidations (HandleCatchupInterrupt(), as a
//     sinval catchup signal does), which an idle backend does in a transaction of its own at
//     its next read of a client command; that transaction's end flushes, forced. A busy
//     backend meets the same forced flush at its next transaction end.
//  3. Counts are flushed, waiting for the lock, when the backend exits (on_shmem_exit),
//     so counts from backends that came and went add up exactly.
//  4. Background workers (the logical replication apply worker among them), which never
//     read a client command, flush at every transaction end, waiting, as before.
#pragma once

#include "am/pg.hpp"

namespace hotplus {

// Moves the pending counts to shared memory; with wait false, gives up at once when the
// lock is busy. Returns whether nothing is pending any more.
using FlushPending = bool (*)(bool wait);

// stats_init (shared mode, while preloading): how to flush.
void flush_schedule_init(FlushPending flush);
// A new local entry was made (once per table and flush interval): the exit hook is
// registered the first time in a backend.
void flush_schedule_note_counting();
// At the end of a top-level transaction (commit, abort, prepare) of this backend.
void flush_schedule_at_transaction_end(bool pending);
// After a flush made at another moment (the views, hotplus_stat_flush(), a reset) emptied
// the pending counts.
void flush_schedule_note_flushed();

} // namespace hotplus
