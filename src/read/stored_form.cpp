#include "read/stored_form.hpp"

extern "C" {
#include "access/table.h"
#include "storage/bufmgr.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}

namespace hotplus {

bool
values_may_be_toasted(Relation rel, AttrNumber attno)
{
	const Oid toast = rel->rd_rel->reltoastrelid;
	if (OidIsValid(toast))
	{
		Relation toast_rel = table_open(toast, AccessShareLock);
		const bool has_blocks = RelationGetNumberOfBlocks(toast_rel) > 0;
		table_close(toast_rel, AccessShareLock);
		if (has_blocks)
			return true;
	}
	return get_attavgwidth(RelationGetRelid(rel), attno) >= kWideStoredValue;
}

} // namespace hotplus
