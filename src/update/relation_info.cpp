#include "update/core_state.hpp"

#include <new>

#include "am/relcache_callback.hpp"

#include "update/relation_info.hpp"

#include "update/guarded_build.hpp"

extern "C" {
#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "catalog/index.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_type_d.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
}

namespace hotplus {

namespace {

using CacheEntry = RelidCacheSlot<RelationInfo>;

HTAB *cache = nullptr;

void
invalidate(Datum, Oid relid)
{
	mark_invalidated<RelationInfo>(cache, relid);
}

// Bits of an index's flags, gathered with its facts.
constexpr int kHasExpressions = 1;
constexpr int kHasPredicate = 2;
constexpr int kNotReady = 4;
constexpr int kReadsWholeRow = 8; // an expression or the predicate reads the whole row

// Plain C data gathered from the catalogs for one index; the C++ shape is made from it
// afterwards, in a frame where no PostgreSQL call can longjmp.
struct IndexFacts
{
	int nstored;
	AttrNumber *stored;		 // plain key and INCLUDE columns
	Bitmapset *expression_inputs; // whole columns, offset by FirstLowInvalidHeapAttributeNumber
	Bitmapset *predicate_inputs;
	Bitmapset *expression_parts;  // jsonb parts, registry index + 1
	Bitmapset *predicate_parts;
};
static_assert(std::is_trivially_destructible_v<IndexFacts>); // on frames an ERROR may unwind

// The core's column numbers for what an expression reads: whole columns (a whole-row
// reference reads every column), then parts as natts + 1 + part index.
int
inputs_to_array(Bitmapset *columns, Bitmapset *parts, int natts, AttrNumber *out)
{
	int n = 0;
	if (bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, columns))
	{
		for (int att = 1; att <= natts; att++)
			out[n++] = att;
	}
	else
	{
		int member = -1;
		while ((member = bms_next_member(columns, member)) >= 0)
		{
			int att = member + FirstLowInvalidHeapAttributeNumber;
			if (att > 0) // index expressions cannot read system columns
				out[n++] = att;
		}
	}
	int member = -1;
	while ((member = bms_next_member(parts, member)) >= 0)
		out[n++] = natts + member;
	return n;
}

void
destroy(RelationInfo *info)
{
	if (last_relation_info == info)
		last_relation_info = nullptr;
	delete info->core;
	info->core = nullptr;
	if (info->scratch.old_slot != nullptr)
		ExecDropSingleTupleTableSlot(info->scratch.old_slot);
	for (auto *slot : info->scratch.eval_slot)
		if (slot != nullptr)
			ExecDropSingleTupleTableSlot(slot);
	if (info->estate != nullptr)
		FreeExecutorState(info->estate);
	// info itself lives in its context.
	MemoryContextDelete(info->context);
}

// Builds the C++ side. Returns false on allocation failure; never throws, never longjmps.
bool
build_core(RelationInfo *info, const IndexFacts *facts, const int *index_flags)
{
	try
	{
		auto *state = new core_bridge::CoreState();
		state->changes.resize(info->natts + info->parts.nparts);
		for (int i = 0; i < info->nindexes; i++)
		{
			core::IndexShape shape;
			for (int k = 0; k < facts[i].nstored; k++)
				shape.stored_columns.push_back(facts[i].stored[k]);
			shape.has_expressions = index_flags[i] & kHasExpressions;
			shape.has_predicate = index_flags[i] & kHasPredicate;
			shape.evaluable = !(index_flags[i] & kNotReady);
			shape.reads_whole_row = index_flags[i] & kReadsWholeRow;
			state->indexes.push_back(std::move(shape));
		}
		info->core = state;
		return true;
	}
	catch (...)
	{
		return false;
	}
}

// The entry's copy of the tuple descriptor and which columns are toastable.
void
describe_columns(Relation rel, RelationInfo *info)
{
	// Everything below is derived from this copy (with its constraints: the slots need the
	// values of columns added later with a default), and revalidation compares with it.
	TupleDesc desc = CreateTupleDescCopyConstr(RelationGetDescr(rel));
	compat_finalize_tupdesc(desc);
	info->desc = desc;
	const int natts = desc->natts;
	info->natts = natts;
	info->columns = static_cast<ColumnFacts *>(palloc0(sizeof(ColumnFacts) * (natts + 1)));
	for (int att = 1; att <= natts; att++)
	{
		Form_pg_attribute attr = TupleDescAttr(desc, att - 1);
		info->columns[att].toastable =
			!attr->attisdropped && attr->attlen == -1 && attr->attstorage != TYPSTORAGE_PLAIN;
	}
}

// What the evaluation needs of one index (IndexEvalInfo), from its IndexInfo.
void
describe_evaluation(Oid index_oid, const IndexInfo *ii, IndexEvalInfo *eval)
{
	eval->index_oid = index_oid;
	eval->expressions = ii->ii_Expressions;
	eval->predicate = ii->ii_Predicate;
	eval->nexpressions = list_length(ii->ii_Expressions);
	const int n = Max(eval->nexpressions, 1);
	eval->expression_typlen = static_cast<int16 *>(palloc0(sizeof(int16) * n));
	eval->expression_typbyval = static_cast<bool *>(palloc0(sizeof(bool) * n));
	eval->expression_states = static_cast<ExprState **>(palloc0(sizeof(ExprState *) * n));
	eval->expression_part = static_cast<int *>(palloc(sizeof(int) * n));
	int k = 0;
	ListCell *ec;
	foreach (ec, ii->ii_Expressions)
	{
		get_typlenbyval(exprType(static_cast<Node *>(lfirst(ec))), &eval->expression_typlen[k],
						&eval->expression_typbyval[k]);
		k++;
	}
}

// The facts of one index that is not summarizing: its stored columns, what its expressions
// and predicate read (registering jsonb parts in info->parts), which of its expressions are
// exactly a part, and its flags.
int
gather_one_index(Relation index, RelationInfo *info, IndexEvalInfo *eval, IndexFacts *f)
{
	IndexInfo *ii = BuildIndexInfo(index);
	describe_evaluation(RelationGetRelid(index), ii, eval);
	const Oid am = index->rd_rel->relam;
	eval->takes_hint = am != HASH_AM_OID && am != GIST_AM_OID && am != GIN_AM_OID && am != SPGIST_AM_OID &&
					   am != BRIN_AM_OID;
	f->stored = static_cast<AttrNumber *>(palloc0(sizeof(AttrNumber) * Max(ii->ii_NumIndexAttrs, 1)));
	for (int col = 0; col < ii->ii_NumIndexAttrs; col++)
	{
		AttrNumber att = ii->ii_IndexAttrNumbers[col];
		if (att > 0)
			f->stored[f->nstored++] = att;
	}
	collect_inputs(reinterpret_cast<Node *>(ii->ii_Expressions), &f->expression_inputs, &f->expression_parts,
				   &info->parts);
	collect_inputs(reinterpret_cast<Node *>(ii->ii_Predicate), &f->predicate_inputs, &f->predicate_parts,
				   &info->parts);
	int k = 0;
	ListCell *ec;
	foreach (ec, ii->ii_Expressions)
	{
		int part;
		eval->expression_part[k++] = is_part_access(static_cast<Node *>(lfirst(ec)), &info->parts, &part) ? part : -1;
	}
	// An index that CREATE INDEX CONCURRENTLY has not made ready (or left behind when it
	// failed) gets no inserts, so heap never evaluates it, and its expressions may fail on
	// rows it was never built for: decide it from its inputs (columns and jsonb fields,
	// compared as bytes), evaluating nothing. An entry that still takes a ready index for
	// not ready only declines more; indisready is only cleared together with indislive
	// (index_concurrently_set_dead), which takes the index out of the relation's index
	// list, so the entry no longer matches it (invariant 2).
	const bool ready = index->rd_index->indisready;
	// The planner-prepared expressions, as FormIndexDatum evaluates them: a whole-row
	// reference that inlining removed (a SQL function reading one field of its row
	// argument) does not make the key depend on the row type (D12).
	constexpr int kWholeRow = 0 - FirstLowInvalidHeapAttributeNumber;
	const bool whole_row =
		bms_is_member(kWholeRow, f->expression_inputs) || bms_is_member(kWholeRow, f->predicate_inputs);
	return (ii->ii_Expressions != NIL ? kHasExpressions : 0) | (ii->ii_Predicate != NIL ? kHasPredicate : 0) |
		   (ready ? 0 : kNotReady) | (whole_row ? kReadsWholeRow : 0);
}

// The plain C facts of every non-summarizing index, read from the catalogs (may
// ERROR: no C++ object here). Sets info->nindexes to their number.
void
gather_index_facts(Relation rel, RelationInfo *info, IndexFacts **facts_out, int **flags_out)
{
	List *index_oids = RelationGetIndexList(rel);
	info->nindexes = list_length(index_oids);
	info->nlisted = info->nindexes;
	info->listed = static_cast<Oid *>(palloc0(sizeof(Oid) * Max(info->nlisted, 1)));
	info->indexes = static_cast<IndexEvalInfo *>(palloc0(sizeof(IndexEvalInfo) * Max(info->nindexes, 1)));
	IndexFacts *facts = static_cast<IndexFacts *>(palloc0(sizeof(IndexFacts) * Max(info->nindexes, 1)));
	int *flags = static_cast<int *>(palloc0(sizeof(int) * Max(info->nindexes, 1)));

	int i = 0;
	ListCell *lc;
	foreach (lc, index_oids)
	{
		Oid index_oid = lfirst_oid(lc);
		Relation index = index_open(index_oid, AccessShareLock);
		info->listed[foreach_current_index(lc)] = index_oid;
		// PG16+: summarizing indexes (BRIN) never block HOT, and heap_update() reports
		// TU_Summarizing from its own comparison of their columns, which the override leaves
		// in place (hot_blocking_override.hpp): they are not part of hotplus's decision.
		if (!compat_index_is_summarizing(index))
		{
			flags[i] = gather_one_index(index, info, &info->indexes[i], &facts[i]);
			info->any_evaluation |= (flags[i] & (kHasExpressions | kHasPredicate)) != 0;
			i++;
		}
		index_close(index, AccessShareLock);
	}
	info->nindexes = i;
	order_parts(&info->parts);

	*facts_out = facts;
	*flags_out = flags;
}

// The C++ shapes (build_core) and the columns indexes read. False on allocation
// failure (the caller ERRORs from a frame that owns no C++ object).
bool
build_shapes(RelationInfo *info, const IndexFacts *facts, const int *flags)
{
	const int natts = info->natts;
	// The attribute arrays of every index, then the C++ shapes.
	const int ninputs = natts + info->parts.nparts + 1;
	AttrNumber *expr_cols = static_cast<AttrNumber *>(palloc(sizeof(AttrNumber) * ninputs));
	AttrNumber *pred_cols = static_cast<AttrNumber *>(palloc(sizeof(AttrNumber) * ninputs));
	bool core_ok = build_core(info, facts, flags);
	// A column read through a part is read by the expression all the same.
	auto mark_read = [info, natts](AttrNumber input) {
		AttrNumber att = input > natts ? info->parts.parts[input - natts - 1].column : input;
		info->columns[att].index_input = info->columns[att].expression_input = true;
	};
	static_assert(std::is_trivially_destructible_v<decltype(mark_read)>); // an ERROR may unwind this frame
	for (int i = 0; core_ok && i < info->nindexes; i++)
	{
		int nexpr = inputs_to_array(facts[i].expression_inputs, facts[i].expression_parts, natts, expr_cols);
		int npred = inputs_to_array(facts[i].predicate_inputs, facts[i].predicate_parts, natts, pred_cols);
		for (int k = 0; k < facts[i].nstored; k++)
			info->columns[facts[i].stored[k]].index_input = true;
		for (int k = 0; k < nexpr; k++)
			mark_read(expr_cols[k]);
		for (int k = 0; k < npred; k++)
			mark_read(pred_cols[k]);
		try
		{
			core::IndexShape &shape = info->core->indexes[i];
			shape.expression_inputs.assign(expr_cols, expr_cols + nexpr);
			shape.predicate_inputs.assign(pred_cols, pred_cols + npred);
		}
		catch (...)
		{
			core_ok = false;
		}
	}
	if (core_ok)
	{
		info->core->blockers = core::StoredColumnBlockers(info->core->indexes);
		info->core->inputs = core::InputsUnion(info->core->indexes);
	}
	return core_ok;
}

// The columns an update compares (toastable or index inputs).
void
choose_compared_columns(RelationInfo *info)
{
	const int natts = info->natts;
	bool any_toastable = false;
	info->compared = static_cast<AttrNumber *>(palloc(sizeof(AttrNumber) * (natts + 1)));
	for (int att = 1; att <= natts; att++)
	{
		any_toastable |= info->columns[att].toastable;
		if (info->columns[att].toastable || info->columns[att].index_input)
		{
			info->compared[info->ncompared++] = att;
			info->max_compared = att;
			info->compared_set =
				bms_add_member(info->compared_set, att - FirstLowInvalidHeapAttributeNumber);
		}
	}
	info->nothing_to_gain = !any_toastable && !info->any_evaluation;
}

// Where heap's HOT-blocking bitmap is wider than the indexes' true inputs (D12).
void
compare_with_stock_bitmap(Relation rel, RelationInfo *info)
{
	const int natts = info->natts;
	Bitmapset *inputs = nullptr;
	for (int att = 1; att <= natts; att++)
		if (info->columns[att].index_input)
			inputs = bms_add_member(inputs, att - FirstLowInvalidHeapAttributeNumber);
	Bitmapset *stock = RelationGetIndexAttrBitmap(rel, kCompatHotBlockingKind);
	info->stock_blocks_more = !bms_is_subset(stock, inputs);
	info->skip_unless_targeted = bms_copy(info->compared_set);
	info->decision_inputs = inputs;
	if (info->stock_blocks_more)
	{
		if (bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, stock))
			for (int att = 1; att <= natts; att++)
				stock = bms_add_member(stock, att - FirstLowInvalidHeapAttributeNumber);
		info->skip_unless_targeted = bms_add_members(info->skip_unless_targeted, stock);
		info->decision_inputs = bms_add_members(info->decision_inputs, stock);
	}
}

