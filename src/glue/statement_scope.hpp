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
#include "executor/tuptable.h"
#include "storage/itemptr.h"
#include "nodes/bitmapset.h"
#include "utils/relcache.h"
}

namespace hotplus {

// Chains the executor hooks; call once from _PG_init.
void statement_scope_init();

// The columns the running statement may change in rel (its target columns plus the stored
// generated columns that depend on them), offset by FirstLowInvalidHeapAttributeNumber as
// in RangeTblEntry.updatedCols. Returns false if that cannot be known for sure: no running
// statement, rel not among its result relations, or a BEFORE ROW UPDATE trigger (which may
// change any column).
bool statement_target_columns(Relation rel, Bitmapset **columns);

// The executor's own copy of the version at otid, if the running statement fetched it into
// its result relation's old-tuple slot (UPDATE and MERGE do, to build the new version): a
// buffer slot holding exactly the page tuple at otid, still pinned, so its data is the data
// heap_update() will see. nullptr otherwise; the caller then reads otid itself.
TupleTableSlot *statement_old_version(Relation rel, ItemPointer otid);

} // namespace hotplus
