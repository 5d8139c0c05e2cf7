// Everything that differs between PostgreSQL major versions, in one place.
//
// hotplus builds against PostgreSQL 15, 16, 17, 18 and 19 (15, 17, 18 and 19 are tested: see
// README "Supported versions"). Every difference below names the server change it follows;
// no other file tests PG_VERSION_NUM.
//
// The table AM callbacks hotheap replaces (tuple_update, index_build_range_scan,
// index_validate_scan, relation_toast_am) kept their signatures from 15 to 19 except for
// tuple_update's arguments (below); every other callback is heap's own, copied from
// GetHeapamTableAmRoutine() of the running server, so additions such as PG17's read-stream
// based analyze and PG18's and PG19's changes come with it.
#pragma once

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 200000
#error "hotplus supports PostgreSQL 15 to 19 (see src/am/compat.hpp)"
#endif

extern "C" {
// PG19 stopped including these transitively (IndexAmRoutine is used below).
#include "access/amapi.h"
#include "access/tupdesc.h"
#include "catalog/pg_type_d.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "commands/defrem.h"
#include "commands/tablecmds.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "optimizer/planner.h"
#include "nodes/bitmapset.h"
#include "portability/instr_time.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
}

// --- Index maintenance reported by table_tuple_update() --------------------------------
// PG15 reports it as a bool. PG16 (BRIN no longer blocks HOT: IndexAmRoutine.amsummarizing)
// turned it into TU_UpdateIndexes, where TU_Summarizing means a HOT
// update that still needs entries in the summarizing indexes (BRIN). hotplus code speaks in
// terms of the PG16 enum and converts here.
enum class IndexUpdate { None, All, Summarizing };

#if PG_VERSION_NUM >= 160000
using CompatUpdateIndexesOut = TU_UpdateIndexes;

inline IndexUpdate
compat_get_update_indexes(const TU_UpdateIndexes *update_indexes)
{
	switch (*update_indexes)
	{
		case TU_None:
			return IndexUpdate::None;
		case TU_Summarizing:
			return IndexUpdate::Summarizing;
		default:
			return IndexUpdate::All;
	}
}
#else
using CompatUpdateIndexesOut = bool;

inline IndexUpdate
compat_get_update_indexes(const bool *update_indexes)
{
	return *update_indexes ? IndexUpdate::All : IndexUpdate::None;
}
#endif

// --- Summarizing indexes --------------------------------------------------------------
// PG16 (amsummarizing): an index AM that only summarizes (BRIN) never blocks HOT; heap_update
// collects those indexes' columns in a bitmap of their own (INDEX_ATTR_BITMAP_SUMMARIZED)
// and reports TU_Summarizing when one of them changed. In PG15 every index blocks HOT.
inline bool
compat_index_is_summarizing(Relation index)
{
#if PG_VERSION_NUM >= 160000
	return index->rd_indam->amsummarizing;
#else
	(void) index;
	return false;
#endif
}

// --- The HOT-blocking column set heap_update() reads -------------------------------------
// PG15: heap_update() calls RelationGetIndexAttrBitmap(INDEX_ATTR_BITMAP_ALL), which returns
// a copy of rd_indexattr when that is non-NULL (NULL means "not computed yet"); every index
// column is in it. PG16 (amsummarizing): INDEX_ATTR_BITMAP_HOT_BLOCKING, a copy of
// rd_hotblockingattr when rd_attrsvalid is set (NULL is a valid, empty set there);
// summarizing indexes' columns are in rd_summarizedattr instead, which hotplus never touches.
// See hot_blocking_override.hpp for the protocol built on these primitives.
#if PG_VERSION_NUM >= 160000
constexpr IndexAttrBitmapKind kCompatHotBlockingKind = INDEX_ATTR_BITMAP_HOT_BLOCKING;

inline bool
compat_index_bitmaps_valid(Relation rel)
{
	return rel->rd_attrsvalid;
}

inline Bitmapset *&
compat_hot_blocking_field(Relation rel)
{
	return rel->rd_hotblockingattr;
}

// What hotplus installs for one heap_update() call: the empty set, which is NULL here. (PG16
// also made Bitmapsets normalized, so an empty set is always NULL and a hand-made empty,
// non-NULL set like PG15's below would break the bms_* assertions.)
inline Bitmapset *
compat_make_empty_hot_blocking_set()
{
	return nullptr;
}

