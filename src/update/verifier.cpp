#include "update/verifier.hpp"
#include "am/relcache_callback.hpp"

#include "update/guarded_build.hpp"
#include "update/jsonb_parts.hpp"
#include "update/page_tuple.hpp"
#include "am/settings.hpp"

extern "C" {
#include "access/detoast.h"
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/sysattr.h"
#include "catalog/index.h"
#include "common/pg_prng.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "storage/bufmgr.h"
#include "utils/datum.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/builtins.h"
#include "utils/rel.h"
}

namespace hotplus {

namespace {

struct VerifiedIndex
{
	Oid oid;
	char *name;
	IndexInfo *info;   // expression and predicate states prepared lazily in the entry's EState
	bool ready;		   // indisready: may be evaluated (invariant 3)
	bool reads_whole_row; // an expression or the predicate does: changed by every update
	int16 *typlen;	   // per index column (keys, then INCLUDE): of the value FormIndexDatum
	bool *typbyval;	   // gives, the column's or the expression's own type
	Bitmapset *inputs;		  // not ready: the whole columns it reads, attribute numbers,
	JsonbPartRegistry parts; // and the jsonb fields it reads
};

struct VerifierEntry
{
	Oid relid;
	bool valid; // cleared by any relcache invalidation of the relation
	int in_use;
	MemoryContext context;
	EState *estate;
	int nindexes;
	VerifiedIndex *indexes;
	// The old and the new version: heap-tuple slots over copies in per-tuple memory, and
	// virtual slots with the same values where every varlena an expression or predicate of
	// a ready index reads is detoasted once (FormIndexDatum would detoast it once per
	// expression).
	TupleTableSlot *stored[2];
	TupleTableSlot *sides[2];
	bool *detoast; // [natts + 1], by attribute number
};

using CacheEntry = RelidCacheSlot<VerifierEntry>;

HTAB *cache = nullptr;

void
invalidate(Datum, Oid relid)
{
	mark_invalidated<VerifierEntry>(cache, relid);
}

void
destroy(VerifierEntry *entry)
{
	for (int side = 0; side < 2; side++)
	{
		if (entry->sides[side] != nullptr)
			ExecDropSingleTupleTableSlot(entry->sides[side]);
		if (entry->stored[side] != nullptr)
			ExecDropSingleTupleTableSlot(entry->stored[side]);
	}
	if (entry->estate != nullptr)
		FreeExecutorState(entry->estate);
	MemoryContextDelete(entry->context); // entry itself lives there
}

// What an index that is not ready reads: whole columns, as attribute numbers (a whole-row
// reference reads all), into out->inputs, and jsonb fields read only through -> / ->> with a
// constant key (jsonb_parts.hpp; the decision compares those as bytes) into out->parts.
void
collect_unready_inputs(VerifiedIndex *out, IndexInfo *ii, int natts)
{
	Bitmapset *offset = nullptr;
	Bitmapset *parts = nullptr;
	collect_inputs(reinterpret_cast<Node *>(ii->ii_Expressions), &offset, &parts, &out->parts);
	collect_inputs(reinterpret_cast<Node *>(ii->ii_Predicate), &offset, &parts, &out->parts);
	out->inputs = nullptr;
	for (int k = 0; k < ii->ii_NumIndexAttrs; k++)
		if (ii->ii_IndexAttrNumbers[k] > 0)
			out->inputs = bms_add_member(out->inputs, ii->ii_IndexAttrNumbers[k]);
	const bool whole_row = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, offset);
	for (int att = 1; att <= natts; att++)
		if (whole_row || bms_is_member(att - FirstLowInvalidHeapAttributeNumber, offset))
			out->inputs = bms_add_member(out->inputs, att);
}

// doc -> key, or NULL (not an object, or no such key), computed by jsonb's own operator
// function rather than by the decision's lookup.
Datum
field_value(Datum doc, text *key, bool *isnull)
{
	LOCAL_FCINFO(fcinfo, 2);
	InitFunctionCallInfoData(*fcinfo, nullptr, 2, InvalidOid, nullptr, nullptr);
	fcinfo->args[0].value = doc;
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = PointerGetDatum(key);
	fcinfo->args[1].isnull = false;
	Datum result = jsonb_object_field(fcinfo);
	*isnull = fcinfo->isnull;
	return result;
}

void
describe_index(VerifiedIndex *out, Relation rel, Relation index)
{
	IndexInfo *ii = BuildIndexInfo(index);
	out->oid = RelationGetRelid(index);
	out->name = pstrdup(RelationGetRelationName(index));
	out->info = ii;
	out->ready = index->rd_index->indisready;
	Bitmapset *read = nullptr;
	pull_varattnos(reinterpret_cast<Node *>(ii->ii_Expressions), 1, &read);
	pull_varattnos(reinterpret_cast<Node *>(ii->ii_Predicate), 1, &read);
	out->reads_whole_row = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, read);
	out->typlen = static_cast<int16 *>(palloc(sizeof(int16) * ii->ii_NumIndexAttrs));
	out->typbyval = static_cast<bool *>(palloc(sizeof(bool) * ii->ii_NumIndexAttrs));
	ListCell *next_expression = list_head(ii->ii_Expressions);
	for (int k = 0; k < ii->ii_NumIndexAttrs; k++)
	{
		const AttrNumber att = ii->ii_IndexAttrNumbers[k];
		if (att != 0)
		{
			Form_pg_attribute attr = TupleDescAttr(RelationGetDescr(rel), att - 1);
			out->typlen[k] = attr->attlen;
			out->typbyval[k] = attr->attbyval;
			continue;
		}
		Node *expression = static_cast<Node *>(lfirst(next_expression));
		next_expression = lnext(ii->ii_Expressions, next_expression);
		get_typlenbyval(exprType(expression), &out->typlen[k], &out->typbyval[k]);
	}
	if (!out->ready)
		collect_unready_inputs(out, ii, RelationGetDescr(rel)->natts);
}

