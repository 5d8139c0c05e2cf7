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
}

namespace hotplus {

// Adds a callback to hotplus's one relcache callback; call from _PG_init only.
void add_relcache_callback(RelcacheCallbackFunction callback);

// The body of a per-relation cache's callback: `cache` is a dynahash keyed by relid whose
// entries point (`value`, may be null) to what was built for the relation; marks that
// invalid (`valid = false`) for `relid`, or for every relation (InvalidOid). Nothing is freed
// here: a callback may run while the value is in use; its owner rebuilds or frees it at the
// next look-up.
template <typename Entry, typename Value>
void
invalidate_cached(HTAB *cache, Value *Entry::*value, Oid relid)
{
	if (cache == nullptr)
		return;
	if (relid != InvalidOid)
	{
		auto *entry = static_cast<Entry *>(hash_search(cache, &relid, HASH_FIND, nullptr));
		if (entry != nullptr && entry->*value != nullptr)
			(entry->*value)->valid = false;
		return;
	}
	HASH_SEQ_STATUS status;
	hash_seq_init(&status, cache);
	while (auto *entry = static_cast<Entry *>(hash_seq_search(&status)))
		if (entry->*value != nullptr)
			(entry->*value)->valid = false;
}

} // namespace hotplus
