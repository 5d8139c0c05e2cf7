// The values of an update's two versions, each varlena column detoasted (decompressed,
// fetched) at most once per version and update: the comparison of the row change, the jsonb
// parts and every expression of the decision read the same copy.
//
// Invariants:
//  1. A detoasted copy lives in the per-tuple memory of the entry's EState, and the caches
//     (UpdateScratch) are cleared with it by the check's cleanup (hot_update.cpp).
//  2. A copy of the new side points into memory of the new version as materialized in its
//     slot: nothing may read it once the final form is stored (hand_over.hpp).
//  3. Every old value met compressed or out of line is noted (UpdateScratch::old_extended),
//     for the read path once the update is done (hot_update.cpp).
//  4. A value stored compressed or out of line that the plan already detoasted through a
//     marker (the UPDATE's `jsonb_set(doc, ...)`, read/shared_markers.hpp) is not detoasted
//     again: its first read in the update takes a private copy of the marker's live copy,
//     made from the very same stored bytes (am/live_copies.hpp, take_live_copy), and every
//     later read of the update reads that, as if it had detoasted it.
#pragma once

#include "update/update_state.hpp"
#include "am/live_copies.hpp"

extern "C" {
#include "access/detoast.h"
}

namespace hotplus {

inline bool
in_line_uncompressed(Datum value)
{
	auto *ptr = reinterpret_cast<struct varlena *>(DatumGetPointer(value));
	return !VARATT_IS_EXTERNAL(ptr) && !VARATT_IS_COMPRESSED(ptr);
}

// Notes that column att's old value was stored compressed or out of line (invariant 3), once
// per update however often it is read (old_extended holds natts + 1).
inline void
note_old_extended(UpdateScratch &scratch, AttrNumber att)
{
	if (scratch.old_noted[att])
		return;
	scratch.old_noted[att] = true;
	scratch.old_extended[scratch.nold_extended++] = att;
}

// Keeps `detoasted` as the value of column att on `side` for the rest of the update.
inline void
remember_detoasted(UpdateScratch &scratch, int side, AttrNumber att, Datum detoasted)
{
	scratch.detoasted[side][att] = detoasted;
	scratch.is_detoasted[side][att] = true;
	scratch.any_detoasted[side] = true;
}

// After the old value of column att, stored compressed or out of line, was read as a prefix
// (jsonb_parts.hpp): notes it (invariant 3), and keeps the copy if the prefix took all of it
// (old_in_full, else 0), which is what detoasted_value() would make.
inline void
note_old_prefix_read(UpdateScratch &scratch, AttrNumber att, Datum old_in_full)
{
	note_old_extended(scratch, att);
	if (old_in_full != 0)
		remember_detoasted(scratch, kOld, att, old_in_full);
}

// The value as detoasted already in this update, or as the plan detoasted it (invariant 4:
// then it is this update's copy from now on), else as it is stored (then nothing was read).
inline Datum
as_read_so_far(RelationInfo *info, int side, AttrNumber att, Datum value)
{
	UpdateScratch &scratch = info->scratch;
	if (scratch.is_detoasted[side][att])
		return scratch.detoasted[side][att];
	if (in_line_uncompressed(value))
		return value;
	struct varlena *copy = take_live_copy(reinterpret_cast<struct varlena *>(DatumGetPointer(value)));
	if (copy == nullptr)
		return value;
	if (side == kOld)
		note_old_extended(scratch, att);
	remember_detoasted(scratch, side, att, PointerGetDatum(copy));
	return PointerGetDatum(copy);
}

// The value of a varlena column detoasted at most once per version and update, in the
// current (per-tuple) memory. Short and plain in-line values are returned as they are.
inline Datum
detoasted_value(RelationInfo *info, int side, AttrNumber att, Datum value)
{
	UpdateScratch &scratch = info->scratch;
	Datum result = as_read_so_far(info, side, att, value);
	if (scratch.is_detoasted[side][att])
		return result;
	if (!in_line_uncompressed(value))
	{
		result = PointerGetDatum(detoast_attr(reinterpret_cast<struct varlena *>(DatumGetPointer(value))));
		if (side == kOld)
			note_old_extended(scratch, att);
	}
	remember_detoasted(scratch, side, att, result);
	return result;
}

} // namespace hotplus