// The private executor state, slots and detoast caches of the update path.
void
make_update_state(RelationInfo *info)
{
	const int natts = info->natts;
	TupleDesc desc = info->desc;
	info->estate = CreateExecutorState();
	// The private copy of the descriptor: slots pin a reference-counted descriptor in the
	// current resource owner, which would outlive the transaction here.
	UpdateScratch &scratch = info->scratch;
	scratch.old_slot = MakeSingleTupleTableSlot(desc, &TTSOpsBufferHeapTuple);
	scratch.eval_slot[0] = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	scratch.eval_slot[1] = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);

	info->max_expression_input = 0;
	for (int att = 1; att <= natts; att++)
		if (info->columns[att].expression_input)
			info->max_expression_input = att;
	for (int side = 0; side < 2; side++)
	{
		scratch.detoasted[side] = static_cast<Datum *>(palloc0(sizeof(Datum) * (natts + 1)));
		scratch.is_detoasted[side] = static_cast<bool *>(palloc0(sizeof(bool) * (natts + 1)));
	}
	scratch.old_extended = static_cast<AttrNumber *>(palloc0(sizeof(AttrNumber) * (natts + 1)));
	scratch.old_noted = static_cast<bool *>(palloc0(sizeof(bool) * (natts + 1)));
	scratch.part_state = static_cast<uint8 *>(palloc0(Max(info->parts.nparts, 1)));
	scratch.reused = static_cast<AttrNumber *>(palloc0(sizeof(AttrNumber) * Max(info->ncompared, 1)));
	scratch.unchanged = static_cast<bool *>(palloc0(sizeof(bool) * Max(info->nindexes, 1)));
	info->statement_hint_candidates = static_cast<bool *>(palloc0(sizeof(bool) * Max(info->nindexes, 1)));
	info->statement = PG_UINT64_MAX;
	info->statement_compared = static_cast<AttrNumber *>(palloc(sizeof(AttrNumber) * (natts + 1)));
}

