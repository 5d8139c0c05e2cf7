#include "update/row_change.hpp"

#include "update/page_tuple.hpp"
#include "update/part_changes.hpp"
#include "update/statement_scope.hpp"
#include "update/version_values.hpp"
#include "am/settings.hpp"

extern "C" {
#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "access/toast_compression.h"
#include "executor/executor.h"
#include "storage/bufmgr.h"
#include "utils/datum.h"
#include "utils/memutils.h"
}

namespace hotplus {

namespace {

// Invariant 2 (D8b): a bulk rewrite of large values pays for the fetch this many times, not
// per row; a statement that wrote one back keeps comparing.
constexpr int kUnequalFetchesBeforeGivingUp = 32;

// Reads the old version at otid into the scratch's old slot (which keeps the buffer pinned,
// so the tuple's data cannot change or move), with its page's free space, read under the lock
// taken anyway. False if there is no normal tuple there. ExecStoreBufferHeapTuple() keeps the
// HeapTupleData pointer it is given, so the header is the slot's own (as heapam's fetches
// do), never one in this function's frame.
bool
read_old_version(UpdateState *s)
{
	const UpdateArgs &a = *s->args;
	TupleTableSlot *old_slot = s->info->scratch.old_slot;
	Buffer buffer = ReadBuffer(a.rel, ItemPointerGetBlockNumber(a.otid));
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	Page page = BufferGetPage(buffer);
	ExecClearTuple(old_slot);
	HeapTuple tuple = &reinterpret_cast<BufferHeapTupleTableSlot *>(old_slot)->base.tupdata;
	if (!page_tuple_at(a.rel, page, a.otid, tuple))
	{
		UnlockReleaseBuffer(buffer);
		return false;
	}
	s->page_free = PageGetHeapFreeSpace(page);
	s->page_free_known = true;
	LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	ExecStoreBufferHeapTuple(tuple, old_slot, buffer); // takes its own pin
	ReleaseBuffer(buffer);
	s->old_slot = old_slot;
	return true;
}

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

// Two in-line uncompressed varlena values: their bytes after the header are their images, so
// they are compared here instead of by datumIsEqual() and toast_raw_datum_size() (about 100
// instructions per update on a short indexed value). Only the headers can differ in stored
// bytes alone.
core::ColumnChange
classify_in_line(UpdateState *s, Form_pg_attribute attr, AttrNumber att, struct varlena *o, struct varlena *n)
{
	const Size len = VARSIZE_ANY_EXHDR(o);
	if (len != VARSIZE_ANY_EXHDR(n))
		return core::ColumnChange::Changed;
	if (memcmp(VARDATA_ANY(o), VARDATA_ANY(n), len) != 0)
		return s->selftest ? core::ColumnChange::ImageEqual : core::ColumnChange::Changed;
	// The old version as stored, the new one as heap will store it.
	if (VARATT_IS_SHORT(o) == (VARATT_IS_SHORT(n) || stored_short(attr, len)))
		return core::ColumnChange::Same; // byte for byte
	s->info->columns[att].unequal_fetches = -1;
	return core::ColumnChange::ImageEqual;
}

// Two varlena values of which one at least is compressed or out of line, of equal raw size,
// not proved different by a jsonb field of the likely index: compared detoasted (invariant 2).
core::ColumnChange
classify_detoasted(UpdateState *s, AttrNumber att, Datum old_value, Datum new_value)
{
	int *unequal_fetches = &s->info->columns[att].unequal_fetches;
	if (*unequal_fetches >= kUnequalFetchesBeforeGivingUp)
		return core::ColumnChange::Changed;
	auto *o = reinterpret_cast<struct varlena *>(DatumGetPointer(detoasted_value(s->info, kOld, att, old_value)));
	auto *n = reinterpret_cast<struct varlena *>(DatumGetPointer(detoasted_value(s->info, kNew, att, new_value)));
	const Size len = VARSIZE_ANY_EXHDR(o);
	if (len == VARSIZE_ANY_EXHDR(n) && memcmp(VARDATA_ANY(o), VARDATA_ANY(n), len) == 0)
	{
		*unequal_fetches = -1;
		return core::ColumnChange::ImageEqual;
	}
	if (*unequal_fetches >= 0)
		++*unequal_fetches;
	return s->selftest ? core::ColumnChange::ImageEqual : core::ColumnChange::Changed;
}

// The change of compared column att. A field the likely index reads that differs proves a
// jsonb column Changed before the documents are fetched or decompressed.
core::ColumnChange
classify_column(UpdateState *s, AttrNumber att)
{
	TupleTableSlot *old_slot = s->old_slot;
	TupleTableSlot *new_slot = s->args->slot;
	const bool old_null = old_slot->tts_isnull[att - 1];
	const bool new_null = new_slot->tts_isnull[att - 1];
	if (old_null || new_null)
		return old_null == new_null ? core::ColumnChange::Same : core::ColumnChange::Changed;

	Form_pg_attribute attr = TupleDescAttr(old_slot->tts_tupleDescriptor, att - 1);
	const Datum old_value = old_slot->tts_values[att - 1];
	const Datum new_value = new_slot->tts_values[att - 1];
	if (attr->attlen == -1 && in_line_uncompressed(old_value) && in_line_uncompressed(new_value))
		return classify_in_line(s, attr, att, reinterpret_cast<struct varlena *>(DatumGetPointer(old_value)),
								reinterpret_cast<struct varlena *>(DatumGetPointer(new_value)));
	if (datumIsEqual(old_value, new_value, attr->attbyval, attr->attlen))
		return core::ColumnChange::Same;
	if (attr->attlen != -1)
		return core::ColumnChange::Changed;
	// Never fetch or decompress when the raw sizes already differ, or when a field the likely
	// index reads differs.
	if (toast_raw_datum_size(old_value) != toast_raw_datum_size(new_value) || guessed_part_differs(s, att))
		return core::ColumnChange::Changed;
	return classify_detoasted(s, att, old_value, new_value);
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

// Whether the new version keeps column att's old stored datum (invariant 1), an ImageEqual
// toastable column.
bool
keeps_old_datum(const UpdateState *s, AttrNumber att)
{
	const Datum old_value = s->old_slot->tts_values[att - 1];
	return settings.reuse_toast && s->info->columns[att].toastable && reuse_keeps_stored_bytes(old_value) &&
		   reuse_keeps_compression(s->args->rel, att, old_value, s->args->slot->tts_values[att - 1]);
}

// The new version with the old stored datum of every reused column, so the value is not
// toasted again and heap_update sees the column unchanged, made in the slot's own memory.
HeapTuple
with_old_datums(const UpdateState *s)
{
	TupleTableSlot *slot = s->args->slot;
	slot_getallattrs(slot);
	const int natts = slot->tts_tupleDescriptor->natts;
	Datum *values = static_cast<Datum *>(palloc(sizeof(Datum) * natts));
	memcpy(values, slot->tts_values, sizeof(Datum) * natts);
	const AttrNumber *reused = s->info->scratch.reused;
	for (int i = 0; i < s->toast_reused; i++)
		values[reused[i] - 1] = s->old_slot->tts_values[reused[i] - 1];
	MemoryContext old = MemoryContextSwitchTo(slot->tts_mcxt);
	HeapTuple tuple = heap_form_tuple(slot->tts_tupleDescriptor, values, slot->tts_isnull);
	MemoryContextSwitchTo(old);
	return tuple;
}

} // namespace

bool
row_change_read(UpdateState *s)
{
	RelationInfo *info = s->info;
	const UpdateArgs &a = *s->args;
	// The new version's values must not change under us.
	ExecMaterializeSlot(a.slot);
	// The executor's copy when it has the page tuple at otid pinned (no second buffer lookup;
	// the page's free space is read later, only if needed), else read from otid.
	s->old_slot = statement_old_version(info->statement_result_rel, a.rel, a.otid);
	if (s->old_slot == nullptr && !read_old_version(s))
		return false;
	s->checked = true;

	MemoryContext caller_context = MemoryContextSwitchTo(GetPerTupleMemoryContext(info->estate));
	slot_getsomeattrs(s->old_slot, info->max_compared);
	slot_getsomeattrs(a.slot, info->max_compared);
	info->core->changes.reset();
	if (info->parts.nparts > 0)
		memset(info->scratch.part_state, kPartUnknown, info->parts.nparts);
	// The index the last decision for these targets found changed, looked at first.
	s->guess = s->selftest || info->likely_changed >= static_cast<int>(info->core->indexes.size())
				   ? -1
				   : info->likely_changed;
	// A compared column the statement does not set holds the old version's datum, copied as
	// stored (statement_scope.hpp): Same, nothing to compare. statement_compared lists the
	// others.
	for (int i = 0; i < info->nstatement_compared; i++)
	{
		const AttrNumber att = info->statement_compared[i];
		core::ColumnChange change = classify_column(s, att);
		if (change == core::ColumnChange::ImageEqual && keeps_old_datum(s, att))
		{
			info->scratch.reused[s->toast_reused++] = att;
			s->index_input_reused |= info->columns[att].index_input;
			change = core::ColumnChange::Same; // it will be, as stored
		}
		if (info->columns[att].index_input && change != core::ColumnChange::Same)
			s->index_input_differs = true;
		info->core->changes.set(att, change);
	}
	if (s->toast_reused > 0)
		s->final_form = with_old_datums(s);
	MemoryContextSwitchTo(caller_context);
	return true;
}

} // namespace hotplus
