// hotheap's tuple_update: decide per index whether the update changes it, then delegate to
// heap's own update with that decision. The update passes through the phases of
// update_state.hpp, one after the other, each in a file of its own with one way in:
//
//   gate        update_gate.hpp      heap's update as is, or a check;
//   row change  row_change.hpp       the old version, the columns classified, TOAST reused;
//   decision    update_decision.hpp  which indexes change;
//   hand-over   hand_over.hpp        the final form, hotplus.verify, heap_update();
//   epilogue    here                 the statistics.
//
// Any doubt (the relation changed meanwhile, a nested use of the entry, a C++ exception in
// the core) declines: heap's own decision is always correct.
#include "update/update_state.hpp"

#include "update/hot_update.hpp"

#include "update/hand_over.hpp"
#include "update/index_hints.hpp"
#include "update/row_change.hpp"
#include "update/update_decision.hpp"
#include "update/update_gate.hpp"
#include "am/settings.hpp"
#include "am/stored_form.hpp"
#include "stats/stats.hpp"

extern "C" {
#include "executor/executor.h"
}

namespace hotplus {

namespace {

// check_time_ms is sampled: the first of every kCheckTimeSampleEvery checked updates of a
// backend is timed and counts for all of them (hand_over.cpp).
int checks_until_timed = 0;

// hotplus.verify_selftest: wrong on purpose, for the verifier to catch (settings.hpp); the
// setting exists in assert-enabled builds only, and release builds compile this to false.
bool
selftest_active()
{
#ifdef USE_ASSERT_CHECKING
	return settings.verify && settings.verify_selftest;
#else
	return false;
#endif
}

// The update's state at the start of a check (update_state.hpp).
void
begin_check(UpdateState *s, RelationInfo *info, const UpdateArgs &args)
{
	*s = UpdateState{};
	s->args = &args;
	s->info = info;
	s->selftest = selftest_active();
	s->guess = -1;
	if (checks_until_timed-- == 0)
	{
		checks_until_timed = kCheckTimeSampleEvery - 1;
		s->timed = true;
		INSTR_TIME_SET_CURRENT(s->started);
	}
}

// What the update met of the stored values, for the read path: its next few-row plans may
// share a copy of a column whose values it found compressed or out of line (stored_form.hpp).
void
note_stored_values(const RelationInfo *info)
{
	const UpdateScratch &scratch = info->scratch;
	for (int i = 0; i < scratch.nold_extended; i++)
		note_extended_value(info->relid, scratch.old_extended[i]);
}

// The row change, the decision and the hand-over of one update.
TM_Result
check_and_update(UpdateState *s)
{
	if (!row_change_read(s))
		return heap_decides(*s->args);
	decide(s);
	const TM_Result result = hand_over(s);
	note_stored_values(s->info);
	return result;
}

// What the check leaves in the entry's per-update scratch, cleared however it ended.
void
end_check(RelationInfo *info)
{
	UpdateScratch &scratch = info->scratch;
	if (!TTS_EMPTY(scratch.old_slot))
		ExecClearTuple(scratch.old_slot);
	for (int side : {kOld, kNew})
	{
		if (scratch.eval_slot_filled[side])
		{
			ExecClearTuple(scratch.eval_slot[side]);
			scratch.eval_slot_filled[side] = false;
		}
		if (scratch.any_detoasted[side])
		{
			memset(scratch.is_detoasted[side], 0, sizeof(bool) * (info->natts + 1));
			scratch.any_detoasted[side] = false;
		}
	}
	for (int i = 0; i < scratch.nold_extended; i++)
		scratch.old_noted[scratch.old_extended[i]] = false;
	scratch.nold_extended = 0;
	ResetPerTupleExprContext(info->estate);
	info->in_use--;
}

// The statistics' outcome of an update (stats.hpp).
UpdateOutcome
outcome_of(const UpdateState &s, bool hot)
{
	const core::UpdateDecision &d = s.decision;
	if (hot)
	{
		if (s.override_applied)
			return d.used_expressions || s.beyond_stock_inputs || s.by_parts ? UpdateOutcome::HotByExpression
				   : d.used_predicates ? UpdateOutcome::HotByPartial
									   : UpdateOutcome::HotByImage;
		return s.index_input_reused ? UpdateOutcome::HotByImage : UpdateOutcome::HotStock;
	}
	if (!s.checked)
		return UpdateOutcome::NonHotOther;
	if (!s.index_input_differs)
		return UpdateOutcome::NonHotPageFull;
	if (!s.decided)
		return s.page_full_unchecked ? UpdateOutcome::NonHotPageFullUnchecked : UpdateOutcome::NonHotOther;
	return d.hot_allowed ? UpdateOutcome::NonHotPageFull : UpdateOutcome::NonHotIndexChanged;
}

// The epilogue: a checked update that heap wrote, counted.
void
count(const UpdateState &s, TM_Result result)
{
	if (result != TM_Ok)
		return;
	const bool hot = compat_get_update_indexes(s.args->update_indexes) == IndexUpdate::None;
	const RelationInfo *info = s.info;
	UpdateReport report;
	report.outcome = outcome_of(s, hot);
	report.checked = s.checked;
	report.toast_reused = s.toast_reused;
	report.blocking_index = InvalidOid;
	if (!hot && s.decided && !s.decision.hot_allowed && s.decision.blocking_index >= 0 &&
		s.decision.blocking_index < info->nindexes)
		report.blocking_index = info->indexes[s.decision.blocking_index].index_oid;
	report.check_time_ns = s.check_ns;
	report.check_failed = s.check_failed;
	report.verified = s.verified;
	report.verify_sampled_out = s.verify_sampled_out;
	report.unchecked_hot_weight = report.outcome == UpdateOutcome::NonHotPageFull ? s.page_full_weight : 0;
	report.index_hints = s.index_hints;
	stats_count(RelationGetRelid(s.args->rel), report);
}

// The update hotplus checks, with the entry owned (in_use) and cleaned up however it ends.
// Out of line: the unchecked updates do not pay for this frame (the PG_TRY's jump buffer).
pg_noinline TM_Result
checked_update(RelationInfo *info, const UpdateArgs &args)
{
	UpdateState state;
	begin_check(&state, info, args);
	volatile TM_Result result = TM_Ok;
	info->in_use++;
	PG_TRY();
	{
		result = check_and_update(&state);
	}
	PG_FINALLY();
	{
		end_check(info);
	}
	PG_END_TRY();
	count(state, result);
	return result;
}

// Heap's update as is, nothing read or compared: counted by heap's outcome alone.
TM_Result
heap_decides_unchecked(const UpdateArgs &a, bool skipped_by_targets)
{
	const TM_Result result = heap_decides(a);
	if (result == TM_Ok)
		stats_count_unchecked(RelationGetRelid(a.rel), compat_get_update_indexes(a.update_indexes) == IndexUpdate::None,
							  skipped_by_targets);
	return result;
}

} // namespace

TM_Result
hotheap_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
					 CommandId cid COMPAT_TUPLE_UPDATE_OPTIONS_PARAM, Snapshot snapshot, Snapshot crosscheck,
					 bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
					 CompatUpdateIndexesOut *update_indexes)
{
	const UpdateArgs args{rel,		 otid,	   slot, cid,		COMPAT_TUPLE_UPDATE_OPTIONS, snapshot,
						  crosscheck, wait, tmfd, lockmode, update_indexes};
	index_hints_undo(rel); // the hints of the statement's previous update of rel
	RelationInfo *info = nullptr;
	switch (update_gate(args, &info))
	{
		case Gate::HeapAlone:
			return heap_decides_unchecked(args, false);
		case Gate::HeapByTargets:
			return heap_decides_unchecked(args, true);
		case Gate::Check:
			break;
	}
	return checked_update(info, args);
}

} // namespace hotplus