// After a relcache invalidation during the override, whatever the field holds may be ours
// (NULL, if the entry was not rebuilt) or the relcache's recomputed set: an empty set cannot
// be told apart, so the bitmaps are marked invalid, which makes the relcache recompute (and
// free) all of them on next use.
inline void
compat_forget_hot_blocking_set(Relation rel)
{
	rel->rd_attrsvalid = false;
}

inline void
compat_free_installed_hot_blocking_set(Relation rel)
{
	Assert(rel->rd_hotblockingattr == nullptr);
	(void) rel;
}
#else
constexpr IndexAttrBitmapKind kCompatHotBlockingKind = INDEX_ATTR_BITMAP_ALL;

inline bool
compat_index_bitmaps_valid(Relation rel)
{
	return rel->rd_indexattr != nullptr;
}

inline Bitmapset *&
compat_hot_blocking_field(Relation rel)
{
	return rel->rd_indexattr;
}

// A non-NULL set with no member (NULL would mean "not computed"). Stock PG15 never stores
// such a set (bms_copy of an empty set is NULL), so it is recognizable as ours. Allocated in
// CacheMemoryContext like the relcache's own bitmaps, since the relcache may free it.
inline Bitmapset *
compat_make_empty_hot_blocking_set()
{
	Bitmapset *empty = static_cast<Bitmapset *>(
		MemoryContextAllocZero(CacheMemoryContext, offsetof(Bitmapset, words) + sizeof(bitmapword)));
	empty->nwords = 1;
	return empty;
}

inline bool
compat_is_installed_hot_blocking_set(const Bitmapset *set)
{
	return set != nullptr && bms_is_empty(set);
}

// After an invalidation: if the field still holds an empty set, it is ours (the relcache
// did not rebuild the entry); it is freed and the field set to NULL, which makes the
// relcache recompute all index bitmaps lazily. Anything else is the relcache's and stays.
inline void
compat_forget_hot_blocking_set(Relation rel)
{
	if (compat_is_installed_hot_blocking_set(rel->rd_indexattr))
	{
		bms_free(rel->rd_indexattr);
		rel->rd_indexattr = nullptr;
	}
}

inline void
compat_free_installed_hot_blocking_set(Relation rel)
{
	Assert(compat_is_installed_hot_blocking_set(rel->rd_indexattr));
	bms_free(rel->rd_indexattr);
}
#endif

// --- Ownership checks -------------------------------------------------------------------
// PG16 replaced the per-catalog ownercheck functions (pg_class_ownercheck) with
// object_ownercheck(classid, objectid, roleid).
inline bool
compat_table_ownercheck(Oid relid, Oid roleid)
{
#if PG_VERSION_NUM >= 160000
	return object_ownercheck(RelationRelationId, relid, roleid);
#else
	return pg_class_ownercheck(relid, roleid);
#endif
}

// --- EXECUTE privilege on a function --------------------------------------------------------
// PG16 likewise replaced pg_proc_aclcheck with object_aclcheck(ProcedureRelationId, ...).
extern "C" {
#include "catalog/pg_proc_d.h"
}
inline AclResult
compat_function_aclcheck(Oid function, Oid roleid)
{
#if PG_VERSION_NUM >= 160000
	return object_aclcheck(ProcedureRelationId, function, roleid, ACL_EXECUTE);
#else
	return pg_proc_aclcheck(function, roleid, ACL_EXECUTE);
#endif
}

// --- Clock ------------------------------------------------------------------------------
// PG16 ("instr_time: Represent time as an int64 on all platforms") made instr_time an int64
// of nanoseconds with INSTR_TIME_GET_NANOSEC; in PG15 on Linux it is a struct timespec.
inline int64
compat_instr_time_ns(const instr_time &t)
{
#if PG_VERSION_NUM >= 160000
	return INSTR_TIME_GET_NANOSEC(t);
#else
	return static_cast<int64>(t.tv_sec) * 1000000000 + t.tv_nsec;
#endif
}

// --- ExecutorRun hook -------------------------------------------------------------------
// PG18 dropped the execute_once argument of ExecutorRun and its hook (the executor now
// decides on parallel query from the plan alone).
#if PG_VERSION_NUM >= 180000
#define COMPAT_EXECUTOR_RUN_PARAMS QueryDesc *query, ScanDirection direction, uint64 count
#define COMPAT_EXECUTOR_RUN_ARGS query, direction, count
#else
#define COMPAT_EXECUTOR_RUN_PARAMS QueryDesc *query, ScanDirection direction, uint64 count, bool execute_once
#define COMPAT_EXECUTOR_RUN_ARGS query, direction, count, execute_once
#endif

