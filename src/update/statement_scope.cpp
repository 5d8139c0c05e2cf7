#include "update/statement_scope.hpp"

extern "C" {
#include "executor/executor.h"
#include "nodes/execnodes.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
}

namespace hotplus {

namespace {

struct RunningStatement
{
	QueryDesc *query;
	RunningStatement *outer;
	uint64 serial;
	StatementUndo undo;
};
static_assert(std::is_trivially_destructible_v<RunningStatement>); // on frames an ERROR may unwind

RunningStatement *innermost = nullptr;
uint64 last_serial = 0;
ExecutorRun_hook_type previous_run = nullptr;
ExecutorFinish_hook_type previous_finish = nullptr;

void
push(RunningStatement *frame, QueryDesc *query)
{
	frame->query = query;
	frame->outer = innermost;
	frame->serial = ++last_serial;
	frame->undo = StatementUndo{nullptr, nullptr, query->estate != nullptr ? query->estate->es_query_cxt : nullptr};
	current_statement_serial = frame->serial;
	current_statement_undo = frame->undo.memory != nullptr ? &frame->undo : nullptr;
	innermost = frame;
}

// Also on ERROR (PG_FINALLY): the statement's executor state is still there.
void
pop(RunningStatement *frame)
{
	if (frame->undo.list != nullptr)
		frame->undo.undo(frame->undo.list);
	innermost = frame->outer;
	current_statement_serial = innermost != nullptr ? innermost->serial : 0;
	current_statement_undo = innermost != nullptr && innermost->undo.memory != nullptr ? &innermost->undo : nullptr;
}

// A SELECT (without data-modifying CTEs) updates nothing itself: its ExecutorRun needs no
// frame, so a point SELECT pays nothing here.
void
run_hook(COMPAT_EXECUTOR_RUN_PARAMS)
{
	if (query->operation == CMD_SELECT && !query->plannedstmt->hasModifyingCTE)
	{
		if (previous_run)
			previous_run(COMPAT_EXECUTOR_RUN_ARGS);
		else
			standard_ExecutorRun(COMPAT_EXECUTOR_RUN_ARGS);
		return;
	}
	RunningStatement frame;
	push(&frame, query);
	PG_TRY();
	{
		if (previous_run)
			previous_run(COMPAT_EXECUTOR_RUN_ARGS);
		else
			standard_ExecutorRun(COMPAT_EXECUTOR_RUN_ARGS);
	}
	PG_FINALLY();
	{
		pop(&frame);
	}
	PG_END_TRY();
}

// Only the ModifyTable nodes of data-modifying CTEs that ExecutorRun left unfinished run
// their updates in ExecutorFinish (ExecPostprocessPlan); the AFTER triggers it fires run
// their statements through SPI, each in a frame of its own. Every other statement's
// ExecutorFinish runs without a frame: updates under it, if any, are nobody's statement.
void
finish_hook(QueryDesc *query)
{
	if (query->estate == nullptr || query->estate->es_auxmodifytables == NIL)
	{
		if (previous_finish)
			previous_finish(query);
		else
			standard_ExecutorFinish(query);
		return;
	}
	RunningStatement frame;
	push(&frame, query);
	PG_TRY();
	{
		if (previous_finish)
			previous_finish(query);
		else
			standard_ExecutorFinish(query);
	}
	PG_FINALLY();
	{
		pop(&frame);
	}
	PG_END_TRY();
}

// The result relations of estate for rel, in *first (the first one) and *count. False if
// one of them cannot say what it changes (no range table entry and no root to map from).
bool
find_result_relations(List *result_relations, Relation rel, ResultRelInfo **first, int *count)
{
	ListCell *lc;
	foreach (lc, result_relations)
	{
		ResultRelInfo *rri = static_cast<ResultRelInfo *>(lfirst(lc));
		if (rri->ri_RelationDesc != rel)
			continue;
		if (rri->ri_RangeTableIndex == 0 && rri->ri_RootResultRelInfo == nullptr)
			return false;
		if ((*count)++ == 0)
			*first = rri;
	}
	return true;
}

// The columns rri may change: its target columns and the stored generated columns that
// depend on them; the executor's own set when there are no generated ones (no copy).
Bitmapset *
changed_columns(ResultRelInfo *rri, EState *estate)
{
	Bitmapset *updated = ExecGetUpdatedCols(rri, estate);
	Bitmapset *extra = ExecGetExtraUpdatedCols(rri, estate);
	return bms_is_empty(extra) ? updated : bms_union(updated, extra);
}

} // namespace

uint64 current_statement_serial = 0;

StatementUndo *current_statement_undo = nullptr;

uint64
transaction_scope_serial()
{
	// Local transaction ids wrap after 2^32 transactions; a fact learned that long ago under
	// the same id is the same fact (outside a statement nothing about the statement is known:
	// no target columns, no result relation), and D8b's counters only steer what is compared.
	return (uint64{1} << 63) | compat_local_transaction_id();
}

void
statement_scope_init()
{
	previous_run = ExecutorRun_hook;
	ExecutorRun_hook = run_hook;
	previous_finish = ExecutorFinish_hook;
	ExecutorFinish_hook = finish_hook;
}

bool
statement_relation(Relation rel, StatementRelation *out)
{
	RunningStatement *frame = innermost;
	if (frame == nullptr || frame->query->estate == nullptr)
		return false;
	EState *estate = frame->query->estate;
	// What is made here (a union, a partition's columns mapped from its root's) lives as
	// long as the statement.
	MemoryContext caller_context = MemoryContextSwitchTo(estate->es_query_cxt);
	ResultRelInfo *first = nullptr;
	int count = 0;
	bool known = find_result_relations(estate->es_opened_result_relations, rel, &first, &count) &&
				 find_result_relations(estate->es_tuple_routing_result_relations, rel, &first, &count) &&
				 count > 0;
	Bitmapset *columns = nullptr;
	if (known && count == 1)
		columns = changed_columns(first, estate);
	else if (known)
	{
		List *const lists[] = {estate->es_opened_result_relations, estate->es_tuple_routing_result_relations};
		for (List *list : lists)
		{
			ListCell *lc;
			foreach (lc, list)
			{
				ResultRelInfo *rri = static_cast<ResultRelInfo *>(lfirst(lc));
				if (rri->ri_RelationDesc == rel)
					columns = bms_add_members(columns, changed_columns(rri, estate));
			}
		}
	}
	MemoryContextSwitchTo(caller_context);
	out->targets_known = known && !(rel->trigdesc != nullptr && rel->trigdesc->trig_update_before_row);
	out->targets = columns;
	out->result_rel = first;
	return true;
}

namespace {

// slot, if it holds exactly the page tuple at otid of rel, still pinned (so its data cannot
// change); nullptr otherwise.
TupleTableSlot *
pinned_page_tuple(TupleTableSlot *slot, Relation rel, ItemPointer otid)
{
	if (slot == nullptr || TTS_EMPTY(slot) || !TTS_IS_BUFFERTUPLE(slot))
		return nullptr;
	auto *bslot = reinterpret_cast<BufferHeapTupleTableSlot *>(slot);
	if (!BufferIsValid(bslot->buffer) || bslot->base.tuple == nullptr ||
		ItemPointerGetBlockNumberNoCheck(&bslot->base.tuple->t_self) != ItemPointerGetBlockNumberNoCheck(otid) ||
		ItemPointerGetOffsetNumberNoCheck(&bslot->base.tuple->t_self) != ItemPointerGetOffsetNumberNoCheck(otid) ||
		BufferGetBlockNumber(bslot->buffer) != ItemPointerGetBlockNumber(otid) ||
		slot->tts_tableOid != RelationGetRelid(rel))
		return nullptr;
	return slot;
}

} // namespace

TupleTableSlot *
statement_old_version(ResultRelInfo *result_rel, Relation rel, ItemPointer otid)
{
	if (result_rel == nullptr)
		return nullptr;
	// UPDATE and MERGE fetch the old version into the old-tuple slot; INSERT ... ON CONFLICT
	// DO UPDATE locks the conflicting one into its own slot.
	if (TupleTableSlot *slot = pinned_page_tuple(result_rel->ri_oldTupleSlot, rel, otid))
		return slot;
	return result_rel->ri_onConflict != nullptr ? pinned_page_tuple(result_rel->ri_onConflict->oc_Existing, rel, otid)
												: nullptr;
}

} // namespace hotplus
