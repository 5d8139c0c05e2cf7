// Core headers first, before any PostgreSQL header (they #error after postgres.h).
#include "core/read_plan.hpp"

#include "read/read_planner.hpp"

#include "am/hotheap_am.hpp"
#include "read/plan_children.hpp"
#include "read/plan_demand.hpp"
#include "read/read_scan.hpp"
#include "read/shared_markers.hpp"
#include "am/settings.hpp"

extern "C" {
#include "access/relation.h"
#include "catalog/pg_type_d.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "nodes/value.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "utils/rel.h"
#include "utils/relcache.h"
}

namespace hotplus {

namespace {

planner_hook_type previous_planner = nullptr;

// The columns a scan's expressions read. Plain C data (the walk calls PostgreSQL, which may
// longjmp).
struct UseWalk
{
	Index scanrelid;
	int natts;
	bool whole_row;
	bool *read; // [natts]
};
static_assert(std::is_trivially_destructible_v<UseWalk>); // on frames an ERROR may unwind

bool
walk_uses(Node *node, UseWalk *walk)
{
	if (node == nullptr)
		return false;
	CHECK_FOR_INTERRUPTS(); // a query's size is its author's: the walk can be cancelled
	if (IsA(node, Var))
	{
		auto *var = reinterpret_cast<Var *>(node);
		if (var->varno == static_cast<int>(walk->scanrelid) && var->varlevelsup == 0)
		{
			if (var->varattno == 0)
				walk->whole_row = true;
			else if (var->varattno > 0 && var->varattno <= walk->natts)
				walk->read[var->varattno - 1] = true;
		}
		return false;
	}
	return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(walk_uses)), walk);
}

List *
int_list(const core::ColumnList &columns)
{
	List *list = NIL;
	for (core::ColumnNumber column : columns)
		list = lappend_int(list, column);
	return list;
}

// The scan's output list when it returns whole rows: Vars of every column in order, which
// the executor recognizes as "no projection" (tlist_matches_tupdesc) unless the table has
// dropped columns or columns with missing values. Then one NULL constant, the cheapest
// projection: HotheapRead reads the scan's row from its expression context. Never empty: a
// Bitmap Heap Scan with neither quals nor output is the shape older minors of 15-17 let skip
// the heap fetch for all-visible pages (can_skip_fetch), returning all-NULL rows.
List *
whole_row_output(Relation rel, Index scanrelid)
{
	TupleDesc desc = RelationGetDescr(rel);
	List *tlist = NIL;
	for (int i = 0; i < desc->natts; ++i)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		if (att->attisdropped || att->atthasmissing)
		{
			Const *placeholder = makeNullConst(INT4OID, -1, InvalidOid);
			return list_make1(makeTargetEntry(reinterpret_cast<Expr *>(placeholder), 1, nullptr, false));
		}
		Var *var = makeVar(scanrelid, static_cast<AttrNumber>(i + 1), att->atttypid, att->atttypmod,
						   att->attcollation, 0);
		tlist = lappend(tlist, makeTargetEntry(reinterpret_cast<Expr *>(var), static_cast<AttrNumber>(i + 1),
											   nullptr, false));
	}
	return tlist;
}

struct RewriteContext
{
	PlannedStmt *stmt;
	int next_plan_node_id;
};
static_assert(std::is_trivially_destructible_v<RewriteContext>); // on frames an ERROR may unwind

// The HotheapRead node for `scan`, or `scan` itself when nothing is gained.
Plan *
read_node_for(Scan *scan, RewriteContext *context, const Demand &demand)
{
	if (IsA(scan, IndexScan) && reinterpret_cast<IndexScan *>(scan)->indexorderby != NIL)
		return &scan->plan;
	if (scan->plan.qual == NIL && scan->plan.targetlist == NIL)
		return &scan->plan;
	RangeTblEntry *rte = rt_fetch(scan->scanrelid, context->stmt->rtable);
	if (rte->rtekind != RTE_RELATION)
		return &scan->plan;
	Relation rel = RelationIdGetRelation(rte->relid);
	if (rel == nullptr)
		return &scan->plan;
	if (rel->rd_tableam != hotheap_routine())
	{
		RelationClose(rel);
		return &scan->plan;
	}
	TupleDesc desc = RelationGetDescr(rel);
	UseWalk walk{scan->scanrelid, desc->natts, false, static_cast<bool *>(palloc0(sizeof(bool) * (desc->natts + 1)))};
	walk_uses(reinterpret_cast<Node *>(scan->plan.qual), &walk);
	walk_uses(reinterpret_cast<Node *>(scan->plan.targetlist), &walk);

	core::ReadShape shape;
	shape.whole_row = walk.whole_row;
	shape.columns.resize(desc->natts);
	for (int i = 0; i < desc->natts; ++i)
		shape.columns[i].read = walk.read[i];
	core::ReadPlan decision = core::plan_read(shape); // columns first: rows_read() may read the disk
	if (decision.deformed.empty() || shape.whole_row)
	{
		RelationClose(rel);
		return &scan->plan;
	}
	shape.rows_read = rows_read(scan, rel, demand);
	decision = core::plan_read(shape);
	if (!decision.worthwhile())
	{
		RelationClose(rel);
		return &scan->plan;
	}

	CustomScan *node = makeNode(CustomScan);
	node->scan.plan = scan->plan;
	NodeSetTag(&node->scan.plan, T_CustomScan);
	node->scan.plan.plan_node_id = context->next_plan_node_id++;
	node->scan.plan.parallel_aware = false;
	node->scan.plan.async_capable = false;
	node->scan.plan.lefttree = nullptr;
	node->scan.plan.righttree = nullptr;
	node->scan.plan.extParam = bms_copy(scan->plan.extParam);
	node->scan.plan.allParam = bms_copy(scan->plan.allParam);
	node->scan.scanrelid = scan->scanrelid;
	node->flags = 0;
	if (ExecSupportsBackwardScan(&scan->plan))
		node->flags |= CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
	if (IsA(scan, IndexScan))
		node->flags |= CUSTOMPATH_SUPPORT_MARK_RESTORE;
	node->custom_relids = bms_make_singleton(scan->scanrelid);
	node->custom_private = list_make1(int_list(decision.deformed));
	node->methods = read_scan_methods();

	// The scan returns whole rows; its initPlans go with the expressions that use them.
	scan->plan.qual = NIL;
	scan->plan.targetlist = whole_row_output(rel, scan->scanrelid);
	scan->plan.initPlan = NIL;
	node->custom_plans = list_make1(scan);
	RelationClose(rel);
	return &node->scan.plan;
}

