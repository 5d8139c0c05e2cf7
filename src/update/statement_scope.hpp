// Which statement is running, for the update path.
//
// The ExecutorRun of a statement that may update (anything but a plain SELECT), and the
// ExecutorFinish of one whose data-modifying CTEs run to completion there, push a frame for
// their statement and pop it on every exit, so the innermost frame is the innermost running
// statement that may update: the one whose plan calls the table AM. Nested statements
// (triggers, functions, SPI) push their own frames; a cursor's statement is only "running"
// inside its FETCH. Updates that come from no executor (the logical replication apply
// worker) see no frame: for them the running transaction is the scope of what is "once per
// statement" (statement_serial()). An update that C code makes directly (an extension's
// simple_table_tuple_update()) under some statement's frame is not that statement's: the
// caller tells it apart by its slot (update_gate.hpp invariant 2).
//
// Invariants:
//  1. The frame stack only ever holds frames of live C stack frames (PG_FINALLY pops).
//  2. statement_serial() changes whenever the innermost statement that may update does,
//     and, outside every such statement, whenever the transaction does: a fact cached with
//     one serial is never read in another statement or another executor-less transaction.
//  3. What a frame's StatementUndo lists is undone when the frame is popped, however the
//     statement ends.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "executor/execdesc.h"
#include "nodes/execnodes.h"
#include "executor/tuptable.h"
#include "storage/itemptr.h"
#include "nodes/bitmapset.h"
#include "utils/relcache.h"
}

namespace hotplus {

// Chains the executor hooks; call once from _PG_init.
void statement_scope_init();

// The innermost running statement's number, 0 outside any. Each statement run gets its own,
// never reused in the backend (nested statements have their own).
extern uint64 current_statement_serial;

// Outside every statement: the running transaction's number (its local transaction id with
// the top bit set, so it never equals a statement's).
uint64 transaction_scope_serial();

// The scope of the facts the update path learns "once per statement" (statement_relation(),
// D8b's counters): the innermost running statement, or, for updates from no statement, the
// running transaction. The apply worker applies each remote transaction in one local
// transaction (worker.c: begin_replication_step() starts it at the first change, the remote
// COMMIT ends it), so a replicated bulk UPDATE is one scope, as it was on the publisher,
// and the next transaction starts afresh; per change it would be a scope per row, in which
// D8b never stops a bulk rewrite's fetches. A value cached with a serial is the scope's as
// long as statement_serial() still returns it.
inline uint64
statement_serial()
{
	return current_statement_serial != 0 ? current_statement_serial : transaction_scope_serial();
}

// What the update path changed in the running statement's executor state and must put back
// before the statement's next update of a relation, and at the latest when the statement
// leaves its frame, also on ERROR (index_hints.hpp): a list kept by its owner in `memory`,
// the statement's own (es_query_cxt), undone by undo(list) when the frame is popped.
struct StatementUndo
{
	void (*undo)(void *list);
	void *list;
	MemoryContext memory;
};
static_assert(std::is_trivially_destructible_v<StatementUndo>);

// The innermost running statement's undo slot; nullptr outside every statement (the logical
// replication apply worker's updates) or when it has no executor state.
extern StatementUndo *current_statement_undo;

// What the innermost running statement does to one relation, from its executor state, in
// the statement's memory (valid while it runs). The caller keeps what it learns for the
// rest of the statement (update_gate.cpp, learn_statement()).
struct StatementRelation
{
	// The columns it may change (its target columns plus the stored generated columns that
	// depend on them), offset by FirstLowInvalidHeapAttributeNumber as in
	// RangeTblEntry.updatedCols; targets_known false if that cannot be known for sure: rel
	// not among its result relations, or a BEFORE ROW UPDATE trigger (which may change any
	// column).
	bool targets_known;
	Bitmapset *targets;
	ResultRelInfo *result_rel; // the first result relation of rel, or nullptr
};

// False outside a statement (the logical replication apply worker's updates). Walks the
// statement's result relations: call once per statement and relation.
bool statement_relation(Relation rel, StatementRelation *out);

// The executor's own copy of the version at otid, if the running statement fetched it into
// its result relation's old-tuple slot (UPDATE and MERGE do, to build the new version) or
// locked it into its ON CONFLICT slot (INSERT ... ON CONFLICT DO UPDATE does): a
// buffer slot holding exactly the page tuple at otid, still pinned, so its data is the data
// heap_update() will see. nullptr otherwise; the caller then reads otid itself.
// result_rel: StatementRelation.result_rel of the running statement.
TupleTableSlot *statement_old_version(ResultRelInfo *result_rel, Relation rel, ItemPointer otid);

} // namespace hotplus
