#include "read/plan_demand.hpp"

#include "am/settings.hpp"
#include "read/plan_children.hpp"

extern "C" {
#include "access/relation.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"
#include "parser/parsetree.h"
#include "utils/rel.h"
}

namespace hotplus {

namespace {

// The tables' sizes for one planning: the planner's own estimates (set_rel_pathlist_hook, with
// the same signature from 15 to 19 where get_relation_info_hook is gone in 19), else asked once
// per planning (an lseek each), so that the markers and the scans' nodes, which both ask, do
// not ask the kernel again what the planner just asked it.
struct TableSize
{
	Oid relid;
	uint64 planning; // the planning it was estimated in
	double tuples;
};
constexpr int kRememberedSizes = 16;
TableSize sizes[kRememberedSizes];
int next_size = 0;
uint64 planning = 1;
set_rel_pathlist_hook_type previous_set_rel_pathlist = nullptr;

void
remember_size(Oid relid, double tuples)
{
	sizes[next_size] = TableSize{relid, planning, tuples};
	next_size = (next_size + 1) % kRememberedSizes;
}

void
note_planner_estimate(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	if (previous_set_rel_pathlist != nullptr)
		previous_set_rel_pathlist(root, rel, rti, rte);
	// A plain relation's scan; an inheritance parent's rows are its children's.
	if (rte->rtekind == RTE_RELATION && !rte->inh)
		remember_size(rte->relid, rel->tuples);
}

double
table_tuples(Relation rel)
{
	for (const TableSize &size : sizes)
		if (size.relid == RelationGetRelid(rel) && size.planning == planning)
			return size.tuples;
	BlockNumber pages = 0;
	double tuples = 0;
	double allvisfrac = 0;
	estimate_rel_size(rel, nullptr, &pages, &tuples, &allvisfrac);
	remember_size(RelationGetRelid(rel), tuples);
	return tuples;
}

} // namespace

void
plan_demand_init()
{
	previous_set_rel_pathlist = set_rel_pathlist_hook;
	set_rel_pathlist_hook = note_planner_estimate;
}

void
begin_planning()
{
	++planning;
}

Demand
input_demand(Plan *plan, Plan *input, const Demand &demand)
{
	Demand asked = demand;
	switch (nodeTag(plan))
	{
		case T_Limit:
		{
			auto *limit = reinterpret_cast<Limit *>(plan);
			double wanted = plan->plan_rows;
			if (limit->limitOffset != nullptr && IsA(limit->limitOffset, Const) &&
				!reinterpret_cast<Const *>(limit->limitOffset)->constisnull)
				wanted += static_cast<double>(DatumGetInt64(reinterpret_cast<Const *>(limit->limitOffset)->constvalue));
			if (input->plan_rows > 0 && wanted < input->plan_rows)
				asked.fraction *= Max(wanted, 1.0) / input->plan_rows;
			break;
		}
		case T_Sort:
		case T_Hash:
		case T_SetOp:
		case T_RecursiveUnion:
			asked.fraction = 1;
			break;
		case T_Agg:
			if (reinterpret_cast<Agg *>(plan)->aggstrategy != AGG_SORTED)
				asked.fraction = 1;
			break;
		case T_NestLoop:
			if (input == plan->righttree)
				asked.fraction = 1;
			break;
		case T_Gather:
			asked.processes = reinterpret_cast<Gather *>(plan)->num_workers + 1;
			break;
		case T_GatherMerge:
			asked.processes = reinterpret_cast<GatherMerge *>(plan)->num_workers + 1;
			break;
		default:
			break;
	}
	return asked;
}

double
rows_read(Scan *scan, Relation rel, const Demand &demand)
{
	double rows = scan->plan.plan_rows;
	switch (nodeTag(scan))
	{
		case T_SeqScan:
			rows = table_tuples(rel) / (scan->plan.parallel_aware ? demand.processes : 1);
			break;
		case T_BitmapHeapScan:
			if (scan->plan.lefttree != nullptr)
				rows = Max(rows, scan->plan.lefttree->plan_rows);
			break;
		default:
			break;
	}
	return read_path_rows(Max(rows, scan->plan.plan_rows) * demand.fraction);
}

double
rows_evaluated(PlannedStmt *stmt, Plan *plan, const List *list, const Demand &demand)
{
	const double returned = plan->plan_rows * demand.fraction;
	if (scans_table_rows(plan))
	{
		if (list != plan->qual)
			return read_path_rows(returned);
		auto *scan = reinterpret_cast<Scan *>(plan);
		RangeTblEntry *rte = rt_fetch(scan->scanrelid, stmt->rtable);
		Relation rel = rte->rtekind == RTE_RELATION ? RelationIdGetRelation(rte->relid) : nullptr;
		if (rel == nullptr)
			return read_path_rows(returned);
		const double rows = rows_read(scan, rel, demand);
		RelationClose(rel);
		return rows;
	}
	switch (nodeTag(plan))
	{
		case T_NestLoop:
		case T_MergeJoin:
		case T_HashJoin:
			if (list == plan->targetlist)
				return read_path_rows(returned);
			return read_path_rows(Max(returned, plan->lefttree->plan_rows * input_demand(plan, plan->lefttree, demand).fraction));
		default:
			if (plan->lefttree == nullptr)
				return read_path_rows(returned);
			return read_path_rows(plan->lefttree->plan_rows * input_demand(plan, plan->lefttree, demand).fraction);
	}
}

} // namespace hotplus
