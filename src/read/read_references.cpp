#include "read/read_references.hpp"

extern "C" {
#include "access/transam.h"
#include "catalog/pg_language_d.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type_d.h"
#include "mb/pg_wchar.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

namespace hotplus {

namespace {

// Built-in C functions that may read less than the whole value of a varlena argument when
// called, or nothing of it (read_references.hpp): by the C function, so that every SQL name
// of it is covered.
bool
reads_part_or_storage(PGFunction code)
{
	static const PGFunction partial[] = {
		// the stored size, or a slice (varlena.c, varchar.c)
		texteq, textne, byteaeq, byteane, textoctetlen, byteaoctetlen, bpcharoctetlen, text_substr,
		text_substr_no_len, text_left, text_starts_with, bytea_substr, bytea_substr_no_len,
		// the type, the collation, the nullness
		pg_typeof, pg_collation_for, pg_num_nulls, pg_num_nonnulls,
		// the storage
		pg_column_size, pg_column_compression,
#ifdef F_PG_COLUMN_TOAST_CHUNK_ID
		pg_column_toast_chunk_id,
#endif
	};
	for (PGFunction f : partial)
		if (code == f)
			return true;
	// length() of text answers from the stored size in a single-byte encoding (text_length()).
	return code == textlen && pg_database_encoding_max_length() == 1;
}

// Built-in functions that may return an argument as they received it, undetoasted
// (PG_RETURN_DATUM(PG_GETARG_DATUM(n))): heap's call returns the stored datum there, so none
// of their arguments may be a shared copy. test/differential/function_results.py asks every
// built-in function whose result is a varlena and found these.
bool
returns_argument_as_passed(Oid function)
{
	switch (function)
	{
		case F_ARRAY_LARGER:
		case F_ARRAY_SMALLER:
#ifdef F_RECORD_LARGER
		case F_RECORD_LARGER:
		case F_RECORD_SMALLER:
#endif
#ifdef F_ANY_VALUE_TRANSFN
		case F_ANY_VALUE_TRANSFN:
#endif
#ifdef F_ERROR_ON_NULL // 19: error_on_null(anyelement)
		case F_ERROR_ON_NULL:
#endif
			return true;
		default:
			return false;
	}
}

// Built-in functions with a by-reference result that is always made anew, never their argument
// nor a pointer into it (read in the server's source, 15 to 19): jsonb field and element
// extraction (JsonbValueToJsonb(), JsonbValueAsText(), JsonbToCString() copy), #>> (as
// text, also for an empty path; #> returns the document itself there), md5().
bool
returns_fresh_value(Oid function)
{
	switch (function)
	{
		case F_JSONB_OBJECT_FIELD:
		case F_JSONB_OBJECT_FIELD_TEXT:
		case F_JSONB_ARRAY_ELEMENT:
		case F_JSONB_ARRAY_ELEMENT_TEXT:
		case F_JSONB_EXTRACT_PATH_TEXT:
		case F_MD5_TEXT:
			return true;
		default:
			return false;
	}
}

// Hand-assigned OIDs (below FirstGenbkiObjectId) are the functions of pg_proc.dat. Functions
// made later by initdb's SQL scripts or by users are not trusted.
bool
built_in(Oid function)
{
	return OidIsValid(function) && function < FirstGenbkiObjectId;
}

// The function a call runs, or InvalidOid.
Oid
called_function(Node *call, List **args)
{
	switch (nodeTag(call))
	{
		case T_FuncExpr:
			*args = reinterpret_cast<FuncExpr *>(call)->args;
			return reinterpret_cast<FuncExpr *>(call)->funcid;
		case T_OpExpr:
			*args = reinterpret_cast<OpExpr *>(call)->args;
			return reinterpret_cast<OpExpr *>(call)->opfuncid;
		default:
			*args = NIL;
			return InvalidOid;
	}
}

Node *
unrelabeled(Node *node)
{
	while (node != nullptr && IsA(node, RelabelType))
		node = reinterpret_cast<Node *>(reinterpret_cast<RelabelType *>(node)->arg);
	return node;
}

} // namespace

List *
consumer_arguments(Node *call)
{
	List *args = NIL;
	const Oid function = called_function(call, &args);
	if (!built_in(function) || returns_argument_as_passed(function))
		return NIL;
	return args;
}

bool
argument_qualifies(Node *call, int position)
{
	List *args = NIL;
	const Oid function = called_function(call, &args);
	Node *column = unrelabeled(static_cast<Node *>(list_nth(args, position)));
	// The other arguments: non-NULL constants, or the same column.
	for (ListCell *cell = list_head(args); cell != nullptr; cell = lnext(args, cell))
	{
		if (list_cell_number(args, cell) == position)
			continue;
		Node *other = unrelabeled(static_cast<Node *>(lfirst(cell)));
		if (other != nullptr && IsA(other, Const) && !reinterpret_cast<Const *>(other)->constisnull)
			continue;
		if (equal(other, column))
			continue;
		return false;
	}
	HeapTuple tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(function));
	if (!HeapTupleIsValid(tuple))
		return false;
	auto *proc = reinterpret_cast<Form_pg_proc>(GETSTRUCT(tuple));
	const bool candidate = proc->prolang == INTERNALlanguageId && proc->proisstrict && position < proc->pronargs &&
						   proc->proargtypes.values[position] != ANYOID;
	ReleaseSysCache(tuple);
	if (!candidate)
		return false;
	FmgrInfo code;
	fmgr_info(function, &code); // built in: found in fmgr's table, nothing allocated
	return !reads_part_or_storage(code.fn_addr);
}

bool
hides_storage(Node *node)
{
	if (node == nullptr)
		return false;
	Oid function;
	switch (nodeTag(node))
	{
		case T_FuncExpr:
			function = reinterpret_cast<FuncExpr *>(node)->funcid;
			break;
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			function = reinterpret_cast<OpExpr *>(node)->opfuncid;
			break;
		case T_ScalarArrayOpExpr:
			function = reinterpret_cast<ScalarArrayOpExpr *>(node)->opfuncid;
			break;
		case T_SubPlan:
		case T_AlternativeSubPlan:
			return true;
		default:
			return false;
	}
	if (!built_in(function))
		return true;
	FmgrInfo code;
	fmgr_info(function, &code);
	return code.fn_addr == pg_column_size || code.fn_addr == pg_column_compression
#ifdef F_PG_COLUMN_TOAST_CHUNK_ID
		   || code.fn_addr == pg_column_toast_chunk_id
#endif
		;
}

bool
result_may_alias(Node *call)
{
	List *args = NIL;
	const Oid function = called_function(call, &args);
	if (IsA(call, FuncExpr) ? reinterpret_cast<FuncExpr *>(call)->funcretset
							: reinterpret_cast<OpExpr *>(call)->opretset)
		return true; // its state may point into the argument across calls
	const Oid result_type = exprType(call);
	if (result_type != INTERNALOID && get_typbyval(result_type))
		return false;
	return !returns_fresh_value(function);
}

Var *
scanned_column(Node *arg, int varno)
{
	arg = unrelabeled(arg);
	if (arg == nullptr || !IsA(arg, Var))
		return nullptr;
	auto *var = reinterpret_cast<Var *>(arg);
	if (var->varno != varno || var->varlevelsup != 0 || var->varattno <= 0)
		return nullptr;
	return var;
}

} // namespace hotplus
