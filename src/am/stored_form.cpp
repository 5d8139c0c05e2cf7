#include "am/stored_form.hpp"

#include "am/relcache_callback.hpp"

#include <cmath>

extern "C" {
#include "access/table.h"
#include "storage/bufmgr.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
}

namespace hotplus {

namespace {

struct SeenEntry
{
	Oid relid; // the hash key
	uint64 columns; // bit n: column n (1..63) was seen extended; bit 0: some column above 63
	BlockNumber toast_blocks; // the most the TOAST relation was seen to have; 0: unknown
};

HTAB *seen = nullptr;

// The relation's entry, made if missing (none beyond kMaxRememberedRelations: nullptr).
SeenEntry *
entry_for(Oid relid)
{
	if (seen == nullptr)
	{
		HASHCTL ctl{};
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(SeenEntry);
		ctl.hcxt = TopMemoryContext;
		seen = hash_create("hotplus stored forms seen", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	auto *entry = static_cast<SeenEntry *>(hash_search(seen, &relid, HASH_FIND, nullptr));
	if (entry != nullptr || hash_get_num_entries(seen) >= kMaxRememberedRelations)
		return entry;
	bool found = false;
	entry = static_cast<SeenEntry *>(hash_search(seen, &relid, HASH_ENTER, &found));
	entry->columns = 0;
	entry->toast_blocks = 0;
	return entry;
}

uint64
column_bit(AttrNumber attno)
{
	return attno > 0 && attno < 64 ? UINT64_C(1) << attno : UINT64_C(1);
}

// At least `wanted` blocks in the table's TOAST relation: the memo first, then the relation's
// size (an lseek), remembered when it is more.
bool
toast_relation_blocks_at_least(Relation rel, BlockNumber wanted)
{
	const Oid toast = rel->rd_rel->reltoastrelid;
	if (!OidIsValid(toast))
		return false;
	SeenEntry *entry = seen != nullptr
						   ? static_cast<SeenEntry *>(hash_search(seen, &rel->rd_id, HASH_FIND, nullptr))
						   : nullptr;
	if (entry != nullptr && entry->toast_blocks >= wanted)
		return true;
	Relation toast_rel = table_open(toast, AccessShareLock);
	const BlockNumber blocks = RelationGetNumberOfBlocks(toast_rel);
	table_close(toast_rel, AccessShareLock);
	if (blocks > 0 && (entry != nullptr || (entry = entry_for(rel->rd_id)) != nullptr))
		entry->toast_blocks = Max(entry->toast_blocks, blocks);
	return blocks >= wanted;
}

// Any relcache invalidation of the table (TRUNCATE, VACUUM, ANALYZE, any DDL) forgets what its
// TOAST relation was seen to hold.
void
forget_toast_blocks(Datum, Oid relid)
{
	visit_invalidated<SeenEntry>(seen, relid, [](SeenEntry *entry) { entry->toast_blocks = 0; });
}

} // namespace

void
stored_form_init()
{
	add_relcache_callback(forget_toast_blocks);
}

void
note_extended_value(Oid relid, AttrNumber attno)
{
	if (SeenEntry *entry = entry_for(relid); entry != nullptr)
		entry->columns |= column_bit(attno);
}

bool
values_met_extended(Oid relid, AttrNumber attno)
{
	if (seen == nullptr)
		return false;
	auto *entry = static_cast<SeenEntry *>(hash_search(seen, &relid, HASH_FIND, nullptr));
	return entry != nullptr && (entry->columns & column_bit(attno)) != 0;
}

bool
rows_carry_toast(Relation rel)
{
	const double rows = rel->rd_rel->reltuples; // -1: never analyzed or vacuumed
	if (rows <= 0)
		return false;
	const double wanted = std::ceil(kToastBytesPerRowForFewRows * rows / BLCKSZ);
	return toast_relation_blocks_at_least(rel, wanted >= MaxBlockNumber ? MaxBlockNumber : static_cast<BlockNumber>(wanted));
}

bool
values_may_be_toasted(Relation rel, AttrNumber attno)
{
	return values_met_extended(RelationGetRelid(rel), attno) || toast_relation_blocks_at_least(rel, 1) ||
		   get_attavgwidth(RelationGetRelid(rel), attno) >= kWideStoredValue;
}

} // namespace hotplus
