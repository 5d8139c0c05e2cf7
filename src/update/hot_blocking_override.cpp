#include "update/hot_blocking_override.hpp"
#include "am/relcache_callback.hpp"

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
	add_relcache_callback(note_invalidation);
}

bool
hot_blocking_override_begin(HotBlockingOverride *override, Relation rel)
{
	if (!compat_index_bitmaps_valid(rel))
		return false;
	for (HotBlockingOverride *o = active; o != nullptr; o = o->outer)
		if (o->rel == rel)
			return false; // invariant 5

	override->rel = rel;
	override->saved = compat_hot_blocking_field(rel);
	override->invalidated = false;
	override->outer = active;
	active = override;
	compat_hot_blocking_field(rel) = compat_make_empty_hot_blocking_set();
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
		compat_free_installed_hot_blocking_set(rel);
		compat_hot_blocking_field(rel) = override->saved;
		return;
	}
	compat_forget_hot_blocking_set(rel);
	bms_free(override->saved);
}

} // namespace hotplus
