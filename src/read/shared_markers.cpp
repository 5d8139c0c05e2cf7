// Core headers first, before any PostgreSQL header (they #error after postgres.h).
#include "core/read_plan.hpp"

#include "read/shared_markers.hpp"

#include "am/hotheap_am.hpp"
#include "am/settings.hpp"
#include "am/stored_form.hpp"
#include "read/plan_children.hpp"
#include "read/plan_demand.hpp"
#include "read/read_references.hpp"
#include "read/shared_detoast.hpp"

extern "C" {
#include "access/sysattr.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/inval.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"
}

namespace hotplus {

namespace {

// Plan trees are not deeper than this where values pass through (a guard, not a limit seen).
constexpr int kMaxTraceDepth = 100;

// Where a column a node reads is stored (invariant 2): the hotheap tables and their column
// (more than one below an Append).
struct Source
{
	List *relids; // OidList
	List *attnos; // IntList
	bool update_checked; // the update check reads it too (read_by_update_check)
};
static_assert(std::is_trivially_destructible_v<Source>); // on frames an ERROR may unwind

// Whether the update check reads the old value of column attno of rti's rows after the plan
// did: rti is a target of the UPDATE or MERGE and an index reads the column (an input of its
// keys, expressions or predicate; the check compares it, or its fields, on both versions).
bool
read_by_update_check(PlannedStmt *stmt, Index rti, Relation rel, AttrNumber attno)
{
	if ((stmt->commandType != CMD_UPDATE && stmt->commandType != CMD_MERGE) || !compat_is_result_relation(stmt, rti))
		return false;
	Bitmapset *inputs = RelationGetIndexAttrBitmap(rel, kCompatHotBlockingKind);
	const bool read = bms_is_member(attno - FirstLowInvalidHeapAttributeNumber, inputs);
	bms_free(inputs);
	return read;
}

bool
hotheap_toastable(PlannedStmt *stmt, Index rti, AttrNumber attno, Source *out)
{
	RangeTblEntry *rte = rt_fetch(rti, stmt->rtable);
	if (rte->rtekind != RTE_RELATION || attno < 1)
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
			out->relids = lappend_oid(out->relids, rte->relid);
			out->attnos = lappend_int(out->attnos, attno);
			out->update_checked |= read_by_update_check(stmt, rti, rel, attno);
		}
	}
	RelationClose(rel);
	return toastable;
}

// The Var (under any relabeling) an output column is, else nullptr.
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

bool trace(PlannedStmt *stmt, Plan *plan, AttrNumber k, int depth, Source *out);

// Where a column of `varno` that node `plan` reads in its own expressions is stored.
bool
resolve(PlannedStmt *stmt, Plan *plan, int varno, AttrNumber attno, int depth, Source *out)
{
	if (varno == OUTER_VAR)
		return trace(stmt, plan->lefttree, attno, depth + 1, out);
	if (varno == INNER_VAR)
		return trace(stmt, plan->righttree, attno, depth + 1, out);
	if (IsA(plan, SubqueryScan))
		return trace(stmt, reinterpret_cast<SubqueryScan *>(plan)->subplan, attno, depth + 1, out);
	return hotheap_toastable(stmt, static_cast<Index>(varno), attno, out);
}

// Whether output column k of plan is, as stored, a toastable column of a hotheap table: the
// value some scan of it hands up, passed on unchanged by every node above the scan.
bool
trace(PlannedStmt *stmt, Plan *plan, AttrNumber k, int depth, Source *out)
{
	if (plan == nullptr || depth > kMaxTraceDepth || k < 1 || k > list_length(plan->targetlist))
		return false;
	Var *var = plain_var(reinterpret_cast<Node *>(static_cast<TargetEntry *>(list_nth(plan->targetlist, k - 1))->expr));
	if (var == nullptr)
		return false;
	if (scans_table_rows(plan) || IsA(plan, SubqueryScan))
		return var->varno == static_cast<int>(reinterpret_cast<Scan *>(plan)->scanrelid) &&
			   resolve(stmt, plan, var->varno, var->varattno, depth, out);
	switch (nodeTag(plan))
	{
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
			if (var->varno == OUTER_VAR || var->varno == INNER_VAR)
				return resolve(stmt, plan, var->varno, var->varattno, depth, out);
			return false;
		default:
			return false; // another provider's node, a function's or a CTE's rows, ...
	}
}

