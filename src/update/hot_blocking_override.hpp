// Handing heap_update() hotplus's HOT decision.
//
// heap_update() takes its HOT-blocking columns from RelationGetIndexAttrBitmap() first thing,
// which returns a copy of the relcache's cached set when the bitmaps are valid (PG15:
// rd_indexattr, every index column; PG16+: rd_hotblockingattr, the non-summarizing indexes'
// columns; see compat.hpp). When hotplus has proven that no index changes, it installs an
// empty set there for exactly one heap_update() call, so that heap_update() goes HOT if the
// new version fits on the page. Lock strength (KEY columns), replica identity logging
// (IDENTITY columns) and, on PG16+, the summarizing indexes' columns keep their own,
// untouched bitmaps: heap_update() still reports TU_Summarizing from its own comparison.
//
// Invariants:
//  1. Outside an override, the field is what the relcache put there.
//  2. An override is only begun while the relcache's bitmaps are valid, so that
//     heap_update() reads the field instead of recomputing it.
//  3. If no relcache invalidation of the relation was processed during the call, the
//     field still holds our empty set: it is freed (PG15) and the saved stock set put back.
//  4. If one was processed, the entry may have been rebuilt (our set freed by the relcache,
//     the field recomputed, possibly at the same address) or not (new-in-transaction
//     relations are skipped by a cache reset). Putting the saved set back could install a
//     stale bitmap, so we never do: the relcache is made to recompute the bitmaps (PG15:
//     our set, still recognizable as a non-NULL empty set, is freed and the field set to
//     NULL; PG16+: rd_attrsvalid is cleared, since NULL is a valid empty set there). The
//     saved set is ours alone and is freed.
//  5. At most one override per relation is active: a nested begin() on the same relation
//     (which no known path makes) installs nothing.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "nodes/bitmapset.h"
#include "utils/rel.h"
#include "utils/relcache.h"
}

namespace hotplus {

struct HotBlockingOverride
{
	Relation rel;
	Bitmapset *saved;
	bool invalidated;
	HotBlockingOverride *outer;
};
static_assert(std::is_trivially_destructible_v<HotBlockingOverride>); // on frames an ERROR may unwind

void hot_blocking_override_init();

// Has the relcache compute rel's index bitmaps if they are not valid (invariant 2). Computing
// them may accept invalidations: the caller checks what it knows of rel afterwards.
inline void
ensure_index_bitmaps(Relation rel)
{
	if (!compat_index_bitmaps_valid(rel))
		bms_free(RelationGetIndexAttrBitmap(rel, kCompatHotBlockingKind));
}

// Installs the empty HOT-blocking set. Returns false (and installs nothing) if the
// relcache's index bitmaps are not valid, or an override of rel is already active.
bool hot_blocking_override_begin(HotBlockingOverride *override, Relation rel);

// Undoes begin(); call from PG_FINALLY.
void hot_blocking_override_end(HotBlockingOverride *override);

} // namespace hotplus
