#include "read/selective_deform.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "executor/tuptable.h"
}

namespace hotplus {

namespace {

uint8
alignment_of(char attalign)
{
	switch (attalign)
	{
		case TYPALIGN_CHAR:
			return 1;
		case TYPALIGN_SHORT:
			return ALIGNOF_SHORT;
		case TYPALIGN_INT:
			return ALIGNOF_INT;
		default:
			return ALIGNOF_DOUBLE;
	}
}

inline uint32
align_to(uint32 offset, uint8 alignby)
{
	return TYPEALIGN(alignby, offset);
}

// The size the processor moves memory in: one prefetch per this many bytes of a range asks
// for every line of it. (PG_CACHE_LINE_SIZE, 128, is a padding size, not this.)
constexpr uint32 kCacheLine = 64;

// A tuple without NULLs stores its data here (no null bitmap: t_hoff = MAXALIGN of the header).
constexpr uint32 kDataWithoutNulls = MAXALIGN(SizeofHeapTupleHeader);

// Invariant 4.
// An address, not a pointer: the guessed tuple may not exist (a prefetch never faults).
inline void
prefetch_wanted_lines(const SelectiveDeform *deform, uintptr_t tuple, uint32 length)
{
	const uint32 end = Min(length, deform->prefetch_end);
	for (uint32 at = 0; at < end; at += kCacheLine)
		__builtin_prefetch(reinterpret_cast<const void *>(tuple + at));
	// The last line, when the tuple starts within a line.
	__builtin_prefetch(reinterpret_cast<const void *>(tuple + end - 1));
}

inline bool
null_in(const uint8 *bitmap, int column)
{
	return !(bitmap[column >> 3] & (1 << (column & 0x07)));
}

// Past one stored (not NULL) column that starts at `offset` before alignment, storing its
// value if it is wanted: returns where the next column starts before alignment. Offsets
// cached at init are used while `slow` is false (no NULL and no variable-length column
// passed yet), as heap's deformer uses attcacheoff.
inline uint32
step_over(const DeformColumn &att, int column, char *data, uint32 offset, bool slow, Datum *values, bool *isnull)
{
	if (!slow && att.fixed_offset >= 0)
		offset = static_cast<uint32>(att.fixed_offset);
	else if (att.attlen == -1 && VARATT_NOT_PAD_BYTE(data + offset))
		; // a short-header varlena is never padded
	else
		offset = align_to(offset, att.alignby);
	if (att.wanted)
	{
		values[column] = fetch_att(data + offset, att.attbyval, att.attlen);
		isnull[column] = false;
	}
	return att_addlength_pointer(offset, att.attlen, data + offset);
}

// Invariants 1 and 2: the slot's deformed state, and (assert-enabled builds) the columns not
// wanted poisoned.
void
finish(const SelectiveDeform *deform, TupleTableSlot *slot, uint32 offset)
{
	const int last = deform->last_wanted;
#ifdef USE_ASSERT_CHECKING
	for (int column = 0; column < last; ++column)
		if (!deform->columns[column].wanted)
		{
			slot->tts_values[column] = (Datum) 0x7F7F7F7F7F7F7F7F;
			slot->tts_isnull[column] = false;
		}
#endif
	slot->tts_nvalid = static_cast<AttrNumber>(last + 1);
	compat_set_deform_resume_point(reinterpret_cast<HeapTupleTableSlot *>(slot), offset);
}

// Each column's length, alignment and fixed offset, up to `last`. Offsets are fixed up to
// and including the first variable-length column (if it needs no padding): the same rule
// heap's deformer uses to fill attcacheoff.
void
describe_offsets(SelectiveDeform *deform, TupleDesc desc, int last)
{
	uint32 offset = 0;
	bool fixed = true;
	for (int i = 0; i <= last; ++i)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		DeformColumn &column = deform->columns[i];
		column.attlen = att->attlen;
		column.attbyval = att->attbyval;
		column.alignby = alignment_of(att->attalign);
		column.fixed_offset = -1;
		if (!fixed)
			continue;
		if (att->attlen > 0)
		{
			offset = align_to(offset, column.alignby);
			column.fixed_offset = static_cast<int32>(offset);
			offset += att->attlen;
		}
		else
		{
			if (att->attlen == -1 && align_to(offset, column.alignby) == offset)
				column.fixed_offset = static_cast<int32>(offset);
			fixed = false;
		}
	}
}

// Runs of fixed-width columns up to `last`: a column starts a new run after a
// variable-length column or when its alignment does not divide the run's first column's.
void
describe_runs(SelectiveDeform *deform, int last)
{
	int run_start = -1;
	uint32 run_length = 0;
	for (int i = 0; i <= last; ++i)
	{
		DeformColumn &column = deform->columns[i];
		if (column.attlen <= 0)
		{
			run_start = -1;
			continue;
		}
		if (run_start < 0 || deform->columns[run_start].alignby % column.alignby != 0)
		{
			run_start = i;
			run_length = 0;
			column.run_offset = 0;
		}
		else
			column.run_offset = static_cast<int32>(align_to(run_length, column.alignby));
		run_length = column.run_offset + column.attlen;
	}
	for (int i = last; i >= 0; --i)
	{
		DeformColumn &column = deform->columns[i];
		if (column.attlen <= 0)
			continue;
		const bool run_goes_on = i < last && deform->columns[i + 1].attlen > 0 && deform->columns[i + 1].run_offset != 0;
		column.run_last = run_goes_on ? deform->columns[i + 1].run_last : static_cast<int16>(i);
	}
}

} // namespace