// A qualifying reference in a node's expressions.
struct Reference
{
	Plan *node;
	Var *var; // in the node's own tree (matched by address when wrapping)
	MarkerUse use;
	Source source; // where it is stored
	double rows;   // the rows its node evaluates it on (plan_demand.hpp)
	uint32 group;  // 0 until a marker is due
};

struct Find
{
	PlannedStmt *stmt;
	Plan *node;
	int varnos[2]; // how the node's expressions name the rows it reads
	const List *list; // the list being walked, ...
	Demand demand;	  // ... asked of the node so
	double rows;	  // the rows it is evaluated on, asked at its first reference (an lseek); < 0 before
	bool counting; // false below a node that hides storage (read_references.hpp)
	List *references;
};
static_assert(std::is_trivially_destructible_v<Find>); // on frames an ERROR may unwind

bool
find_references(Node *node, Find *f)
{
	if (node == nullptr)
		return false;
	CHECK_FOR_INTERRUPTS(); // a query's size is its author's: every walk can be cancelled
	auto *walker = reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(find_references));
	if (f->counting && hides_storage(node))
	{
		f->counting = false;
		const bool stop = expression_tree_walker(node, walker, f);
		f->counting = true;
		return stop;
	}
	List *args = f->counting ? consumer_arguments(node) : NIL;
	for (ListCell *cell = list_head(args); cell != nullptr; cell = lnext(args, cell))
	{
		const int position = list_cell_number(args, cell);
		for (int varno : f->varnos)
		{
			Var *var = varno != 0 ? scanned_column(static_cast<Node *>(lfirst(cell)), varno) : nullptr;
			if (var == nullptr || !argument_qualifies(node, position))
				continue;
			Source source{NIL, NIL, false};
			if (!resolve(f->stmt, f->node, var->varno, var->varattno, 0, &source))
				continue;
			auto *reference = static_cast<Reference *>(palloc0(sizeof(Reference)));
			reference->node = f->node;
			reference->var = var;
			reference->use.result_may_alias = result_may_alias(node);
			reference->use.relid = list_length(source.relids) == 1 ? linitial_oid(source.relids) : InvalidOid;
			reference->use.attno = static_cast<AttrNumber>(linitial_int(source.attnos));
			reference->source = source;
			if (f->rows < 0)
				f->rows = rows_evaluated(f->stmt, f->node, f->list, f->demand);
			reference->rows = f->rows;
			f->references = lappend(f->references, reference);
		}
	}
	return expression_tree_walker(node, walker, f);
}

// The expressions a node evaluates on the rows it reads, and how they name those rows.
int
evaluated_lists(Plan *plan, List ***lists, int varnos[2])
{
	varnos[0] = varnos[1] = 0;
	if (scans_table_rows(plan) || IsA(plan, SubqueryScan))
	{
		varnos[0] = static_cast<int>(reinterpret_cast<Scan *>(plan)->scanrelid);
		lists[0] = &plan->targetlist;
		lists[1] = &plan->qual;
		return 2;
	}
	switch (nodeTag(plan))
	{
		case T_NestLoop:
		case T_MergeJoin:
		case T_HashJoin:
			varnos[0] = OUTER_VAR;
			varnos[1] = INNER_VAR;
			lists[0] = &plan->targetlist;
			lists[1] = &plan->qual;
			lists[2] = &reinterpret_cast<Join *>(plan)->joinqual;
			return 3;
		case T_Agg:
		case T_WindowAgg:
		case T_Group:
		case T_Result:
		case T_ProjectSet:
		case T_Gather:
		case T_GatherMerge:
			if (plan->lefttree == nullptr)
				return 0;
			varnos[0] = OUTER_VAR;
			lists[0] = &plan->targetlist;
			lists[1] = &plan->qual;
			return 2;
		default:
			return 0;
	}
}

// The children of a plan node, wherever it keeps them.
List *
children_of(Plan *plan)
{
	List *children = NIL;
	if (plan->lefttree != nullptr)
		children = lappend(children, plan->lefttree);
	if (plan->righttree != nullptr)
		children = lappend(children, plan->righttree);
	if (IsA(plan, CustomScan))
		return NIL; // another provider's node: its children are its own business
	if (IsA(plan, SubqueryScan))
		children = lappend(children, reinterpret_cast<SubqueryScan *>(plan)->subplan);
	return list_concat(children, listed_children(plan));
}