VerifierEntry *
build_unguarded(Relation rel, VerifierEntry **building)
{
	MemoryContext old;
	auto *entry = start_entry<VerifierEntry>(
		rel, AllocSetContextCreate(CacheMemoryContext, "hotplus verifier", ALLOCSET_SMALL_SIZES), &old);
	*building = entry;

	List *index_oids = RelationGetIndexList(rel);
	entry->indexes = static_cast<VerifiedIndex *>(palloc0(sizeof(VerifiedIndex) * Max(list_length(index_oids), 1)));
	ListCell *lc;
	foreach (lc, index_oids)
	{
		Relation index = index_open(lfirst_oid(lc), AccessShareLock);
		// Summarizing indexes are heap's own (invariant 3); a dead one (DROP INDEX
		// CONCURRENTLY marked it so after the list was read: opening it accepted the
		// invalidation) is one heap no longer lists at all (RelationGetIndexList()).
		if (!compat_index_is_summarizing(index) && index->rd_index->indislive)
			describe_index(&entry->indexes[entry->nindexes++], rel, index);
		index_close(index, AccessShareLock);
	}

	// The columns the expressions and predicates of ready indexes read (a whole-row
	// reference reads all), detoasted once per version before evaluation.
	const int natts = RelationGetDescr(rel)->natts;
	entry->detoast = static_cast<bool *>(palloc0(sizeof(bool) * (natts + 1)));
	for (int i = 0; i < entry->nindexes; i++)
	{
		if (!entry->indexes[i].ready)
			continue;
		Bitmapset *read = nullptr;
		pull_varattnos(reinterpret_cast<Node *>(entry->indexes[i].info->ii_Expressions), 1, &read);
		pull_varattnos(reinterpret_cast<Node *>(entry->indexes[i].info->ii_Predicate), 1, &read);
		const bool whole_row = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, read);
		for (int att = 1; att <= natts; att++)
			entry->detoast[att] |= TupleDescAttr(RelationGetDescr(rel), att - 1)->attlen == -1 &&
								   (whole_row || bms_is_member(att - FirstLowInvalidHeapAttributeNumber, read));
	}

	entry->estate = CreateExecutorState();
	// With its constraints: the values of columns added later with a default (atthasmissing)
	// come from there for rows stored before.
	TupleDesc desc = CreateTupleDescCopyConstr(RelationGetDescr(rel));
	compat_finalize_tupdesc(desc);
	for (int side = 0; side < 2; side++)
	{
		entry->stored[side] = MakeSingleTupleTableSlot(desc, &TTSOpsHeapTuple);
		entry->sides[side] = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	}
	MemoryContextSwitchTo(old);
	return entry;
}

// The cached entry for rel if it is valid and free; else a new one, cached unless an outer
// update is using the cached one (then it is private: *is_private, destroyed after use).
VerifierEntry *
acquire(Relation rel, bool *is_private)
{
	Oid relid = RelationGetRelid(rel);
	CacheEntry *slot = relid_cache_slot<VerifierEntry>(cache, relid);
	*is_private = false;
	if (slot->entry != nullptr && slot->entry->in_use > 0)
	{
		*is_private = true;
		return guarded_build(rel, build_unguarded, destroy);
	}
	if (slot->entry != nullptr && slot->entry->valid)
		return slot->entry;
	if (slot->entry != nullptr)
	{
		VerifierEntry *stale = slot->entry;
		slot->entry = nullptr;
		destroy(stale);
	}
	VerifierEntry *entry = guarded_build(rel, build_unguarded, destroy);
	// Nothing removes hash entries but this function, so the slot is still ours.
	slot = static_cast<CacheEntry *>(hash_search(cache, &relid, HASH_FIND, nullptr));
	slot->entry = entry;
	return entry;
}

