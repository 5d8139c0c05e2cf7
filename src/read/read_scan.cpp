#include "read/read_scan.hpp"

#include "read/selective_deform.hpp"
#include "read/node_input.hpp"
#include "read/shared_detoast.hpp"
#include "am/stored_form.hpp"
#include "am/settings.hpp"
#include "stats/stats.hpp"

extern "C" {
#include "access/detoast.h"
#include "access/parallel.h"
#include "commands/explain.h"
#include "executor/execExpr.h"
#include "executor/executor.h"
#include "executor/nodeCustom.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "nodes/nodeFuncs.h"
#include "nodes/params.h"
#include "utils/memutils.h"
#include "utils/rel.h"
}

namespace hotplus {

extern const CustomExecMethods read_exec_methods;

namespace {

struct ReadScanState
{
	CustomScanState css; // first: the executor sees a CustomScanState
	PlanState *scan;
	TupleTableSlot *scan_slot; // the scan's own slot (selective deformation only there)
	bool active;
	bool selective;
	SelectiveDeform deform;
	SharedDetoast detoast; // the shared columns, read from the scan's row
	bool executed;
	int64 rows_returned;
	bool compiled_for_heap_rows; // ExecInitCustomScan compiled the expressions for heap slots
	// The marked expressions are not compiled yet: the executor's run until a row has a
	// shared column that needs detoasting (invariant 5).
	bool lazy;
	// While the executor's expressions run and were compiled for a virtual slot (PG15), the
	// last column they read: they read the slot's values without deforming (invariant 6).
	AttrNumber deform_up_to;
};

// For the planner's next one-row statements on the table (stored_form.hpp): which shared
// columns of the first row that needed detoasting were stored compressed or out of line.
void
note_extended_values(const SharedDetoast *detoast, TupleTableSlot *row, Oid relid)
{
	for (int c = 0; c < detoast->nshared; ++c)
	{
		const AttrNumber attno = detoast->shared[c].attno;
		if (row->tts_nvalid < attno) // shared_detoast_needed() stopped at the first
			slot_getsomeattrs(row, attno);
		if (!row->tts_isnull[attno - 1] && needs_detoasting(row->tts_values[attno - 1]))
			note_extended_value(relid, attno);
	}
}

// Compiles the filter and output list, with the shared columns' references as markers.
void
compile_expressions(ReadScanState *state)
{
	auto *plan = reinterpret_cast<CustomScan *>(state->css.ss.ps.plan);
	const bool marked = state->detoast.nshared > 0;
	shared_detoast_compile(&state->detoast, &state->css.ss.ps,
						   marked ? static_cast<List *>(list_nth(plan->custom_private, kPrivateMarkedQual))
								  : plan->scan.plan.qual,
						   marked ? static_cast<List *>(list_nth(plan->custom_private, kPrivateMarkedTlist))
								  : plan->scan.plan.targetlist,
						   state->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor);
	// Compiled for the scan's slot type, they deform what they read; nothing is left to compile.
	state->deform_up_to = 0;
	state->lazy = false;
}

Node *
create_state(CustomScan *)
{
	auto *state = static_cast<ReadScanState *>(palloc0(sizeof(ReadScanState)));
	NodeSetTag(state, T_CustomScanState);
	// hotheap's slot type is heap's (see begin()).
	state->compiled_for_heap_rows = compat_set_custom_scan_slot_ops(&state->css, &TTSOpsBufferHeapTuple);
	state->css.methods = &read_exec_methods;
	return reinterpret_cast<Node *>(state);
}

// Whether the executor's compilation of the node's expressions (for a virtual slot, PG15)
// includes one it evaluates through a shortcut for one Var of a virtual slot (ExecJust*VarVirt,
// ExecReadyInterpretedExpr: a single Var or an output list of one Var, which includes a
// SubPlan's arguments and a hashed SubPlan's left-hand projection). Those assert
// TTS_IS_VIRTUAL, so the node's rows (heap tuples, deformed as invariant 6 says) must not
// reach them: the node compiles its own for the scan's slot type instead. (Release builds
// read the same deformed values either way; assert-enabled ones stopped.)
bool
is_one_var_shortcut(ExprState *expr)
{
	if (expr == nullptr || expr->steps_len != 2)
		return false;
	const ExprEvalOp op = ExecEvalStepOp(expr, &expr->steps[0]);
	return op == EEOP_SCAN_VAR || op == EEOP_ASSIGN_SCAN_VAR;
}

bool
uses_virtual_slot_shortcuts(CustomScanState *node)
{
	if (node->ss.ps.subPlan != NIL)
		return true;
	return is_one_var_shortcut(node->ss.ps.qual) ||
		   (node->ss.ps.ps_ProjInfo != nullptr && is_one_var_shortcut(&node->ss.ps.ps_ProjInfo->pi_state));
}

void
begin(CustomScanState *node, EState *estate, int eflags)
{
	auto *state = reinterpret_cast<ReadScanState *>(node);
	auto *plan = reinterpret_cast<CustomScan *>(node->ss.ps.plan);
	state->scan = ExecInitNode(static_cast<Plan *>(linitial(plan->custom_plans)), estate, eflags);
	node->custom_ps = list_make1(state->scan);
	state->scan_slot = reinterpret_cast<ScanState *>(state->scan)->ss_ScanTupleSlot;
	// The rows the node evaluates are the scan's, in slots of the scan's type (its own or
	// EvalPlanQual's, made by the same table AM). Where the executor could not be told
	// (PG15: a custom scan's slot is virtual), its filter and output list read the slot's
	// values without deforming them: the node deforms each row first (invariant 6).
	if (state->scan_slot->tts_ops != &TTSOpsBufferHeapTuple)
		elog(ERROR, "hotplus: HotheapRead above a scan whose rows are not heap tuples");
	node->ss.ps.scanops = state->scan_slot->tts_ops;
	node->ss.ps.scanopsfixed = true;
	node->ss.ps.scanopsset = true;
	// Without a projection the node returns the scan's row itself: the node above must
	// compile its expressions for that slot type too (for a virtual slot it would read
	// columns nobody deformed). Its children are initialized before it compiles anything.
	if (node->ss.ps.ps_ProjInfo == nullptr)
	{
		node->ss.ps.resultops = state->scan_slot->tts_ops;
		node->ss.ps.resultopsfixed = true;
		node->ss.ps.resultopsset = true;
	}
	// WHERE CURRENT OF finds this node first (search_plan_tree): it must see the scan's row.
	node->ss.ss_ScanTupleSlot = state->scan_slot;

	List *deformed = static_cast<List *>(list_nth(plan->custom_private, kPrivateDeformed));
	state->deform_up_to = state->compiled_for_heap_rows || deformed == NIL
							  ? 0
							  : static_cast<AttrNumber>(llast_int(deformed));
	// Invariant 6's exception: expressions the executor evaluates through its shortcuts for
	// one Var of a virtual slot, which assert that the slot is virtual.
	const bool compile_now = !state->compiled_for_heap_rows && uses_virtual_slot_shortcuts(node);
	state->active = settings.read_path;
	if (!state->active)
	{
		if (compile_now)
			compile_expressions(state);
		return;
	}
	List *detoast = static_cast<List *>(list_nth(plan->custom_private, kPrivateDetoast));
	state->selective = intVal(list_nth(plan->custom_private, kPrivateSelective)) != 0 &&
					   node->ss.ps.ps_ProjInfo != nullptr &&
					   selective_deform_init(&state->deform, state->scan_slot->tts_tupleDescriptor, deformed);
	// Only detoasted copies live per row: the memory for them is made with the first one, so
	// a scan whose values are all inline and uncompressed, or a node without shared columns,
	// resets nothing per row.
	shared_detoast_init(&state->detoast, detoast, estate->es_query_cxt, false);
	// The marked expressions wait for the first row that needs them: a scan whose values
	// are all inline and uncompressed (a one-row UPDATE of a small document) never compiles
	// them.
	state->lazy = state->detoast.nshared > 0;
	if (compile_now)
		compile_expressions(state);
}

TupleTableSlot *
exec(CustomScanState *node)
{
	auto *state = reinterpret_cast<ReadScanState *>(node);
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	ExprState *qual = node->ss.ps.qual;
	ProjectionInfo *projection = node->ss.ps.ps_ProjInfo;
	state->executed = true;

	for (;;)
	{
		ResetExprContext(econtext);
		shared_detoast_next_row(&state->detoast);

		TupleTableSlot *returned = ExecProcNode(state->scan);
		if (TupIsNull(returned))
			return projection != nullptr ? ExecClearTuple(projection->pi_state.resultslot) : returned;
		// Where the table's rows cannot be returned as they are (dropped columns, columns with
		// missing values), the scan projects a placeholder (whole_row_output()): its row is
		// then the one it evaluated.
		TupleTableSlot *row = state->scan->ps_ProjInfo != nullptr ? state->scan->ps_ExprContext->ecxt_scantuple
																  : returned;
		if (state->selective && row == state->scan_slot && row->tts_nvalid == 0)
			selective_deform(&state->deform, row);
		// Invariant 5: the marked expressions from the first row that needs them on, at a
		// row boundary (nothing of this row was evaluated yet).
		if (state->lazy && shared_detoast_needed(&state->detoast, row))
		{
			note_extended_values(&state->detoast, row, RelationGetRelid(node->ss.ss_currentRelation));
			compile_expressions(state);
			qual = node->ss.ps.qual;
			projection = node->ss.ps.ps_ProjInfo;
		}
		// Invariant 6.
		if (row->tts_nvalid < state->deform_up_to)
			slot_getsomeattrs(row, state->deform_up_to);

		econtext->ecxt_scantuple = row;
		if (qual == nullptr || ExecQual(qual, econtext))
		{
			++state->rows_returned;
			if (projection == nullptr)
				return row;
			return ExecProject(projection);
		}
		InstrCountFiltered1(node, 1);
	}
}

void
end(CustomScanState *node)
{
	auto *state = reinterpret_cast<ReadScanState *>(node);
	ExecEndNode(state->scan);
	// Counted by the backend that runs the statement; parallel workers' nodes are not.
	if (state->active && state->executed && !IsParallelWorker())
		stats_count_read(RelationGetRelid(node->ss.ss_currentRelation), state->rows_returned);
	shared_detoast_end(&state->detoast);
}

void
rescan(CustomScanState *node)
{
	auto *state = reinterpret_cast<ReadScanState *>(node);
	shared_detoast_next_row(&state->detoast);
	rescan_input(node, state->scan);
}

void
mark_position(CustomScanState *node)
{
	ExecMarkPos(reinterpret_cast<ReadScanState *>(node)->scan);
}

void
restore_position(CustomScanState *node)
{
	ExecRestrPos(reinterpret_cast<ReadScanState *>(node)->scan);
}

char *
column_names(TupleDesc desc, const AttrNumber *columns, int n)
{
	StringInfoData names;
	initStringInfo(&names);
	for (int i = 0; i < n; ++i)
		appendStringInfo(&names, "%s%s", i > 0 ? ", " : "", NameStr(TupleDescAttr(desc, columns[i] - 1)->attname));
	return names.data;
}

void
explain(CustomScanState *node, List *, ExplainState *es)
{
	auto *state = reinterpret_cast<ReadScanState *>(node);
	if (!es->verbose)
		return;
	if (!state->active)
	{
		ExplainPropertyText("Read Path", "off", es);
		return;
	}
	TupleDesc desc = state->scan_slot->tts_tupleDescriptor;
	auto *plan = reinterpret_cast<CustomScan *>(node->ss.ps.plan);
	if (state->selective)
	{
		List *deformed = static_cast<List *>(list_nth(plan->custom_private, kPrivateDeformed));
		auto *columns = static_cast<AttrNumber *>(palloc(sizeof(AttrNumber) * list_length(deformed)));
		int n = 0;
		for (ListCell *cell = list_head(deformed); cell != nullptr; cell = lnext(deformed, cell))
			columns[n++] = static_cast<AttrNumber>(lfirst_int(cell));
		ExplainPropertyText("Deformed Columns", column_names(desc, columns, n), es);
	}
	if (state->detoast.nshared > 0)
	{
		auto *columns = static_cast<AttrNumber *>(palloc(sizeof(AttrNumber) * state->detoast.nshared));
		for (int i = 0; i < state->detoast.nshared; ++i)
			columns[i] = state->detoast.shared[i].attno;
		ExplainPropertyText("Detoasted Once", column_names(desc, columns, state->detoast.nshared), es);
		if (es->analyze)
			ExplainPropertyInteger("Values Detoasted", nullptr, state->detoast.values_detoasted, es);
	}
}

CustomScanMethods read_plan_methods = {kReadNodeName, create_state};

} // namespace

extern const CustomExecMethods read_exec_methods = {
	kReadNodeName,
	begin,
	exec,
	end,
	rescan,
	mark_position,
	restore_position,
	nullptr, // EstimateDSMCustomScan: the node is not parallel aware (its scan may be)
	nullptr,
	nullptr,
	nullptr,
	nullptr,
	explain,
};

const CustomScanMethods *
read_scan_methods()
{
	return &read_plan_methods;
}

void
read_scan_init()
{
	RegisterCustomScanMethods(&read_plan_methods);
}

} // namespace hotplus