bool
selective_deform_init(SelectiveDeform *deform, TupleDesc desc, List *wanted)
{
	if (wanted == NIL)
		return false;
	const int first = linitial_int(wanted) - 1;
	const int last = llast_int(wanted) - 1;
	if (first < 0 || last >= desc->natts)
		return false;
	deform->first_wanted = first;
	deform->last_wanted = last;
	// One more entry: a sentinel whose next_wanted ends the walk over wanted columns.
	deform->columns = static_cast<DeformColumn *>(palloc0(sizeof(DeformColumn) * (last + 2)));
	describe_offsets(deform, desc, last);

	deform->nwanted = list_length(wanted);
	deform->wanted = static_cast<int16 *>(palloc(sizeof(int16) * deform->nwanted));
	deform->all_fixed = true;
	for (ListCell *cell = list_head(wanted); cell != nullptr; cell = lnext(wanted, cell))
	{
		const int i = lfirst_int(cell) - 1;
		deform->columns[i].wanted = true;
		deform->wanted[list_cell_number(wanted, cell)] = static_cast<int16>(i);
		deform->all_fixed &= deform->columns[i].fixed_offset >= 0;
	}
	int next = last + 1;
	deform->columns[last + 1].next_wanted = static_cast<int16>(next);
	for (int i = last; i >= 0; --i)
	{
		if (deform->columns[i].wanted)
			next = i;
		deform->columns[i].next_wanted = static_cast<int16>(next);
	}
	describe_runs(deform, last);

	deform->previous_tuple = 0;
	deform->pages_prefetched = false;
	deform->prefetch_end = kDataWithoutNulls;
	for (int w = 0; w < deform->nwanted; ++w)
	{
		const DeformColumn &att = deform->columns[deform->wanted[w]];
		if (att.fixed_offset >= 0)
			deform->prefetch_end = kDataWithoutNulls + att.fixed_offset + Max(att.attlen, 1);
	}
	return true;
}

void
selective_deform_prefetch_page(const SelectiveDeform *deform, Page page, const OffsetNumber *offsets, int count)
{
	for (int i = 0; i < count; ++i)
	{
		ItemId item = PageGetItemId(page, offsets[i]);
		if (ItemIdIsNormal(item))
			prefetch_wanted_lines(deform, reinterpret_cast<uintptr_t>(page) + ItemIdGetOffset(item), ItemIdGetLength(item));
	}
}

