// Selective deformation of a heap tuple held by a heap-tuple slot (D14, seed 003).
//
// Heap's deformer fills tts_values[0..n-1] to read column n. This one fills only the wanted
// columns, jumping to the first one by its fixed offset when the columns before it are
// fixed-width (and not NULL in the tuple), and walking the columns in between without
// storing them. In a tuple without NULLs it crosses a run of fixed-width columns in one
// step: once the run's first column is aligned, every column of the run lies at a constant
// distance from it (each column's alignment divides the first one's), so only
// variable-length columns are walked one by one.
//
// Invariants:
//  1. Afterwards tts_nvalid = last wanted column, every wanted column's value and null flag
//     is exactly what heap's deformer would have stored, and the slot's resume state (offset
//     after the last wanted column; compat_set_deform_resume_point()) lets heap's deformer
//     continue from there if anyone asks for more columns.
//  2. The columns below the last wanted one that are not wanted hold no value: only code
//     whose column needs are a subset of the wanted set may read the slot before it is
//     cleared or stored again. In assert-enabled builds those entries are poisoned.
//  3. Only called for a slot just stored (tts_nvalid == 0) holding a heap tuple.
//  4. Before reading anything, the node asks for every cache line from the tuple's start to
//     the end of the last wanted column at a fixed offset, in order: the lines heap's
//     deformer reads for the same columns, so never more memory than heap's. Reading the
//     header and then a few far columns waits for each line in turn, and leaves holes in
//     which the processor's stream prefetching does not see the scan's sequential pattern;
//     heap's deformer, reading every line, is followed by it. (Seed 003's sweep, 2 to 15 of
//     41 columns, PG15: 0.76-0.96x heap's speed without this, 1.73-2.21x with it; asking
//     only for the wanted columns' lines was no better than nothing.) The same lines are
//     asked for of the tuple as far from this one as this one is from the previous, when
//     that is within a page: a page filled in order is read at a constant stride (16 to 20
//     columns: 1.22x heap's speed without the guess, 1.34-1.40x with it). A wrong guess
//     costs prefetches. Prefetches never fault and change no value.
//     Under a sequential scan the node asks instead, at a page's first tuple, for the same
//     lines of every tuple the scan will return from that page (its visible tuples, listed
//     by the scan in page mode: heap's deformer reads them all): one tuple ahead was too
//     little to hide a line's latency. Seed 003's query on 19rc1: 1.66-1.70x heap's speed
//     with the guess, 1.84-1.88x with whole pages; on 15, 2.36-2.43x.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "access/tupdesc.h"
#include "executor/tuptable.h"
#include "nodes/pg_list.h"
#include "storage/bufpage.h"
}

namespace hotplus {

struct DeformColumn
{
	int16 attlen;
	bool attbyval;
	bool wanted;
	uint8 alignby;		 // alignment in bytes
	int32 fixed_offset; // offset in every tuple with no NULL before it, or -1
	// Fixed-width columns only: the column's offset from its run's first column, and the
	// run's last column (a run: consecutive fixed-width columns whose alignments divide the
	// first one's).
	int32 run_offset;
	int16 run_last;
	int16 next_wanted; // the first wanted column at or after this one (last_wanted + 1: none)
};

struct SelectiveDeform
{
	int first_wanted;		 // 0-based
	int last_wanted;		 // 0-based
	DeformColumn *columns; // [0 .. last_wanted]
	// Every wanted column lies at a fixed offset in a tuple without NULLs (seed 003's shape):
	// such a tuple is read at those offsets directly, column by column.
	bool all_fixed;
	int nwanted;
	int16 *wanted; // [nwanted], 0-based, ascending
	// Invariant 4: the bytes from a tuple's start to the end of the last wanted column at a
	// fixed offset (in a tuple without NULLs), or of the header.
	uint32 prefetch_end;
	uintptr_t previous_tuple; // the address of the last tuple deformed (invariant 4's guess)
	bool pages_prefetched;	  // the caller asks for whole pages (selective_deform_prefetch_page)
};

// Prepares deformation of the (1-based, ascending) columns in `wanted` of `desc`, in the
// current memory context. False when `wanted` names a column `desc` does not have.
bool selective_deform_init(SelectiveDeform *deform, TupleDesc desc, List *wanted);

void selective_deform(SelectiveDeform *deform, TupleTableSlot *slot);

// Invariant 4, for a scan entering a page: asks for the lines selective_deform() will read of
// each of the page's tuples at `offsets` (the ones the scan returns), before the first.
void selective_deform_prefetch_page(const SelectiveDeform *deform, Page page, const OffsetNumber *offsets, int count);

} // namespace hotplus
