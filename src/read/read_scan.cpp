#include "read/read_scan.hpp"

#include "read/selective_deform.hpp"
#include "read/node_input.hpp"
#include "am/settings.hpp"
#include "stats/stats.hpp"

extern "C" {
#include "access/heapam.h"
#include "access/parallel.h"
#include "commands/explain.h"
#include "executor/execExpr.h"
#include "executor/executor.h"
#include "executor/nodeCustom.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "nodes/nodeFuncs.h"
#include "nodes/params.h"
#include "storage/bufmgr.h"
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
	Buffer page; // the page whose tuples were asked for (deform.pages_prefetched)
	bool executed;
	int64 rows_returned;
	bool compiled_for_heap_rows; // ExecInitCustomScan compiled the expressions for heap slots
	// While the executor's expressions run and were compiled for a virtual slot (PG15), the
	// last column they read: they read the slot's values without deforming (invariant 5).
	AttrNumber deform_up_to;
};

// Compiles the filter and output list for the scan's slot type (invariant 5's exception):
// compiled so, they deform what they read.
void
compile_expressions(ReadScanState *state)
{
	PlanState *ps = &state->css.ss.ps;
	auto *plan = reinterpret_cast<CustomScan *>(ps->plan);
	// The first compilation's SubPlans are dropped with it (their plans are initialized once
	// per query, elsewhere); the new ones take their place.
	ps->subPlan = NIL;
	ps->qual = ExecInitQual(plan->scan.plan.qual, ps);
	if (ps->ps_ProjInfo != nullptr)
		ps->ps_ProjInfo = ExecBuildProjectionInfo(plan->scan.plan.targetlist, ps->ps_ExprContext,
												  ps->ps_ResultTupleSlot, ps,
												  state->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor);
	state->deform_up_to = 0;
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
// TTS_IS_VIRTUAL, so the node's rows (heap tuples, deformed as invariant 5 says) must not
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
	// values without deforming them: the node deforms each row first (invariant 5).
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
	// Invariant 5's exception: expressions the executor evaluates through its shortcuts for
	// one Var of a virtual slot, which assert that the slot is virtual.
	const bool compile_now = !state->compiled_for_heap_rows && uses_virtual_slot_shortcuts(node);
	state->active = settings.read_path;
	if (compile_now)
		compile_expressions(state);
	if (!state->active)
		return;
	state->selective = node->ss.ps.ps_ProjInfo != nullptr &&
					   selective_deform_init(&state->deform, state->scan_slot->tts_tupleDescriptor, deformed);
	// A sequential scan returns a page's visible tuples in turn: asked for a page at a time.
	state->deform.pages_prefetched = IsA(state->scan, SeqScanState);
	state->page = InvalidBuffer;
}

// At a page's first tuple, the wanted lines of every tuple the scan returns from it
// (selective_deform.hpp, invariant 4): a sequential scan in page mode has listed them, the
// visible tuples of the page it holds (rs_vistuples, heap's; a hotheap scan is heap's).
void
prefetch_page(ReadScanState *state, TupleTableSlot *row)
{
	if (!TTS_IS_BUFFERTUPLE(row))
		return;
	const Buffer buffer = reinterpret_cast<BufferHeapTupleTableSlot *>(row)->buffer;
	if (buffer == state->page || !BufferIsValid(buffer))
		return;
	state->page = buffer;
	auto *scan = reinterpret_cast<HeapScanDesc>(reinterpret_cast<ScanState *>(state->scan)->ss_currentScanDesc);
	if (scan == nullptr || !(scan->rs_base.rs_flags & SO_ALLOW_PAGEMODE) || scan->rs_cbuf != buffer)
		return;
	selective_deform_prefetch_page(&state->deform, BufferGetPage(buffer), scan->rs_vistuples,
								   static_cast<int>(scan->rs_ntuples));
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

		TupleTableSlot *returned = ExecProcNode(state->scan);
		if (TupIsNull(returned))
			return projection != nullptr ? ExecClearTuple(projection->pi_state.resultslot) : returned;
		// Where the table's rows cannot be returned as they are (dropped columns, columns with
		// missing values), the scan projects a placeholder (whole_row_output()): its row is
		// then the one it evaluated.
		TupleTableSlot *row = state->scan->ps_ProjInfo != nullptr ? state->scan->ps_ExprContext->ecxt_scantuple
																  : returned;
		if (state->selective && row == state->scan_slot && row->tts_nvalid == 0)
		{
			if (state->deform.pages_prefetched)
				prefetch_page(state, row);
			selective_deform(&state->deform, row);
		}
		// Invariant 5.
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
}

void
rescan(CustomScanState *node)
{
	rescan_input(node, reinterpret_cast<ReadScanState *>(node)->scan);
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
