/*
 * direct_update.c: a test module of hotplus (test/modules/direct_update), not part of the
 * extension and not for production.
 *
 * Why it exists. hotplus's tuple_update learns, once per statement, which columns the
 * running UPDATE sets (its targets) and takes every other column as unchanged: the executor
 * copies them from the old version into the statement's own new-version slot. That holds
 * only for the statement's own updates. C code can update the same table directly while
 * the statement runs (here: a function called in its WHERE clause), with a new version
 * built however it likes; hotplus must compare such an update in full (src/README.md D8c).
 * Were it given the statement's targets, a direct update that changes an indexed column the
 * statement does not set would be taken as HOT, and that index would miss the new version.
 *
 * direct_update(rel, tid, k, doc) is such C code. It does what ExecSimpleRelationUpdate()
 * (the logical replication apply) does, minus triggers and constraints: it builds a new
 * version from the one at tid with the columns named "k" and "doc" replaced, stores it with
 * simple_table_tuple_update(), and inserts the index entries the table AM asks for, as the
 * executor would. It reports with a NOTICE whether the table AM asked for them.
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "nodes/execnodes.h"
#include "storage/itemptr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(direct_update);

/* PostgreSQL 16 turned the bool "update indexes" into TU_UpdateIndexes (TU_Summarizing: a
 * HOT update that still needs entries in summarizing indexes such as BRIN). */
#if PG_VERSION_NUM >= 160000
typedef TU_UpdateIndexes update_indexes_t;
#define INDEXES_NEEDED(u) ((u) != TU_None)
#define ONLY_SUMMARIZING(u) ((u) == TU_Summarizing)
#else
typedef bool update_indexes_t;
#define INDEXES_NEEDED(u) (u)
#define ONLY_SUMMARIZING(u) false
#endif

/* The attribute number of column name, which must have type type. */
static AttrNumber
column_of(Relation rel, const char *name, Oid type)
{
	AttrNumber	att = get_attnum(RelationGetRelid(rel), name);

	if (att <= 0 || TupleDescAttr(RelationGetDescr(rel), att - 1)->atttypid != type)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("direct_update: table \"%s\" has no column \"%s\" of type %s",
						RelationGetRelationName(rel), name, format_type_be(type))));
	return att;
}

/* The index entries of the version in slot, as ExecSimpleRelationUpdate() inserts them. */
static void
insert_index_entries(Relation rel, TupleTableSlot *slot, update_indexes_t update_indexes)
{
	EState	   *estate = CreateExecutorState();
	ResultRelInfo *rri = makeNode(ResultRelInfo);
	List	   *recheck = NIL;

	/* Range table index 0: not in a range table (no updated-columns hint for the indexes). */
	InitResultRelInfo(rri, rel, 0, NULL, 0);
	ExecOpenIndices(rri, false);
	if (rri->ri_NumIndices > 0)
	{
#if PG_VERSION_NUM >= 190000
		recheck = ExecInsertIndexTuples(rri, estate,
										EIIT_IS_UPDATE |
										(ONLY_SUMMARIZING(update_indexes) ? EIIT_ONLY_SUMMARIZING : 0),
										slot, NIL, NULL);
#elif PG_VERSION_NUM >= 160000
		recheck = ExecInsertIndexTuples(rri, slot, estate, true, false, NULL, NIL,
										ONLY_SUMMARIZING(update_indexes));
#else
		(void) update_indexes;
		recheck = ExecInsertIndexTuples(rri, slot, estate, true, false, NULL, NIL);
#endif
	}
	list_free(recheck);
	ExecCloseIndices(rri);
	FreeExecutorState(estate);
}

Datum
direct_update(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ItemPointerData tid = *(ItemPointer) PG_GETARG_POINTER(1);
	Relation	rel;
	AttrNumber	k_att;
	AttrNumber	doc_att;
	TupleTableSlot *old_slot;
	TupleTableSlot *new_slot;
	int			natts;
	update_indexes_t update_indexes;

	rel = table_open(relid, RowExclusiveLock);
	if (rel->rd_rel->relkind != RELKIND_RELATION)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("direct_update: \"%s\" is not a table", RelationGetRelationName(rel))));
	k_att = column_of(rel, "k", INT4OID);
	doc_att = column_of(rel, "doc", JSONBOID);

	/* The version at tid, as the running statement's snapshot sees it. */
	old_slot = table_slot_create(rel, NULL);
	if (!table_tuple_fetch_row_version(rel, &tid, GetActiveSnapshot(), old_slot))
		ereport(ERROR,
				(errmsg("direct_update: no visible row version at (%u,%u) in \"%s\"",
						ItemPointerGetBlockNumber(&tid), ItemPointerGetOffsetNumber(&tid),
						RelationGetRelationName(rel))));
	slot_getallattrs(old_slot);

	/* The new version: the old one's values with k and doc replaced, in a slot of the table's
	 * own type that is not the statement's (as the apply worker builds its new versions). */
	new_slot = table_slot_create(rel, NULL);
	ExecClearTuple(new_slot);
	natts = RelationGetDescr(rel)->natts;
	memcpy(new_slot->tts_values, old_slot->tts_values, natts * sizeof(Datum));
	memcpy(new_slot->tts_isnull, old_slot->tts_isnull, natts * sizeof(bool));
	new_slot->tts_values[k_att - 1] = PG_GETARG_DATUM(2);
	new_slot->tts_isnull[k_att - 1] = false;
	new_slot->tts_values[doc_att - 1] = PG_GETARG_DATUM(3);
	new_slot->tts_isnull[doc_att - 1] = false;
	ExecStoreVirtualTuple(new_slot);

	simple_table_tuple_update(rel, &tid, new_slot, GetActiveSnapshot(), &update_indexes);

	ereport(NOTICE,
			(errmsg("direct_update: index entries %s",
					!INDEXES_NEEDED(update_indexes) ? "not needed (HOT)" :
					ONLY_SUMMARIZING(update_indexes) ? "needed in summarizing indexes" :
					"needed in every index")));
	if (INDEXES_NEEDED(update_indexes))
		insert_index_entries(rel, new_slot, update_indexes);

	ExecDropSingleTupleTableSlot(new_slot);
	ExecDropSingleTupleTableSlot(old_slot);
	table_close(rel, NoLock);
	PG_RETURN_BOOL(true);
}
