// Which references to a column one shared detoasted copy may serve (D14b): those where the
// marker runs exactly when, and exactly what, heap would: the function reading the column (its
// *consumer*) detoasts the whole value as soon as it is called, and it is called exactly when
// the column is not NULL.
//
// A reference qualifies when it is an argument, straight or under a binary-compatible
// relabeling, of a call (a function or operator) of a consumer that
//  - is built in (C code of the server: pg_proc.dat's functions, language internal), strict,
//    and reads values, not storage: not pg_column_size(), pg_column_compression() or
//    pg_column_toast_chunk_id(), nor a function that looks at its argument's type or
//    nullness only (pg_typeof(), pg_collation_for(), num_nulls(), num_nonnulls());
//  - reads the whole value of that argument whenever it is called: not the ones that answer
//    from the stored size or read a slice (texteq and textne with unequal lengths,
//    octet_length(), substr() and substring(), left(), starts_with() of text and bytea,
//    length() of text in a single-byte encoding: read in the server's source, varlena.c and
//    varchar.c, 15 to 19), where heap would fetch or decompress less, or nothing;
//  - never returns the argument as it received it, undetoasted (NULLIF's first argument,
//    array_larger() and the others listed in read_references.cpp): served from a copy, it
//    would return the copy where heap returns the stored datum (another pg_column_size(),
//    another compression in a table it is inserted into);
//  - has no other argument than non-NULL constants and the same column: strict, it is then
//    called exactly when the column is not NULL, which is when the (strict) marker runs. So a
//    marker never detoasts a value heap would not have: not where a NULL in another argument
//    spares the call, nor under a CASE, COALESCE, AND or OR that skips it (the marker is
//    evaluated as that argument, in its place).
// Nothing below a call of a function that is not built in, of one that reads storage, or
// inside a subplan's arguments qualifies (a built-in function may return its argument, a
// length coercion to varchar(n), which would carry the copy into it; a subplan's arguments
// become its parameters' values). Aggregates' and window functions' arguments are expressions
// like any other: the node evaluates them on its input rows.
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

// The arguments of `call` if it is a call of a consumer (above) whose arguments may qualify,
// else NIL; argument_qualifies() says which.
List *consumer_arguments(Node *call);

// Whether argument `position` of `call` (consumer_arguments() listed it) qualifies.
bool argument_qualifies(Node *call, int position);

// Whether nothing below `node` may be served from a shared copy (see above).
bool hides_storage(Node *node);

// Whether the result of `call` may be one of its arguments or point into one: a by-reference
// result, unless the function is known to make it anew; a set-returning call (its state lives
// across calls). Its copy then lives as long as the result must (core/shared_copy.hpp,
// "aliases").
bool result_may_alias(Node *call);

// The Var of a user column (varno: a scan's relation, or OUTER_VAR/INNER_VAR for a plan node's
// input) that `arg` is, possibly under a RelabelType; else nullptr.
Var *scanned_column(Node *arg, int varno);

} // namespace hotplus
