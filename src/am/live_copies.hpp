// The backend's live detoasted copies, found by the stored bytes they were made from: the read
// path's markers register the copies they make (read/shared_detoast.hpp), so that another
// reader of the same value in the same backend uses one instead of detoasting it again:
// another marker's group (core/shared_copy.hpp), and the update check, which reads the old
// row's values after the UPDATE's plan did (update/version_values.hpp invariant 4). Here, in
// the lowest folder both paths may include.
//
// Invariants:
//  1. A registered copy is alive: its owner unregisters it before its memory goes (a reset
//     callback of the context it lives in, or before freeing it).
//  2. A copy is identified by the stored bytes it was made from, a private copy of a
//     compressed value's bytes or of an out-of-line value's TOAST pointer, compared in full
//     (live_copy_made_from): equal stored bytes detoast to equal values, whatever row holds
//     them. An out-of-line value's pointer names one value while any snapshot of the backend
//     may see it (TOAST OIDs are checked against every index entry, dead or alive, before
//     reuse). Its value is detoast_attr()'s, the bytes heap's own detoast would have made.
//  3. At most kLiveCopies are registered, the most recent kept: one pushed out only stops
//     being found.
#pragma once

#include "am/pg.hpp"

namespace hotplus {

struct LiveCopy
{
	struct varlena *stored; // a private copy of the stored bytes it was made from
	Datum value;			// detoasted
	void *owner;			// the registering path's record of it
	bool registered;
};
static_assert(std::is_trivially_destructible_v<LiveCopy>); // on frames an ERROR may unwind

inline constexpr int kLiveCopies = 8;

void register_live_copy(LiveCopy *copy); // pushes the oldest out when full (invariant 3)
void unregister_live_copy(LiveCopy *copy); // a copy not registered is left alone

// Whether `copy` was made from exactly these stored bytes (invariant 2).
bool live_copy_made_from(const LiveCopy *copy, const struct varlena *stored);

// The most recent registered copy made from these stored bytes, or nullptr.
LiveCopy *live_copy_of(const struct varlena *stored);

// The bytes of a stored value a copy is identified by (an out-of-line value's TOAST pointer).
Size stored_identity_size(const struct varlena *stored);

// For the update check: a private copy, in the current memory context, of the value of the
// live copy made from these stored bytes (compressed or out of line), or nullptr when there is
// none or hotplus.read_path is off. Taken at once, so nothing the caller runs later (an index
// expression's function, which may run queries whose markers free copies) can free what it
// reads. Counted in live_copies_taken().
struct varlena *take_live_copy(const struct varlena *stored);
int64 live_copies_taken();

} // namespace hotplus