RelationInfo *
build_unguarded(Relation rel, RelationInfo **building)
{
	MemoryContext old;
	RelationInfo *info = start_entry<RelationInfo>(
		rel, AllocSetContextCreate(CacheMemoryContext, "hotplus relation info", ALLOCSET_SMALL_SIZES), &old); // invariant 2
	*building = info;

	// The phases, in order; each reads only what the ones before it filled in.
	describe_columns(rel, info);
	IndexFacts *facts = nullptr;
	int *flags = nullptr;
	gather_index_facts(rel, info, &facts, &flags);
	const bool core_ok = build_shapes(info, facts, flags);
	choose_compared_columns(info);
	compare_with_stock_bitmap(rel, info);
	make_update_state(info);

	MemoryContextSwitchTo(old);
	if (!core_ok)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory"),
						errdetail("hotplus could not describe the indexes of a relation.")));
	return info;
}

// Frees the entries of relations that were invalidated and are not in use (dropped tables
// would otherwise keep theirs forever). Runs only when an entry is (re)built: rare.
void
sweep_invalid_entries(Oid keep)
{
	HASH_SEQ_STATUS status;
	hash_seq_init(&status, cache);
	while (auto *entry = static_cast<CacheEntry *>(hash_seq_search(&status)))
	{
		if (entry->relid == keep || entry->entry == nullptr)
			continue;
		if (entry->entry->valid || entry->entry->in_use > 0)
			continue;
		RelationInfo *stale = entry->entry;
		Oid relid = entry->relid;
		hash_search(cache, &relid, HASH_REMOVE, nullptr); // allowed during a seq scan
		destroy(stale);
	}
}

} // namespace

