#include "update/statement_scope.hpp"

extern "C" {
#include "executor/executor.h"
#include "nodes/execnodes.h"
#include "storage/bufmgr.h"
#include "utils/hsearch.h"
#include "utils/rel.h"
}

namespace hotplus {

namespace {

// What statement_relation() answers for one relation.
struct RelationTargets
{
	Oid relid; // the hash key; InvalidOid: not computed
	bool known;
	Bitmapset *columns;
	ResultRelInfo *result_rel; // one result relation of rel with an old-tuple slot
};
static_assert(std::is_trivially_destructible_v<RelationTargets>); // on frames an ERROR may unwind

struct RunningStatement
{
	QueryDesc *query;
	RunningStatement *outer;
	uint64 serial;
	// What the statement may change in each relation it updates, computed once per relation
	// (in the statement's memory, so constant per result relation whatever the row order):
	// the first relation here, any further ones in a hash table made when the second appears.
	RelationTargets first;
	HTAB *others;
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
	current_statement_serial = frame->serial;
	frame->first = RelationTargets{InvalidOid, false, nullptr, nullptr};
	frame->others = nullptr;
	innermost = frame;
}

void
pop(RunningStatement *frame)
{
	innermost = frame->outer;
	current_statement_serial = innermost != nullptr ? innermost->serial : 0;
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
		pop(&frame);
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
		pop(&frame);
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

// Computes targets for rel in the statement's memory.
void
compute_targets(EState *estate, Relation rel, RelationTargets *targets)
{
	MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);
	Bitmapset *result = nullptr;
	bool found = false;
	ResultRelInfo *rri = nullptr;
	bool known = collect_from(estate->es_opened_result_relations, estate, rel, &found, &result, &rri) &&
				 collect_from(estate->es_tuple_routing_result_relations, estate, rel, &found, &result, &rri) &&
				 found;
	MemoryContextSwitchTo(old);
	targets->known = known;
	targets->columns = result;
	targets->result_rel = rri;
}

// The innermost statement's targets for rel, computed on first use; nullptr outside a
// statement.
RelationTargets *
targets_for(Relation rel)
{
	RunningStatement *frame = innermost;
	if (frame == nullptr || frame->query->estate == nullptr)
		return nullptr;
	const Oid relid = RelationGetRelid(rel);
	if (frame->first.relid == relid)
		return &frame->first;
	EState *estate = frame->query->estate;
	if (frame->first.relid == InvalidOid)
	{
		frame->first.relid = relid;
		compute_targets(estate, rel, &frame->first);
		return &frame->first;
	}
	if (frame->others == nullptr)
	{
		HASHCTL ctl;
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(RelationTargets);
		ctl.hcxt = estate->es_query_cxt;
		frame->others = hash_create("hotplus statement targets", 16, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	bool found;
	auto *targets = static_cast<RelationTargets *>(hash_search(frame->others, &relid, HASH_ENTER, &found));
	if (!found)
		compute_targets(estate, rel, targets);
	return targets;
}

} // namespace

uint64 current_statement_serial = 0;

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
	RelationTargets *targets = targets_for(rel);
	if (targets == nullptr)
		return false;
	out->targets_known = targets->known && !(rel->trigdesc != nullptr && rel->trigdesc->trig_update_before_row);
	out->targets = targets->columns;
	out->result_rel = targets->result_rel;
	return true;
}

TupleTableSlot *
statement_old_version(ResultRelInfo *result_rel, Relation rel, ItemPointer otid)
{
	if (result_rel == nullptr)
		return nullptr;
	TupleTableSlot *slot = result_rel->ri_oldTupleSlot;
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
