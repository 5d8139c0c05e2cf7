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

BlockNumber
toast_relation_blocks(Relation rel)
{
	const Oid toast = rel->rd_rel->reltoastrelid;
	if (!OidIsValid(toast))
		return 0;
	Relation toast_rel = table_open(toast, AccessShareLock);
	const BlockNumber blocks = RelationGetNumberOfBlocks(toast_rel);
	table_close(toast_rel, AccessShareLock);
	return blocks;
}

bool
toast_relation_has_blocks(Relation rel)
{
	return toast_relation_blocks(rel) > 0;
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
rows_carry_toast(Relation rel)
{
	const double rows = rel->rd_rel->reltuples; // -1: never analyzed or vacuumed
	if (rows <= 0)
		return false;
	return static_cast<double>(toast_relation_blocks(rel)) * BLCKSZ >= kToastBytesPerRowForFewRows * rows;
}

bool
values_may_be_toasted(Relation rel, AttrNumber attno)
{
	return values_met_extended(RelationGetRelid(rel), attno) || toast_relation_has_blocks(rel) ||
		   get_attavgwidth(RelationGetRelid(rel), attno) >= kWideStoredValue;
}

} // namespace hotplus
