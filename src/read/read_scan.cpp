#include "read/read_scan.hpp"

#include "read/read_references.hpp"
#include "read/selective_deform.hpp"
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

struct ReadScanState;

// One column read through a shared detoasted copy.
struct SharedColumn
{
	ReadScanState *owner;
	AttrNumber attno;	// 1-based
	uint64 row;			// the owner's row the copy belongs to (0: none yet)
	Datum stored;		// the datum as the row stores it
	Datum copy;			// detoasted (== stored when it needed no detoasting)
};

struct ReadScanState
{
	CustomScanState css; // first: the executor sees a CustomScanState
	PlanState *scan;
	TupleTableSlot *scan_slot; // the scan's own slot (selective deformation only there)
	bool active;
	bool selective;
	SelectiveDeform deform;
	int nshared;
	SharedColumn *shared;
	uint64 row;
	MemoryContext row_memory;  // detoasted copies of the current row
	bool executed;
	int64 rows_returned;
	bool compiled_for_heap_rows; // ExecInitCustomScan compiled the expressions for heap slots
	// The marked expressions are not compiled yet: the executor's run until a row has a
	// shared column that needs detoasting (invariant 5).
	bool lazy;
	// While the executor's expressions run and were compiled for a virtual slot (PG15), the
	// last column they read: they read the slot's values without deforming (invariant 6).
	AttrNumber deform_up_to;
	int64 values_detoasted; // shared copies made (EXPLAIN ANALYZE)
};

// Markers standing for a shared column's references while the node's expressions are
// compiled: a PARAM_EXTERN with paramid -attno (real external parameters are numbered from 1).
Param *
make_marker(Var *var)
{
	Param *param = makeNode(Param);
	param->paramkind = PARAM_EXTERN;
	param->paramid = -var->varattno;
	param->paramtype = var->vartype;
	param->paramtypmod = var->vartypmod;
	param->paramcollid = var->varcollid;
	param->location = -1;
	return param;
}

struct MarkContext
{
	Index scanrelid;
	List *shared_columns; // IntList
};
static_assert(std::is_trivially_destructible_v<MarkContext>); // on frames an ERROR may unwind

Node *
mark_shared_references(Node *node, MarkContext *context)
{
	if (node == nullptr)
		return nullptr;
	if (hides_storage(node))
		return static_cast<Node *>(copyObjectImpl(node));
	int first = 0;
	List *arguments = detoasting_arguments(node, &first);
	if (arguments != NIL)
	{
		// Copy the call, then replace its qualifying arguments (under any relabeling); the
		// others are walked as any expression.
		Node *copy = static_cast<Node *>(copyObjectImpl(node));
		List *copied = detoasting_arguments(copy, &first);
		for (ListCell *cell = list_head(copied); cell != nullptr; cell = lnext(copied, cell))
		{
			if (list_cell_number(copied, cell) < first)
			{
				lfirst(cell) = mark_shared_references(static_cast<Node *>(lfirst(cell)), context);
				continue;
			}
			Node **slot = reinterpret_cast<Node **>(&lfirst(cell));
			while (*slot != nullptr && IsA(*slot, RelabelType))
				slot = reinterpret_cast<Node **>(&reinterpret_cast<RelabelType *>(*slot)->arg);
			Var *var = scanned_column(*slot, context->scanrelid);
			if (var != nullptr && list_member_int(context->shared_columns, var->varattno))
				*slot = reinterpret_cast<Node *>(make_marker(var));
			else
				lfirst(cell) = mark_shared_references(static_cast<Node *>(lfirst(cell)), context);
		}
		return copy;
	}
	return expression_tree_mutator(node, reinterpret_cast<Node *(*)()>(reinterpret_cast<void (*)()>(mark_shared_references)), context);
}

// Whether a stored datum is compressed or out of line: only those are shared as a copy. A
// short (1-byte header) value is handed to the functions as stored, as heap hands it:
// one that returns its packed argument then returns the stored datum, as on heap.
bool
needs_detoasting(Datum stored)
{
	auto *value = reinterpret_cast<struct varlena *>(DatumGetPointer(stored));
	return VARATT_IS_EXTERNAL(value) || VARATT_IS_COMPRESSED(value);
}

