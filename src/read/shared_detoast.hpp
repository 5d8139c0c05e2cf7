// One detoasted copy per row of a column, shared by every reference that may use it (D14).
//
// A node of the read path (HotheapRead on a scan, HotheapProject below the node that consumes
// a scan's rows) compiles its expressions with the qualifying references to its shared columns
// (read_references.hpp) replaced by markers; each marker is an EEOP_PARAM_CALLBACK step that
// detoasts the row's value on first use into memory reset with the next row, and serves the
// same copy to every later reference of that row.
//
// Invariants:
//  1. A copy is made only of a value stored compressed or out of line (needs_detoasting()); a
//     short value is handed to the functions as stored, as heap hands it.
//  2. A copy lives until the owner's next row (shared_detoast_next_row()), its rescan and its
//     end: as long as heap's per-row memory, where a function's own detoasted copy lives.
//  3. Which references may be markers is read_references.hpp's rule, at plan time, so the
//     copy leaves a node only as heap's own function result would.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "nodes/execnodes.h"
#include "nodes/pg_list.h"
}

namespace hotplus {

struct SharedDetoast;

// One column read through a shared copy.
struct SharedColumn
{
	SharedDetoast *owner;
	AttrNumber attno; // 1-based, in the row the node reads (its scan or its input)
	uint64 row;		  // the owner's row the copy belongs to (0: none yet)
	Datum stored;	  // the datum as the row holds it
	Datum copy;		  // detoasted (== stored when it needed no detoasting)
};

struct SharedDetoast
{
	int nshared;
	SharedColumn *shared;
	bool from_outer;		  // the row is the expression context's outer tuple (else its scan tuple)
	uint64 row;				  // advanced for every row the node reads
	MemoryContext parent;	  // where row_memory is made
	MemoryContext row_memory; // the copies of the current row; made with the first one
	int64 values_detoasted;	  // copies made (EXPLAIN ANALYZE)
};

// Whether a datum is compressed or out of line (invariant 1).
bool needs_detoasting(Datum stored);

// A copy of exprs in which every qualifying reference to a column of shared_columns (IntList
// of attribute numbers of Vars with varno `varno`: a scan's relation, or OUTER_VAR) is a
// marker; made once at plan time (into custom_private), compiled by each execution's node.
List *with_shared_markers(List *exprs, int varno, List *shared_columns);

void shared_detoast_init(SharedDetoast *sd, List *shared_columns, MemoryContext parent, bool from_outer);

// The next row (invariant 2).
inline void
shared_detoast_next_row(SharedDetoast *sd)
{
	if (sd->row_memory != nullptr)
		MemoryContextReset(sd->row_memory);
	++sd->row;
}

void shared_detoast_end(SharedDetoast *sd);

// Whether a shared column of `row` is stored compressed or out of line.
bool shared_detoast_needed(const SharedDetoast *sd, TupleTableSlot *row);

// Compiles `qual` and `tlist` (marked) as ps's filter and projection, the markers served by
// sd. A projection is built only where ps has one.
void shared_detoast_compile(SharedDetoast *sd, PlanState *ps, List *qual, List *tlist, TupleDesc input_desc);

} // namespace hotplus