// One function over 100 lines on purpose: the per-row loop of every scan the read path
// serves, whose branches share the walk's state (the offset, the column, the null bitmap),
// kept in one frame (src/README.md D14c: selective deformation saves about 29 instructions
// per row and column skipped, which calls per row would eat into).
void
selective_deform(SelectiveDeform *deform, TupleTableSlot *slot)
{
	Assert(slot->tts_nvalid == 0 && (TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot)));
	auto *heap_slot = reinterpret_cast<HeapTupleTableSlot *>(slot);
	HeapTuple tuple = heap_slot->tuple;
	HeapTupleHeader header = tuple->t_data;
	const uintptr_t start = reinterpret_cast<uintptr_t>(header);
	if (!deform->pages_prefetched)
	{
		prefetch_wanted_lines(deform, start, tuple->t_len);
		const intptr_t stride = static_cast<intptr_t>(start - deform->previous_tuple);
		if (stride != 0 && stride > -BLCKSZ && stride < BLCKSZ)
			prefetch_wanted_lines(deform, start + stride, tuple->t_len);
		deform->previous_tuple = start;
	}
	const bool hasnulls = HeapTupleHasNulls(tuple);
	const uint8 *bitmap = header->t_bits;
	char *data = reinterpret_cast<char *>(header) + header->t_hoff;
	Datum *values = slot->tts_values;
	bool *isnull = slot->tts_isnull;
	const int stored = HeapTupleHeaderGetNatts(header);
	const int last = deform->last_wanted;
	if (deform->all_fixed && !hasnulls && stored > last)
	{
		// The offsets cached at init hold for every column up to the last wanted one.
		for (int w = 0; w < deform->nwanted; ++w)
		{
			const int k = deform->wanted[w];
			const DeformColumn &att = deform->columns[k];
			values[k] = fetch_att(data + att.fixed_offset, att.attbyval, att.attlen);
			isnull[k] = false;
		}
		const DeformColumn &end = deform->columns[last];
		finish(deform, slot, att_addlength_pointer(static_cast<uint32>(end.fixed_offset), end.attlen,
												   data + end.fixed_offset));
		return;
	}
	const int walk_to = Min(last, stored - 1);

	// Start at the first wanted column when its offset is fixed and nothing before it is
	// NULL in this tuple; else at the first column. `offset` is always the end of the
	// columns passed: where the next column starts before alignment (a NULL column takes no
	// space, so the next one aligns from there, not from the NULL column's fixed offset).
	int column = 0;
	uint32 offset = 0;
	const int first = deform->first_wanted;
	if (deform->columns[first].fixed_offset >= 0 && first <= walk_to && first > 0)
	{
		bool null_before = false;
		if (hasnulls)
			for (int i = 0; i < first && !null_before; ++i)
				null_before = null_in(bitmap, i);
		if (!null_before)
		{
			const DeformColumn &before = deform->columns[first - 1];
			column = first;
			offset = static_cast<uint32>(before.fixed_offset) + before.attlen;
		}
	}
	bool slow = false; // a NULL or a variable-length column was passed: offsets not fixed
	while (!hasnulls && column <= walk_to)
	{
		const DeformColumn &att = deform->columns[column];
		if (att.attlen > 0)
		{
			// A run of fixed-width columns: its wanted ones, then past its end, in one step.
			const uint32 at = !slow && att.fixed_offset >= 0 ? static_cast<uint32>(att.fixed_offset)
															 : align_to(offset, att.alignby);
			const uint32 base = at - att.run_offset;
			const int run_last = Min(static_cast<int>(att.run_last), walk_to);
			for (int k = att.next_wanted; k <= run_last; k = deform->columns[k + 1].next_wanted)
			{
				const DeformColumn &wanted = deform->columns[k];
				values[k] = fetch_att(data + base + wanted.run_offset, wanted.attbyval, wanted.attlen);
				isnull[k] = false;
			}
			offset = base + deform->columns[run_last].run_offset + deform->columns[run_last].attlen;
			column = run_last + 1;
			continue;
		}
		offset = step_over(att, column, data, offset, slow, values, isnull);
		slow = true;
		++column;
	}
	for (; column <= walk_to; ++column)
	{
		const DeformColumn &att = deform->columns[column];
		if (hasnulls && null_in(bitmap, column))
		{
			if (att.wanted)
			{
				values[column] = (Datum) 0;
				isnull[column] = true;
			}
			slow = true;
			continue;
		}
		offset = step_over(att, column, data, offset, slow, values, isnull);
		if (att.attlen <= 0)
			slow = true;
	}
	// Columns the tuple does not store (added later): their missing value or NULL.
	for (column = Max(walk_to + 1, 0); column <= last; ++column)
		if (deform->columns[column].wanted)
			values[column] = getmissingattr(slot->tts_tupleDescriptor, column + 1, &isnull[column]);

	finish(deform, slot, offset);
}

} // namespace hotplus
