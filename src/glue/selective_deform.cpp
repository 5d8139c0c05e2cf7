#include "glue/selective_deform.hpp"

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

inline bool
null_in(const bits8 *bitmap, int column)
{
	return !(bitmap[column >> 3] & (1 << (column & 0x07)));
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
	deform->columns = static_cast<DeformColumn *>(palloc0(sizeof(DeformColumn) * (last + 1)));

	// Offsets are fixed up to and including the first variable-length column (if it needs
	// no padding): the same rule heap's deformer uses to fill attcacheoff.
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
		if (fixed)
		{
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
	for (ListCell *cell = list_head(wanted); cell != nullptr; cell = lnext(wanted, cell))
		deform->columns[lfirst_int(cell) - 1].wanted = true;
	return true;
}

void
selective_deform(const SelectiveDeform *deform, TupleTableSlot *slot)
{
	Assert(slot->tts_nvalid == 0 && (TTS_IS_BUFFERTUPLE(slot) || TTS_IS_HEAPTUPLE(slot)));
	auto *heap_slot = reinterpret_cast<HeapTupleTableSlot *>(slot);
	HeapTuple tuple = heap_slot->tuple;
	HeapTupleHeader header = tuple->t_data;
	const bool hasnulls = HeapTupleHasNulls(tuple);
	const bits8 *bitmap = header->t_bits;
	char *data = reinterpret_cast<char *>(header) + header->t_hoff;
	Datum *values = slot->tts_values;
	bool *isnull = slot->tts_isnull;
	const int stored = HeapTupleHeaderGetNatts(header);
	const int last = deform->last_wanted;
	const int walk_to = Min(last, stored - 1);

	// Start at the first wanted column when its offset is fixed and nothing before it is
	// NULL in this tuple; else at the first column.
	int column = 0;
	const int first = deform->first_wanted;
	if (deform->columns[first].fixed_offset >= 0 && first <= walk_to)
	{
		bool null_before = false;
		if (hasnulls)
			for (int i = 0; i < first && !null_before; ++i)
				null_before = null_in(bitmap, i);
		if (!null_before)
			column = first;
	}

	uint32 offset = 0;
	bool slow = false; // a NULL or a variable-length column was passed: offsets not fixed
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
		offset = att_addlength_pointer(offset, att.attlen, data + offset);
		if (att.attlen <= 0)
			slow = true;
	}
	// Columns the tuple does not store (added later): their missing value or NULL.
	for (column = Max(walk_to + 1, 0); column <= last; ++column)
		if (deform->columns[column].wanted)
			values[column] = getmissingattr(slot->tts_tupleDescriptor, column + 1, &isnull[column]);

#ifdef USE_ASSERT_CHECKING
	for (column = 0; column < last; ++column)
		if (!deform->columns[column].wanted)
		{
			values[column] = (Datum) 0x7F7F7F7F7F7F7F7F;
			isnull[column] = false;
		}
#endif
	slot->tts_nvalid = static_cast<AttrNumber>(last + 1);
	heap_slot->off = offset;
	slot->tts_flags |= TTS_FLAG_SLOW;
}

} // namespace hotplus
