// The hand-over: heap_update() writes the update, with hotplus's decision.
//
// In order: the new version's final form (with the reused TOAST datums) goes into the slot,
// which frees the tuple every cache of the row change and the decision points into; with
// hotplus.verify (for the updates its sample rate draws), the reused datums are compared with
// the values the statement wrote; then, only if the core allowed HOT where heap would not
// (some column heap's HOT check reads differs as stored, or heap reads more columns than the
// indexes do) and the entry still describes the relation (an invalidation processed while
// evaluating may mean a new index: relation_info.hpp invariant 2), the verifier rechecks every
// index and heap_update() runs with an empty HOT-blocking set (hot_blocking_override.hpp);
// otherwise heap decides alone.
//
// Invariants:
//  1. Any doubt declines: the relation changed meanwhile, the relcache's bitmaps could not be
//     made valid, the verifier's description no longer matches the decision's (verifier.hpp
//     invariant 4). Heap's own decision is always correct.
//  2. The override covers exactly one heap_update() call and is removed on every exit,
//     ERROR included (PG_FINALLY in a frame that owns nothing with a destructor).
#pragma once

#include "update/update_state.hpp"

namespace hotplus {

TM_Result hand_over(UpdateState *s);

} // namespace hotplus
