// How many rows a plan node reads and evaluates per execution, for the read path's cost rules
// (D14c): selective deformation (read_planner.cpp) and shared detoast markers
// (shared_markers.cpp) pay per row what they cost per statement.
//
// The rows come from the finished plan's own estimates, and from what the plan above a node
// asks of it: a LIMIT asks its input for its count (and constant offset) only; a node that
// reads all of its input before returning anything (Sort, Hash, hashed or plain aggregation,
// SetOp, a recursive union) asks for all of it; the inner side of a nested loop is counted per
// loop (its start is paid once, so this errs towards fewer rows). Every other node streams,
// and is taken to ask for the same share of its input as is asked of it: where unsure, fewer
// rows, so a node or a marker missed, never one that does not pay.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "nodes/plannodes.h"
#include "utils/relcache.h"
}

namespace hotplus {

struct Demand
{
	double fraction = 1;  // the share of its rows the plan above asks of the node
	double processes = 1; // the processes a parallel scan's rows are divided among
};

// What `plan` asks of its child `input`, asked `demand` itself.
Demand input_demand(Plan *plan, Plan *input, const Demand &demand);

// Starts a planning: rows_read() takes a table's rows from the planner's estimate made since
// (set_rel_pathlist_hook), else asks them once (an lseek) until the next call.
void begin_planning();
// Chains the set_rel_pathlist_hook; from _PG_init.
void plan_demand_init();

// The rows a scan of `rel` reads and deforms: a sequential scan reads every row of the table to
// filter it (seed 003's `WHERE col41 = 0`: 300,000 read, none returned); a bitmap heap scan the
// rows its bitmap names; an index or TID scan, as far as the plan tells, the rows it returns
// (its index conditions are not its input's filter: a lower bound). Then only the share the
// plan above asks for. Unbounded under hotplus.read_path_everywhere.
double rows_read(Scan *scan, Relation rel, const Demand &demand);

// The rows one of a node's expression lists is evaluated on: a scan's filter on the rows it
// reads, its output list on the rows it returns; a join's quals on (at least) the rows of its
// outer input, its output list on the rows it returns; an aggregate's, a window's, a
// projection's lists on the rows of its input.
double rows_evaluated(PlannedStmt *stmt, Plan *plan, const List *list, const Demand &demand);

} // namespace hotplus
