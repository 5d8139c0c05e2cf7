// Core headers first, before any PostgreSQL header (they #error after postgres.h).
#include "core/read_plan.hpp"

#include "read/consumer_pushdown.hpp"

#include "am/hotheap_am.hpp"
#include "read/project_node.hpp"
#include "read/read_references.hpp"
#include "read/read_scan.hpp"
#include "am/settings.hpp"
#include "am/stored_form.hpp"

extern "C" {
#include "catalog/pg_type_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/value.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/relcache.h"
}

namespace hotplus {

namespace {

// Plan trees are not deeper than this where values pass through (a guard, not a limit seen).
constexpr int kMaxTraceDepth = 100;

// Functions that raise no error for any value of the column and any constant other arguments:
// they may run on rows where heap would not have run them. Their results are no larger than
// the value they read.
bool
never_errors(Oid function)
{
	switch (function)
	{
		case F_JSONB_OBJECT_FIELD:		 // ->  text
		case F_JSONB_OBJECT_FIELD_TEXT:	 // ->> text
		case F_JSONB_ARRAY_ELEMENT:		 // ->  int
		case F_JSONB_ARRAY_ELEMENT_TEXT: // ->> int
		case F_JSONB_EXTRACT_PATH:		 // #>
		case F_JSONB_EXTRACT_PATH_TEXT:	 // #>>
		case F_JSONB_EXISTS:			 // ?
		case F_JSONB_CONTAINS:			 // @>
		case F_LENGTH_TEXT:
		case F_OCTET_LENGTH_TEXT:
		case F_MD5_TEXT:
			return true;
		default:
			return false;
	}
}

// The column a value of the plan's input is, below any binary-compatible relabeling.
Var *
plain_var(Node *expr)
{
	while (expr != nullptr && IsA(expr, RelabelType))
		expr = reinterpret_cast<Node *>(reinterpret_cast<RelabelType *>(expr)->arg);
	if (expr == nullptr || !IsA(expr, Var))
		return nullptr;
	auto *var = reinterpret_cast<Var *>(expr);
	return var->varlevelsup == 0 && var->varattno > 0 ? var : nullptr;
}

struct Traced
{
	char *name;	   // the column's name, for EXPLAIN
	List *relids;  // OidList: the hotheap tables whose column it is (more than one below an Append)
	List *attnos;  // IntList: that column in each
};
static_assert(std::is_trivially_destructible_v<Traced>); // on frames an ERROR may unwind

bool
hotheap_toastable(PlannedStmt *stmt, Index rti, AttrNumber attno, Traced *out)
{
	RangeTblEntry *rte = rt_fetch(rti, stmt->rtable);
	if (rte->rtekind != RTE_RELATION)
		return false;
	Relation rel = RelationIdGetRelation(rte->relid);
	if (rel == nullptr)
		return false;
	bool toastable = false;
	if (rel->rd_tableam == hotheap_routine() && attno <= RelationGetDescr(rel)->natts)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), attno - 1);
		toastable = !att->attisdropped && att->attlen == -1 && att->attstorage != TYPSTORAGE_PLAIN;
		if (toastable)
		{
			out->name = pstrdup(NameStr(att->attname));
			out->relids = lappend_oid(out->relids, rte->relid);
			out->attnos = lappend_int(out->attnos, attno);
		}
	}
	RelationClose(rel);
	return toastable;
}

