#include <new> // std::bad_alloc (hotplus.check_selftest); standard headers before PostgreSQL's

#include "update/update_decision.hpp"

#include "update/part_changes.hpp"
#include "update/version_values.hpp"
#include "am/settings.hpp"

extern "C" {
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "common/pg_prng.h"
#include "executor/executor.h"
#include "storage/bufmgr.h"
#include "utils/datum.h"
}

namespace hotplus {

namespace {

core::DecisionOptions
decision_options()
{
	core::DecisionOptions options;
	options.evaluate = settings.check_expressions;
	return options;
}

// The expression states of one index, prepared at its first evaluation.
void
prepare_evaluation(RelationInfo *info, IndexEvalInfo *index)
{
	if (index->prepared)
		return;
	index->predicate_state = ExecPrepareQual(index->predicate, info->estate);
	int k = 0;
	ListCell *lc;
	foreach (lc, index->expressions)
		index->expression_states[k++] = ExecPrepareExpr(static_cast<Expr *>(lfirst(lc)), info->estate);
	index->prepared = true;
}

// A virtual slot holding a version's expression inputs, detoasted once, for evaluation.
TupleTableSlot *
evaluation_slot(RelationInfo *info, int side, TupleTableSlot *source)
{
	UpdateScratch &scratch = info->scratch;
	TupleTableSlot *eval = scratch.eval_slot[side];
	if (scratch.eval_slot_filled[side])
		return eval;

	slot_getsomeattrs(source, info->max_expression_input);
	ExecClearTuple(eval);
	TupleDesc desc = eval->tts_tupleDescriptor;
	for (AttrNumber att = 1; att <= info->natts; att++)
	{
		const bool wanted = att <= info->max_expression_input && info->columns[att].expression_input;
		if (!wanted || source->tts_isnull[att - 1])
		{
			eval->tts_values[att - 1] = (Datum) 0;
			eval->tts_isnull[att - 1] = true;
			continue;
		}
		Datum value = source->tts_values[att - 1];
		if (TupleDescAttr(desc, att - 1)->attlen == -1)
			value = detoasted_value(info, side, att, value);
		eval->tts_values[att - 1] = value;
		eval->tts_isnull[att - 1] = false;
	}
	ExecStoreVirtualTuple(eval);
	scratch.eval_slot_filled[side] = true;
	return eval;
}

// Answers the core's questions by evaluating the index's predicate and expressions, in the
// per-tuple memory of the entry's EState, and classifies the jsonb parts the core has not
// read yet when it asks (complete_inputs).
struct EvaluationProbe
{
	UpdateState *s;

	void complete_inputs()
	{
		if (!s->parts_complete)
			classify_parts(s);
	}

	ExprContext *context_for(int which, int side)
	{
		RelationInfo *info = s->info;
		prepare_evaluation(info, &info->indexes[which]);
		ExprContext *econtext = GetPerTupleExprContext(info->estate);
		econtext->ecxt_scantuple = evaluation_slot(info, side, side == kOld ? s->old_slot : s->args->slot);
		return econtext;
	}

	bool predicate(int which, core::Side side)
	{
		ExprContext *econtext = context_for(which, side == core::Side::Old ? kOld : kNew);
		return ExecQual(s->info->indexes[which].predicate_state, econtext);
	}

