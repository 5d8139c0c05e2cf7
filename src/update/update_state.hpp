// One update of a hotheap table, as it passes through the update path's phases
// (hot_update.cpp):
//
//   gate (update_gate.hpp)        what the settings, the relcache and the running statement
//                                 settle before anything is read: heap's update as is, or a check;
//   row change (row_change.hpp)   the old version, the compared columns classified, the TOAST
//                                 datums a write-back keeps, the new version's final form;
//   decision (update_decision.hpp) which indexes change: stored columns first, then page room,
//                                 then the likely index and the core with its probe;
//   hand-over (hand_over.hpp)     the final form stored, hotplus.verify, revalidation, and
//                                 heap_update() with or without the override;
//   epilogue (hot_update.cpp)     the statistics.
//
// Each phase reads what the phases before it wrote here and writes its own part; none calls
// another. Invariants:
//  1. Trivially destructible: an ERROR may unwind any frame that holds it.
//  2. Lives on the stack of one tuple_update call; what it points to in per-tuple memory
//     (the final form's datums, the verifier's copies) is freed by the reset the check's
//     cleanup makes (hot_update.cpp, checked_update()), also on ERROR.
#pragma once

#include "update/core_state.hpp"

#include "update/relation_info.hpp"

extern "C" {
#include "access/tableam.h"
#include "portability/instr_time.h"
}

namespace hotplus {

// The sides of one update: the old version and the new one.
constexpr int kOld = 0;
constexpr int kNew = 1;

// tuple_update's arguments, as the executor (or C code) passed them.
struct UpdateArgs
{
	Relation rel;
	ItemPointer otid;
	TupleTableSlot *slot; // the new version
	CommandId cid;
	uint32 options; // PG19's tuple_update options (compat.hpp), 0 before
	Snapshot snapshot;
	Snapshot crosscheck;
	bool wait;
	TM_FailureData *tmfd;
	LockTupleMode *lockmode;
	CompatUpdateIndexesOut *update_indexes;
};
static_assert(std::is_trivially_destructible_v<UpdateArgs>);

// heap's update with these arguments: heap decides, with whatever HOT-blocking set is
// installed (hot_blocking_override.hpp).
inline TM_Result
heap_decides(const UpdateArgs &a)
{
	return GetHeapamTableAmRoutine()->tuple_update(a.rel, a.otid, a.slot,
												  a.cid COMPAT_TUPLE_UPDATE_OPTIONS_ARG(a.options),
												  a.snapshot, a.crosscheck, a.wait, a.tmfd, a.lockmode,
												  a.update_indexes);
}

enum HintScope : uint8
{
	kHintNone = 0,
	kHintAll,
	kHintListed,
};

// check_time_ms is sampled: two clock reads on every update cost about 50 instructions, as
// much as the rest of the statistics (the short indexed value control's check is about 800).
constexpr int kCheckTimeSampleEvery = 16;

struct UpdateState
{
	const UpdateArgs *args; // the call's, in hotheap_tuple_update()'s frame
	RelationInfo *info;
	// hotplus.verify_selftest: decide wrongly on purpose (assert-enabled builds only).
	bool selftest;

	// --- the row change (row_change.hpp) ---
	bool checked;				  // the old version was read and columns compared
	TupleTableSlot *old_slot;	  // the old version, deformed up to the compared columns
	Size page_free;				  // its page's free space, when read with it
	bool page_free_known;
	int guess;					  // the index looked at first (-1: none)
	int toast_reused;			  // columns whose old datum the new version keeps: scratch.reused
	bool index_input_reused;	  // a reused datum is an index input
	bool index_input_differs;	  // an index input differs as stored
	HeapTuple final_form;		  // the new version with the reused datums (nullptr: none)

	// --- the decision (update_decision.hpp) ---
	bool by_parts;				// a changed jsonb column kept the fields indexes read
	bool parts_complete;		// every jsonb field an index reads is classified
	bool page_cannot_fit;		// the new version cannot go on the old page
	bool page_full_unchecked;	// page_cannot_fit, and telling needed an evaluation
	int page_full_weight;		// decided as a sample of those: how many it stands for
	bool decided;
	core::UpdateDecision decision;
	bool beyond_stock_inputs;	// HOT allowed on the indexes' true inputs only
	bool check_failed;			// the core threw: heap decided alone

	// What the executor may tell each index if the update is not HOT (index_hints.hpp):
	// kHintNone, its own answer for every index; kHintAll, "unchanged" for every index it would
	// tell "changed" (RelationInfo::statement_hint_candidates; no index input differs as stored,
	// or the decision found no index changed); kHintListed, "unchanged" for those of
	// UpdateScratch::unchanged.
	uint8 hints;

	// --- the hand-over (hand_over.hpp) ---
	bool override_applied;
	int index_hints;		 // indexes hinted unchanged (after a non-HOT heap_update())
	bool verified;			 // hotplus.verify checked reused datums or indexes
	bool verify_sampled_out; // it would have, but the sample rate left it out

	// --- the statistics' check time: the first of every kCheckTimeSampleEvery checked updates
	// of a backend is timed (hot_update.cpp) and counts for all of them (hand_over.cpp) ---
	bool timed;
	instr_time started;
	int64 check_ns;
};
static_assert(std::is_trivially_destructible_v<UpdateState>);

} // namespace hotplus
