// hotheap's tuple_update: decide per index whether the update changes it, then delegate
// to heap's own update with that decision.
//
// The order of work, cheapest first:
//   1. relation has nothing to gain (no toastable column, no expression/partial index),
//      or the running statement changes no column that an index reads or that is
//      toastable (its target columns, statement_scope.hpp): heap's update as is;
//   2. the old version: the executor's pinned copy of the page tuple at the TID when it has
//      one, else read from the TID (pin + short share lock, no user code under it); deform
//      only the compared columns of both versions;
//   3. classify each compared column the statement sets (the others hold the old datums
//      as stored): Same (equal as stored), ImageEqual (equal after
//      detoasting; the raw sizes are compared first, so nothing is fetched when they
//      differ, nor when a jsonb field of the guessed index, step 5, differs), Changed.
//      Toastable ImageEqual columns will get the old stored datum back (formed now,
//      stored in 6);
//   4. an index found changed from the stored columns alone settles it: not HOT; else
//      a new version that cannot fit on the old page (its free space read only now)
//      cannot be HOT: heap as is;
//   5. the pure core decides, first the index the last decision for these target columns
//      found changed (its jsonb fields read from prefixes of the documents), then, unless
//      that one changed, every jsonb field an index reads (jsonb_parts.hpp) and the other
//      indexes (predicates before expressions, evaluation only as needed, every value
//      detoasted at most once per version, from caches that point into the new version as
//      materialized; src/README.md D9a);
//   6. the new version with the reused datums replaces the materialized one in the slot:
//      only now, as that frees what the caches of step 5 point into (src/README.md D8a);
//   7. hotplus.verify rechecks reused datums and, for an override, every index
//      (verifier.hpp);
//   8. if the core allows HOT where heap would not, heap_update() runs with an empty
//      HOT-blocking set (hot_blocking_override.hpp); otherwise heap decides alone.
// Any doubt (the relation changed meanwhile, a nested use of the entry, C++ exception in
// the core) declines: heap's own decision is always correct.
#include <new> // std::bad_alloc (hotplus.check_selftest); standard headers before PostgreSQL's

#include "update/core_state.hpp"

#include "update/hot_update.hpp"

#include "update/hot_blocking_override.hpp"
#include "update/jsonb_parts.hpp"
#include "update/page_tuple.hpp"
#include "update/relation_info.hpp"
#include "am/settings.hpp"
#include "stats/stats.hpp"
#include "update/statement_scope.hpp"
#include "update/verifier.hpp"
#include "am/stored_form.hpp"

extern "C" {
#include "access/detoast.h"
#include "access/heapam.h"
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/toast_compression.h"
#include "common/pg_prng.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/rel.h"
}

