// REPACK (CONCURRENTLY) of a hotheap table (PostgreSQL 19; src/README.md D17).
//
// 19's REPACK (CONCURRENTLY) checks once, right after it opened the table, that the table's
// rd_tableam is heap's routine, for logical decoding must see every change made while it
// copies (repack.c, check_concurrent_repack_requirements()). hotheap is heap in WAL, so
// decoding sees its changes as heap's. For that one statement the backend's relcache entry of
// the table shows heap's routine, pg_class.relam untouched.
// Invariants (repack.cpp says why each holds):
//  1. Only a top-level REPACK (CONCURRENTLY) of one hotheap table, outside a transaction
//     block, with REPACK's own options, after the lock and privilege check REPACK makes
//     itself (SHARE UPDATE EXCLUSIVE, MAINTAIN).
//  2. No reference to the entry is held across the command (REPACK's CheckTableNotInUse()
//     wants its own alone), so any invalidation of the entry may rebuild or free it: from
//     then on hotplus never touches it again (a rebuilt or new entry shows hotheap's routine,
//     as relam says).
//  3. When the statement ends, normally or by ERROR, an entry no invalidation reached gets
//     hotheap's routine back.
//  4. relam never changes: the table REPACK builds is hotheap's (make_new_heap() takes the
//     old table's relam), so its concurrent changes are replayed by hotheap's tuple_update.
#pragma once

namespace hotplus {

// Chains ProcessUtility_hook (19 only: before, no statement needs it); call once from _PG_init.
void repack_init();

} // namespace hotplus