// Whether column k of plan's output is, as stored, a toastable column of a hotheap table: the
// value some scan of it hands up, passed on unchanged by every node above the scan.
bool
trace(PlannedStmt *stmt, Plan *plan, AttrNumber k, int depth, Traced *out)
{
	if (plan == nullptr || depth > kMaxTraceDepth || k < 1 || k > list_length(plan->targetlist))
		return false;
	Var *var = plain_var(reinterpret_cast<Node *>(static_cast<TargetEntry *>(list_nth(plan->targetlist, k - 1))->expr));
	if (var == nullptr)
		return false;
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_IndexScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
		case T_SampleScan:
		{
			const Index scanrelid = reinterpret_cast<Scan *>(plan)->scanrelid;
			return var->varno == static_cast<int>(scanrelid) && hotheap_toastable(stmt, scanrelid, var->varattno, out);
		}
		case T_CustomScan:
		{
			auto *custom = reinterpret_cast<CustomScan *>(plan);
			if (custom->methods == read_scan_methods())
				return var->varno == static_cast<int>(custom->scan.scanrelid) &&
					   hotheap_toastable(stmt, custom->scan.scanrelid, var->varattno, out);
			if (is_project_node(plan))
				return var->varno == OUTER_VAR &&
					   trace(stmt, static_cast<Plan *>(linitial(custom->custom_plans)), var->varattno, depth + 1, out);
			return false; // another provider's node
		}
		case T_SubqueryScan:
		{
			auto *subquery = reinterpret_cast<SubqueryScan *>(plan);
			return var->varno == static_cast<int>(subquery->scan.scanrelid) &&
				   trace(stmt, subquery->subplan, var->varattno, depth + 1, out);
		}
		case T_Append:
		case T_MergeAppend:
		{
			List *children = IsA(plan, Append) ? reinterpret_cast<Append *>(plan)->appendplans
											   : reinterpret_cast<MergeAppend *>(plan)->mergeplans;
			if (var->varno != OUTER_VAR || children == NIL)
				return false;
			for (ListCell *cell = list_head(children); cell != nullptr; cell = lnext(children, cell))
				if (!trace(stmt, static_cast<Plan *>(lfirst(cell)), var->varattno, depth + 1, out))
					return false;
			return true;
		}
		// Nodes whose output columns that are Vars are their input's values, unchanged.
		case T_Sort:
		case T_IncrementalSort:
		case T_Material:
		case T_Memoize:
		case T_Limit:
		case T_LockRows:
		case T_Unique:
		case T_Gather:
		case T_GatherMerge:
		case T_Hash:
		case T_Result:
		case T_ProjectSet:
		case T_Agg:
		case T_Group:
		case T_WindowAgg:
		case T_NestLoop:
		case T_HashJoin:
		case T_MergeJoin:
			if (var->varno == OUTER_VAR)
				return trace(stmt, plan->lefttree, var->varattno, depth + 1, out);
			if (var->varno == INNER_VAR)
				return trace(stmt, plan->righttree, var->varattno, depth + 1, out);
			return false;
		default:
			return false;
	}
}

// A call in the consumer's expressions that may be evaluated below it.
struct Candidate
{
	Node *call;		   // in the consumer's own tree (compared by address)
	AttrNumber column; // the input column it reads
	Traced stored;	   // the stored column(s) it is
};

struct Collect
{
	PlannedStmt *stmt;
	Plan *input;	  // the consumer's input
	int varno;		  // how the consumer refers to that input (OUTER_VAR, scanrelid)
	List *candidates; // of Candidate *
};
static_assert(std::is_trivially_destructible_v<Collect>); // on frames an ERROR may unwind

// Whether node is a call that may move below the consumer (then *out describes it): one that
// cannot fail, over one input column that is a toastable column of a hotheap table.
bool
movable_call(Node *node, Collect *c, Candidate *out)
{
	Oid function;
	List *args;
	if (IsA(node, FuncExpr))
	{
		function = reinterpret_cast<FuncExpr *>(node)->funcid;
		args = reinterpret_cast<FuncExpr *>(node)->args;
	}
	else if (IsA(node, OpExpr))
	{
		function = reinterpret_cast<OpExpr *>(node)->opfuncid;
		args = reinterpret_cast<OpExpr *>(node)->args;
	}
	else
		return false;
	if (!never_errors(function) || !value_function(function))
		return false;
	Var *column = nullptr;
	for (ListCell *cell = list_head(args); cell != nullptr; cell = lnext(args, cell))
	{
		Node *arg = static_cast<Node *>(lfirst(cell));
		if (IsA(arg, Const))
			continue;
		Var *var = plain_var(arg);
		if (var == nullptr || var->varno != c->varno || column != nullptr)
			return false;
		column = var;
	}
	Traced traced{nullptr, NIL, NIL};
	if (column == nullptr || !trace(c->stmt, c->input, column->varattno, 0, &traced))
		return false;
	out->call = node;
	out->column = column->varattno;
	out->stored = traced;
	return true;
}

