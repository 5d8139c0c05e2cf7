// The decision: which indexes the row change changes, as far as the update needs to know.
//
// With no index input differing as stored, heap's decision is exact (HOT if it fits), unless
// heap blocks HOT on more columns than the indexes really read (stock_blocks_more): nothing to
// decide. Otherwise, cheapest first:
//   1. an index found changed from the stored columns alone settles it: not HOT
//      (core::blocked_by_stored_columns);
//   2. a new version that cannot fit on the old page (its free space read only now) cannot
//      be HOT: nothing is evaluated; the update is decided only as far as the prechecks take
//      it, to count it as what it is, and in full for a random sample of the rest
//      (hotplus.page_full_sample_every), which the statistics extrapolate;
//   3. the core decides, the index the last decision for these target columns found changed
//      first (its jsonb fields read from prefixes of the documents), then, unless that one
//      changed, every jsonb field an index reads (part_changes.hpp) and the other indexes
//      (predicates before expressions, evaluation only as needed, every value detoasted at
//      most once per version; src/README.md D9a).
//
// Invariants:
//  1. Nothing is evaluated under a buffer lock, and every expression runs in the per-tuple
//     memory of the entry's EState, on a virtual slot of the version's detoasted inputs.
//  2. A C++ exception from the core declines (the decision is then void: heap decides) and
//     is counted; a probe's ERROR unwinds only frames that own nothing with a destructor.
//  3. The decision writes nothing: the hand-over alone acts on it.
#pragma once

#include "update/update_state.hpp"

namespace hotplus {

// Decides into s->decided / s->decision (and page_cannot_fit, page_full_unchecked,
// page_full_weight, beyond_stock_inputs, check_failed).
void decide(UpdateState *s);

} // namespace hotplus
