#include "read/read_references.hpp"

extern "C" {
#include "access/transam.h"
#include "catalog/pg_type_d.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
}

namespace hotplus {

namespace {

// Built-in functions whose result depends on how their argument is stored.
bool
reads_storage(Oid function)
{
	switch (function)
	{
		case F_PG_COLUMN_SIZE:
		case F_PG_COLUMN_COMPRESSION:
#ifdef F_PG_COLUMN_TOAST_CHUNK_ID
		case F_PG_COLUMN_TOAST_CHUNK_ID:
#endif
			return true;
		default:
			return false;
	}
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

// Hand-assigned OIDs (below FirstGenbkiObjectId) are the functions of pg_proc.dat: C code of
// the server. Functions made later by initdb's SQL scripts or by users are not trusted.
bool
built_in_value_reader(Oid function)
{
	return OidIsValid(function) && function < FirstGenbkiObjectId && !reads_storage(function);
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

} // namespace

bool
value_function(Oid function)
{
	return built_in_value_reader(function) && !returns_argument_as_passed(function);
}

List *
detoasting_arguments(Node *node, int *first)
{
	*first = 0;
	if (node == nullptr)
		return NIL;
	switch (nodeTag(node))
	{
		case T_FuncExpr:
		{
			auto *call = reinterpret_cast<FuncExpr *>(node);
			return value_function(call->funcid) ? call->args : NIL;
		}
		case T_OpExpr:
		case T_DistinctExpr:
		{
			auto *call = reinterpret_cast<OpExpr *>(node);
			return value_function(call->opfuncid) ? call->args : NIL;
		}
		case T_NullIfExpr:
		{
			// NULLIF returns its first argument as it received it (ExecEvalNullIf): only the
			// second may be a copy.
			auto *call = reinterpret_cast<OpExpr *>(node);
			*first = 1;
			return built_in_value_reader(call->opfuncid) ? call->args : NIL;
		}
		case T_ScalarArrayOpExpr:
		{
			auto *call = reinterpret_cast<ScalarArrayOpExpr *>(node);
			return built_in_value_reader(call->opfuncid) ? call->args : NIL;
		}
		default:
			return NIL;
	}
}

bool
hides_storage(Node *node)
{
	if (node == nullptr)
		return false;
	switch (nodeTag(node))
	{
		case T_FuncExpr:
			return !built_in_value_reader(reinterpret_cast<FuncExpr *>(node)->funcid);
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			return !built_in_value_reader(reinterpret_cast<OpExpr *>(node)->opfuncid);
		case T_ScalarArrayOpExpr:
			return !built_in_value_reader(reinterpret_cast<ScalarArrayOpExpr *>(node)->opfuncid);
		case T_SubPlan:
		case T_AlternativeSubPlan:
			return true;
		default:
			return false;
	}
}

bool
result_may_alias(Node *consumer)
{
	Oid function;
	Oid result_type = exprType(consumer);
	switch (nodeTag(consumer))
	{
		case T_FuncExpr:
			if (reinterpret_cast<FuncExpr *>(consumer)->funcretset)
				return true; // its state may point into the argument across calls
			function = reinterpret_cast<FuncExpr *>(consumer)->funcid;
			break;
		case T_OpExpr:
			if (reinterpret_cast<OpExpr *>(consumer)->opretset)
				return true;
			function = reinterpret_cast<OpExpr *>(consumer)->opfuncid;
			break;
		case T_DistinctExpr:
		case T_ScalarArrayOpExpr:
			return false; // boolean
		case T_NullIfExpr:
			return false; // its first argument as passed (never a copy), or NULL
		default:
			return true;
	}
	if (result_type != INTERNALOID && get_typbyval(result_type))
		return false;
	return !returns_fresh_value(function);
}

Var *
scanned_column(Node *arg, int varno)
{
	while (arg != nullptr && IsA(arg, RelabelType))
		arg = reinterpret_cast<Node *>(reinterpret_cast<RelabelType *>(arg)->arg);
	if (arg == nullptr || !IsA(arg, Var))
		return nullptr;
	auto *var = reinterpret_cast<Var *>(arg);
	if (var->varno != varno || var->varlevelsup != 0 || var->varattno <= 0)
		return nullptr;
	return var;
}

} // namespace hotplus