// Whether evaluating node always evaluates every child expression of it. Everything else
// (AND, OR, CASE, COALESCE, row comparisons, subscripts, subplans, aggregates...) may skip
// some, and is not entered: a call below it is not one the consumer evaluates on every row.
bool
evaluates_every_child(Node *node)
{
	switch (nodeTag(node))
	{
		case T_List:
		case T_TargetEntry:
		case T_FuncExpr: // every argument, then the strictness test
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_RelabelType:
		case T_CoerceViaIO:
		case T_CoerceToDomain:
		case T_FieldSelect:
		case T_RowExpr:
		case T_ArrayExpr:
		case T_MinMaxExpr:
		case T_NullTest:
		case T_BooleanTest:
			return true;
		default:
			return false;
	}
}

// The movable calls of an expression the consumer evaluates on every input row, in the
// positions where that expression evaluates them whenever it is evaluated.
bool
collect(Node *node, Collect *c)
{
	if (node == nullptr)
		return false;
	Candidate candidate;
	if (movable_call(node, c, &candidate))
	{
		auto *copy = static_cast<Candidate *>(palloc(sizeof(Candidate)));
		*copy = candidate;
		c->candidates = lappend(c->candidates, copy);
		return false;
	}
	if (!evaluates_every_child(node))
		return false;
	return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(collect)), c);
}

// The aggregates of an Agg's output list and HAVING: the arguments of an aggregate without
// FILTER and every FILTER are evaluated on every input row; a filtered aggregate's arguments
// only on the rows its FILTER passes, direct arguments and everything outside aggregates
// once per group.
bool
collect_aggregates(Node *node, Collect *c)
{
	if (node == nullptr)
		return false;
	if (IsA(node, Aggref))
	{
		auto *aggref = reinterpret_cast<Aggref *>(node);
		if (aggref->aggfilter != nullptr)
			collect(reinterpret_cast<Node *>(aggref->aggfilter), c);
		else
			collect(reinterpret_cast<Node *>(aggref->args), c);
		return false;
	}
	return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(collect_aggregates)), c);
}

struct Replace
{
	List *calls;  // Node * of the consumer's tree, by address
	List *vars;	  // the Var that replaces each
};
static_assert(std::is_trivially_destructible_v<Replace>); // on frames an ERROR may unwind

Node *
replace_calls(Node *node, Replace *r)
{
	if (node == nullptr)
		return nullptr;
	for (ListCell *call = list_head(r->calls), *var = list_head(r->vars); call != nullptr;
		 call = lnext(r->calls, call), var = lnext(r->vars, var))
		if (lfirst(call) == node)
			return static_cast<Node *>(copyObjectImpl(lfirst(var)));
	return expression_tree_mutator(node, reinterpret_cast<Node *(*)()>(reinterpret_cast<void (*)()>(replace_calls)), r);
}

struct Renumber
{
	int from; // the consumer's varno for the input
	int to;	  // OUTER_VAR: the HotheapProject's input
};

// A call as the HotheapProject evaluates it: its input column read as `to`.
Node *
as_outer(Node *node, Renumber *r)
{
	if (node == nullptr)
		return nullptr;
	if (IsA(node, Var) && reinterpret_cast<Var *>(node)->varno == r->from &&
		reinterpret_cast<Var *>(node)->varlevelsup == 0)
	{
		auto *var = static_cast<Var *>(copyObjectImpl(node));
		var->varno = r->to;
		return reinterpret_cast<Node *>(var);
	}
	return expression_tree_mutator(node, reinterpret_cast<Node *(*)()>(reinterpret_cast<void (*)()>(as_outer)), r);
}

// Whether the values of every stored column that one input column is may be stored compressed
// or out of line (stored_form.hpp): asked once per input column read often enough to share.
// Over few rows (D14c) only evidence counts, not ANALYZE's width: the node's start is then
// most of what it costs.
bool
may_be_toasted(const Traced &stored, double rows)
{
	const bool few_rows = rows < core::kRowsToShareWithoutEvidence;
	for (ListCell *relid = list_head(stored.relids), *attno = list_head(stored.attnos); relid != nullptr;
		 relid = lnext(stored.relids, relid), attno = lnext(stored.attnos, attno))
	{
		Relation rel = RelationIdGetRelation(lfirst_oid(relid));
		if (rel == nullptr)
			return false;
		const auto column = static_cast<AttrNumber>(lfirst_int(attno));
		const bool toasted = few_rows ? values_seen_extended(rel, column) : values_may_be_toasted(rel, column);
		RelationClose(rel);
		if (!toasted)
			return false;
	}
	return true;
}

