// The read path above the scan (D14b): calls that a plan node evaluates on every row of its
// input, over a toastable column of a hotheap table, are evaluated just below that node by a
// HotheapProject (project_node.hpp) that shares one detoasted copy of the column among them.
//
// A move is exact when the node above computes nothing else and nothing differently; each
// condition below is one way it could otherwise differ from heap:
//   - the statement is a SELECT without row locks (EvalPlanQual re-runs plans with whole-row
//     copies), and the node reads no whole row of that input (it would see the added columns);
//   - the node evaluates the call on every row its input hands up, in the same pass: an
//     argument of an aggregate without FILTER or a FILTER of a plain or sorted Agg (hashed
//     aggregation may spill its input rows to temporary files, so they must be heap's), or the
//     output list of a Result or SubqueryScan without a filter; and within that expression it
//     sits only below nodes that evaluate all of their children (function and operator
//     arguments, casts, ROW and ARRAY constructors: never below AND, OR, CASE, COALESCE, a row
//     comparison, a subscript or a subplan, which may skip it), so heap computes it on exactly
//     the same rows;
//   - the call cannot raise an error for any value of the column (jsonb field and path
//     extraction, containment and existence, length, octet_length, md5), so no row raises an
//     error, or another error first, where heap's would not;
//   - the column is read by at least two such calls (each one detoasts it on heap).
// The HotheapProject sits directly below the node, so no node stores its rows, and it keeps
// the computed values in their computed form in any tuple made of its rows (the first row of
// each group, which an Agg copies): functions such as pg_column_size() see heap's datums.
// Nothing else moves: joins (their output lists and quals run on matches only; a hash join
// may write its outer rows to batch files or skip the outer side entirely), hashed
// aggregates, grouping sets, window functions, calls that can fail, calls below conditional
// nodes.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "nodes/plannodes.h"
}

namespace hotplus {

// Adds the HotheapProject nodes of stmt (its plan tree and subplans); next_plan_node_id is
// the first unused plan node id, advanced past the ones used.
void push_consumers_down(PlannedStmt *stmt, int *next_plan_node_id);

} // namespace hotplus
