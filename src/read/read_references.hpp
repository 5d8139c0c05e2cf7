// Which references to a column one shared detoasted copy may serve (D14b).
//
// A reference qualifies when it is passed straight (or through a binary-compatible
// relabeling) to a built-in function that reads its argument's value: such a function
// detoasts the argument itself, and gives the same answer for a detoasted copy. Excluded:
// the functions that report how a value is stored (pg_column_size, pg_column_compression,
// pg_column_toast_chunk_id), every function that is not built in (it may look at storage),
// and every other context (a bare output column, CASE results, ...), where the column's
// stored datum is used as it is. And no reference anywhere below a call of such a function
// or inside a subplan's arguments qualifies: a built-in function may return its argument
// (NULLIF, a length coercion to varchar(n)), which would carry the copy into it (a subplan's
// arguments become its parameters' values). Aggregates' and window functions' arguments are
// expressions like any other: the node evaluates them on its input rows.
// Nor does an argument a function may return as it received it, without detoasting it
// (NULLIF's first, every argument of array_larger and the others listed in
// read_references.cpp): served from a copy, the function would return the copy where heap's
// returns the stored datum (another pg_column_size(), another compression in a table it is
// inserted into).
//
// The planner (shared_markers.hpp) finds the qualifying references with these functions and
// wraps them in markers, once, in the finished plan.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
}

namespace hotplus {

// The argument list of `node` if it is a call of a built-in function that detoasts its
// arguments, else NIL; only the arguments from position *first on qualify (the others may be
// returned as they were passed).
List *detoasting_arguments(Node *node, int *first);

// Whether nothing below `node` may be served from a shared copy (see above).
bool hides_storage(Node *node);

// Whether `function` is a built-in function that reads its arguments' values and never
// returns one of them as it received it: a call of it gives the same result whatever form
// (stored, detoasted) its arguments come in.
bool value_function(Oid function);

// Whether the result of `consumer` (a call detoasting_arguments() lists arguments of) may be
// one of its arguments or point into one: a by-reference result, unless the function is
// known to make it anew; a set-returning call (its state lives across calls). Its copy then
// lives as long as the result must (core/shared_copy.hpp, "aliases").
bool result_may_alias(Node *consumer);

// The Var of a user column (varno: a scan's relation, or OUTER_VAR/INNER_VAR for a plan node's
// input) that `arg` is, possibly under a RelabelType; else nullptr.
Var *scanned_column(Node *arg, int varno);

} // namespace hotplus
