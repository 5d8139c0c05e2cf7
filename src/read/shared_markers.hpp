// The planning side of one detoasted copy per row (D14b): in a finished plan, every reference
// that a shared copy may serve (read_references.hpp) to a toastable column of a hotheap table,
// in the expressions of whatever node evaluates it, is wrapped in a marker
// (shared_detoast.hpp), where the statement reads that column through two such references or
// more, or through one where the update check reads the old row's value too (an index input
// of the UPDATE's or MERGE's target: the check takes the copy, version_values.hpp), and the
// column's values are likely stored compressed or out of line (invariant 5).
//
// Invariants:
//  1. Nothing moves: every expression stays in its node, evaluated on the node's own rows, in
//     its own order, under its own CASE, COALESCE, AND, OR and FILTER; no node is added and no
//     tuple a node stores (Sort, Hash, Material, batches, spills) changes. Only the Var of a
//     qualifying reference is wrapped, and the marker returns a value its consumer reads as it
//     reads the stored one.
//  2. Where a node reads a column is traced to its stored form through nodes that pass values
//     on unchanged (joins' and upper nodes' Vars down to a scan, a subquery's output, each
//     child of an Append); a column traced to anything else (a computed value, another
//     table access method, a function's result) is left alone.
//  3. One group per node and column as the node reads it (its scan relation, its outer or its
//     inner input): the references of one group share the copy of a row.
//  4. A plan with markers depends on the marker function (invalidated when it changes) and on
//     the role that planned it (the role must be allowed to execute the function, checked at
//     planning, so a cached plan is planned again for another role).
//  5. The cost rule is core::marks_column(), over the column's readers (its references, and
//     the update check), the most rows a node evaluates one of its references on
//     (plan_demand.hpp) and the column's evidence (am/stored_form.hpp):
//     a one-row lookup gets markers only for a column this backend met stored compressed or
//     out of line, or of a table whose TOAST relation holds kilobytes per row. Under
//     hotplus.read_path_everywhere (tests), every such column gets them.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "nodes/plannodes.h"
}

namespace hotplus {

void place_shared_markers(PlannedStmt *stmt);

} // namespace hotplus