// --- EXPLAIN properties ------------------------------------------------------------------
// PG18 split commands/explain.h: ExplainPropertyText and friends moved to
// commands/explain_format.h (ExplainState to commands/explain_state.h).
extern "C" {
#include "commands/explain.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#endif
}

// --- The scan slot type of a custom scan ----------------------------------------------------
// PG16 added CustomScanState.slotOps, the type ExecInitCustomScan gives the node's scan slot
// (and so the type its filter and output list are compiled for); PG15 always makes it
// virtual. Returns whether the type could be set before ExecInitCustomScan compiles them.
inline bool
compat_set_custom_scan_slot_ops(CustomScanState *node, const TupleTableSlotOps *ops)
{
#if PG_VERSION_NUM >= 160000
	node->slotOps = ops;
	return true;
#else
	(void) node;
	(void) ops;
	return false;
#endif
}

// --- The backend's local transaction id -------------------------------------------------------
// PG17 ("Combine backend ID and ProcNumber") moved PGPROC.lxid into PGPROC.vxid.
inline LocalTransactionId
compat_local_transaction_id()
{
#if PG_VERSION_NUM >= 170000
	return MyProc->vxid.lxid;
#else
	return MyProc->lxid;
#endif
}

// --- tuple_update's arguments ---------------------------------------------------------------
// PG19 added `uint32 options` after the CommandId (TABLE_UPDATE_NO_LOGICAL: REPACK
// CONCURRENTLY replaying a concurrent UPDATE into the new heap without logical decoding
// information). hotheap passes it on to heap unchanged: it changes what is logged, not which
// indexes change. Before 19 there are no options (0).
// COMPAT_TUPLE_UPDATE_OPTIONS: the options a tuple_update callback declared with
// COMPAT_TUPLE_UPDATE_OPTIONS_PARAM received (0 before 19).
#if PG_VERSION_NUM >= 190000
#define COMPAT_TUPLE_UPDATE_OPTIONS_PARAM , uint32 options
#define COMPAT_TUPLE_UPDATE_OPTIONS_ARG(options) , (options)
#define COMPAT_TUPLE_UPDATE_OPTIONS options
#else
#define COMPAT_TUPLE_UPDATE_OPTIONS_PARAM
#define COMPAT_TUPLE_UPDATE_OPTIONS_ARG(options)
#define COMPAT_TUPLE_UPDATE_OPTIONS 0u
#endif

// --- The planner hook -------------------------------------------------------------------------
// PG19 passes the EXPLAIN state being built (NULL outside EXPLAIN) to planner_hook and
// standard_planner.
#if PG_VERSION_NUM >= 190000
#define COMPAT_PLANNER_PARAMS \
	Query *parse, const char *query_string, int cursor_options, ParamListInfo bound_params, ExplainState *es
#define COMPAT_PLANNER_ARGS parse, query_string, cursor_options, bound_params, es
#else
#define COMPAT_PLANNER_PARAMS Query *parse, const char *query_string, int cursor_options, ParamListInfo bound_params
#define COMPAT_PLANNER_ARGS parse, query_string, cursor_options, bound_params
#endif

// --- The statement's result relations ------------------------------------------------------
// PG19 replaced PlannedStmt.resultRelations (an integer List of RT indexes) with
// resultRelationRelids, a Bitmapset of the same RT indexes (the relations INSERT, UPDATE,
// DELETE or MERGE targets).
inline bool
compat_is_result_relation(const PlannedStmt *stmt, Index rti)
{
#if PG_VERSION_NUM >= 190000
	return bms_is_member(static_cast<int>(rti), stmt->resultRelationRelids);
#else
	return list_member_int(stmt->resultRelations, static_cast<int>(rti));
#endif
}

// --- Where heap's deformer resumes ----------------------------------------------------------
// Up to 18 slot_deform_heap_tuple() resumes at tts_nvalid from the slot's saved offset only
// with TTS_FLAG_SLOW set (otherwise it would trust attcacheoff, wrong past a NULL or a
// varlena). PG19 (c456e3911 and the deforming rework) dropped the flag: it uses attcacheoff
// only below firstNonCachedOffsetAttr and the first NULL of the tuple, both recomputed per
// call, and the saved offset beyond.
inline void
compat_set_deform_resume_point(HeapTupleTableSlot *slot, uint32 offset)
{
	slot->off = offset;
#if PG_VERSION_NUM < 190000
	slot->base.tts_flags |= TTS_FLAG_SLOW;
#endif
}

