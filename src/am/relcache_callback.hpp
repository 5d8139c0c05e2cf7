// One relcache invalidation callback for all of hotplus.
//
// PostgreSQL keeps ten relcache callbacks per backend (MAX_RELCACHE_CALLBACKS, inval.c, 15
// to 18) and ends the backend with FATAL "out of relcache_callback_list slots" when an
// eleventh is registered. Core takes two (typcache, relfilenumber map) and Citus five, so
// with four of hotplus's own a server preloading 'citus,hotplus' refused every connection.
// Invariants:
//  - hotplus registers exactly one relcache callback with PostgreSQL (the first call of
//    add_relcache_callback does), whatever its modules need;
//  - the modules' callbacks run in the order they were added (_PG_init's order), each
//    with the relid PostgreSQL passed (InvalidOid: every relation).
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"
}

namespace hotplus {

// Adds a callback to hotplus's one relcache callback; call from _PG_init only.
void add_relcache_callback(RelcacheCallbackFunction callback);

// The entries a relcache invalidation reaches in a per-relation cache: `cache` is a dynahash
// keyed by relid (nullptr: not made yet); `visit` gets the entry of `relid`, or every entry
// for InvalidOid (PostgreSQL's "all relations"). The module's callbacks say what an entry
// forgets; this says which entries.
template <typename Entry, typename Visit>
void
visit_invalidated(HTAB *cache, Oid relid, Visit visit)
{
	if (cache == nullptr)
		return;
	if (OidIsValid(relid))
	{
		if (auto *entry = static_cast<Entry *>(hash_search(cache, &relid, HASH_FIND, nullptr)))
			visit(entry);
		return;
	}
	HASH_SEQ_STATUS status;
	hash_seq_init(&status, cache);
	while (auto *entry = static_cast<Entry *>(hash_seq_search(&status)))
		visit(entry);
}

// A per-relation cache: a dynahash in CacheMemoryContext keyed by relid, whose slots point to
// entries (with a `bool valid`) that a relcache invalidation of their relation marks invalid,
// never frees (an entry may be in use): the next look-up revalidates or rebuilds it.
template <typename Entry>
struct RelidCacheSlot
{
	Oid relid; // hash key
	Entry *entry;
};

template <typename Entry>
HTAB *
make_relid_cache(const char *name, long size)
{
	HASHCTL ctl;
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(RelidCacheSlot<Entry>);
	ctl.hcxt = CacheMemoryContext;
	return hash_create(name, size, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

// The slot of relid, made empty if there was none.
template <typename Entry>
RelidCacheSlot<Entry> *
relid_cache_slot(HTAB *cache, Oid relid)
{
	bool found;
	auto *slot = static_cast<RelidCacheSlot<Entry> *>(hash_search(cache, &relid, HASH_ENTER, &found));
	if (!found)
		slot->entry = nullptr;
	return slot;
}

// The relcache callback's part for one such cache: the entry of relid (every entry, for
// InvalidOid) is marked invalid.
template <typename Entry>
void
mark_invalidated(HTAB *cache, Oid relid)
{
	visit_invalidated<RelidCacheSlot<Entry>>(cache, relid, [](RelidCacheSlot<Entry> *slot) {
		if (slot->entry != nullptr)
			slot->entry->valid = false;
	});
}

} // namespace hotplus
