#include "read/shared_detoast.hpp"

#include "read/read_references.hpp"

extern "C" {
#include "access/detoast.h"
#include "executor/execExpr.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "nodes/params.h"
#include "utils/memutils.h"
}

namespace hotplus {

namespace {

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
	int varno;
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
			Var *var = scanned_column(*slot, context->varno);
			if (var != nullptr && list_member_int(context->shared_columns, var->varattno))
				*slot = reinterpret_cast<Node *>(make_marker(var));
			else
				lfirst(cell) = mark_shared_references(static_cast<Node *>(lfirst(cell)), context);
		}
		return copy;
	}
	return expression_tree_mutator(node, reinterpret_cast<Node *(*)()>(reinterpret_cast<void (*)()>(mark_shared_references)), context);
}

// EEOP_PARAM_CALLBACK step of a marker: the row's shared copy, made on first use.
void
read_shared_column(ExprState *, ExprEvalStep *op, ExprContext *econtext)
{
	auto *column = static_cast<SharedColumn *>(op->d.cparam.paramarg);
	SharedDetoast *sd = column->owner;
	TupleTableSlot *slot = sd->from_outer ? econtext->ecxt_outertuple : econtext->ecxt_scantuple;
	const int index = column->attno - 1;
	if (slot->tts_nvalid <= index)
		slot_getsomeattrs(slot, column->attno);
	if (slot->tts_isnull[index])
	{
		*op->resvalue = (Datum) 0;
		*op->resnull = true;
		return;
	}
	if (column->row != sd->row)
	{
		Datum stored = slot->tts_values[index];
		column->row = sd->row;
		column->stored = stored;
		column->copy = stored;
		if (needs_detoasting(stored))
		{
			if (sd->row_memory == nullptr)
				sd->row_memory = AllocSetContextCreate(sd->parent, "hotplus shared detoast", ALLOCSET_DEFAULT_SIZES);
			MemoryContext caller = MemoryContextSwitchTo(sd->row_memory);
			column->copy = PointerGetDatum(detoast_attr(reinterpret_cast<struct varlena *>(DatumGetPointer(stored))));
			MemoryContextSwitchTo(caller);
			++sd->values_detoasted;
		}
	}
	*op->resvalue = column->copy;
	*op->resnull = false;
}

struct CompileContext
{
	ParamListInfo outer; // the statement's parameters, whose compilation is unchanged
	SharedDetoast *sd;
};
static_assert(std::is_trivially_destructible_v<CompileContext>); // on frames an ERROR may unwind

void
compile_param(ParamListInfo params, Param *param, ExprState *expr, Datum *resv, bool *resnull)
{
	auto *context = static_cast<CompileContext *>(params->paramCompileArg);
	if (param->paramkind == PARAM_EXTERN && param->paramid < 0)
	{
		SharedColumn *column = nullptr;
		for (int i = 0; i < context->sd->nshared; ++i)
			if (context->sd->shared[i].attno == -param->paramid)
				column = &context->sd->shared[i];
		if (column == nullptr)
			elog(ERROR, "hotplus: no shared column %d in a read path node", -param->paramid);
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

} // namespace

bool
needs_detoasting(Datum stored)
{
	auto *value = reinterpret_cast<struct varlena *>(DatumGetPointer(stored));
	return VARATT_IS_EXTERNAL(value) || VARATT_IS_COMPRESSED(value);
}

List *
with_shared_markers(List *exprs, int varno, List *shared_columns)
{
	MarkContext mark{varno, shared_columns};
	return reinterpret_cast<List *>(mark_shared_references(reinterpret_cast<Node *>(exprs), &mark));
}

void
shared_detoast_init(SharedDetoast *sd, List *shared_columns, MemoryContext parent, bool from_outer)
{
	memset(sd, 0, sizeof(*sd));
	sd->from_outer = from_outer;
	sd->parent = parent;
	sd->nshared = list_length(shared_columns);
	if (sd->nshared == 0)
		return;
	sd->shared = static_cast<SharedColumn *>(MemoryContextAllocZero(parent, sizeof(SharedColumn) * sd->nshared));
	int i = 0;
	for (ListCell *cell = list_head(shared_columns); cell != nullptr; cell = lnext(shared_columns, cell), ++i)
	{
		sd->shared[i].owner = sd;
		sd->shared[i].attno = static_cast<AttrNumber>(lfirst_int(cell));
	}
}

void
shared_detoast_end(SharedDetoast *sd)
{
	if (sd->row_memory != nullptr)
		MemoryContextDelete(sd->row_memory);
	sd->row_memory = nullptr;
}

bool
shared_detoast_needed(const SharedDetoast *sd, TupleTableSlot *row)
{
	for (int c = 0; c < sd->nshared; ++c)
	{
		const int index = sd->shared[c].attno - 1;
		if (row->tts_nvalid <= index)
			slot_getsomeattrs(row, index + 1);
		if (!row->tts_isnull[index] && needs_detoasting(row->tts_values[index]))
			return true;
	}
	return false;
}

void
shared_detoast_compile(SharedDetoast *sd, PlanState *ps, List *qual, List *tlist, TupleDesc input_desc)
{
	EState *estate = ps->state;
	CompileContext context{estate->es_param_list_info, sd};
	ParamListInfo compiling = makeParamList(0);
	compiling->paramCompile = compile_param;
	compiling->paramCompileArg = &context;
	// The first compilation's SubPlans are dropped with it (their plans are initialized once
	// per query, elsewhere); the new ones take their place.
	ps->subPlan = NIL;
	estate->es_param_list_info = compiling;
	PG_TRY();
	{
		ps->qual = ExecInitQual(qual, ps);
		if (ps->ps_ProjInfo != nullptr)
			ps->ps_ProjInfo = ExecBuildProjectionInfo(tlist, ps->ps_ExprContext, ps->ps_ResultTupleSlot, ps, input_desc);
	}
	PG_FINALLY();
	{
		estate->es_param_list_info = context.outer;
	}
	PG_END_TRY();
}

} // namespace hotplus