// The consumer's candidates: the columns worth it (read by at least two of the calls, each of
// which would detoast it on heap, and with values that may be toasted), their calls moved into
// a HotheapProject directly over the consumer's input, and replaced by Vars in the consumer's
// lists.
void
push_below(Plan **input_slot, int varno, List *candidates, List **exprs[], int nexprs, int *next_plan_node_id)
{
	if (candidates == NIL)
		return;
	Plan *input = *input_slot;
	const int ninput = list_length(input->targetlist);

	List *columns = NIL; // IntList of columns worth it
	List *names = NIL;
	for (ListCell *cell = list_head(candidates); cell != nullptr; cell = lnext(candidates, cell))
	{
		auto *candidate = static_cast<Candidate *>(lfirst(cell));
		if (list_member_int(columns, candidate->column))
			continue;
		int references = 0;
		for (ListCell *other = cell; other != nullptr; other = lnext(candidates, other))
			references += static_cast<Candidate *>(lfirst(other))->column == candidate->column;
		if (references >= core::kMinDetoastingReads &&
			may_be_toasted(candidate->stored, read_path_rows(input->plan_rows)))
		{
			columns = lappend_int(columns, candidate->column);
			names = lappend(names, makeString(candidate->stored.name));
		}
	}
	if (columns == NIL)
		return;

	// The HotheapProject's output: the input's columns, then each distinct call once.
	List *tlist = NIL;
	for (ListCell *cell = list_head(input->targetlist); cell != nullptr; cell = lnext(input->targetlist, cell))
	{
		auto *entry = static_cast<TargetEntry *>(lfirst(cell));
		Var *var = makeVarFromTargetEntry(OUTER_VAR, entry);
		tlist = lappend(tlist, makeTargetEntry(reinterpret_cast<Expr *>(var), entry->resno, entry->resname, entry->resjunk));
	}
	Replace replace{NIL, NIL};
	List *moved = NIL; // the distinct calls, in output order
	for (ListCell *cell = list_head(candidates); cell != nullptr; cell = lnext(candidates, cell))
	{
		auto *candidate = static_cast<Candidate *>(lfirst(cell));
		if (!list_member_int(columns, candidate->column))
			continue;
		int position = 0;
		for (ListCell *m = list_head(moved); m != nullptr; m = lnext(moved, m))
			if (equal(lfirst(m), candidate->call))
				position = ninput + 1 + list_cell_number(moved, m);
		if (position == 0)
		{
			moved = lappend(moved, candidate->call);
			position = ninput + list_length(moved);
			Renumber renumber{varno, OUTER_VAR};
			tlist = lappend(tlist, makeTargetEntry(reinterpret_cast<Expr *>(as_outer(candidate->call, &renumber)),
												   static_cast<AttrNumber>(position), nullptr, false));
		}
		Node *call = candidate->call;
		replace.calls = lappend(replace.calls, call);
		replace.vars = lappend(replace.vars, makeVar(varno, static_cast<AttrNumber>(position), exprType(call),
												  exprTypmod(call), exprCollation(call), 0));
	}
	for (int i = 0; i < nexprs; ++i)
		*exprs[i] = reinterpret_cast<List *>(replace_calls(reinterpret_cast<Node *>(*exprs[i]), &replace));
	*input_slot = reinterpret_cast<Plan *>(make_project_node(input, tlist, columns, names, (*next_plan_node_id)++));
}

// Whether expr reads the whole row of relation varno: such a reference would see the
// columns a HotheapProject adds to that relation's rows.
bool
reads_whole_row(Node *node, int *varno)
{
	if (node == nullptr)
		return false;
	if (IsA(node, Var))
	{
		auto *var = reinterpret_cast<Var *>(node);
		return var->varno == *varno && var->varattno == InvalidAttrNumber && var->varlevelsup == 0;
	}
	return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(reads_whole_row)),
								  varno);
}