namespace hotplus {

namespace {

constexpr int kOld = 0;
constexpr int kNew = 1;

struct UpdateArgs
{
	Relation rel;
	ItemPointer otid;
	TupleTableSlot *slot;
	CommandId cid;
	uint32 options; // PG19's tuple_update options (compat.hpp), 0 before
	Snapshot snapshot;
	Snapshot crosscheck;
	bool wait;
	TM_FailureData *tmfd;
	LockTupleMode *lockmode;
	CompatUpdateIndexesOut *update_indexes;
};
static_assert(std::is_trivially_destructible_v<UpdateArgs>); // on frames an ERROR may unwind

TM_Result
heap_decides(const UpdateArgs &a)
{
	return GetHeapamTableAmRoutine()->tuple_update(a.rel, a.otid, a.slot,
												  a.cid COMPAT_TUPLE_UPDATE_OPTIONS_ARG(a.options),
												  a.snapshot, a.crosscheck, a.wait, a.tmfd, a.lockmode,
												  a.update_indexes);
}

// The value of a varlena column detoasted (decompressed, fetched) at most once per version
// and update, in per-tuple memory. Short and plain inline values are returned as they are.
Datum
detoasted_value(RelationInfo *info, int side, AttrNumber att, Datum value)
{
	if (info->is_detoasted[side][att])
		return info->detoasted[side][att];
	auto *ptr = reinterpret_cast<struct varlena *>(DatumGetPointer(value));
	Datum result = value;
	if (VARATT_IS_EXTERNAL(ptr) || VARATT_IS_COMPRESSED(ptr))
	{
		result = PointerGetDatum(detoast_attr(ptr));
		// The read path's next few-row plans may share a copy of the column (stored_form.hpp).
		if (side == kOld)
			note_extended_value(info->relid, att);
	}
	info->detoasted[side][att] = result;
	info->is_detoasted[side][att] = true;
	info->any_detoasted[side] = true;
	return result;
}

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

// D8b: a statement whose first kUnequalFetchesBeforeGivingUp fetched comparisons of a column
// all found different values stops fetching that column's values to compare them: they
// count as Changed, as heap counts them (no TOAST reuse, the decision evaluates as needed).
// A bulk rewrite of large values then pays for the fetch kUnequalFetchesBeforeGivingUp
// times, not per row; a statement that wrote one back keeps comparing.
constexpr int kUnequalFetchesBeforeGivingUp = 32;

// Whether heap stores a new in-line, uncompressed value of len data bytes with a 1-byte
// header whichever header it arrives with: heap_fill_tuple() packs a 4-byte one that fits
// when the column is packable (not of storage PLAIN). A value built by an input function (in
// a virtual slot: the logical replication apply worker's) next to a stored one with a 1-byte
// header is then the same as stored, as heap_update() finds comparing the formed tuples; next
// to an old one stored with a 4-byte header (while the column was PLAIN) it differs as stored.
bool
stored_short(Form_pg_attribute attr, Size len)
{
	return attr->attstorage != TYPSTORAGE_PLAIN && len + VARHDRSZ_SHORT <= VARATT_SHORT_MAX;
}

inline bool
in_line_uncompressed(Datum value)
{
	auto *ptr = reinterpret_cast<struct varlena *>(DatumGetPointer(value));
	return !VARATT_IS_EXTERNAL(ptr) && !VARATT_IS_COMPRESSED(ptr);
}

// What one update knows of a jsonb part of a column whose stored values differ
// (RelationInfo::part_state): Unknown until looked at; NoProof once part_difference()
// found no difference (only an exact comparison can tell); Same and Changed by the exact
// comparison (part_is_same) or the proof; ChangedAsScalars: both strings or both booleans
// of other bytes, so `col ->> key` and `col -> key` differ too (EvaluationProbe).
enum PartState : uint8
{
	kPartUnknown = 0,
	kPartNoProof,
	kPartSame,
	kPartChanged,
	kPartChangedAsScalars,
};

// The value as it is, or as detoasted already in this update (then nothing is read again).
Datum
as_read_so_far(const RelationInfo *info, int side, AttrNumber att, Datum value)
{
	return info->is_detoasted[side][att] ? info->detoasted[side][att] : value;
}

// Whether part p's values are proved to differ, reading each document only up to that
// field (part_difference: a compressed or out-of-line old document is decompressed or
// fetched as a prefix). The column's stored values differ and neither is NULL.
bool
part_proved_different(RelationInfo *info, int p, TupleTableSlot *old_slot, TupleTableSlot *new_slot)
{
	uint8 &state = info->part_state[p];
	if (state == kPartUnknown)
	{
		const JsonbPart &part = info->parts.parts[p];
		const Datum old_value = old_slot->tts_values[part.column - 1];
		Datum old_in_full = 0;
		const PartDifference d =
			part_difference(as_read_so_far(info, kOld, part.column, old_value),
							as_read_so_far(info, kNew, part.column, new_slot->tts_values[part.column - 1]), part.key,
							&old_in_full);
		state = d == PartDifference::DiffersAsScalars ? kPartChangedAsScalars
				: d == PartDifference::Differs		  ? kPartChanged
													  : kPartNoProof;
		if (!in_line_uncompressed(old_value) && !info->is_detoasted[kOld][part.column])
		{
			note_extended_value(info->relid, part.column); // read from a prefix (stored_form.hpp)
			if (old_in_full != 0) // read to its end: what detoasted_value() would make
			{
				info->detoasted[kOld][part.column] = old_in_full;
				info->is_detoasted[kOld][part.column] = true;
				info->any_detoasted[kOld] = true;
			}
		}
	}
	return state == kPartChanged || state == kPartChangedAsScalars;
}

// Whether a jsonb part of column att that index `guess` reads is proved to differ: then
// the documents differ, and the column is Changed without comparing them in full.
bool
guessed_part_differs(RelationInfo *info, int guess, AttrNumber att, TupleTableSlot *old_slot, TupleTableSlot *new_slot)
{
	if (guess < 0)
		return false;
	const core::IndexShape &shape = info->core->indexes[guess];
	for (const core::ColumnSet *inputs : {&shape.expression_inputs, &shape.predicate_inputs})
		for (core::ColumnNumber input : *inputs)
			if (input > info->natts && info->parts.parts[input - info->natts - 1].column == att &&
				part_proved_different(info, input - info->natts - 1, old_slot, new_slot))
				return true;
	return false;
}

// guess: the index the update looks at first (-1: none); a field of it that differs
// proves a jsonb column Changed before the documents are fetched or decompressed.
core::ColumnChange
classify_column(RelationInfo *info, TupleTableSlot *old_slot, TupleTableSlot *new_slot,
				AttrNumber att, int guess)
{
	const bool old_null = old_slot->tts_isnull[att - 1];
	const bool new_null = new_slot->tts_isnull[att - 1];
	if (old_null || new_null)
		return old_null == new_null ? core::ColumnChange::Same : core::ColumnChange::Changed;

	Form_pg_attribute attr = TupleDescAttr(old_slot->tts_tupleDescriptor, att - 1);
	const Datum old_value = old_slot->tts_values[att - 1];
	const Datum new_value = new_slot->tts_values[att - 1];
	if (attr->attlen == -1)
	{
		// Both in line and uncompressed (the common short value): their bytes after the
		// header are their images, so compare those here instead of datumIsEqual() and
		// toast_raw_datum_size() (about 100 instructions per update on a short indexed
		// value). Only the headers can differ in stored bytes alone.
		auto *o = reinterpret_cast<struct varlena *>(DatumGetPointer(old_value));
		auto *n = reinterpret_cast<struct varlena *>(DatumGetPointer(new_value));
		if (!VARATT_IS_EXTERNAL(o) && !VARATT_IS_COMPRESSED(o) && !VARATT_IS_EXTERNAL(n) &&
			!VARATT_IS_COMPRESSED(n))
		{
			const Size len = VARSIZE_ANY_EXHDR(o);
			if (len != VARSIZE_ANY_EXHDR(n))
				return core::ColumnChange::Changed;
			if (memcmp(VARDATA_ANY(o), VARDATA_ANY(n), len) != 0)
				return selftest_active() ? core::ColumnChange::ImageEqual : core::ColumnChange::Changed;
			// The old version as stored, the new one as heap will store it.
			if (VARATT_IS_SHORT(o) == (VARATT_IS_SHORT(n) || stored_short(attr, len)))
				return core::ColumnChange::Same; // byte for byte
			info->columns[att].unequal_fetches = -1;
			return core::ColumnChange::ImageEqual;
		}
	}
	if (datumIsEqual(old_value, new_value, attr->attbyval, attr->attlen))
		return core::ColumnChange::Same;
	if (attr->attlen != -1)
		return core::ColumnChange::Changed;
	// Never fetch or decompress when the raw sizes already differ, or when a field the
	// guessed index reads differs.
	if (toast_raw_datum_size(old_value) != toast_raw_datum_size(new_value))
		return core::ColumnChange::Changed;
	if (guessed_part_differs(info, guess, att, old_slot, new_slot))
		return core::ColumnChange::Changed;
	int *unequal_fetches = &info->columns[att].unequal_fetches;
	if (*unequal_fetches >= kUnequalFetchesBeforeGivingUp)
		return core::ColumnChange::Changed;

	auto *o = reinterpret_cast<struct varlena *>(
		DatumGetPointer(detoasted_value(info, kOld, att, old_value)));
	auto *n = reinterpret_cast<struct varlena *>(
		DatumGetPointer(detoasted_value(info, kNew, att, new_value)));
	const Size len = VARSIZE_ANY_EXHDR(o);
	if (len == VARSIZE_ANY_EXHDR(n) && memcmp(VARDATA_ANY(o), VARDATA_ANY(n), len) == 0)
	{
		*unequal_fetches = -1;
		return core::ColumnChange::ImageEqual;
	}
	if (*unequal_fetches >= 0)
		++*unequal_fetches;
	return selftest_active() ? core::ColumnChange::ImageEqual : core::ColumnChange::Changed;
}

// Whether heap_form_tuple() stores a reused old datum byte for byte, as "Same" promises. It
// packs an in-line uncompressed value with a 4-byte header into a 1-byte one when it can (a
// value stored while the column's storage was PLAIN): such a value is not reused, and stays
// ImageEqual.
bool
reuse_keeps_stored_bytes(Datum old_value)
{
	return !VARATT_CAN_MAKE_SHORT(DatumGetPointer(old_value));
}

// Whether the reused old datum has the compression method heap would store the new value
// with, which pg_column_compression() shows (and which `UPDATE t SET v = v || ''` after
// ALTER TABLE ... SET COMPRESSION is run to change). Heap stores a value that arrives
// compressed (copied from this or another table) with its own method, and compresses a plain
// one with the column's method (attcompression, or default_toast_compression as it is now,
// toast_compress_datum()). An old value stored uncompressed passes for a plain new value:
// heap compresses only what does not fit, as it did when it stored the old one.
bool
reuse_keeps_compression(Relation rel, AttrNumber att, Datum old_value, Datum new_value)
{
	const ToastCompressionId old_method =
		toast_get_compression_id(reinterpret_cast<struct varlena *>(DatumGetPointer(old_value)));
	const ToastCompressionId arriving =
		toast_get_compression_id(reinterpret_cast<struct varlena *>(DatumGetPointer(new_value)));
	if (arriving != TOAST_INVALID_COMPRESSION_ID)
		return old_method == arriving;
	if (old_method == TOAST_INVALID_COMPRESSION_ID)
		return true;
	char method = TupleDescAttr(RelationGetDescr(rel), att - 1)->attcompression;
	if (!CompressionMethodIsValid(method))
		method = static_cast<char>(default_toast_compression);
	return old_method ==
		(method == TOAST_LZ4_COMPRESSION ? TOAST_LZ4_COMPRESSION_ID : TOAST_PGLZ_COMPRESSION_ID);
}

// check_time_ms is sampled: the first of every kCheckTimeSampleEvery checked updates of a
// backend is timed and counts for all of them. Two clock reads on every update cost about 50
// instructions, as much as the rest of the statistics (the short indexed value control's
// check is about 800).
constexpr int kCheckTimeSampleEvery = 16;
int checks_until_timed = 0;

// What hotplus found out about one update, for heap's call and for the statistics.
struct Findings
{
	bool checked = false;			 // the old version was read and columns compared
	int toast_reused = 0;
	bool index_input_reused = false; // a reused datum is an index input
	bool index_input_differs = false;
	bool page_cannot_fit = false;
	bool page_full_unchecked = false; // page_cannot_fit, and telling needed an evaluation
	int page_full_weight = 0; // decided as a sample of those: how many it stands for
	bool decided = false;
	core::UpdateDecision decision;
	bool override_applied = false;
	bool beyond_stock_inputs = false; // HOT allowed on the indexes' true inputs only
	bool by_parts = false;			  // a changed jsonb column kept the fields indexes read
	bool check_failed = false;		  // the core threw: heap decided alone
	bool verified = false;			  // hotplus.verify checked reused datums or indexes
	bool verify_sampled_out = false;  // it would have, but the sample rate left it out
	bool timed = false; // one of the kCheckTimeSampleEvery checks that are timed
	instr_time started;
	int64 check_ns = 0; // the timed check's time, times kCheckTimeSampleEvery
};
static_assert(std::is_trivially_destructible_v<Findings>); // on frames an ERROR may unwind

// The change of every jsonb part (a field read through -> / ->>): Same when its column is,
// or when the field's value is the same bytes in both versions of a changed document. The
// parts of one column are compared in one pass over both documents (compare_parts).
void
classify_parts(RelationInfo *info, TupleTableSlot *old_slot, TupleTableSlot *new_slot, Findings *f)
{
	core::ColumnChanges &changes = info->core->changes;
	const JsonbPartRegistry &registry = info->parts;
	constexpr int kOnStack = 64;
	bool same_on_stack[kOnStack];
	for (int first = 0, end; first < registry.nparts; first = end)
	{
		const AttrNumber column = registry.parts[registry.by_column[first]].column;
		for (end = first + 1; end < registry.nparts && registry.parts[registry.by_column[end]].column == column; end++)
			;
		const int n = end - first;
		core::ColumnChange change = changes.get(column);
		bool *same = nullptr;
		// hotplus.check_expressions = off: expression inputs are whole columns, as in heap.
		if (change == core::ColumnChange::Changed && settings.check_expressions &&
			!old_slot->tts_isnull[column - 1] && !new_slot->tts_isnull[column - 1])
		{
			same = n <= kOnStack ? same_on_stack : static_cast<bool *>(palloc(sizeof(bool) * n));
			compare_parts(detoasted_value(info, kOld, column, old_slot->tts_values[column - 1]),
						  detoasted_value(info, kNew, column, new_slot->tts_values[column - 1]), &registry, first, n,
						  same);
		}
		for (int k = 0; k < n; k++)
		{
			const bool kept = same != nullptr && same[k];
			f->by_parts |= kept;
			changes.set(info->natts + 1 + registry.by_column[first + k], kept ? core::ColumnChange::Same : change);
		}
	}
}

// classify_parts() for the parts index `which` reads only (its expression and predicate
// inputs beyond the table's columns), each by a binary search in both documents: all that
// core::decide_update_likely_first() reads before it asks for the rest.
void
classify_index_parts(RelationInfo *info, int which, TupleTableSlot *old_slot, TupleTableSlot *new_slot, Findings *f)
{
	core::ColumnChanges &changes = info->core->changes;
	const core::IndexShape &shape = info->core->indexes[which];
	for (const core::ColumnSet *inputs : {&shape.expression_inputs, &shape.predicate_inputs})
		for (core::ColumnNumber input : *inputs)
		{
			if (input <= info->natts)
				continue;
			const int p = input - info->natts - 1;
			const JsonbPart &part = info->parts.parts[p];
			const AttrNumber column = part.column;
			const core::ColumnChange change = changes.get(column);
			bool kept = false;
			if (change == core::ColumnChange::Changed && settings.check_expressions &&
				!old_slot->tts_isnull[column - 1] && !new_slot->tts_isnull[column - 1] &&
				!part_proved_different(info, p, old_slot, new_slot))
			{
				if (info->part_state[p] == kPartNoProof)
					info->part_state[p] = part_is_same(detoasted_value(info, kOld, column, old_slot->tts_values[column - 1]),
													   detoasted_value(info, kNew, column, new_slot->tts_values[column - 1]),
													   part.key)
											  ? kPartSame
											  : kPartChanged;
				kept = info->part_state[p] == kPartSame;
			}
			f->by_parts |= kept;
			changes.set(input, kept ? core::ColumnChange::Same : change);
		}
}

// A virtual slot holding a version's expression inputs, detoasted once, for evaluation.
TupleTableSlot *
evaluation_slot(RelationInfo *info, int side, TupleTableSlot *source)
{
	TupleTableSlot *eval = info->eval_slot[side];
	if (info->eval_slot_filled[side])
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
	info->eval_slot_filled[side] = true;
	return eval;
}

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

// Answers the core's questions by evaluating the index's predicate and expressions, in
// the per-tuple memory of the entry's EState, and classifies the jsonb parts the core has
// not read yet when it asks (complete_inputs).
struct EvaluationProbe
{
	RelationInfo *info;
	TupleTableSlot *versions[2];
	Findings *findings;
	bool parts_complete;

