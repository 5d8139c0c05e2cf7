// HotheapProject: the custom node the read path puts directly below a plan node that
// evaluates, on every row of its input, several calls over one toastable column of a hotheap
// table (an aggregate's arguments, a projection; D14b, consumer_pushdown.hpp). It hands up its
// input row followed by those calls' values, computed with one detoasted copy of the column
// per row (shared_detoast.hpp), and the node above reads the values instead of computing them.
//
// Invariants:
//  1. Its output is its input row, column for column (Vars of OUTER_VAR), then one column per
//     call; the node above reads the same input columns at the same positions as before.
//  2. It evaluates the calls on every row its input hands up, and the node above evaluated
//     them on every such row too, and reads the values before the next row replaces them
//     (it is the node's direct input: nothing stores a row between the two).
//  3. A computed value keeps the form the call gave it (a 4-byte header) in any tuple made
//     from its rows: its columns are declared of storage PLAIN in the node's result
//     descriptor, which heap_fill_tuple() does not pack. On heap the node above computes the
//     value after copying such a row, in the same form.
//  4. Rows, their order, rescans (with parameters), mark/restore and backward scans are its
//     input's.
//  5. With hotplus.read_path off when it starts, it evaluates the calls as they are.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "nodes/extensible.h"
#include "nodes/plannodes.h"
}

namespace hotplus {

inline constexpr const char *kProjectNodeName = "HotheapProject";

// custom_private of a HotheapProject plan.
enum ProjectPrivate
{
	kProjectShared,		  // IntList: input columns read through one detoasted copy per row
	kProjectSharedNames,  // List of String: their names, for EXPLAIN
	kProjectMarkedTlist,  // List: the output list with the shared columns' references as markers
	kProjectCount
};

// A HotheapProject over `input`, whose output list is `tlist` (input's columns, then the
// expressions, all reading the input as OUTER_VAR).
CustomScan *make_project_node(Plan *input, List *tlist, List *shared_columns, List *shared_names,
							  int plan_node_id);

bool is_project_node(const Plan *plan);

void project_node_init(); // _PG_init

} // namespace hotplus
