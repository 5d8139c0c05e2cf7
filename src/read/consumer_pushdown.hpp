// The read path above the scan (D14b): expressions that a plan node evaluates on the rows of
// a hotheap scan (an aggregate's arguments, a join's output list and quals, a projection
// above the scan) are evaluated just below that node instead, by a HotheapProject node
// (project_node.hpp) that shares one detoasted copy of the column among them.
//
// After the standard planner and the scans' own HotheapRead nodes, for every plan node P
// that evaluates expressions on the rows its input(s) hand up, in the same pass, and for
// each input side of P:
//   - candidates are calls, in P's expressions, of built-in functions that read values
//     (read_references.hpp: value_function) and are immutable, whose one non-constant
//     argument is a column of the input that traces down, through nodes that pass values on
//     unchanged (sorts, joins, aggregates' grouping columns, Append, Gather, subquery
//     scans...), to a toastable column of a hotheap table;
//   - a candidate may move below P only if P evaluates it on every input row (an aggregate's
//     argument without FILTER, its FILTER, a projection's output without a qual), or if it
//     can raise no error whatever the row (jsonb field and path extraction, containment and
//     existence, length, octet_length, md5): moving it makes it run on every input row, and
//     heap would run it only on some (a join's matches, a CASE branch, a filtered
//     aggregate's rows);
//   - a column is worth it when its candidates' references would detoast it at least twice
//     per row on heap and the rows below are clearly fewer than the detoastings heap would
//     do there (core::push_below_consumer, with the planner's row estimates).
// The chosen expressions become output columns of a HotheapProject inserted between P and
// that input, and P reads them as Vars. Not done: a hash join's inner side (P reads it from
// the hash table, with no node in between), aggregates with grouping sets (their input is
// sorted again inside the node), window functions (their input is stored, and computed
// values would make the stored rows bigger than heap's), expressions over two columns.
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
