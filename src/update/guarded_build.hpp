// Building a cache entry that must not survive an ERROR half-built.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "utils/memutils.h"
#include "utils/palloc.h"
#include "utils/rel.h"
#include "utils/relcache.h"
}

namespace hotplus {

// The start of an entry's build in `context`, a memory context of its own under
// CacheMemoryContext: named for rel, made current (*caller: the one it replaced), and the
// entry in it, zeroed, with its relid, context and valid set. Valid from before the catalogs
// are read: an invalidation processed while they are read clears it again, and the caller
// revalidates or declines.
template <typename Entry>
Entry *
start_entry(Relation rel, MemoryContext context, MemoryContext *caller)
{
	MemoryContextCopyAndSetIdentifier(context, RelationGetRelationName(rel));
	*caller = MemoryContextSwitchTo(context);
	auto *entry = static_cast<Entry *>(palloc0(sizeof(Entry)));
	entry->relid = RelationGetRelid(rel);
	entry->context = context;
	entry->valid = true;
	return entry;
}

// Runs build_unguarded(rel, &building), which hands its entry out through `building` as soon
// as the entry exists; on ERROR, destroys that entry in the caller's memory context and
// re-throws. No object with a destructor lives in this frame (longjmp crosses it).
template <typename Entry>
Entry *
guarded_build(Relation rel, Entry *(*build_unguarded)(Relation, Entry **), void (*destroy)(Entry *))
{
	Entry *volatile building = nullptr;
	MemoryContext caller_context = CurrentMemoryContext;
	Entry *entry = nullptr;
	PG_TRY();
	{
		entry = build_unguarded(rel, const_cast<Entry **>(&building));
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(caller_context);
		if (building != nullptr)
			destroy(building);
		PG_RE_THROW();
	}
	PG_END_TRY();
	return entry;
}

} // namespace hotplus
