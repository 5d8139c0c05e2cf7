#include "update/hand_over.hpp"

#include "update/hot_blocking_override.hpp"
#include "update/index_hints.hpp"
#include "update/verifier.hpp"
#include "am/settings.hpp"

extern "C" {
#include "executor/tuptable.h"
#include "utils/datum.h"
#include "utils/memutils.h"
}

namespace hotplus {

namespace {

// Whether the core allowed HOT that heap, given the final form, would refuse, and the entry
// still describes the relation: the override is due.
bool
override_due(UpdateState *s)
{
	return s->decided && s->decision.hot_allowed && !s->page_cannot_fit &&
		   relation_info_revalidate(s->info, s->args->rel);
}

// Copies of the values the statement wrote into the columns whose old datum is reused, for
// hotplus.verify, made before the final form frees them, in per-tuple memory.
Datum *
copies_of_written(const UpdateState *s)
{
	MemoryContext caller_context = MemoryContextSwitchTo(GetPerTupleMemoryContext(s->info->estate));
	Datum *written = static_cast<Datum *>(palloc(sizeof(Datum) * s->toast_reused));
	for (int i = 0; i < s->toast_reused; i++)
		written[i] = datumCopy(s->args->slot->tts_values[s->info->scratch.reused[i] - 1], false, -1);
	MemoryContextSwitchTo(caller_context);
	return written;
}

// The check's time, for the one update in kCheckTimeSampleEvery that is timed.
void
note_check_time(UpdateState *s)
{
	if (!s->timed)
		return;
	instr_time now;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, s->started);
	s->check_ns = compat_instr_time_ns(now) * kCheckTimeSampleEvery;
}

// hotplus.verify of every index (invariant 1): false, checking nothing, if the decision no
// longer stands once the verifier's description of the relation is ready.
bool
indexes_verified(UpdateState *s)
{
	auto still_describes = [](void *arg) {
		auto *state = static_cast<UpdateState *>(arg);
		return relation_info_revalidate(state->info, state->args->rel);
	};
	return verify_indexes_unchanged(s->args->rel, s->args->otid, s->args->slot, still_describes, s);
}

// heap_update() with the empty HOT-blocking set (invariant 2). The override needs the
// relcache's bitmaps computed, and computing them may accept invalidations: computed, then
// the entry is checked once more.
TM_Result
heap_with_override(UpdateState *s)
{
	const UpdateArgs &a = *s->args;
	ensure_index_bitmaps(a.rel);
	HotBlockingOverride override;
	if (!relation_info_revalidate(s->info, a.rel) || !hot_blocking_override_begin(&override, a.rel))
		return heap_decides(a);
	s->override_applied = true;
	volatile TM_Result result = TM_Ok;
	PG_TRY();
	{
		result = heap_decides(a);
	}
	PG_FINALLY();
	{
		hot_blocking_override_end(&override);
	}
	PG_END_TRY();
	return result;
}

} // namespace

TM_Result
hand_over(UpdateState *s)
{
	// hotplus.verify checks the reused datums and, for an override, every index, of the
	// updates its sample rate draws (one draw per update).
	const bool verify_wanted = settings.verify && (s->final_form != nullptr ||
												   (s->decided && s->decision.hot_allowed && !s->page_cannot_fit));
	const bool verify = verify_wanted && verifier_samples_update();
	s->verify_sampled_out = verify_wanted && !verify;
	const Datum *written = verify && s->final_form != nullptr ? copies_of_written(s) : nullptr;
	note_check_time(s);

	// The final form frees the slot's current tuple: every pointer into it dangles from here on.
	if (s->final_form != nullptr)
		ExecForceStoreHeapTuple(s->final_form, s->args->slot, true);
	const bool datums_verified = written != nullptr;
	if (datums_verified)
		verify_reused_datums(s->args->rel, s->args->slot, s->toast_reused, s->info->scratch.reused, written);

	bool indexes_checked = false;
	TM_Result result;
	if (!override_due(s) || (verify && !(indexes_checked = indexes_verified(s))))
		result = heap_decides(*s->args);
	else
		result = heap_with_override(s);
	s->verified = datums_verified || indexes_checked;
	// Not HOT: each index the decision found unchanged is told so (index_hints.hpp).
	if (result == TM_Ok && compat_get_update_indexes(s->args->update_indexes) == IndexUpdate::All)
		s->index_hints = index_hints_give(s);
	return result;
}

} // namespace hotplus