	void complete_inputs()
	{
		if (parts_complete)
			return;
		classify_parts(info, versions[kOld], versions[kNew], findings);
		parts_complete = true;
	}

	ExprContext *context_for(int which, int side)
	{
		prepare_evaluation(info, &info->indexes[which]);
		ExprContext *econtext = GetPerTupleExprContext(info->estate);
		econtext->ecxt_scantuple = evaluation_slot(info, side, versions[side]);
		return econtext;
	}

	bool predicate(int which, core::Side side)
	{
		ExprContext *econtext = context_for(which, side == core::Side::Old ? kOld : kNew);
		return ExecQual(info->indexes[which].predicate_state, econtext);
	}

	bool expressions_equal(int which)
	{
		IndexEvalInfo *index = &info->indexes[which];
		// An expression that is exactly a field access whose values are strings (or
		// booleans) of other bytes has another value: nothing to evaluate (PartState).
		for (int k = 0; k < index->nexpressions; k++)
			if (index->expression_part[k] >= 0 && info->part_state[index->expression_part[k]] == kPartChangedAsScalars)
				return false;
		for (int k = 0; k < index->nexpressions; k++)
		{
			bool null[2];
			Datum value[2];
			for (int side : {kOld, kNew})
				value[side] = ExecEvalExprSwitchContext(index->expression_states[k],
														context_for(which, side), &null[side]);
			if (null[kOld] != null[kNew])
				return false;
			if (!null[kOld] &&
				!datum_image_eq(value[kOld], value[kNew], index->expression_typbyval[k],
								index->expression_typlen[k]))
				return false;
		}
		return true;
	}
};
static_assert(std::is_trivially_destructible_v<EvaluationProbe>); // on frames an ERROR may unwind

// Runs the core; a C++ exception (a bug, or allocation failure) declines instead of
// crossing into PostgreSQL, and is counted (*failed; check_failures). In assert-enabled
// builds it fails the assertion, unless hotplus.check_selftest asked for it. Probe calls may
// longjmp through this frame: it owns nothing with a destructor.
// likely: the index to look at first (core::decide_update_likely_first), -1 for none; only
// its parts need be classified (the probe classifies the rest when asked).
bool
core_decides(RelationInfo *info, EvaluationProbe &probe, int likely, core::UpdateDecision *decision, bool *failed)
{
	try
	{
		if (settings.check_selftest)
			throw std::bad_alloc();
		core::DecisionOptions options;
		options.evaluate = settings.check_expressions;
		*decision = core::decide_update_likely_first(info->core->indexes, info->core->changes, options, probe, likely,
													 &info->core->inputs);
		return true;
	}
	catch (...)
	{
		Assert(settings.check_selftest);
		*failed = true;
		return false;
	}
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

// The free space of the page a slot's buffer tuple is on (under a short share lock).
Size
page_free_space(Buffer buffer)
{
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	Size free_space = PageGetHeapFreeSpace(BufferGetPage(buffer));
	LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	return free_space;
}

// Reads the old version at otid into info->old_slot (which keeps the buffer pinned, so the
// tuple's data cannot change or move). Returns false if there is no normal tuple there.
// ExecStoreBufferHeapTuple() keeps the HeapTupleData pointer it is given, so the header is
// the slot's own (as heapam's fetches do), never one in this function's frame.
bool
read_old_version(RelationInfo *info, Relation rel, ItemPointer otid, Size *page_free)
{
	Buffer buffer = ReadBuffer(rel, ItemPointerGetBlockNumber(otid));
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	Page page = BufferGetPage(buffer);
	ExecClearTuple(info->old_slot);
	HeapTuple tuple = &reinterpret_cast<BufferHeapTupleTableSlot *>(info->old_slot)->base.tupdata;
	if (!page_tuple_at(rel, page, otid, tuple))
	{
		UnlockReleaseBuffer(buffer);
		return false;
	}
	*page_free = PageGetHeapFreeSpace(page);
	LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	ExecStoreBufferHeapTuple(tuple, info->old_slot, buffer); // takes its own pin
	ReleaseBuffer(buffer);
	return true;
}

// The new version with the old stored datum of every `reuse` column, so the value is not
// toasted again and heap_update sees the column unchanged. Made in the slot's own memory and
// stored only once nothing reads the slot's current tuple any more (final_form()): the
// detoast caches of the new side point into it.
HeapTuple
with_old_datums(const RelationInfo *info, TupleTableSlot *old_slot, TupleTableSlot *slot)
{
	slot_getallattrs(slot);
	const int natts = slot->tts_tupleDescriptor->natts;
	Datum *values = static_cast<Datum *>(palloc(sizeof(Datum) * natts));
	memcpy(values, slot->tts_values, sizeof(Datum) * natts);
	for (int i = 0; i < info->nstatement_compared; i++)
	{
		const AttrNumber att = info->statement_compared[i];
		if (info->columns[att].reuse)
			values[att - 1] = old_slot->tts_values[att - 1];
	}
	MemoryContext old = MemoryContextSwitchTo(slot->tts_mcxt);
	HeapTuple tuple = heap_form_tuple(slot->tts_tupleDescriptor, values, slot->tts_isnull);
	MemoryContextSwitchTo(old);
	return tuple;
}

// Stores the new version heap_update() is to write: the slot hands the tuple over (a
// heap-tuple slot keeps it, a buffer slot copies it, a virtual slot, the logical replication
// apply worker's, materializes it) and frees the tuple it held. Every pointer into that
// tuple (detoast caches, evaluation slot, deformed values) dangles from here on.
void
final_form(TupleTableSlot *slot, HeapTuple tuple)
{
	ExecForceStoreHeapTuple(tuple, slot, true);
}

// Whether the new version, as heap_update() will store it, certainly cannot go on a page
// with page_free bytes free. Only predictable when heap will not toast it (no external
// value, below the toast threshold).
bool
cannot_fit(HeapTuple tuple, Size page_free)
{
	return !HeapTupleHasExternal(tuple) && tuple->t_len <= TOAST_TUPLE_THRESHOLD &&
		   MAXALIGN(tuple->t_len) > page_free;
}

bool
cannot_fit(TupleTableSlot *slot, Size page_free)
{
	bool should_free = false;
	HeapTuple tuple = ExecFetchSlotHeapTuple(slot, true, &should_free);
	bool result = cannot_fit(tuple, page_free);
	if (should_free)
		heap_freetuple(tuple);
	return result;
}

// Copies of the values the statement wrote into the columns whose old datum is reused, for
// hotplus.verify, in the current memory context.
void
remember_written(const RelationInfo *info, TupleTableSlot *slot, int *n, AttrNumber *atts, Datum *written)
{
	*n = 0;
	for (int i = 0; i < info->nstatement_compared; i++)
	{
		const AttrNumber att = info->statement_compared[i];
		if (info->columns[att].reuse)
		{
			atts[*n] = att;
			written[(*n)++] = datumCopy(slot->tts_values[att - 1], false, -1);
		}
	}
}

// Decides, then runs heap's update with the decision. The caller owns cleanup and has
// learned the running statement (learn_statement).
TM_Result
decide_and_update(RelationInfo *info, const UpdateArgs &a, Findings *f)
{
	// Materialize the new version in its slot: its values must not change under us.
	ExecMaterializeSlot(a.slot);

	// The old version: the executor's copy when it has the page tuple at otid pinned (no
	// second buffer lookup; the page's free space is read later, only if needed), else read
	// from otid (with the free space, under the lock taken anyway).
	Size page_free = 0;
	bool page_free_known = false;
	TupleTableSlot *old_slot = statement_old_version(info->statement_result_rel, a.rel, a.otid);
	if (old_slot == nullptr)
	{
		if (!read_old_version(info, a.rel, a.otid, &page_free))
			return heap_decides(a);
		old_slot = info->old_slot;
		page_free_known = true;
	}
	f->checked = true;

	MemoryContext caller_context =
		MemoryContextSwitchTo(GetPerTupleMemoryContext(info->estate));

	slot_getsomeattrs(old_slot, info->max_compared);
	slot_getsomeattrs(a.slot, info->max_compared);

	// A compared column the statement does not set holds the old version's datum, copied as
	// stored (statement_scope.hpp): Same, nothing to compare. statement_compared lists the
	// others.
	info->core->changes.reset();
	if (info->parts.nparts > 0)
		memset(info->part_state, kPartUnknown, info->parts.nparts);
	// The index the last decision for these targets found changed, looked at first.
	const int guess = selftest_active() || info->likely_changed >= static_cast<int>(info->core->indexes.size())
						  ? -1
						  : info->likely_changed;
	for (int i = 0; i < info->nstatement_compared; i++)
	{
		const AttrNumber att = info->statement_compared[i];
		core::ColumnChange change = classify_column(info, old_slot, a.slot, att, guess);
		info->columns[att].reuse = false;
		if (change == core::ColumnChange::ImageEqual && settings.reuse_toast &&
			info->columns[att].toastable && reuse_keeps_stored_bytes(old_slot->tts_values[att - 1]) &&
			reuse_keeps_compression(a.rel, att, old_slot->tts_values[att - 1], a.slot->tts_values[att - 1]))
		{
			info->columns[att].reuse = true;
			f->toast_reused++;
			f->index_input_reused |= info->columns[att].index_input;
			change = core::ColumnChange::Same; // it will be, as stored
		}
		if (info->columns[att].index_input && change != core::ColumnChange::Same)
			f->index_input_differs = true;
		info->core->changes.set(att, change);
	}

	// The new version as heap_update() will store it. It goes into the slot only after the
	// last read through the caches, which point into the slot's current tuple (final_form).
	HeapTuple reused_form = f->toast_reused > 0 ? with_old_datums(info, old_slot, a.slot) : nullptr;

	// With no index input differing as stored, heap's decision is exact (HOT if it fits),
	// unless heap blocks HOT on more columns than the indexes really read. An index found
	// changed from the compared columns alone settles it (not HOT) before anything else is
	// looked at; a version that cannot fit on the old page cannot be HOT either. Then the
	// core decides, the index the last such decision found changed first (the update that
	// cannot be HOT needs only one changed index): of the jsonb fields indexes read, only
	// that index's are compared before it is decided, the others only if it is unchanged.
	const bool needs_decision = f->index_input_differs || info->stock_blocks_more;
	const bool prechecked = needs_decision && !selftest_active();
	if (prechecked && core::blocked_by_stored_columns(info->core->indexes, info->core->blockers,
													  info->core->changes, &f->decision))
		f->decided = true;
	else if (needs_decision)
	{
		if (!page_free_known)
			page_free = page_free_space(reinterpret_cast<BufferHeapTupleTableSlot *>(old_slot)->buffer);
		f->page_cannot_fit = reused_form != nullptr ? cannot_fit(reused_form, page_free)
													: cannot_fit(a.slot, page_free);
	}
	// On a full page HOT is impossible: nothing is evaluated, the decision is made only as
	// far as the prechecks take it, to count the update as what it is, and in full for a
	// random sample of the rest (hotplus.page_full_sample_every), which the statistics
	// extrapolate. It writes nothing: heap decides alone below.
	// The prechecks need every jsonb field an index reads classified (the probe's
	// complete_inputs(), made once for the decision below too).
	EvaluationProbe probe{info, {old_slot, a.slot}, f, false};
	bool decide_on_full_page = false;
	if (needs_decision && !f->decided && f->page_cannot_fit)
	{
		core::DecisionOptions options;
		options.evaluate = settings.check_expressions;
		core::Prechecks prechecks; // trivially destructible: this frame may be unwound
		core::HotQuestion question = core::HotQuestion::NeedsEvaluation;
		if (prechecked)
		{
			probe.complete_inputs();
			core::UpdateDecision blocked;
			if (core::blocked_without_evaluation(info->core->indexes, info->core->changes, &blocked, &prechecks))
			{
				question = core::HotQuestion::Settled;
				prechecks.settled = blocked;
			}
			else
				question = core::hot_question(info->core->indexes, prechecks, options);
		}
		switch (question)
		{
			case core::HotQuestion::Settled:
				f->decided = true;
				f->decision = prechecks.settled;
				break;
			case core::HotQuestion::WithoutEvaluation:
				decide_on_full_page = true;
				break;
			case core::HotQuestion::NeedsEvaluation:
			{
				const int every = settings.page_full_sample_every;
				decide_on_full_page = page_full_sample_drawn(every);
				f->page_full_unchecked = !decide_on_full_page;
				f->page_full_weight = decide_on_full_page ? every - 1 : 0;
				break;
			}
		}
	}
	if (needs_decision && !f->decided && (!f->page_cannot_fit || decide_on_full_page))
	{
		const int likely = prechecked ? guess : -1;
		if (likely >= 0 && !probe.parts_complete)
			classify_index_parts(info, likely, old_slot, a.slot, f);
		f->decided = core_decides(info, probe, likely, &f->decision, &f->check_failed);
		f->beyond_stock_inputs = !f->index_input_differs;
		if (selftest_active())
		{
			f->decided = true;
			f->decision.hot_allowed = true;
		}
		else if (f->decided)
			info->likely_changed = f->decision.hot_allowed ? -1 : f->decision.blocking_index;
	}

	// hotplus.verify compares reused datums with the values written, which final_form frees.
	const bool verify_wanted =
		settings.verify && (reused_form != nullptr || (f->decided && f->decision.hot_allowed && !f->page_cannot_fit));
	const bool verified = verify_wanted && verifier_samples_update();
	f->verify_sampled_out = verify_wanted && !verified;
	int nwritten = 0;
	AttrNumber *written_atts = nullptr;
	Datum *written = nullptr;
	if (reused_form != nullptr && verified)
	{
		written_atts = static_cast<AttrNumber *>(palloc(sizeof(AttrNumber) * info->natts));
		written = static_cast<Datum *>(palloc(sizeof(Datum) * info->natts));
		remember_written(info, a.slot, &nwritten, written_atts, written);
	}
	MemoryContextSwitchTo(caller_context);

	if (f->timed)
	{
		instr_time now;
		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_SUBTRACT(now, f->started);
		f->check_ns = compat_instr_time_ns(now) * kCheckTimeSampleEvery;
	}

	if (reused_form != nullptr)
		final_form(a.slot, reused_form);

	if (nwritten > 0)
	{
		verify_reused_datums(a.rel, a.slot, nwritten, written_atts, written);
		f->verified = true;
	}

	// When a decision was needed, some column heap's HOT check reads differs as stored (or
	// heap reads more columns than the indexes do), so heap alone would refuse HOT. An
	// invalidation processed while evaluating may mean a new index: then the decision is
	// void unless the entry still describes the relation (relation_info.hpp invariant 2).
	if (!f->decided || !f->decision.hot_allowed || f->page_cannot_fit || !relation_info_revalidate(info, a.rel))
		return heap_decides(a);
	if (verified)
	{
		// The verifier may accept invalidations (verifier.hpp invariant 4): it checks the
		// decision only if the entry still describes the relation afterwards.
		struct Stands
		{
			RelationInfo *info;
			Relation rel;
		} stands{info, a.rel};
		auto still_describes = [](void *arg) {
			auto *s = static_cast<Stands *>(arg);
			return relation_info_revalidate(s->info, s->rel);
		};
		if (!verify_indexes_unchanged(a.rel, a.otid, a.slot, still_describes, &stands))
			return heap_decides(a);
		f->verified = true;
	}

	// The override needs the relcache's bitmaps computed (an invalidation clears them), and
	// computing them may accept invalidations: compute, then check the entry once more.
	if (!compat_index_bitmaps_valid(a.rel))
		bms_free(RelationGetIndexAttrBitmap(a.rel, kCompatHotBlockingKind));
	if (!relation_info_revalidate(info, a.rel))
		return heap_decides(a);
	HotBlockingOverride override;
	if (!hot_blocking_override_begin(&override, a.rel))
		return heap_decides(a);
	f->override_applied = true;
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

UpdateOutcome
outcome_of(const Findings &f, bool hot)
{
	const core::UpdateDecision &d = f.decision;
	if (hot)
	{
		if (f.override_applied)
			return d.used_expressions || f.beyond_stock_inputs || f.by_parts ? UpdateOutcome::HotByExpression
				   : d.used_predicates ? UpdateOutcome::HotByPartial
									   : UpdateOutcome::HotByImage;
		return f.index_input_reused ? UpdateOutcome::HotByImage : UpdateOutcome::HotStock;
	}
	if (!f.checked)
		return UpdateOutcome::NonHotOther;
	if (!f.index_input_differs)
		return UpdateOutcome::NonHotPageFull;
	if (!f.decided)
		return f.page_full_unchecked ? UpdateOutcome::NonHotPageFullUnchecked : UpdateOutcome::NonHotOther;
	return d.hot_allowed ? UpdateOutcome::NonHotPageFull : UpdateOutcome::NonHotIndexChanged;
}

void
count(Relation rel, RelationInfo *info, const UpdateArgs &a, TM_Result result, const Findings &f)
{
	if (result != TM_Ok)
		return;
	const bool hot = compat_get_update_indexes(a.update_indexes) == IndexUpdate::None;
	UpdateReport report;
	report.outcome = outcome_of(f, hot);
	report.checked = f.checked;
	report.toast_reused = f.toast_reused;
	report.blocking_index = InvalidOid;
	if (!hot && f.decided && !f.decision.hot_allowed && info != nullptr &&
		f.decision.blocking_index >= 0 && f.decision.blocking_index < info->nindexes)
		report.blocking_index = info->indexes[f.decision.blocking_index].index_oid;
	report.check_time_ns = f.check_ns;
	report.check_failed = f.check_failed;
	report.verified = f.verified;
	report.verify_sampled_out = f.verify_sampled_out;
	report.unchecked_hot_weight = report.outcome == UpdateOutcome::NonHotPageFull ? f.page_full_weight : 0;
	stats_count(RelationGetRelid(rel), report);
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

// What a statement that changes the columns targets (all, if not known) does to the
// relation's compared columns, into the entry.
void
learn_targets(RelationInfo *info, bool known, const Bitmapset *targets)
{
	// A statement that cannot change any compared column (nor any column heap's HOT check
	// reads) leaves them all as stored (the executor copies untouched columns from the old
	// version): heap's decision is exact.
	info->statement_leaves_to_heap = known && !bms_overlap(targets, info->skip_unless_targeted);
	info->statement_reuse_only = known && !bms_overlap(targets, info->decision_inputs);
	info->nstatement_compared = 0;
	info->statement_max_compared = 0;
	for (int i = 0; i < info->ncompared; i++)
	{
		const AttrNumber att = info->compared[i];
		if (!known || bms_is_member(att - FirstLowInvalidHeapAttributeNumber, targets))
		{
			info->statement_compared[info->nstatement_compared++] = att;
			info->statement_max_compared = att;
		}
	}
	bms_free(info->learned_targets);
	MemoryContext caller_context = MemoryContextSwitchTo(info->context);
	info->learned_targets = known ? bms_copy(targets) : nullptr;
	MemoryContextSwitchTo(caller_context);
	info->learned_known = known;
	info->learned = true;
	info->likely_changed = -1; // learned anew for these targets
}

// What the running statement does to the relation, into the entry (relation_info.hpp).
// Its targets are only taken for updates that come in its own new-version slot: the
// executor fills that slot's untargeted columns from the old version, which is what lets
// them count as Same unread.
void
learn_statement(RelationInfo *info, Relation rel, TupleTableSlot *slot)
{
	StatementRelation statement{false, nullptr, nullptr};
	const bool found = statement_relation(rel, &statement);
	ResultRelInfo *rri = statement.result_rel;
	TupleTableSlot *own_slot = rri != nullptr ? rri->ri_newTupleSlot : nullptr;
	TupleTableSlot *conflict_slot =
		rri != nullptr && rri->ri_onConflict != nullptr ? rri->ri_onConflict->oc_ProjSlot : nullptr;
	const bool foreign = rri != nullptr && slot != own_slot && slot != conflict_slot;
	const bool known = found && statement.targets_known && !foreign;
	info->statement_slot = foreign ? nullptr : own_slot;
	info->statement_conflict_slot = foreign ? nullptr : conflict_slot;
	// What follows from the targets alone is kept from the last statement with the same
	// targets (a prepared statement run again, a transaction of like statements).
	if (!info->learned || known != info->learned_known ||
		(known && !bms_equal(statement.targets, info->learned_targets)))
		learn_targets(info, known, statement.targets);
	for (int i = 0; i < info->nstatement_compared; i++)
		info->columns[info->statement_compared[i]].unequal_fetches = 0;
	info->statement_result_rel = statement.result_rel;
	// An update in a slot that is not the statement's is learned again at the next update,
	// which may be the statement's own.
	info->statement = foreign ? 0 : statement_serial();
}

// Whether the entry's statement facts hold for an update in slot: learned in the running
// statement, and (when its targets are known) for an update in its own slot.
inline bool
statement_learned(const RelationInfo *info, TupleTableSlot *slot)
{
	return info->statement == statement_serial() &&
		   (info->statement_slot == nullptr || slot == info->statement_slot ||
			slot == info->statement_conflict_slot);
}

// For a statement that changes only toastable columns no index reads
// (statement_reuse_only): whether this update could gain nothing from hotplus. The HOT
// decision is heap's (no index input changes); what remains is TOAST reuse, which spares
// work only when the old value is compressed or stored out of line (heap would compress or
// store the written value again), or the new one is out of line (heap would fetch it and
// toast it again). A new value compressed in line is stored as it is by heap, and the old
// one in line uncompressed is no better. Otherwise the classification would find Same or
// Changed, or ImageEqual for a 1-byte header next to a 4-byte one, which heap_form_tuple()
// packs to the same stored bytes the reuse would keep (storage is not PLAIN): the stored
// version is byte for byte the one heap writes. Reads only the executor's old version
// (statement_old_version()); false when it has none.
bool
reuse_cannot_gain(const RelationInfo *info, Relation rel, ItemPointer otid, TupleTableSlot *slot)
{
	TupleTableSlot *old_slot = statement_old_version(info->statement_result_rel, rel, otid);
	if (old_slot == nullptr)
		return false;
	// The executor deformed the old version to build the new one.
	slot_getsomeattrs(old_slot, info->statement_max_compared);
	for (int i = 0; i < info->nstatement_compared; i++)
	{
		const AttrNumber att = info->statement_compared[i];
		if (!old_slot->tts_isnull[att - 1] && !in_line_uncompressed(old_slot->tts_values[att - 1]))
			return false;
	}
	// The new version was materialized (ExecUpdateAct), which leaves it to be deformed again:
	// its header says whether it holds any value out of line at all.
	if (TTS_IS_HEAPTUPLE(slot) || TTS_IS_BUFFERTUPLE(slot))
	{
		HeapTuple tuple = reinterpret_cast<HeapTupleTableSlot *>(slot)->tuple;
		if (tuple != nullptr && !HeapTupleHasExternal(tuple))
			return true;
	}
	slot_getsomeattrs(slot, info->statement_max_compared);
	for (int i = 0; i < info->nstatement_compared; i++)
	{
		const AttrNumber att = info->statement_compared[i];
		if (!slot->tts_isnull[att - 1] && VARATT_IS_EXTERNAL(DatumGetPointer(slot->tts_values[att - 1])))
			return false;
	}
	return true;
}

// The update hotplus checks, with the entry owned (in_use) and cleaned up however it ends.
// Out of line: the unchecked updates do not pay for this frame (the PG_TRY's jump buffer).
pg_noinline TM_Result
checked_update(RelationInfo *info, const UpdateArgs &args)
{
	Findings findings;
	if (checks_until_timed-- == 0)
	{
		checks_until_timed = kCheckTimeSampleEvery - 1;
		findings.timed = true;
		INSTR_TIME_SET_CURRENT(findings.started);
	}
	volatile TM_Result guarded = TM_Ok;
	info->in_use++;
	PG_TRY();
	{
		guarded = decide_and_update(info, args, &findings);
	}
	PG_FINALLY();
	{
		if (!TTS_EMPTY(info->old_slot))
			ExecClearTuple(info->old_slot);
		for (int side : {kOld, kNew})
		{
			if (info->eval_slot_filled[side])
			{
				ExecClearTuple(info->eval_slot[side]);
				info->eval_slot_filled[side] = false;
			}
			if (info->any_detoasted[side])
			{
				memset(info->is_detoasted[side], 0, sizeof(bool) * (info->natts + 1));
				info->any_detoasted[side] = false;
			}
		}
		ResetPerTupleExprContext(info->estate);
		info->in_use--;
	}
	PG_END_TRY();
	count(args.rel, info, args, guarded, findings);
	return guarded;
}

} // namespace

TM_Result
hotheap_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
					 CommandId cid COMPAT_TUPLE_UPDATE_OPTIONS_PARAM, Snapshot snapshot, Snapshot crosscheck,
					 bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
					 CompatUpdateIndexesOut *update_indexes)
{
#if PG_VERSION_NUM < 190000
	constexpr uint32 options = 0;
#endif
	const UpdateArgs args{rel, otid, slot, cid, options, snapshot, crosscheck, wait, tmfd, lockmode,
						  update_indexes};

	if (!settings.enabled)
		return heap_decides_unchecked(args, false);

	// Have the relcache compute its index bitmaps now: this may accept invalidations, which
	// must happen before our entry is validated, not between our decision and heap_update.
	if (rel->rd_rel->relhasindex && !compat_index_bitmaps_valid(rel))
		bms_free(RelationGetIndexAttrBitmap(rel, kCompatHotBlockingKind));

	RelationInfo *info = relation_info_get(rel);
	if (info == nullptr || info->nothing_to_gain || info->in_use > 0)
		return heap_decides_unchecked(args, false);
	if (!statement_learned(info, slot))
		learn_statement(info, rel, slot);
	if (info->statement_leaves_to_heap)
		return heap_decides_unchecked(args, true);
	if (info->statement_reuse_only && reuse_cannot_gain(info, rel, otid, slot))
		return heap_decides_unchecked(args, true);
	return checked_update(info, args);
}

} // namespace hotplus
