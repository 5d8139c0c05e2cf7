// One detoasted copy per row and column, made where the value is first read, in whatever plan
// node reads it (src/README.md D14b; the rule is core/shared_copy.hpp's).
//
// The planner (shared_markers.hpp) wraps each reference that one copy may serve, a column
// passed to a built-in function that reads its value (read_references.hpp), in a *marker*: a
// call of the extension's C function hotplus_shared_value(value, ticket), shown as its
// argument alone (an implicit cast) in EXPLAIN. The executor compiles it like any function
// call, in every node, with or without JIT, in parallel workers and in EvalPlanQual's copies
// of the plan; nothing else about the plan changes. The ticket says which *group* the
// reference belongs to (one column as one plan node reads it) and what its consumer does
// with a copy.
//
// Invariants (beside those of core/shared_copy.hpp):
//  1. Only a value stored compressed in line or out of line is ever copied (a short or
//     uncompressed value, an expanded or indirect one, is passed on as stored, as heap passes
//     it); the copy is detoast_attr()'s, the bytes heap's own call would have made.
//  2. A copy is made in the memory context the reference is evaluated in (where the consumer
//     would have made its own copy on heap), and only if that context is the group's
//     (fn_mcxt: the executor's per-query memory) or below it; a reset callback registered
//     there forgets it when the context is reset or deleted, before its memory goes.
//  3. A copy is identified by the stored bytes it was made from (am/live_copies.hpp, where it is
//     registered for other groups and the update check): a private copy of a compressed
//     value's bytes, or of an out-of-line value's TOAST pointer, compared in full. Rows do not
//     name it, nor does the stored datum's address, which a later row may reuse (a buffer, a
//     hash join batch reloaded, a slot's tuple freed and allocated again).
//  4. With hotplus.read_path off when it runs, a marker passes the stored value on.
//  5. A marker that makes a copy notes its column as met stored compressed or out of line
//     (once per group), the evidence the planner asks before it places markers over few rows.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "nodes/primnodes.h"
}

namespace hotplus {

// What a marker's ticket tells it beside its group.
struct MarkerUse
{
	bool result_may_alias; // its consumer's result may be the copy or point into it (core::CopyRequest)
	Oid relid;			   // the table its column is stored in (InvalidOid: several, an Append's)
	AttrNumber attno;	   // ... and the column, noted as met stored so (am/stored_form.hpp)
};

// Groups a statement's markers may have (the ticket's bits).
inline constexpr uint32 kMaxMarkerGroups = (1u << 20) - 1;

// The marker function's OID in the database (in the schema of hotheap's handler, the
// extension's), or InvalidOid when the database has none (an older version's objects).
Oid shared_value_function();

// Whether `node` is a marker (shared_value_function() was asked before).
bool is_marker(Node *node);

// A marker for `var`: a call of `function` (shared_value_function()) in group `group`.
Node *make_marker(Oid function, Var *var, uint32 group, const MarkerUse &use);

// What a marker's ticket says (is_marker(marker) holds).
struct MarkerTicket
{
	uint32 group;
	MarkerUse use;
};
MarkerTicket marker_ticket(FuncExpr *marker);

// The backend's counts since it started (hotplus_shared_detoast_counts()).
struct SharedDetoastCounts
{
	int64 copies_made;	   // values detoasted into a shared copy
	int64 copies_served;   // references served by a copy made for another reference, and
						   // update checks given one (am/live_copies.hpp)
	int64 passed_stored;   // stored values passed on because no copy could be tracked or used
};
SharedDetoastCounts shared_detoast_counts();

void shared_detoast_init(); // _PG_init

} // namespace hotplus
