// The gate: what the settings, the relcache and the running statement settle before anything
// of the row is read, cheapest first:
//   1. hotplus.enabled off: heap's update as is;
//   2. the relation's entry could not be built validly, or an outer update uses it: heap's;
//   3. what the running statement does to the relation, learned at its first update here
//      (statement_scope.hpp) and kept for its others. On a relation with nothing to gain
//      (no toastable column, no expression or partial index) heap's decision is exact, and
//      only the index hints of a statement that sets the columns of two indexes or more can
//      gain (an ORM's full-row save; index_hints.hpp): otherwise heap's. A statement that
//      changes no compared column (nor any column heap's HOT check reads) leaves every one as
//      stored, and heap's decision is exact; one that changes only toastable columns no index
//      reads gains only by TOAST reuse, which needs an old value stored compressed or out of
//      line, or a new one out of line (reuse_cannot_gain);
//   4. otherwise the update is checked (row_change.hpp and on).
//
// Invariants:
//  1. The relcache computes its index bitmaps before the entry is validated: computing them
//     may accept invalidations, which must come before the entry is checked, not between the
//     decision and heap_update().
//  2. A statement's facts are taken for an update only when it comes in the statement's own
//     new-version slot (or its ON CONFLICT projection's): the executor fills that slot's
//     untargeted columns from the old version, which lets them count as Same unread. An
//     update in any other slot (C code updating rel under the statement) is compared as if
//     no statement were known (src/README.md D8c).
#pragma once

#include "update/update_state.hpp"

namespace hotplus {

enum class Gate
{
	HeapAlone,	   // heap decides, nothing read (steps 1-2)
	HeapByTargets, // heap decides, nothing read: the statement changes nothing to gain on (3)
	Check,		   // the update is checked, with *info
};

Gate update_gate(const UpdateArgs &a, RelationInfo **info);

} // namespace hotplus
