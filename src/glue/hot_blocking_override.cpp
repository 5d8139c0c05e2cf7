#include "glue/hot_blocking_override.hpp"

extern "C" {
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"
}

namespace hotplus {

static HotBlockingOverride *active = nullptr;

static void
note_invalidation(Datum, Oid relid)
{
	for (HotBlockingOverride *o = active; o != nullptr; o = o->outer)
		if (relid == InvalidOid || relid == RelationGetRelid(o->rel))
			o->invalidated = true;
}

void
hot_blocking_override_init()
{
	CacheRegisterRelcacheCallback(note_invalidation, (Datum) 0);
}

static bool
is_installed_set(const Bitmapset *set)
{
	return set != nullptr && bms_is_empty(set);
}

bool
hot_blocking_override_begin(HotBlockingOverride *override, Relation rel)
{
	if (rel->rd_indexattr == nullptr || is_installed_set(rel->rd_indexattr))
		return false;

	// One word of zeros: non-NULL, no member (invariant 2). In CacheMemoryContext like the
	// relcache's own bitmaps, since the relcache may free it (invariant 4).
	Bitmapset *empty = static_cast<Bitmapset *>(
		MemoryContextAllocZero(CacheMemoryContext, offsetof(Bitmapset, words) + sizeof(bitmapword)));
	empty->nwords = 1;

	override->rel = rel;
	override->saved = rel->rd_indexattr;
	override->invalidated = false;
	override->outer = active;
	active = override;
	rel->rd_indexattr = empty;
	return true;
}

void
hot_blocking_override_end(HotBlockingOverride *override)
{
	Assert(active == override);
	active = override->outer;
	Relation rel = override->rel;

	if (!override->invalidated)
	{
		Assert(is_installed_set(rel->rd_indexattr));
		bms_free(rel->rd_indexattr);
		rel->rd_indexattr = override->saved;
		return;
	}
	if (is_installed_set(rel->rd_indexattr))
	{
		bms_free(rel->rd_indexattr);
		rel->rd_indexattr = nullptr;
	}
	bms_free(override->saved);
}

} // namespace hotplus
