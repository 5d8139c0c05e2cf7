// Which statement is running, for the update path.
//
// ExecutorRun and ExecutorFinish (data-modifying CTEs are run to completion there) push a
// frame for their statement and pop it on every exit, so the innermost frame is the
// statement whose plan is calling the table AM. Nested statements (triggers, functions,
// SPI) push their own frames; a cursor's statement is only "running" inside its FETCH.
// Updates that come from no executor (the logical replication apply worker) see no frame.
//
// Invariant: the frame stack only ever holds frames of live C stack frames (PG_FINALLY pops).
#pragma once

#include "glue/pg.hpp"

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

// A number for the innermost running statement, 0 outside any. Each statement run gets its
// own, never reused in the backend, so a value cached with it is the running statement's as
// long as statement_serial() still returns it (nested statements have their own).
extern uint64 current_statement_serial;
inline uint64
statement_serial()
{
	return current_statement_serial;
}

// What the innermost running statement does to one relation, computed once per statement
// and relation, in the statement's memory (valid while it runs).
struct StatementRelation
{
	// The columns it may change (its target columns plus the stored generated columns that
	// depend on them), offset by FirstLowInvalidHeapAttributeNumber as in
	// RangeTblEntry.updatedCols; targets_known false if that cannot be known for sure: rel
	// not among its result relations, or a BEFORE ROW UPDATE trigger (which may change any
	// column).
	bool targets_known;
	Bitmapset *targets;
	ResultRelInfo *result_rel; // a result relation of rel with an old-tuple slot, or nullptr
};

// False outside a statement (the logical replication apply worker's updates).
bool statement_relation(Relation rel, StatementRelation *out);

// The executor's own copy of the version at otid, if the running statement fetched it into
// its result relation's old-tuple slot (UPDATE and MERGE do, to build the new version): a
// buffer slot holding exactly the page tuple at otid, still pinned, so its data is the data
// heap_update() will see. nullptr otherwise; the caller then reads otid itself.
// result_rel: StatementRelation.result_rel of the running statement.
TupleTableSlot *statement_old_version(ResultRelInfo *result_rel, Relation rel, ItemPointer otid);

} // namespace hotplus