// A copy of the stored tuple at otid, in the current memory context.
HeapTuple
read_stored_version(Relation rel, ItemPointer otid)
{
	Buffer buffer = ReadBuffer(rel, ItemPointerGetBlockNumber(otid));
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	HeapTupleData stored;
	if (!page_tuple_at(rel, BufferGetPage(buffer), otid, &stored))
	{
		UnlockReleaseBuffer(buffer);
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
						errmsg("hotplus.verify: no tuple at (%u,%u) of table \"%s\"",
							   ItemPointerGetBlockNumber(otid), ItemPointerGetOffsetNumber(otid),
							   RelationGetRelationName(rel))));
	}
	HeapTuple copy = heap_copytuple(&stored);
	UnlockReleaseBuffer(buffer);
	return copy;
}

// A virtual copy of stored's values, the columns entry->detoast names detoasted (in the
// current memory context).
void
detoast_into(VerifierEntry *entry, TupleTableSlot *stored, TupleTableSlot *side)
{
	const int natts = stored->tts_tupleDescriptor->natts;
	slot_getallattrs(stored);
	ExecClearTuple(side);
	for (int att = 1; att <= natts; att++)
	{
		Datum value = stored->tts_values[att - 1];
		const bool isnull = stored->tts_isnull[att - 1];
		if (!isnull && entry->detoast[att] && VARATT_IS_EXTENDED(DatumGetPointer(value)))
			value = PointerGetDatum(detoast_attr(reinterpret_cast<struct varlena *>(DatumGetPointer(value))));
		side->tts_values[att - 1] = value;
		side->tts_isnull[att - 1] = isnull;
	}
	ExecStoreVirtualTuple(side);
}

[[noreturn]] void
report_disagreement(Relation rel, const VerifiedIndex &index, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("hotplus.verify: a HOT update of table \"%s\" would leave index \"%s\" wrong",
					RelationGetRelationName(rel), index.name),
			 errdetail_internal("%s", detail),
			 errhint("Nothing was written. This is a hotplus bug: please report it. "
					 "SET hotplus.enabled = off lets heap decide alone.")));
	pg_unreachable();
}

// Invariant 2 (or 3 for an index that is not ready) for one index.
void
check_index(Relation rel, VerifierEntry *entry, VerifiedIndex *index)
{
	TupleTableSlot *const *sides = entry->sides;
	// Equal values today say nothing about the key stored: the whole-row value of a stored
	// row changes with ALTER TABLE ... ADD/DROP COLUMN, which does not re-index. Heap counts
	// such an index as changed by every update, and so must hotplus.
	if (index->reads_whole_row)
		report_disagreement(rel, *index, "The index reads the whole row, which every update changes for it, as for heap.");
	if (!index->ready)
	{
		int att = -1;
		while ((att = bms_next_member(index->inputs, att)) >= 0)
		{
			Form_pg_attribute attr = TupleDescAttr(sides[0]->tts_tupleDescriptor, att - 1);
			bool null[2];
			Datum value[2];
			for (int side = 0; side < 2; side++)
				value[side] = slot_getattr(sides[side], att, &null[side]);
			if (null[0] != null[1] ||
				(!null[0] && !datum_image_eq(value[0], value[1], attr->attbyval, attr->attlen)))
				report_disagreement(rel, *index,
									psprintf("Column \"%s\", which the index (not ready) reads, changed.",
											 NameStr(attr->attname)));
		}
		for (int i = 0; i < index->parts.nparts; i++)
		{
			const JsonbPart &part = index->parts.parts[i];
			bool null[2];
			Datum value[2];
			for (int side = 0; side < 2; side++)
			{
				value[side] = slot_getattr(sides[side], part.column, &null[side]);
				if (!null[side])
					value[side] = field_value(value[side], part.key, &null[side]);
			}
			if (null[0] != null[1] || (!null[0] && !datum_image_eq(value[0], value[1], false, -1)))
				report_disagreement(rel, *index,
									psprintf("Field \"%s\" of column %d, which the index (not ready) reads, changed.",
											 text_to_cstring(part.key), part.column));
		}
		return;
	}

	IndexInfo *ii = index->info;
	ExprContext *econtext = GetPerTupleExprContext(entry->estate);
	if (ii->ii_Predicate != NIL)
	{
		if (ii->ii_PredicateState == nullptr)
			ii->ii_PredicateState = ExecPrepareQual(ii->ii_Predicate, entry->estate);
		bool holds[2];
		for (int side = 0; side < 2; side++)
		{
			econtext->ecxt_scantuple = sides[side];
			holds[side] = ExecQual(ii->ii_PredicateState, econtext);
		}
		if (holds[0] != holds[1])
			report_disagreement(rel, *index,
								holds[0] ? "The row leaves the index's predicate."
										 : "The row enters the index's predicate.");
		if (!holds[0])
			return; // no entry for either row
	}

	Datum values[2][INDEX_MAX_KEYS];
	bool isnull[2][INDEX_MAX_KEYS];
	for (int side = 0; side < 2; side++)
	{
		econtext->ecxt_scantuple = sides[side];
		FormIndexDatum(ii, sides[side], entry->estate, values[side], isnull[side]);
	}
	for (int k = 0; k < ii->ii_NumIndexAttrs; k++)
	{
		if (isnull[0][k] != isnull[1][k] ||
			(!isnull[0][k] &&
			 !datum_image_eq(values[0][k], values[1][k], index->typbyval[k], index->typlen[k])))
			report_disagreement(rel, *index, psprintf("Index column %d differs between the old and the new row.", k + 1));
	}
}

