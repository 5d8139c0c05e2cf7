// What one update does to the jsonb parts indexes read (jsonb_parts.hpp: a top-level field
// read through `->` / `->>`): each part is one of the core's columns (natts + 1 + part), Same
// when its column is, or when the field's value is the same bytes in both versions of a
// changed document.
//
// Invariants:
//  1. A part is Same only by an exact comparison of the values under its key in the two
//     detoasted documents (jsonb_parts.hpp invariant 2), never by a prefix read, which can
//     only prove a difference (PartDifference).
//  2. With hotplus.check_expressions off, parts are never Same unless their column is:
//     expression inputs are whole columns, as in heap.
//  3. What is known of a part is kept for the update (UpdateScratch::part_state), so no
//     document is read twice for it.
#pragma once

#include "update/update_state.hpp"

namespace hotplus {

// What one update knows of a part of a column whose stored values differ
// (UpdateScratch::part_state): Unknown until looked at; NoProof once part_difference() found
// no difference (only an exact comparison can tell); Same and Changed by the exact comparison
// (part_is_same) or the proof; ChangedAsScalars: both strings or both booleans of other
// bytes, so `col ->> key` and `col -> key` differ too (update_decision.cpp's probe).
enum PartState : uint8
{
	kPartUnknown = 0,
	kPartNoProof,
	kPartSame,
	kPartChanged,
	kPartChangedAsScalars,
};

bool guessed_part_proved_different(UpdateState *s, AttrNumber att);

// Whether a jsonb part of column att that index `s->guess` reads is proved to differ,
// reading each document only up to that field: then the documents differ, and the row change
// counts the column Changed without comparing them in full. Inline: no guess, no call.
inline bool
guessed_part_differs(UpdateState *s, AttrNumber att)
{
	return s->guess >= 0 && guessed_part_proved_different(s, att);
}

// The change of every part, the parts of one column compared in one pass over both
// documents (compare_parts): what the core reads once it asks for more than the likely index.
void classify_parts(UpdateState *s);

// classify_parts() for the parts index `which` reads only, each by a binary search in both
// documents: all that core::decide_update_likely_first() reads before it asks for the rest.
void classify_index_parts(UpdateState *s, int which);

} // namespace hotplus
