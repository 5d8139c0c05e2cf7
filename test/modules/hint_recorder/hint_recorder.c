/*
 * hint_recorder.c: a test module of hotplus (test/modules/hint_recorder), not part of the
 * extension and not for production.
 *
 * Why it exists. hotplus tells each index of an update that is not HOT whether the update
 * left its key unchanged, by setting the executor's cached answer (IndexInfo's
 * ii_CheckedUnchanged / ii_IndexUnchanged) for that row's entries (src/update/index_hints.hpp);
 * ExecInsertIndexTuples() then passes it to the index AM's aminsert as `indexUnchanged`, and
 * btree runs bottom-up deletion on it. What the index is told is invisible from SQL, and a
 * hint that leaked from one row to the next, or into another statement, would only show as an
 * index that grows differently. This access method is btree with one difference: its aminsert
 * records, in this backend, the key (the first column, as text) and the hint of every entry
 * before btree inserts it. hint_recorder_log() returns what was recorded, in order;
 * hint_recorder_reset() forgets it.
 */
#include "postgres.h"

#include "access/amapi.h"
#include "catalog/pg_am_d.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(hint_recorder_handler);
PG_FUNCTION_INFO_V1(hint_recorder_log);
PG_FUNCTION_INFO_V1(hint_recorder_reset);

typedef struct RecordedEntry
{
	Oid			index;
	char	   *key;			/* NULL for a NULL key */
	bool		unchanged;
} RecordedEntry;

static RecordedEntry *recorded = NULL;
static int	nrecorded = 0;
static int	capacity = 0;
static aminsert_function btree_insert = NULL;
static ambuild_function btree_build = NULL;

/*
 * btree's build, with the index presented as btree: its sort checks the access method of the
 * index it sorts for (PrepareSortSupportFromIndexRel()).
 */
static IndexBuildResult *
hint_recorder_build(Relation heap, Relation index, IndexInfo *index_info)
{
	const Oid	own = index->rd_rel->relam;
	IndexBuildResult *result;

	index->rd_rel->relam = BTREE_AM_OID;
	PG_TRY();
	{
		result = btree_build(heap, index, index_info);
	}
	PG_FINALLY();
	{
		index->rd_rel->relam = own;
	}
	PG_END_TRY();
	return result;
}

static bool
hint_recorder_insert(Relation index, Datum *values, bool *isnull, ItemPointer heap_tid,
					 Relation heap, IndexUniqueCheck check_unique, bool index_unchanged,
					 IndexInfo *index_info)
{
	MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

	if (nrecorded == capacity)
	{
		capacity = Max(64, capacity * 2);
		recorded = recorded == NULL ? palloc(sizeof(RecordedEntry) * capacity)
			: repalloc(recorded, sizeof(RecordedEntry) * capacity);
	}
	recorded[nrecorded].index = RelationGetRelid(index);
	recorded[nrecorded].unchanged = index_unchanged;
	recorded[nrecorded].key = NULL;
	if (!isnull[0])
	{
		Oid			output;
		bool		varlena;

		getTypeOutputInfo(TupleDescAttr(RelationGetDescr(index), 0)->atttypid, &output, &varlena);
		recorded[nrecorded].key = OidOutputFunctionCall(output, values[0]);
	}
	nrecorded++;
	MemoryContextSwitchTo(old);
	return btree_insert(index, values, isnull, heap_tid, heap, check_unique, index_unchanged, index_info);
}

/* btree's routine, with aminsert recording first. */
Datum
hint_recorder_handler(PG_FUNCTION_ARGS)
{
	const IndexAmRoutine *btree = GetIndexAmRoutineByAmId(BTREE_AM_OID, false);
	IndexAmRoutine *routine = palloc(sizeof(IndexAmRoutine));

	memcpy(routine, btree, sizeof(IndexAmRoutine));
	btree_insert = btree->aminsert;
	btree_build = btree->ambuild;
	routine->aminsert = hint_recorder_insert;
	routine->ambuild = hint_recorder_build;
#if PG_VERSION_NUM < 190000
	pfree((IndexAmRoutine *) btree);	/* a copy made for us before 19 */
#endif
	PG_RETURN_POINTER(routine);
}

Datum
hint_recorder_log(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < nrecorded; i++)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = Int32GetDatum(i + 1);
		values[1] = ObjectIdGetDatum(recorded[i].index);
		if (recorded[i].key != NULL)
			values[2] = CStringGetTextDatum(recorded[i].key);
		else
			nulls[2] = true;
		values[3] = BoolGetDatum(recorded[i].unchanged);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

Datum
hint_recorder_reset(PG_FUNCTION_ARGS)
{
	for (int i = 0; i < nrecorded; i++)
		if (recorded[i].key != NULL)
			pfree(recorded[i].key);
	nrecorded = 0;
	PG_RETURN_VOID();
}
