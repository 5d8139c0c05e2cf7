#include "am/pg.hpp"

#include "am/repack.hpp"

#include "am/hotheap_am.hpp"
#include "am/relcache_callback.hpp"

extern "C" {
#include "access/heapam.h"
#include "access/relation.h"
#include "access/xact.h"
#include "tcop/utility.h"
}

namespace hotplus {

namespace {

ProcessUtility_hook_type previous_utility = nullptr;

// The table shown as heap while its REPACK (CONCURRENTLY) runs; relid InvalidOid: none.
struct ShownAsHeap
{
	Oid relid;
	Relation rel;						// the entry, dereferenced only while !invalidated
	const TableAmRoutine *restore_to;	// hotheap's routine
	bool invalidated;					// an invalidation reached the entry (invariant 2)
};
ShownAsHeap shown{InvalidOid, nullptr, nullptr, false};

// hotplus's relcache callback's part: any invalidation of the table (or of every relation)
// may have rebuilt the entry in place, with hotheap's routine, or freed it (it has no
// reference while REPACK has closed it): never touched again.
void
note_invalidation(Datum, Oid relid)
{
	if (OidIsValid(shown.relid) && (relid == InvalidOid || relid == shown.relid))
		shown.invalidated = true;
}

void
call_next(PlannedStmt *pstmt, const char *query, bool read_only_tree, ProcessUtilityContext context,
		  ParamListInfo params, QueryEnvironment *query_env, DestReceiver *dest, QueryCompletion *qc)
{
	if (previous_utility != nullptr)
		previous_utility(pstmt, query, read_only_tree, context, params, query_env, dest, qc);
	else
		standard_ProcessUtility(pstmt, query, read_only_tree, context, params, query_env, dest, qc);
}

// Shows the table of a REPACK (CONCURRENTLY) statement as heap, when it is hotheap's
// (invariant 1). True when it did: the caller restores it.
bool
show_as_heap(Node *stmt, ProcessUtilityContext context)
{
	RangeVar *target = compat_repack_concurrently_target(stmt);
	// In a transaction block or a function ExecRepack() refuses CONCURRENTLY, as on heap; a
	// nested REPACK inside one shown already (an index expression's function) is not helped.
	if (target == nullptr || context != PROCESS_UTILITY_TOPLEVEL || IsTransactionBlock() || OidIsValid(shown.relid))
		return false;
	// REPACK's own lock, held to the end of the transaction: ExecRepack()'s lookup finds it
	// held and accepts no invalidation message (lmgr.c, LockRelationOid()), so the entry it
	// opens is the one shown here.
	const Oid relid = compat_repack_lock_target(target);
	Relation rel = relation_open(relid, NoLock);
	const bool hotheap = rel->rd_rel->relkind == RELKIND_RELATION && rel->rd_tableam == hotheap_routine();
	if (hotheap)
	{
		shown = ShownAsHeap{relid, rel, rel->rd_tableam, false};
		rel->rd_tableam = GetHeapamTableAmRoutine(); // relam stays hotheap's (invariant 4)
	}
	relation_close(rel, NoLock); // REPACK's reference alone from here on (invariant 2)
	return hotheap;
}

void
utility(PlannedStmt *pstmt, const char *query, bool read_only_tree, ProcessUtilityContext context,
		ParamListInfo params, QueryEnvironment *query_env, DestReceiver *dest, QueryCompletion *qc)
{
	if (!show_as_heap(pstmt->utilityStmt, context))
	{
		call_next(pstmt, query, read_only_tree, context, params, query_env, dest, qc);
		return;
	}
	PG_TRY();
	{
		call_next(pstmt, query, read_only_tree, context, params, query_env, dest, qc);
	}
	PG_FINALLY();
	{
		// Invariant 3: an entry no invalidation reached is the one shown, still allocated.
		if (!shown.invalidated)
			shown.rel->rd_tableam = shown.restore_to;
		shown = ShownAsHeap{InvalidOid, nullptr, nullptr, false};
	}
	PG_END_TRY();
}

} // namespace

void
repack_init()
{
	if (!kCompatHasRepack)
		return;
	add_relcache_callback(note_invalidation);
	previous_utility = ProcessUtility_hook;
	ProcessUtility_hook = utility;
}

} // namespace hotplus
