#include "update/update_gate.hpp"

#include "update/hot_blocking_override.hpp"
#include "update/statement_scope.hpp"
#include "update/version_values.hpp"
#include "am/settings.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/sysattr.h"
#include "utils/memutils.h"
}

namespace hotplus {

namespace {

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
	// The indexes whose hint the executor gets wrong when a row leaves their key unchanged: it
	// tells "changed" to every index a key column or expression input of which the statement
	// sets (execIndexing.c, index_unchanged_by_update(); for the others it already tells
	// "unchanged"), of an access method that reads the hint. Only those can gain one
	// (index_hints.hpp). A relation with nothing to gain on HOT (no toastable column, no
	// expression or partial index) is checked only for hints, and only when two indexes or
	// more can gain: with one, the executor's answer is exact.
	int targeted_indexes = 0;
	for (int i = 0; i < static_cast<int>(info->core->indexes.size()); i++)
	{
		const core::IndexShape &index = info->core->indexes[i];
		bool targeted = !known;
		for (const core::ColumnSet *inputs : {&index.stored_columns, &index.expression_inputs})
			for (core::ColumnNumber input : *inputs)
			{
				const AttrNumber column = input > info->natts ? info->parts.parts[input - info->natts - 1].column : input;
				targeted |= bms_is_member(column - FirstLowInvalidHeapAttributeNumber, targets);
			}
		targeted &= info->indexes[i].takes_hint;
		info->statement_hint_candidates[i] = targeted;
		targeted_indexes += targeted;
	}
	info->nstatement_hint_candidates = targeted_indexes;
	info->statement_hints_only = info->nothing_to_gain && targeted_indexes >= 2;
	bms_free(info->learned_targets);
	MemoryContext caller_context = MemoryContextSwitchTo(info->context);
	info->learned_targets = known ? bms_copy(targets) : nullptr;
	MemoryContextSwitchTo(caller_context);
	info->learned_known = known;
	info->learned = true;
	info->likely_changed = -1; // learned anew for these targets
}

// What the running statement does to the relation, into the entry (relation_info.hpp;
// invariant 2).
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
	info->statement_hint_target = foreign ? nullptr : rri;
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
reuse_cannot_gain(const RelationInfo *info, const UpdateArgs &a)
{
	TupleTableSlot *old_slot = statement_old_version(info->statement_result_rel, a.rel, a.otid);
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
	TupleTableSlot *slot = a.slot;
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

} // namespace

Gate
update_gate(const UpdateArgs &a, RelationInfo **info_out)
{
	if (!settings.enabled)
		return Gate::HeapAlone;
	if (a.rel->rd_rel->relhasindex)
		ensure_index_bitmaps(a.rel); // invariant 1
	RelationInfo *info = relation_info_get(a.rel);
	if (info == nullptr || info->in_use > 0)
		return Gate::HeapAlone;
	if (!statement_learned(info, a.slot))
		learn_statement(info, a.rel, a.slot);
	if (info->nothing_to_gain && !(info->statement_hints_only && settings.index_hints))
		return Gate::HeapAlone;
	if (info->statement_leaves_to_heap || (info->statement_reuse_only && reuse_cannot_gain(info, a)))
		return Gate::HeapByTargets;
	*info_out = info;
	return Gate::Check;
}

} // namespace hotplus
