#include "glue/statement_scope.hpp"

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
	// One-entry cache of statement_target_columns() for this frame.
	Oid cached_relid;
	bool cached_known;
	Bitmapset *cached_columns;
	ResultRelInfo *cached_result_rel; // one result relation of rel with an old-tuple slot
};

RunningStatement *innermost = nullptr;
ExecutorRun_hook_type previous_run = nullptr;
ExecutorFinish_hook_type previous_finish = nullptr;

void
push(RunningStatement *frame, QueryDesc *query)
{
	frame->query = query;
	frame->outer = innermost;
	frame->cached_relid = InvalidOid;
	frame->cached_known = false;
	frame->cached_columns = nullptr;
	frame->cached_result_rel = nullptr;
	innermost = frame;
}

void
run_hook(COMPAT_EXECUTOR_RUN_PARAMS)
{
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
		innermost = frame.outer;
	}
	PG_END_TRY();
}

void
finish_hook(QueryDesc *query)
{
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
		innermost = frame.outer;
	}
	PG_END_TRY();
}

// Adds the columns every result relation of estate for rel may change. False if one of
// them cannot say (no range table entry and no root to map from).
bool
collect_from(List *result_relations, EState *estate, Relation rel, bool *found, Bitmapset **columns,
			 ResultRelInfo **with_old_slot)
{
	ListCell *lc;
	foreach (lc, result_relations)
	{
		ResultRelInfo *rri = static_cast<ResultRelInfo *>(lfirst(lc));
		if (rri->ri_RelationDesc != rel)
			continue;
		if (*with_old_slot == nullptr)
			*with_old_slot = rri;
		if (rri->ri_RangeTableIndex == 0 && rri->ri_RootResultRelInfo == nullptr)
			return false;
		*found = true;
		*columns = bms_add_members(*columns, ExecGetUpdatedCols(rri, estate));
		*columns = bms_add_members(*columns, ExecGetExtraUpdatedCols(rri, estate));
	}
	return true;
}

// Fills the frame's cache for rel.
RunningStatement *
frame_for(Relation rel)
{
	RunningStatement *frame = innermost;
	if (frame == nullptr || frame->query->estate == nullptr)
		return nullptr;
	if (frame->cached_relid == RelationGetRelid(rel))
		return frame;

	EState *estate = frame->query->estate;
	// In the statement's memory: the result lives as long as the frame's cache.
	MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);
	Bitmapset *result = nullptr;
	bool found = false;
	ResultRelInfo *rri = nullptr;
	bool known = collect_from(estate->es_opened_result_relations, estate, rel, &found, &result, &rri) &&
				 collect_from(estate->es_tuple_routing_result_relations, estate, rel, &found, &result, &rri) &&
				 found;
	MemoryContextSwitchTo(old);

	frame->cached_relid = RelationGetRelid(rel);
	frame->cached_known = known;
	frame->cached_columns = result;
	frame->cached_result_rel = rri;
	return frame;
}

} // namespace

void
statement_scope_init()
{
	previous_run = ExecutorRun_hook;
	ExecutorRun_hook = run_hook;
	previous_finish = ExecutorFinish_hook;
	ExecutorFinish_hook = finish_hook;
}

bool
statement_target_columns(Relation rel, Bitmapset **columns)
{
	if (rel->trigdesc != nullptr && rel->trigdesc->trig_update_before_row)
		return false;
	RunningStatement *frame = frame_for(rel);
	if (frame == nullptr)
		return false;
	*columns = frame->cached_columns;
	return frame->cached_known;
}

TupleTableSlot *
statement_old_version(Relation rel, ItemPointer otid)
{
	RunningStatement *frame = frame_for(rel);
	if (frame == nullptr || frame->cached_result_rel == nullptr)
		return nullptr;
	TupleTableSlot *slot = frame->cached_result_rel->ri_oldTupleSlot;
	if (slot == nullptr || TTS_EMPTY(slot) || !TTS_IS_BUFFERTUPLE(slot))
		return nullptr;
	// Only the page tuple at otid itself, still pinned by the slot: its data cannot change.
	auto *bslot = reinterpret_cast<BufferHeapTupleTableSlot *>(slot);
	if (!BufferIsValid(bslot->buffer) || bslot->base.tuple == nullptr ||
		!ItemPointerEquals(&bslot->base.tuple->t_self, otid) ||
		BufferGetBlockNumber(bslot->buffer) != ItemPointerGetBlockNumber(otid) ||
		slot->tts_tableOid != RelationGetRelid(rel))
		return nullptr;
	return slot;
}

} // namespace hotplus
