// The tuple at a TID on a locked page.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "access/htup_details.h"
#include "storage/bufpage.h"
#include "utils/rel.h"
}

namespace hotplus {

// Points *tuple at the normal tuple otid names on page (the caller holds at least a share
// lock on its buffer); false if there is none (unused, dead or redirected line pointer).
inline bool
page_tuple_at(Relation rel, Page page, ItemPointer otid, HeapTuple tuple)
{
	const OffsetNumber offnum = ItemPointerGetOffsetNumber(otid);
	if (offnum < FirstOffsetNumber || offnum > PageGetMaxOffsetNumber(page))
		return false;
	ItemId lp = PageGetItemId(page, offnum);
	if (!ItemIdIsNormal(lp))
		return false;
	tuple->t_data = reinterpret_cast<HeapTupleHeader>(PageGetItem(page, lp));
	tuple->t_len = ItemIdGetLength(lp);
	tuple->t_self = *otid;
	tuple->t_tableOid = RelationGetRelid(rel);
	return true;
}

} // namespace hotplus