void
relation_info_init()
{
	cache = make_relid_cache<RelationInfo>("hotplus relation info", 64);
	add_relcache_callback(invalidate);
}

// The entry looked up last: consecutive updates of one table skip the hash lookup. Only
// used while valid; cleared before any entry is destroyed.
RelationInfo *last_relation_info = nullptr;

RelationInfo *
relation_info_lookup(Relation rel)
{
	Oid relid = RelationGetRelid(rel);
	CacheEntry *entry = relid_cache_slot<RelationInfo>(cache, relid);
	if (entry->entry != nullptr && entry->entry->valid)
		return last_relation_info = entry->entry;
	if (entry->entry != nullptr)
	{
		if (entry->entry->in_use > 0)
			return nullptr; // invariant 3: still used by an outer update
		if (relation_info_revalidate(entry->entry, rel))
			return last_relation_info = entry->entry;
		RelationInfo *stale = entry->entry;
		entry->entry = nullptr;
		destroy(stale);
	}

	sweep_invalid_entries(relid);
	RelationInfo *info = guarded_build(rel, build_unguarded, destroy);
	// build() may have accepted invalidations; the entry may have moved in the hash table
	// only if it was removed, which nothing does, so it is still ours.
	entry = static_cast<CacheEntry *>(hash_search(cache, &relid, HASH_FIND, nullptr));
	entry->entry = info;
	if (!relation_info_revalidate(info, rel))
		return nullptr;
	return last_relation_info = info;
}

namespace {

// One pass of relation_info_revalidate(): whether the relation's index list and tuple
// descriptor, as the relcache has them now, are those the entry was built from. Reads the
// catalogs only if the relcache must recompute the index list.
bool
matches_relation(RelationInfo *info, Relation rel)
{
	List *index_oids = RelationGetIndexList(rel);
	bool same = list_length(index_oids) == info->nlisted &&
				equalTupleDescs(RelationGetDescr(rel), info->desc);
	ListCell *lc;
	foreach (lc, index_oids)
		same = same && lfirst_oid(lc) == info->listed[foreach_current_index(lc)];
	list_free(index_oids);
	return same;
}

} // namespace

bool
relation_info_revalidate(RelationInfo *info, Relation rel)
{
	// Valid before reading: an invalidation processed while reading clears it again, and
	// the pass proves nothing (what it read first may have changed since). A second pass
	// reads the index list the first one had the relcache compute, so it is usually clean.
	for (int pass = 0; pass < 3 && !info->valid; pass++)
	{
		info->valid = true;
		if (!matches_relation(info, rel))
		{
			info->valid = false;
			return false;
		}
	}
	return info->valid;
}

} // namespace hotplus
