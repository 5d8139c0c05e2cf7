#include "am/as_heap.hpp"
#include "am/relcache_callback.hpp"

extern "C" {
#include "access/heapam.h"
#include "utils/inval.h"
}

namespace hotplus {

// The open scopes, innermost first. Backend-local; each scope lives in the frame of the
// callback that opened it and is unlinked by that frame's PG_FINALLY, so the list never
// points at a dead frame.
static AsHeapScope *open_scopes = nullptr;

// A relcache rebuild in place (RelationClearRelation, relcache.c) keeps the Relation
// pointer but installs the rd_tableam of the freshly built entry, which is hotheap's.
// Rebuilds of an open relation can happen in the middle of an index build: taking any
// lock accepts invalidation messages (XactLockTableWait in the build scan, expression
// functions opening relations), and a sinval queue overflow rebuilds every entry. Relcache
// callbacks run right after the rebuild (inval.c, LocalExecuteInvalidationMessage and
// InvalidateSystemCaches), before control returns to the scan, so re-applying heap's
// routine here keeps invariant 1.
static void
reapply_after_rebuild(Datum, Oid relid)
{
	for (AsHeapScope *scope = open_scopes; scope != nullptr; scope = scope->outer)
	{
		if (relid == InvalidOid || relid == RelationGetRelid(scope->rel))
			scope->rel->rd_tableam = GetHeapamTableAmRoutine();
	}
}

void
as_heap_init()
{
	add_relcache_callback(reapply_after_rebuild);
}

void
as_heap_enter(AsHeapScope *scope, Relation rel, const TableAmRoutine *restore_to)
{
	scope->rel = rel;
	scope->restore_to = restore_to;
	scope->outer = open_scopes;
	open_scopes = scope;
	rel->rd_tableam = GetHeapamTableAmRoutine();
}

void
as_heap_leave(AsHeapScope *scope)
{
	Assert(open_scopes == scope);
	open_scopes = scope->outer;

	// An outer scope on the same relation still wants heap's routine (invariant 3).
	bool still_heap = false;
	for (AsHeapScope *outer = open_scopes; outer != nullptr; outer = outer->outer)
		still_heap |= (outer->rel == scope->rel);
	scope->rel->rd_tableam = still_heap ? GetHeapamTableAmRoutine() : scope->restore_to;
}

} // namespace hotplus