// EEOP_PARAM_CALLBACK step of a marker: the row's shared copy, made on first use.
void
read_shared_column(ExprState *, ExprEvalStep *op, ExprContext *econtext)
{
	auto *column = static_cast<SharedColumn *>(op->d.cparam.paramarg);
	ReadScanState *state = column->owner;
	TupleTableSlot *slot = econtext->ecxt_scantuple;
	const int index = column->attno - 1;
	if (slot->tts_nvalid <= index)
		slot_getsomeattrs(slot, column->attno);
	if (slot->tts_isnull[index])
	{
		*op->resvalue = (Datum) 0;
		*op->resnull = true;
		return;
	}
	if (column->row != state->row)
	{
		Datum stored = slot->tts_values[index];
		column->row = state->row;
		column->stored = stored;
		column->copy = stored;
		if (needs_detoasting(stored))
		{
			if (state->row_memory == nullptr)
				state->row_memory = AllocSetContextCreate(state->css.ss.ps.state->es_query_cxt, "HotheapRead row",
														  ALLOCSET_DEFAULT_SIZES);
			MemoryContext caller = MemoryContextSwitchTo(state->row_memory);
			column->copy = PointerGetDatum(detoast_attr(reinterpret_cast<struct varlena *>(DatumGetPointer(stored))));
			MemoryContextSwitchTo(caller);
			++state->values_detoasted;
		}
	}
	*op->resvalue = column->copy;
	*op->resnull = false;
}

struct CompileContext
{
	ParamListInfo outer; // the statement's parameters, whose compilation is unchanged
	ReadScanState *state;
};
static_assert(std::is_trivially_destructible_v<CompileContext>); // on frames an ERROR may unwind

void
compile_param(ParamListInfo params, Param *param, ExprState *expr, Datum *resv, bool *resnull)
{
	auto *context = static_cast<CompileContext *>(params->paramCompileArg);
	if (param->paramkind == PARAM_EXTERN && param->paramid < 0)
	{
		SharedColumn *column = nullptr;
		for (int i = 0; i < context->state->nshared; ++i)
			if (context->state->shared[i].attno == -param->paramid)
				column = &context->state->shared[i];
		if (column == nullptr)
			elog(ERROR, "hotplus: no shared column %d in a HotheapRead node", -param->paramid);
		ExprEvalStep step;
		memset(&step, 0, sizeof(step));
		step.opcode = EEOP_PARAM_CALLBACK;
		step.resvalue = resv;
		step.resnull = resnull;
		step.d.cparam.paramfunc = read_shared_column;
		step.d.cparam.paramarg = column;
		step.d.cparam.paramid = param->paramid;
		step.d.cparam.paramtype = param->paramtype;
		ExprEvalPushStep(expr, &step);
		return;
	}
	if (context->outer != nullptr && context->outer->paramCompile != nullptr)
	{
		context->outer->paramCompile(context->outer, param, expr, resv, resnull);
		return;
	}
	// What ExecInitExprRec emits for an external parameter without a compile hook.
	ExprEvalStep step;
	memset(&step, 0, sizeof(step));
	step.opcode = EEOP_PARAM_EXTERN;
	step.resvalue = resv;
	step.resnull = resnull;
	step.d.param.paramid = param->paramid;
	step.d.param.paramtype = param->paramtype;
	ExprEvalPushStep(expr, &step);
}