void
find_in_tree(PlannedStmt *stmt, Plan *plan, const Demand &demand, List **references)
{
	if (plan == nullptr)
		return;
	List **lists[3];
	Find find{stmt, plan, {0, 0}, NIL, demand, -1, true, NIL};
	const int n = evaluated_lists(plan, lists, find.varnos);
	for (int i = 0; i < n; ++i)
	{
		find.list = *lists[i];
		find.rows = -1;
		find_references(reinterpret_cast<Node *>(*lists[i]), &find);
	}
	*references = list_concat(*references, find.references);
	List *children = children_of(plan);
	for (ListCell *cell = list_head(children); cell != nullptr; cell = lnext(children, cell))
	{
		auto *child = static_cast<Plan *>(lfirst(cell));
		find_in_tree(stmt, child, input_demand(plan, child, demand), references);
	}
}

bool
same_source(const Reference *a, const Reference *b)
{
	return linitial_oid(a->source.relids) == linitial_oid(b->source.relids) &&
		   linitial_int(a->source.attnos) == linitial_int(b->source.attnos);
}

// Whether the stored column of `reference`, read by its qualifying references in the
// statement and maybe by the update check, gets markers (core::marks_column(), D14c).
bool
column_marked(const Reference *reference, List *references)
{
	int readers = 0;
	bool update_checked = false;
	double rows = 0;
	for (ListCell *cell = list_head(references); cell != nullptr; cell = lnext(references, cell))
	{
		auto *other = static_cast<Reference *>(lfirst(cell));
		if (!same_source(other, reference))
			continue;
		++readers;
		update_checked |= other->source.update_checked;
		rows = Max(rows, other->rows);
	}
	readers += update_checked ? 1 : 0;
	if (readers < core::kReadersToShare)
		return false;
	if (settings.read_path_everywhere)
		return true;
	bool met = false;
	bool may = false;
	for (ListCell *relid = list_head(reference->source.relids), *attno = list_head(reference->source.attnos);
		 relid != nullptr && !met; relid = lnext(reference->source.relids, relid),
				  attno = lnext(reference->source.attnos, attno))
		met = values_met_extended(lfirst_oid(relid), static_cast<AttrNumber>(lfirst_int(attno)));
	// The table-wide evidence, only where it can decide: over many rows, any; over few, a
	// TOAST relation of kilobytes per row.
	const bool many = rows >= core::kRowsToShareWithoutEvidence;
	bool dense = false;
	if (!met)
		for (ListCell *relid = list_head(reference->source.relids), *attno = list_head(reference->source.attnos);
			 relid != nullptr && !may && !dense; relid = lnext(reference->source.relids, relid),
					  attno = lnext(reference->source.attnos, attno))
		{
			Relation rel = RelationIdGetRelation(lfirst_oid(relid));
			if (rel == nullptr)
				continue;
			if (many)
				may = values_may_be_toasted(rel, static_cast<AttrNumber>(lfirst_int(attno)));
			else
				dense = rows_carry_toast(rel);
			RelationClose(rel);
		}
	return core::marks_column(readers, rows, met, may, dense);
}

struct Wrap
{
	Oid function;
	List *references; // of the node being rewritten, with a group
};
static_assert(std::is_trivially_destructible_v<Wrap>);

Node *
wrap_references(Node *node, Wrap *w)
{
	if (node == nullptr)
		return nullptr;
	CHECK_FOR_INTERRUPTS();
	if (IsA(node, Var))
		for (ListCell *cell = list_head(w->references); cell != nullptr; cell = lnext(w->references, cell))
		{
			auto *reference = static_cast<Reference *>(lfirst(cell));
			if (reference->var == reinterpret_cast<Var *>(node))
				return make_marker(w->function, static_cast<Var *>(copyObjectImpl(node)), reference->group, reference->use);
		}
	return expression_tree_mutator(node, reinterpret_cast<Node *(*)()>(reinterpret_cast<void (*)()>(wrap_references)), w);
}

