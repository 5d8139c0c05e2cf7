// The executor's hint to each index of an update that is not HOT: whether the update left its
// key unchanged. ExecInsertIndexTuples() passes it to aminsert as `indexUnchanged`
// (execIndexing.c, index_unchanged_by_update()), and btree then runs bottom-up deletion
// before it splits a leaf page, so the old versions of an unchanged key stop piling up. The
// executor decides from the statement's target columns alone, once per statement and index
// (IndexInfo's ii_CheckedUnchanged / ii_IndexUnchanged, 15 to 19 alike): an expression index
// over a column the statement sets, and every index whose column an ORM writes back with the
// same value, get "changed". hotplus knows each row's answer for the indexes it decided
// (update_decision.cpp, UpdateState::hints) and gives it to the row (src/README.md D16).
//
// Invariants:
//  1. A hint is given only after heap_update() wrote a version that needs every index's entry
//     (not HOT), only to the running statement's own result relation for the row it updates
//     (the update came in its new-version or ON CONFLICT slot: UPDATE, MERGE, INSERT ... ON
//     CONFLICT DO UPDATE), and only "unchanged", for an index the decision found unchanged;
//     every other index keeps the executor's own answer.
//  2. A hint lasts one row: before the statement's next update of the relation, whatever
//     path it takes, and when the statement leaves its frame (statement_scope.hpp, also on
//     ERROR), every IndexInfo hinted is put back as it was (the executor's own answer, or not
//     yet computed). A nested statement (a trigger's, a function's) has its own result
//     relations and frame: it neither sees nor undoes another statement's hints.
//  3. Updates from no statement (the logical replication apply worker, background workers)
//     get no hint: the executor's own answer stands.
//  4. An index is matched by OID between the executor's list (ExecOpenIndices(): the
//     relation's list when the statement started) and the decision's entry, which may have
//     been rebuilt since: an index in one list only gets no hint.
#pragma once

#include "update/update_state.hpp"

#include "update/statement_scope.hpp"

namespace hotplus {

void index_hints_put_back(Relation rel);

// Puts back the hints given to rel's result relation in the running statement; first thing
// in every update of rel (invariant 2). Inline: a test of one pointer when none were given.
inline void
index_hints_undo(Relation rel)
{
	if (current_statement_undo != nullptr && current_statement_undo->list != nullptr)
		index_hints_put_back(rel);
}

// Gives the hints of UpdateState::hints to the statement's result relation; after
// heap_update() returned a non-HOT update. Returns how many indexes were hinted unchanged.
int index_hints_give(const UpdateState *s);

} // namespace hotplus
