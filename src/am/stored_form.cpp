#include "am/stored_form.hpp"

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
};

HTAB *seen = nullptr;

uint64
column_bit(AttrNumber attno)
{
	return attno > 0 && attno < 64 ? UINT64_C(1) << attno : UINT64_C(1);
}

bool
toast_relation_has_blocks(Relation rel)
{
	const Oid toast = rel->rd_rel->reltoastrelid;
	if (!OidIsValid(toast))
		return false;
	Relation toast_rel = table_open(toast, AccessShareLock);
	const bool has_blocks = RelationGetNumberOfBlocks(toast_rel) > 0;
	table_close(toast_rel, AccessShareLock);
	return has_blocks;
}

} // namespace

void
note_extended_value(Oid relid, AttrNumber attno)
{
	if (seen == nullptr)
	{
		HASHCTL ctl{};
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(SeenEntry);
		ctl.hcxt = TopMemoryContext;
		seen = hash_create("hotplus stored forms seen", 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	bool found = false;
	auto *entry = static_cast<SeenEntry *>(hash_search(seen, &relid, HASH_FIND, nullptr));
	if (entry == nullptr)
	{
		if (hash_get_num_entries(seen) >= kMaxRememberedRelations)
			return;
		entry = static_cast<SeenEntry *>(hash_search(seen, &relid, HASH_ENTER, &found));
		entry->columns = 0;
	}
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
values_may_be_toasted(Relation rel, AttrNumber attno)
{
	return values_met_extended(RelationGetRelid(rel), attno) || toast_relation_has_blocks(rel) ||
		   get_attavgwidth(RelationGetRelid(rel), attno) >= kWideStoredValue;
}

} // namespace hotplus