// Whether the statement reads some hotheap table.
bool
reads_hotheap(PlannedStmt *stmt)
{
	for (ListCell *cell = list_head(stmt->rtable); cell != nullptr; cell = lnext(stmt->rtable, cell))
	{
		auto *rte = static_cast<RangeTblEntry *>(lfirst(cell));
		if (rte->rtekind != RTE_RELATION)
			continue;
		Relation rel = RelationIdGetRelation(rte->relid);
		if (rel == nullptr)
			continue;
		const bool hotheap = rel->rd_tableam == hotheap_routine();
		RelationClose(rel);
		if (hotheap)
			return true;
	}
	return false;
}

} // namespace

void
place_shared_markers(PlannedStmt *stmt)
{
	if (!reads_hotheap(stmt))
		return;
	List *references = NIL;
	find_in_tree(stmt, stmt->planTree, Demand{}, &references);
	for (ListCell *cell = list_head(stmt->subplans); cell != nullptr; cell = lnext(stmt->subplans, cell))
		find_in_tree(stmt, static_cast<Plan *>(lfirst(cell)), Demand{}, &references);

	// Which references get a marker (invariant 5); one group per node and column as the node
	// reads it (invariant 3).
	List *due = NIL;
	List *marked = NIL; // of the first reference of each stored column decided
	List *unmarked = NIL;
	uint32 groups = 0;
	for (ListCell *cell = list_head(references); cell != nullptr; cell = lnext(references, cell))
	{
		CHECK_FOR_INTERRUPTS(); // quadratic in the references, which the query's author chose
		auto *reference = static_cast<Reference *>(lfirst(cell));
		bool decided = false;
		bool mark = false;
		for (List *list : {marked, unmarked})
			for (ListCell *other = list_head(list); other != nullptr && !decided; other = lnext(list, other))
				if (same_source(static_cast<Reference *>(lfirst(other)), reference))
				{
					decided = true;
					mark = list == marked;
				}
		if (!decided)
		{
			mark = column_marked(reference, references);
			if (mark)
				marked = lappend(marked, reference);
			else
				unmarked = lappend(unmarked, reference);
		}
		if (!mark || groups >= kMaxMarkerGroups)
			continue;
		for (ListCell *other = list_head(due); other != nullptr && reference->group == 0; other = lnext(due, other))
		{
			auto *o = static_cast<Reference *>(lfirst(other));
			if (o->node == reference->node && o->var->varno == reference->var->varno &&
				o->var->varattno == reference->var->varattno)
				reference->group = o->group;
		}
		if (reference->group == 0)
			reference->group = ++groups;
		due = lappend(due, reference);
	}
	if (due == NIL)
		return;
	// Invariant 4: the executor checks EXECUTE on every call it initializes.
	const Oid function = shared_value_function();
	if (!OidIsValid(function) || compat_function_aclcheck(function, GetUserId()) != ACLCHECK_OK)
		return;

	// Each node's lists, rewritten with its own references (a Var object is matched in the
	// node that reads it only).
	List *nodes = NIL;
	for (ListCell *cell = list_head(due); cell != nullptr; cell = lnext(due, cell))
		nodes = list_append_unique_ptr(nodes, static_cast<Reference *>(lfirst(cell))->node);
	for (ListCell *cell = list_head(nodes); cell != nullptr; cell = lnext(nodes, cell))
	{
		auto *plan = static_cast<Plan *>(lfirst(cell));
		Wrap wrap{function, NIL};
		for (ListCell *r = list_head(due); r != nullptr; r = lnext(due, r))
			if (static_cast<Reference *>(lfirst(r))->node == plan)
				wrap.references = lappend(wrap.references, lfirst(r));
		List **lists[3];
		int varnos[2];
		const int n = evaluated_lists(plan, lists, varnos);
		for (int i = 0; i < n; ++i)
			*lists[i] = reinterpret_cast<List *>(wrap_references(reinterpret_cast<Node *>(*lists[i]), &wrap));
	}

	// Invariant 4.
	auto *item = makeNode(PlanInvalItem);
	item->cacheId = PROCOID;
	item->hashValue = GetSysCacheHashValue1(PROCOID, ObjectIdGetDatum(function));
	stmt->invalItems = lappend(stmt->invalItems, item);
	stmt->dependsOnRole = true;
}

} // namespace hotplus