void
check_all_indexes(Relation rel, VerifierEntry *entry, ItemPointer otid, TupleTableSlot *final_new)
{
	MemoryContext old = MemoryContextSwitchTo(GetPerTupleMemoryContext(entry->estate));
	ExecStoreHeapTuple(read_stored_version(rel, otid), entry->stored[0], false);
	ExecStoreHeapTuple(ExecCopySlotHeapTuple(final_new), entry->stored[1], false);
	for (int side = 0; side < 2; side++)
		detoast_into(entry, entry->stored[side], entry->sides[side]);
	for (int i = 0; i < entry->nindexes; i++)
		check_index(rel, entry, &entry->indexes[i]);
	MemoryContextSwitchTo(old);
}

} // namespace

void
verifier_init()
{
	cache = make_relid_cache<VerifierEntry>("hotplus verifier", 16);
	add_relcache_callback(invalidate);
}

bool
verifier_samples_update()
{
	if (!settings.verify || settings.verify_sample_rate <= 0.0)
		return false;
	// pg_prng_double() is in [0, 1): a rate of 1 always samples, as auto_explain's does.
	return settings.verify_sample_rate >= 1.0 ||
		   pg_prng_double(&pg_global_prng_state) < settings.verify_sample_rate;
}

void
verify_reused_datums(Relation rel, TupleTableSlot *final_new, int n, const AttrNumber *atts,
					 const Datum *written)
{
	for (int i = 0; i < n; i++)
	{
		bool isnull;
		Datum stored = slot_getattr(final_new, atts[i], &isnull);
		if (isnull || !datum_image_eq(stored, written[i], false, -1))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("hotplus.verify: the TOAST value reused for column \"%s\" of table \"%s\" "
							"differs from the value written",
							NameStr(TupleDescAttr(final_new->tts_tupleDescriptor, atts[i] - 1)->attname),
							RelationGetRelationName(rel)),
					 errhint("Nothing was written. This is a hotplus bug: please report it. "
							 "SET hotplus.reuse_toast = off stores the values as written.")));
	}
}

bool
verify_indexes_unchanged(Relation rel, ItemPointer otid, TupleTableSlot *final_new,
						 bool (*decision_stands)(void *), void *arg)
{
	bool is_private;
	VerifierEntry *entry = acquire(rel, &is_private);
	VerifierEntry *volatile guarded = entry;
	entry->in_use++;
	volatile bool checked = false;
	PG_TRY();
	{
		// Describing the indexes opened them, which may have accepted invalidations
		// (invariant 4): a decision they made void is not checked, it is not applied.
		if (decision_stands(arg))
		{
			check_all_indexes(rel, entry, otid, final_new);
			checked = true;
		}
	}
	PG_FINALLY();
	{
		for (int side = 0; side < 2; side++)
		{
			ExecClearTuple(guarded->sides[side]);
			ExecClearTuple(guarded->stored[side]);
		}
		ResetPerTupleExprContext(guarded->estate);
		guarded->in_use--;
		if (is_private)
			destroy(guarded);
	}
	PG_END_TRY();
	return checked;
}

} // namespace hotplus
