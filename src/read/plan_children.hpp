// What the read path's walks over finished plans (read_planner.cpp, shared_markers.cpp,
// plan_demand.cpp, plan_display.cpp) need to know of a node's kind and children.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "nodes/plannodes.h"
}

namespace hotplus {

// Whether the node scans a table's own rows (its Vars of scanrelid are the stored columns).
inline bool
scans_table_rows(const Plan *plan)
{
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_IndexScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
		case T_SampleScan:
			return true;
		default:
			return false;
	}
}

// The node's listed children (their cells may be replaced in place), NIL for none. A custom
// scan's children are its provider's business: callers that must not enter them check for
// T_CustomScan themselves.
inline List *
listed_children(Plan *plan)
{
	switch (nodeTag(plan))
	{
		case T_Append:
			return reinterpret_cast<Append *>(plan)->appendplans;
		case T_MergeAppend:
			return reinterpret_cast<MergeAppend *>(plan)->mergeplans;
		case T_CustomScan:
			return reinterpret_cast<CustomScan *>(plan)->custom_plans;
		case T_BitmapAnd:
			return reinterpret_cast<BitmapAnd *>(plan)->bitmapplans;
		case T_BitmapOr:
			return reinterpret_cast<BitmapOr *>(plan)->bitmapplans;
		default:
			return NIL;
	}
}

} // namespace hotplus