// Compiles the filter and output list, with the shared columns' references as markers.
void
compile_expressions(ReadScanState *state, EState *estate)
{
	auto *plan = reinterpret_cast<CustomScan *>(state->css.ss.ps.plan);
	const bool marked = state->nshared > 0;
	List *const qual = marked ? static_cast<List *>(list_nth(plan->custom_private, kPrivateMarkedQual))
							  : plan->scan.plan.qual;
	List *const tlist = marked ? static_cast<List *>(list_nth(plan->custom_private, kPrivateMarkedTlist))
							   : plan->scan.plan.targetlist;

	CompileContext context{estate->es_param_list_info, state};
	ParamListInfo compiling = makeParamList(0);
	compiling->paramCompile = compile_param;
	compiling->paramCompileArg = &context;
	PlanState *ps = &state->css.ss.ps;
	// The first compilation's SubPlans are dropped with it (their plans are initialized once
	// per query, elsewhere); the new ones take their place.
	ps->subPlan = NIL;
	estate->es_param_list_info = compiling;
	PG_TRY();
	{
		ps->qual = ExecInitQual(qual, ps);
		if (ps->ps_ProjInfo != nullptr)
			ps->ps_ProjInfo = ExecBuildProjectionInfo(tlist, ps->ps_ExprContext, ps->ps_ResultTupleSlot, ps,
													  state->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor);
	}
	PG_FINALLY();
	{
		estate->es_param_list_info = context.outer;
	}
	PG_END_TRY();
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
			compile_expressions(state, estate);
		return;
	}
	List *detoast = static_cast<List *>(list_nth(plan->custom_private, kPrivateDetoast));
	state->selective = intVal(list_nth(plan->custom_private, kPrivateSelective)) != 0 &&
					   node->ss.ps.ps_ProjInfo != nullptr &&
					   selective_deform_init(&state->deform, state->scan_slot->tts_tupleDescriptor, deformed);
	state->nshared = list_length(detoast);
	if (state->nshared > 0)
	{
		// Only detoasted copies live per row: the memory for them is made with the first one
		// (read_shared_column), so a scan whose values are all inline and uncompressed, or a
		// node without shared columns, resets nothing per row.
		state->shared = static_cast<SharedColumn *>(palloc0(sizeof(SharedColumn) * state->nshared));
		int i = 0;
		for (ListCell *cell = list_head(detoast); cell != nullptr; cell = lnext(detoast, cell), ++i)
		{
			state->shared[i].owner = state;
			state->shared[i].attno = static_cast<AttrNumber>(lfirst_int(cell));
		}
	}
	// The marked expressions wait for the first row that needs them: a scan whose values
	// are all inline and uncompressed (a one-row UPDATE of a small document) never compiles
	// them.
	state->lazy = state->nshared > 0;
	if (compile_now)
		compile_expressions(state, estate);
}

// Whether a shared column of the row is compressed or out of line (would be detoasted).
bool
needs_shared_copy(ReadScanState *state, TupleTableSlot *row)
{
	for (int c = 0; c < state->nshared; ++c)
	{
		const int index = state->shared[c].attno - 1;
		if (row->tts_nvalid <= index)
			slot_getsomeattrs(row, index + 1);
		if (!row->tts_isnull[index] && needs_detoasting(row->tts_values[index]))
			return true;
	}
	return false;
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
		if (state->row_memory != nullptr)
			MemoryContextReset(state->row_memory);
		++state->row;

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
		if (state->lazy && needs_shared_copy(state, row))
		{
			compile_expressions(state, node->ss.ps.state);
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
	if (state->row_memory != nullptr)
		MemoryContextDelete(state->row_memory);
	state->row_memory = nullptr;
}

void
rescan(CustomScanState *node)
{
	auto *state = reinterpret_cast<ReadScanState *>(node);
	if (state->row_memory != nullptr)
		MemoryContextReset(state->row_memory);
	++state->row;
	if (node->ss.ps.chgParam != nullptr)
		UpdateChangedParamSet(state->scan, node->ss.ps.chgParam);
	// A scan with changed parameters is rescanned by its next ExecProcNode.
	if (state->scan->chgParam == nullptr)
		ExecReScan(state->scan);
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
	if (state->nshared > 0)
	{
		auto *columns = static_cast<AttrNumber *>(palloc(sizeof(AttrNumber) * state->nshared));
		for (int i = 0; i < state->nshared; ++i)
			columns[i] = state->shared[i].attno;
		ExplainPropertyText("Detoasted Once", column_names(desc, columns, state->nshared), es);
		if (es->analyze)
			ExplainPropertyInteger("Values Detoasted", nullptr, state->values_detoasted, es);
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

List *
with_shared_markers(List *exprs, Index scanrelid, List *shared_columns)
{
	MarkContext mark{scanrelid, shared_columns};
	return reinterpret_cast<List *>(mark_shared_references(reinterpret_cast<Node *>(exprs), &mark));
}

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
