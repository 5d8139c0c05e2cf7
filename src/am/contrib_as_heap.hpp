// Running a contrib function that refuses relam <> heap (pgstattuple, pgstattuple_approx,
// amcheck's verify_heapam, pgrowlocks, pg_surgery's heap_force_kill/heap_force_freeze) on a
// hotheap table, for one call: the SQL functions hotplus_pgstattuple() & co.
//
// hotheap is heap on disk and in WAL. Each of those functions refuses any table whose
// relcache entry says rd_rel->relam != HEAP_TABLE_AM_OID (checked once, right after it opens
// the relation), and pgstattuple and pgrowlocks then scan with heap_getnext(), which refuses
// any rd_tableam but heap's routine (src/README.md D15 lists the checks, file:line, on 15
// and 18). The wrapper opens the relation by OID with the lock the contrib function takes,
// so the contrib's relation_open() finds the same relcache entry without accepting
// invalidations (the lock is already held), presents that entry as heap's (relam and
// rd_tableam), calls the contrib C function found through the catalog, and restores it.
//
// Invariants (see contrib_as_heap.cpp for why each holds):
//  1. The contrib function is the one of the installed extension: looked up by name and
//     argument types in the extension's schema, and a member of that extension (else ERROR
//     42704, nothing opened). The caller must have EXECUTE on it (else 42501, checked before
//     any lock is taken): a role may call a wrapper exactly when it may call the contrib
//     function, whose own checks (ownership for pg_surgery, SELECT for pgrowlocks) then run.
//  2. Only a hotheap relation is presented (rd_tableam is hotheap's routine; else ERROR
//     42809 before anything is changed); a missing OID is 42P01.
//  3. While the scope is open, rel->rd_rel->relam == HEAP_TABLE_AM_OID and rel->rd_tableam
//     == heap's routine, also across an in-place relcache rebuild of rel (a relcache
//     callback re-applies both; as_heap.hpp invariant 1 for rd_tableam).
//  4. When the scope closes, normally or by ERROR (PG_FINALLY), the entry holds the
//     catalog's relam and hotheap's routine again: nothing can change pg_class.relam while
//     the wrapper holds its lock, which conflicts with the ACCESS EXCLUSIVE lock that
//     ALTER TABLE SET ACCESS METHOD and hotplus_convert/revert take.
//  5. Nothing is written: the change is to this backend's relcache entry only, so the
//     read-only wrappers run on a standby, and no lock stronger than the contrib's is taken.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "utils/rel.h"
}

namespace hotplus {

// Registers the relcache callback (invariant 3); call once from _PG_init.
void contrib_as_heap_init();

} // namespace hotplus
