#include "read/plan_display.hpp"

#include "am/pg.hpp"
#include "read/plan_children.hpp"
#include "read/shared_detoast.hpp"
#include "am/settings.hpp"

extern "C" {
#include "catalog/pg_collation_d.h"
#include "catalog/pg_type_d.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "utils/builtins.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "utils/inval.h"
#include "utils/syscache.h"
}

namespace hotplus {

namespace {

ExecutorStart_hook_type previous_start = nullptr;
ExecutorFinish_hook_type previous_finish = nullptr;

// Whether the plan has markers (shared_markers.hpp invariant 4: it then depends on the
// marker function).
bool
has_markers(PlannedStmt *stmt)
{
	const Oid function = shared_value_function();
	if (!OidIsValid(function) || stmt->invalItems == NIL)
		return false;
	const uint32 hash = GetSysCacheHashValue1(PROCOID, ObjectIdGetDatum(function));
	for (ListCell *cell = list_head(stmt->invalItems); cell != nullptr; cell = lnext(stmt->invalItems, cell))
	{
		auto *item = static_cast<PlanInvalItem *>(lfirst(cell));
		if (item->cacheId == PROCOID && item->hashValue == hash)
			return true;
	}
	return false;
}

// A marker as shown: its column, or (hotplus.read_path_show_markers, for tests) a call naming
// its group and whether its consumer may alias the copy (shared_detoast.hpp).
Node *
without_markers(Node *node, void *context)
{
	if (node == nullptr)
		return nullptr;
	if (is_marker(node))
	{
		auto *marker = reinterpret_cast<FuncExpr *>(node);
		if (!settings.read_path_show_markers)
			return without_markers(static_cast<Node *>(linitial(marker->args)), context);
		auto *shown = static_cast<FuncExpr *>(copyObjectImpl(marker));
		shown->funcformat = COERCE_EXPLICIT_CALL;
		const MarkerTicket ticket = marker_ticket(marker);
		char *label = psprintf("group %u%s", ticket.group, ticket.use.result_may_alias ? ", aliasing" : "");
		lsecond(shown->args) = makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1, CStringGetTextDatum(label), false,
										 false);
		return reinterpret_cast<Node *>(shown);
	}
	return expression_tree_mutator(node, reinterpret_cast<Node *(*)()>(reinterpret_cast<void (*)()>(without_markers)),
								   context);
}

// Original plan nodes and their copies.
struct PlanMap
{
	List *from;
	List *to;
};
static_assert(std::is_trivially_destructible_v<PlanMap>); // on frames an ERROR may unwind


// Walks a plan and its copy (copyObject keeps the shape): records each pair, and takes the
// markers out of the copy's expressions (shared_markers.cpp puts them in these lists only).
void
map_copy(Plan *from, Plan *to, PlanMap *map)
{
	if (from == nullptr || to == nullptr)
		return;
	map->from = lappend(map->from, from);
	map->to = lappend(map->to, to);
	to->targetlist = reinterpret_cast<List *>(without_markers(reinterpret_cast<Node *>(to->targetlist), nullptr));
	to->qual = reinterpret_cast<List *>(without_markers(reinterpret_cast<Node *>(to->qual), nullptr));
	if (IsA(to, NestLoop) || IsA(to, MergeJoin) || IsA(to, HashJoin))
	{
		auto *join = reinterpret_cast<Join *>(to);
		join->joinqual = reinterpret_cast<List *>(without_markers(reinterpret_cast<Node *>(join->joinqual), nullptr));
	}
	map_copy(from->lefttree, to->lefttree, map);
	map_copy(from->righttree, to->righttree, map);
	if (IsA(from, SubqueryScan))
		map_copy(reinterpret_cast<SubqueryScan *>(from)->subplan, reinterpret_cast<SubqueryScan *>(to)->subplan, map);
	List *from_children = listed_children(from);
	List *to_children = listed_children(to);
	for (ListCell *f = list_head(from_children), *t = list_head(to_children); f != nullptr && t != nullptr;
		 f = lnext(from_children, f), t = lnext(to_children, t))
		map_copy(static_cast<Plan *>(lfirst(f)), static_cast<Plan *>(lfirst(t)), map);
}

bool
point_at_copies(PlanState *ps, PlanMap *map)
{
	for (ListCell *f = list_head(map->from), *t = list_head(map->to); f != nullptr; f = lnext(map->from, f),
				  t = lnext(map->to, t))
		if (lfirst(f) == ps->plan)
		{
			ps->plan = static_cast<Plan *>(lfirst(t));
			break;
		}
	return planstate_tree_walker(ps, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(point_at_copies)), map);
}

void
show_without_markers(QueryDesc *query)
{
	if (query->planstate == nullptr || query->estate == nullptr || !has_markers(query->plannedstmt))
		return;
	MemoryContext caller = MemoryContextSwitchTo(query->estate->es_query_cxt);
	PlannedStmt *shown = static_cast<PlannedStmt *>(palloc(sizeof(PlannedStmt)));
	*shown = *query->plannedstmt;
	PlanMap map{NIL, NIL};
	shown->planTree = static_cast<Plan *>(copyObjectImpl(query->plannedstmt->planTree));
	map_copy(query->plannedstmt->planTree, shown->planTree, &map);
	shown->subplans = static_cast<List *>(copyObjectImpl(query->plannedstmt->subplans));
	for (ListCell *f = list_head(query->plannedstmt->subplans), *t = list_head(shown->subplans); f != nullptr;
		 f = lnext(query->plannedstmt->subplans, f), t = lnext(shown->subplans, t))
		map_copy(static_cast<Plan *>(lfirst(f)), static_cast<Plan *>(lfirst(t)), &map);
	point_at_copies(query->planstate, &map);
	query->plannedstmt = shown;
	MemoryContextSwitchTo(caller);
}

void
start_hook(QueryDesc *query, int eflags)
{
	if (previous_start != nullptr)
		previous_start(query, eflags);
	else
		standard_ExecutorStart(query, eflags);
	if (eflags & EXEC_FLAG_EXPLAIN_ONLY)
		show_without_markers(query);
}

void
finish_hook(QueryDesc *query)
{
	if (previous_finish != nullptr)
		previous_finish(query);
	else
		standard_ExecutorFinish(query);
	if (query->instrument_options != 0)
		show_without_markers(query);
}

} // namespace

void
plan_display_init()
{
	previous_start = ExecutorStart_hook;
	ExecutorStart_hook = start_hook;
	previous_finish = ExecutorFinish_hook;
	ExecutorFinish_hook = finish_hook;
}

} // namespace hotplus
