// The row change: what one update does to the compared columns (every index input and
// every toastable column) that the running statement may set.
//
// In order: the new version is materialized in its slot; the old version is the executor's
// pinned copy of the page tuple at the TID when it has one, else read from the TID (pin and
// a short share lock, nothing evaluated under it; src/README.md D7); both are deformed up to
// the last compared column; each compared column the statement sets is Same (equal as
// stored), ImageEqual (equal after detoasting: the raw sizes are compared first, so nothing
// is fetched when they differ, nor when a jsonb field the likely index reads differs) or
// Changed (the other compared columns hold the old datums as stored: Same unread). A
// toastable ImageEqual column gets its old stored datum back (D8), which makes it Same as
// stored; the new version with those datums (its final form) is made here and stored into
// the slot only at the hand-over, once nothing reads the caches that point into the slot's
// current tuple (D8a).
//
// Invariants:
//  1. Reuse happens only where heap_form_tuple() stores the old datum byte for byte
//     (reuse_keeps_stored_bytes) and with the compression method heap would store the new
//     value with (reuse_keeps_compression): "Same" is then exact.
//  2. D8b: once a statement's first kUnequalFetchesBeforeGivingUp fetched comparisons of a
//     column all differed, the rest of the statement counts that column Changed unread.
//  3. Everything is read in the per-tuple memory of the entry's EState, except the final
//     form, made in the slot's own memory.
#pragma once

#include "update/update_state.hpp"

namespace hotplus {

// Reads the old version and classifies the compared columns into info->core->changes;
// false if there is no normal tuple at the TID (heap then decides and reports it).
bool row_change_read(UpdateState *s);

} // namespace hotplus
