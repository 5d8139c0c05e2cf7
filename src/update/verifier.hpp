// hotplus.verify: an independent check of every update hotplus lets heap do differently.
//
// Whenever hotplus lets an update be HOT that heap would not have (the override), or stores
// an old TOAST datum in place of the value a statement wrote, the verifier recomputes the
// answer before heap_update() writes anything and raises an ERROR naming the table and the
// index (or column) if it disagrees: the statement fails, nothing is lost or corrupted.
//
// Invariants:
//  1. Shares no cache, slot or evaluation state with the decision (relation_info.hpp): its
//     index descriptions come from BuildIndexInfo() over the relcache's own index list, it
//     has its own EState and slots, the old row is read again from the page at the TID, and
//     the new row is a copy of the executor's slot after every datum substitution, i.e. the
//     bytes heap_update() will store. (It detoasts each value its expressions read once per
//     version, with its own code, as the decision does.)
//  2. An index is unchanged iff its predicate has the same value on both rows (false on
//     both: nothing more to compare) and every key and INCLUDE value (FormIndexDatum) is
//     image-equal (datum_image_eq, in the value's own type): what an index-only scan would
//     hand back is what the index holds.
//  3. Like heap, it evaluates only indexes that are ready for inserts: an index that
//     CREATE INDEX CONCURRENTLY has not made ready is unchanged iff every column it reads
//     (keys, expression and predicate inputs; a whole-row reference reads all) is
//     image-equal, except that a jsonb column read only through `-> 'key'` / `->> 'key'`
//     needs only the value under each key (jsonb's own operator, not the decision's lookup)
//     to be. Summarizing indexes (PG16+) are heap's own (src/README.md D6a).
//  4. An entry is rebuilt after any relcache invalidation of its table; an entry in use by
//     an outer update is never used by a nested one (which builds a private one). The
//     relcache invalidation that would make an entry stale also invalidates the decision's
//     entry, and the caller then declines (heap decides alone). Building an entry opens the
//     indexes, which may accept invalidations the decision did not see (an index marked
//     dead by DROP INDEX CONCURRENTLY, or made by CREATE INDEX CONCURRENTLY, since the
//     decision was made): the check runs only if the caller's decision still stands once
//     the entry is ready, else it checks nothing and the caller lets heap decide. Dead
//     indexes (not live), which heap no longer lists, are not described.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "access/attnum.h"
#include "executor/tuptable.h"
#include "storage/itemptr.h"
#include "utils/relcache.h"
}

namespace hotplus {

// Registers the invalidation callback; call once from _PG_init.
void verifier_init();

// Whether this update is verified: hotplus.verify is on and the update is in the sample
// hotplus.verify_sample_rate draws (one draw per update; ask once and keep the answer, so the
// reused datums and the indexes of one update are checked together or not at all).
bool verifier_samples_update();

// ERROR unless the value of every column atts[i] in final_new (the version heap_update()
// will store) is image-equal to written[i], the value the statement wrote there.
void verify_reused_datums(Relation rel, TupleTableSlot *final_new, int n, const AttrNumber *atts,
						  const Datum *written);

// ERROR unless every index of rel is unchanged (invariant 2) between the stored version at
// otid and final_new. Returns false, checking nothing, if decision_stands(arg) says that the
// decision being checked no longer holds once the verifier's description of rel is ready
// (invariant 4: the caller then lets heap decide); true once checked.
bool verify_indexes_unchanged(Relation rel, ItemPointer otid, TupleTableSlot *final_new,
							  bool (*decision_stands)(void *), void *arg);

} // namespace hotplus
