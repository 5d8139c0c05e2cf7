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

} // namespace hotplus