// --- Tuple descriptors built or copied by hand ---------------------------------------------
// PG19: a TupleDesc must be finished with TupleDescFinalize() (attcacheoff and the
// firstNonCachedOffsetAttr / firstNonGuaranteedAttr bounds the deformers rely on) before
// use. hotplus's copies of a relation's descriptor are finalized again, whatever the copy
// function did: it only recomputes the same bounds.
inline void
compat_finalize_tupdesc(TupleDesc desc)
{
#if PG_VERSION_NUM >= 190000
	TupleDescFinalize(desc);
#else
	(void) desc;
#endif
}

// --- A column whose values keep their form in tuples made from a slot ----------------------
// heap_fill_tuple() gives a varlena of up to 126 bytes a 1-byte header when its column is
// packable (attstorage not PLAIN); PG18 reads that from CompactAttribute.attispackable, which
// populate_compact_attribute() fills from the attribute.
inline void
compat_keep_computed_form(TupleDesc desc, int i)
{
	TupleDescAttr(desc, i)->attstorage = TYPSTORAGE_PLAIN;
#if PG_VERSION_NUM >= 180000
	populate_compact_attribute(desc, i);
#endif
}

// --- Shared hash tables ---------------------------------------------------------------------
// PG19 dropped ShmemInitHash()'s init_size (tables are sized for max_size up front).
inline HTAB *
compat_shmem_init_hash(const char *name, int64 init_size, int64 max_size, HASHCTL *info, int flags)
{
#if PG_VERSION_NUM >= 190000
	(void) init_size;
	return ShmemInitHash(name, max_size, info, flags);
#else
	return ShmemInitHash(name, init_size, max_size, info, flags);
#endif
}

// --- Syscache invalidation callbacks ---------------------------------------------------------
// PG19 types the cache identifier a callback receives as the SysCacheIdentifier enum
// (syscache_ids.h); before, an int.
#if PG_VERSION_NUM >= 190000
using CompatSysCacheId = SysCacheIdentifier;
#else
using CompatSysCacheId = int;
#endif

// --- REPACK (CONCURRENTLY) ----------------------------------------------------------------
// PG19's REPACK (CONCURRENTLY) refuses a relation whose rd_tableam is not heap's routine
// (repack.c, check_concurrent_repack_requirements(): "a table AM that doesn't support logical
// decoding would ... lose the changes"; hotheap's WAL is heap's, so decoding sees its
// changes). compat_repack_concurrently_target(): the table a REPACK (CONCURRENTLY) statement
// names, when its options are REPACK's own (VERBOSE, ANALYZE, CONCURRENTLY, read as
// ExecRepack() reads them: the last CONCURRENTLY wins) and CONCURRENTLY is on; nullptr for
// any other statement, and before 19, which has no REPACK.
#if PG_VERSION_NUM >= 190000
constexpr bool kCompatHasRepack = true;

inline RangeVar *
compat_repack_concurrently_target(Node *stmt)
{
	if (!IsA(stmt, RepackStmt))
		return nullptr;
	auto *repack = reinterpret_cast<RepackStmt *>(stmt);
	if (repack->command != REPACK_COMMAND_REPACK || repack->relation == nullptr)
		return nullptr;
	bool concurrently = false;
	ListCell *lc;
	foreach (lc, repack->params)
	{
		auto *option = lfirst_node(DefElem, lc);
		if (strcmp(option->defname, "concurrently") == 0)
			concurrently = defGetBoolean(option);
		else if (strcmp(option->defname, "verbose") != 0 && strcmp(option->defname, "analyze") != 0 &&
				 strcmp(option->defname, "analyse") != 0)
			return nullptr; // ExecRepack() refuses it, as it would on heap
	}
	return concurrently ? repack->relation->relation : nullptr;
}

// The table, locked and checked as ExecRepack() locks and checks it for CONCURRENTLY
// (process_single_relation(): SHARE UPDATE EXCLUSIVE, the MAINTAIN privilege).
inline Oid
compat_repack_lock_target(RangeVar *relation)
{
	return RangeVarGetRelidExtended(relation, ShareUpdateExclusiveLock, 0, RangeVarCallbackMaintainsTable, nullptr);
}
#else
constexpr bool kCompatHasRepack = false;

inline RangeVar *
compat_repack_concurrently_target(Node *)
{
	return nullptr;
}

inline Oid
compat_repack_lock_target(RangeVar *)
{
	return InvalidOid;
}
#endif
