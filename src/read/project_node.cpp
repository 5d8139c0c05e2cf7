#include "read/project_node.hpp"

#include "am/settings.hpp"
#include "read/node_input.hpp"
#include "read/shared_detoast.hpp"

extern "C" {
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/nodeCustom.h"
#include "executor/tuptable.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/value.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "utils/memutils.h"
}

namespace hotplus {

extern const CustomExecMethods project_exec_methods;

namespace {

struct ProjectState
{
	CustomScanState css; // first: the executor sees a CustomScanState
	PlanState *input;
	bool active;
	bool lazy; // the marked output list is not compiled yet (as HotheapRead's invariant 5)
	SharedDetoast detoast;
};

Node *
create_state(CustomScan *)
{
	auto *state = static_cast<ProjectState *>(palloc0(sizeof(ProjectState)));
	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &project_exec_methods;
	return reinterpret_cast<Node *>(state);
}

void
compile_marked(ProjectState *state)
{
	auto *plan = reinterpret_cast<CustomScan *>(state->css.ss.ps.plan);
	shared_detoast_compile(&state->detoast, &state->css.ss.ps, NIL,
						   static_cast<List *>(list_nth(plan->custom_private, kProjectMarkedTlist)),
						   ExecGetResultType(state->input));
	state->lazy = false;
}

void
begin(CustomScanState *node, EState *estate, int eflags)
{
	auto *state = reinterpret_cast<ProjectState *>(node);
	auto *plan = reinterpret_cast<CustomScan *>(node->ss.ps.plan);
	state->input = ExecInitNode(static_cast<Plan *>(linitial(plan->custom_plans)), estate, eflags);
	node->custom_ps = list_make1(state->input);
	// The output list reads the input row as the outer tuple, whatever slot type it comes in
	// (ExecInitCustomScan compiled it before the input existed; so do the marked one).
	node->ss.ps.outeropsset = true;
	node->ss.ps.outeropsfixed = false;
	// Invariant 3, before the node above makes its slots with this descriptor.
	TupleDesc result = node->ss.ps.ps_ResultTupleDesc;
	for (int i = list_length(state->input->plan->targetlist); i < result->natts; ++i)
		compat_keep_computed_form(result, i);
	state->active = settings.read_path;
	if (!state->active)
		return;
	shared_detoast_init(&state->detoast, static_cast<List *>(list_nth(plan->custom_private, kProjectShared)),
						estate->es_query_cxt, true);
	state->lazy = state->detoast.nshared > 0;
}

TupleTableSlot *
exec(CustomScanState *node)
{
	auto *state = reinterpret_cast<ProjectState *>(node);
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	ResetExprContext(econtext);
	if (state->active)
		shared_detoast_next_row(&state->detoast);
	TupleTableSlot *row = ExecProcNode(state->input);
	if (TupIsNull(row))
		return ExecClearTuple(node->ss.ps.ps_ResultTupleSlot);
	if (state->lazy && shared_detoast_needed(&state->detoast, row))
		compile_marked(state);
	econtext->ecxt_outertuple = row;
	return ExecProject(node->ss.ps.ps_ProjInfo);
}

void
end(CustomScanState *node)
{
	auto *state = reinterpret_cast<ProjectState *>(node);
	ExecEndNode(state->input);
	if (state->active)
		shared_detoast_end(&state->detoast);
}

void
rescan(CustomScanState *node)
{
	auto *state = reinterpret_cast<ProjectState *>(node);
	if (state->active)
		shared_detoast_next_row(&state->detoast);
	rescan_input(node, state->input);
}

void
mark_position(CustomScanState *node)
{
	ExecMarkPos(reinterpret_cast<ProjectState *>(node)->input);
}

void
restore_position(CustomScanState *node)
{
	ExecRestrPos(reinterpret_cast<ProjectState *>(node)->input);
}

void
explain(CustomScanState *node, List *, ExplainState *es)
{
	auto *state = reinterpret_cast<ProjectState *>(node);
	if (!es->verbose)
		return;
	if (!state->active)
	{
		ExplainPropertyText("Read Path", "off", es);
		return;
	}
	auto *plan = reinterpret_cast<CustomScan *>(node->ss.ps.plan);
	List *names = static_cast<List *>(list_nth(plan->custom_private, kProjectSharedNames));
	StringInfoData text;
	initStringInfo(&text);
	for (ListCell *cell = list_head(names); cell != nullptr; cell = lnext(names, cell))
		appendStringInfo(&text, "%s%s", cell == list_head(names) ? "" : ", ", strVal(lfirst(cell)));
	ExplainPropertyText("Detoasted Once", text.data, es);
	if (es->analyze)
		ExplainPropertyInteger("Values Detoasted", nullptr, state->detoast.values_detoasted, es);
}

CustomScanMethods project_plan_methods = {kProjectNodeName, create_state};

} // namespace

extern const CustomExecMethods project_exec_methods = {
	kProjectNodeName,
	begin,
	exec,
	end,
	rescan,
	mark_position,
	restore_position,
	nullptr, // not parallel aware (its input may be)
	nullptr,
	nullptr,
	nullptr,
	nullptr,
	explain,
};

CustomScan *
make_project_node(Plan *input, List *tlist, List *shared_columns, List *shared_names, int plan_node_id)
{
	CustomScan *node = makeNode(CustomScan);
	Plan *plan = &node->scan.plan;
	plan->targetlist = tlist;
	plan->qual = NIL;
	plan->plan_node_id = plan_node_id;
	plan->plan_rows = input->plan_rows;
	plan->startup_cost = input->startup_cost;
	const int added = list_length(tlist) - list_length(input->targetlist);
	plan->total_cost = input->total_cost + cpu_operator_cost * input->plan_rows * Max(added, 1);
	plan->plan_width = input->plan_width + 32 * added;
	plan->parallel_aware = false;
	plan->parallel_safe = input->parallel_safe;
	plan->async_capable = false;
	plan->extParam = bms_copy(input->extParam);
	plan->allParam = bms_copy(input->allParam);
	// Only for EXPLAIN: ruleutils reads OUTER_VAR through lefttree. The executor runs
	// custom_plans (ExecInitCustomScan initializes no lefttree).
	plan->lefttree = input;
	plan->righttree = nullptr;
	node->scan.scanrelid = 0;
	node->flags = CUSTOMPATH_SUPPORT_MARK_RESTORE;
	if (ExecSupportsBackwardScan(input))
		node->flags |= CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
	node->custom_plans = list_make1(input);
	node->custom_exprs = NIL;
	node->custom_scan_tlist = NIL;
	node->custom_relids = nullptr;
	node->custom_private = list_make3(shared_columns, shared_names,
									  with_shared_markers(tlist, OUTER_VAR, shared_columns));
	node->methods = &project_plan_methods;
	return node;
}

bool
is_project_node(const Plan *plan)
{
	return plan != nullptr && IsA(plan, CustomScan) &&
		   reinterpret_cast<const CustomScan *>(plan)->methods == &project_plan_methods;
}

void
project_node_init()
{
	RegisterCustomScanMethods(&project_plan_methods);
}

} // namespace hotplus