// A node that projects every row of one input (no filter), which its Vars name by varno.
void
push_below_projection(PlannedStmt *stmt, Plan *plan, Plan **input, int varno, int *next_plan_node_id)
{
	if (plan->qual != NIL)
		return; // the projection runs only on the rows the filter passes
	Collect c{stmt, *input, varno, NIL};
	collect(reinterpret_cast<Node *>(plan->targetlist), &c);
	List **exprs[] = {&plan->targetlist};
	push_below(input, varno, c.candidates, exprs, 1, next_plan_node_id);
}

void
consider(PlannedStmt *stmt, Plan *plan, int *next_plan_node_id)
{
	switch (nodeTag(plan))
	{
		case T_Agg:
		{
			// Plain and sorted aggregation evaluate the arguments on each row as it comes;
			// hashed aggregation may write its input rows to temporary files (spilling), and
			// grouping sets sort it again inside the node.
			auto *agg = reinterpret_cast<Agg *>(plan);
			if ((agg->aggstrategy != AGG_PLAIN && agg->aggstrategy != AGG_SORTED) || agg->groupingSets != NIL ||
				agg->chain != NIL || plan->lefttree == nullptr)
				return;
			Collect c{stmt, plan->lefttree, OUTER_VAR, NIL};
			collect_aggregates(reinterpret_cast<Node *>(plan->targetlist), &c);
			collect_aggregates(reinterpret_cast<Node *>(plan->qual), &c);
			List **exprs[] = {&plan->targetlist, &plan->qual};
			push_below(&plan->lefttree, OUTER_VAR, c.candidates, exprs, 2, next_plan_node_id);
			return;
		}
		case T_Result:
			if (plan->lefttree != nullptr)
				push_below_projection(stmt, plan, &plan->lefttree, OUTER_VAR, next_plan_node_id);
			return;
		case T_SubqueryScan:
		{
			auto *subquery = reinterpret_cast<SubqueryScan *>(plan);
			int varno = static_cast<int>(subquery->scan.scanrelid);
			if (reads_whole_row(reinterpret_cast<Node *>(plan->targetlist), &varno))
				return;
			push_below_projection(stmt, plan, &subquery->subplan, varno, next_plan_node_id);
			return;
		}
		default:
			return;
	}
}

void push_tree(PlannedStmt *stmt, Plan *plan, int *next_plan_node_id);

void
push_list(PlannedStmt *stmt, List *plans, int *next_plan_node_id)
{
	for (ListCell *cell = list_head(plans); cell != nullptr; cell = lnext(plans, cell))
		push_tree(stmt, static_cast<Plan *>(lfirst(cell)), next_plan_node_id);
}

// Children first: a consumer's input is final (with its own HotheapProject nodes) when the
// consumer is considered.
void
push_tree(PlannedStmt *stmt, Plan *plan, int *next_plan_node_id)
{
	if (plan == nullptr)
		return;
	switch (nodeTag(plan))
	{
		case T_CustomScan:
			// A HotheapRead's scan evaluates nothing of a consumer; another provider's
			// children are its own.
			return;
		case T_SubqueryScan:
			push_tree(stmt, reinterpret_cast<SubqueryScan *>(plan)->subplan, next_plan_node_id);
			break;
		case T_Append:
			push_list(stmt, reinterpret_cast<Append *>(plan)->appendplans, next_plan_node_id);
			break;
		case T_MergeAppend:
			push_list(stmt, reinterpret_cast<MergeAppend *>(plan)->mergeplans, next_plan_node_id);
			break;
		default:
			break;
	}
	push_tree(stmt, plan->lefttree, next_plan_node_id);
	push_tree(stmt, plan->righttree, next_plan_node_id);
	consider(stmt, plan, next_plan_node_id);
}

} // namespace

void
push_consumers_down(PlannedStmt *stmt, int *next_plan_node_id)
{
	// Row locks and data-modifying statements re-run parts of the plan (EvalPlanQual) with
	// whole-row copies of the rows they read.
	if (stmt->commandType != CMD_SELECT || stmt->rowMarks != NIL)
		return;
	push_tree(stmt, stmt->planTree, next_plan_node_id);
	push_list(stmt, stmt->subplans, next_plan_node_id);
}

} // namespace hotplus