Plan *rewrite(Plan *plan, RewriteContext *context, Demand demand);

void
rewrite_list(List *plans, RewriteContext *context, const Demand &demand)
{
	for (ListCell *cell = list_head(plans); cell != nullptr; cell = lnext(plans, cell))
		lfirst(cell) = rewrite(static_cast<Plan *>(lfirst(cell)), context, demand);
}


Plan *
rewrite(Plan *plan, RewriteContext *context, Demand demand)
{
	if (plan == nullptr)
		return nullptr;
	if (plan->lefttree != nullptr)
		plan->lefttree = rewrite(plan->lefttree, context, input_demand(plan, plan->lefttree, demand));
	if (plan->righttree != nullptr)
		plan->righttree = rewrite(plan->righttree, context, input_demand(plan, plan->righttree, demand));
	switch (nodeTag(plan))
	{
		case T_SubqueryScan:
		{
			auto *subquery = reinterpret_cast<SubqueryScan *>(plan);
			subquery->subplan = rewrite(subquery->subplan, context, demand);
			break;
		}
		case T_CustomScan:
			// Another provider's children: its relationship to them is its own.
			break;
		case T_SeqScan:
		case T_IndexScan:
		case T_BitmapHeapScan:
			return read_node_for(reinterpret_cast<Scan *>(plan), context, demand);
		default:
			rewrite_list(listed_children(plan), context, demand);
			break;
	}
	return plan;
}

void
max_plan_node_id(Plan *plan, int *max_id)
{
	if (plan == nullptr)
		return;
	*max_id = Max(*max_id, plan->plan_node_id);
	max_plan_node_id(plan->lefttree, max_id);
	max_plan_node_id(plan->righttree, max_id);
	if (IsA(plan, SubqueryScan))
		max_plan_node_id(reinterpret_cast<SubqueryScan *>(plan)->subplan, max_id);
	List *children = listed_children(plan);
	for (ListCell *cell = list_head(children); cell != nullptr; cell = lnext(children, cell))
		max_plan_node_id(static_cast<Plan *>(lfirst(cell)), max_id);
}

void
add_read_path(PlannedStmt *stmt)
{
	// First the markers, in every node's expressions (D14b); then each scan's node, which takes
	// the scan's expressions, markers and all (D14).
	place_shared_markers(stmt);
	int max_id = 0;
	max_plan_node_id(stmt->planTree, &max_id);
	for (ListCell *cell = list_head(stmt->subplans); cell != nullptr; cell = lnext(stmt->subplans, cell))
		max_plan_node_id(static_cast<Plan *>(lfirst(cell)), &max_id);
	RewriteContext context{stmt, max_id + 1};
	stmt->planTree = rewrite(stmt->planTree, &context, Demand{});
	rewrite_list(stmt->subplans, &context, Demand{});
}

PlannedStmt *
plan_with_read_path(COMPAT_PLANNER_PARAMS)
{
	begin_planning();
	PlannedStmt *stmt = previous_planner != nullptr ? previous_planner(COMPAT_PLANNER_ARGS)
													: standard_planner(COMPAT_PLANNER_ARGS);
	if (settings.read_path && stmt->commandType != CMD_UTILITY)
		add_read_path(stmt);
	return stmt;
}

} // namespace

void
read_planner_init()
{
	previous_planner = planner_hook;
	planner_hook = plan_with_read_path;
	plan_demand_init();
}

} // namespace hotplus