	bool expressions_equal(int which)
	{
		IndexEvalInfo *index = &s->info->indexes[which];
		// An expression that is exactly a field access whose values are strings (or
		// booleans) of other bytes has another value: nothing to evaluate (PartState).
		for (int k = 0; k < index->nexpressions; k++)
			if (index->expression_part[k] >= 0 &&
				s->info->scratch.part_state[index->expression_part[k]] == kPartChangedAsScalars)
				return false;
		for (int k = 0; k < index->nexpressions; k++)
		{
			bool null[2];
			Datum value[2];
			for (int side : {kOld, kNew})
				value[side] = ExecEvalExprSwitchContext(index->expression_states[k], context_for(which, side),
														&null[side]);
			if (null[kOld] != null[kNew])
				return false;
			if (!null[kOld] &&
				!datum_image_eq(value[kOld], value[kNew], index->expression_typbyval[k], index->expression_typlen[k]))
				return false;
		}
		return true;
	}
};
static_assert(std::is_trivially_destructible_v<EvaluationProbe>); // on frames an ERROR may unwind

// Runs the core (invariant 2); likely: the index to look at first
// (core::decide_update_likely_first), -1 for none; only its parts need be classified (the
// probe classifies the rest when asked). In assert-enabled builds an exception fails the
// assertion, unless hotplus.check_selftest asked for it. Probe calls may longjmp through this
// frame: it owns nothing with a destructor.
void
core_decides(UpdateState *s, int likely)
{
	RelationInfo *info = s->info;
	EvaluationProbe probe{s};
	try
	{
		if (settings.check_selftest)
			throw std::bad_alloc();
		s->decision = core::decide_update_likely_first(info->core->indexes, info->core->changes, decision_options(),
													   probe, likely, &info->core->inputs);
		s->decided = true;
	}
	catch (...)
	{
		Assert(settings.check_selftest);
		s->check_failed = true;
	}
}

// Whether the new version, as heap_update() will store it, certainly cannot go on a page
// with page_free bytes free. Only predictable when heap will not toast it (no external
// value, below the toast threshold).
bool
cannot_fit(HeapTuple tuple, Size page_free)
{
	return !HeapTupleHasExternal(tuple) && tuple->t_len <= TOAST_TUPLE_THRESHOLD && MAXALIGN(tuple->t_len) > page_free;
}

// Step 2's premise: whether the new version (its final form if any) cannot fit on the old
// version's page, whose free space is read under a short share lock unless the row change
// read it with the old version.
bool
page_cannot_fit(UpdateState *s)
{
	if (!s->page_free_known)
	{
		Buffer buffer = reinterpret_cast<BufferHeapTupleTableSlot *>(s->old_slot)->buffer;
		LockBuffer(buffer, BUFFER_LOCK_SHARE);
		s->page_free = PageGetHeapFreeSpace(BufferGetPage(buffer));
		LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	}
	if (s->final_form != nullptr)
		return cannot_fit(s->final_form, s->page_free);
	bool should_free = false;
	HeapTuple tuple = ExecFetchSlotHeapTuple(s->args->slot, true, &should_free);
	const bool result = cannot_fit(tuple, s->page_free);
	if (should_free)
		heap_freetuple(tuple);
	return result;
}

// Whether this update, which cannot be HOT for lack of room and whose indexes would need
// evaluating to tell whether one changed, is decided all the same: one in `every`
// (hotplus.page_full_sample_every), at random (a counter would alias with workloads that
// alternate statements).
bool
page_full_sample_drawn(int every)
{
	return every == 1 || (every > 1 && pg_prng_uint64_range(&pg_global_prng_state, 1, every) == 1);
}

// Step 2: on a full page HOT is impossible. Settles the decision where the prechecks can
// (which need every jsonb field an index reads classified); else returns whether the update
// is decided in full all the same, as a sample of those that need an evaluation.
bool
decide_on_full_page(UpdateState *s, bool prechecked)
{
	const std::vector<core::IndexShape> &indexes = s->info->core->indexes;
	core::Prechecks prechecks; // trivially destructible: this frame may be unwound
	core::HotQuestion question = core::HotQuestion::NeedsEvaluation;
	if (prechecked)
	{
		if (!s->parts_complete)
			classify_parts(s);
		core::UpdateDecision blocked;
		if (core::blocked_without_evaluation(indexes, s->info->core->changes, &blocked, &prechecks))
		{
			question = core::HotQuestion::Settled;
			prechecks.settled = blocked;
		}
		else
			question = core::hot_question(indexes, prechecks, decision_options());
	}
	switch (question)
	{
		case core::HotQuestion::Settled:
			s->decided = true;
			s->decision = prechecks.settled;
			return false;
		case core::HotQuestion::WithoutEvaluation:
			return true;
		case core::HotQuestion::NeedsEvaluation:
			break;
	}
	const int every = settings.page_full_sample_every;
	const bool drawn = page_full_sample_drawn(every);
	s->page_full_unchecked = !drawn;
	s->page_full_weight = drawn ? every - 1 : 0;
	return drawn;
}

// The hints of an update that is not HOT evaluate the index expressions and predicates the
// decision did not (options permitting): measured to pay (doc/performance.md, "Hints": an
// index over a time by its day, the time moved on within the day, grew as with the
// executor's own hint instead of 1.4 times that; an update whose expression did change paid
// nothing measurable for the evaluation).
constexpr bool kHintsEvaluate = true;

// Whether a non-HOT update may hint: hotplus.index_hints, an index the executor tells
// "changed" on every row (RelationInfo::statement_hint_candidates), and not the self-test
// (its decision is wrong on purpose).
bool
hints_wanted(const UpdateState *s)
{
	return settings.index_hints && s->info->nstatement_hint_candidates > 0 && !s->selftest;
}

// Which indexes the update leaves unchanged, for the executor's hint should it not be HOT
// (index_hints.hpp), of those the executor tells "changed" on every row of the statement
// (RelationInfo::statement_hint_candidates): every one when the decision found none changed;
// for an update that cannot be HOT (an index changed, or no room on the page), those found
// unchanged as the decision would find them (jsonb fields classified, expressions and
// predicates evaluated). None for the self-test (its decision is wrong on purpose) or a
// decision that failed.
void
choose_hints(UpdateState *s)
{
	RelationInfo *info = s->info;
	if (!hints_wanted(s) || s->check_failed)
		return;
	if (s->decided && s->decision.hot_allowed)
	{
		s->hints = kHintAll;
		return;
	}
	if (!s->decided && !s->page_cannot_fit)
		return;
	// The one index that could gain is the one found changed (a statement that sets one
	// indexed column and changes it): nothing to ask.
	if (s->decided && info->nstatement_hint_candidates == 1 && s->decision.blocking_index >= 0 &&
		info->statement_hint_candidates[s->decision.blocking_index])
		return;
	if (!s->parts_complete && info->parts.nparts > 0)
		classify_parts(s);
	EvaluationProbe probe{s};
	try
	{
		// Only the indexes the executor tells "changed" on every row can gain.
		if (core::unchanged_indexes(info->core->indexes, info->core->changes, decision_options(), probe,
									info->statement_hint_candidates, s->decided ? s->decision.blocking_index : -1,
									kHintsEvaluate, info->scratch.unchanged) > 0)
			s->hints = kHintListed;
	}
	catch (...)
	{
		Assert(false);
	}
}

} // namespace

void
decide(UpdateState *s)
{
	RelationInfo *info = s->info;
	if (!s->index_input_differs && !info->stock_blocks_more)
	{
		// Every index input as stored: no index changes.
		s->hints = hints_wanted(s) ? kHintAll : kHintNone;
		return;
	}
	MemoryContext caller_context = MemoryContextSwitchTo(GetPerTupleMemoryContext(info->estate));
	// The self-test skips the prechecks: its decision is wrong on purpose.
	const bool prechecked = !s->selftest;
	if (prechecked && core::blocked_by_stored_columns(info->core->indexes, info->core->blockers, info->core->changes,
													  &s->decision))
		s->decided = true;
	else
	{
		s->page_cannot_fit = page_cannot_fit(s);
		const bool in_full = !s->page_cannot_fit || decide_on_full_page(s, prechecked);
		if (!s->decided && in_full)
		{
			const int likely = prechecked ? s->guess : -1;
			if (likely >= 0 && !s->parts_complete)
				classify_index_parts(s, likely);
			core_decides(s, likely);
			s->beyond_stock_inputs = !s->index_input_differs;
			if (s->selftest)
			{
				s->decided = true;
				s->decision.hot_allowed = true;
			}
			else if (s->decided)
				info->likely_changed = s->decision.hot_allowed ? -1 : s->decision.blocking_index;
		}
	}
	choose_hints(s);
	MemoryContextSwitchTo(caller_context);
}

} // namespace hotplus
