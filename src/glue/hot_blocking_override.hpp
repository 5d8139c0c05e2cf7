// Handing heap_update() hotplus's HOT decision.
//
// PG15 heap_update() takes its HOT-blocking columns from
// RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_ALL) first thing, which returns a copy
// of rel->rd_indexattr when that is non-NULL. When hotplus has proven that no index changes,
// it installs an empty set there for exactly one heap_update() call, so that heap_update()
// goes HOT if the new version fits on the page. Lock strength (KEY columns) and replica
// identity logging (IDENTITY columns) keep their own, untouched bitmaps.
//
// Invariants:
//  1. Outside an override, rd_indexattr is what the relcache put there (or NULL).
//  2. The installed set is a non-NULL Bitmapset with no member. Stock PG15 never stores
//     such a set there (bms_copy of an empty set is NULL), so it is recognizable as ours.
//  3. If no relcache invalidation of the relation was processed during the call, the
//     field still holds our set: it is freed and the saved stock set put back.
//  4. If one was processed, the entry may have been rebuilt (our set freed by the relcache,
//     the field recomputed, possibly at the same address) or not (new-in-transaction
//     relations are skipped by a cache reset). Putting the saved set back could install a
//     stale bitmap, so we never do: if the field still holds an empty set (ours) it is
//     freed and set to NULL, which makes the relcache recompute all index bitmaps lazily;
//     anything else is the relcache's and stays. The saved set is ours alone and is freed.
#pragma once

#include "glue/pg.hpp"

extern "C" {
#include "nodes/bitmapset.h"
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

void hot_blocking_override_init();

// Installs the empty HOT-blocking set. Returns false (and installs nothing) if the
// relcache has not computed the index bitmaps (rd_indexattr NULL).
bool hot_blocking_override_begin(HotBlockingOverride *override, Relation rel);

// Undoes begin(); call from PG_FINALLY.
void hot_blocking_override_end(HotBlockingOverride *override);

} // namespace hotplus
