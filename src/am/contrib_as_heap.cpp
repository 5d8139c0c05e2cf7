// hotplus_pgstattuple() & co.: a contrib function run on a hotheap table presented as heap
// for one call (contrib_as_heap.hpp; src/README.md D15 for the contrib sources' checks).
#include "am/contrib_as_heap.hpp"
#include "am/as_heap.hpp"
#include "am/hotheap_am.hpp"
#include "am/relcache_callback.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type_d.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"
}

namespace hotplus {

namespace {

// One open scope, in the frame of call_as_heap() (a plain struct: an ERROR's longjmp may
// pass over it; PG_FINALLY unlinks it).
struct ContribScope
{
	AsHeapScope tableam; // rd_tableam: as_heap's own scope and callback
	Relation rel;
	Oid restore_relam;
	ContribScope *outer;
};
static_assert(std::is_trivially_destructible_v<ContribScope>); // on frames an ERROR may unwind

// The open scopes, innermost first (backend-local; never points at a dead frame).
ContribScope *open_scopes = nullptr;

// Invariant 3. A relcache rebuild in place of an open entry (15: RelationClearRelation; 18:
// RelationFlushRelation -> RelationRebuildRelation, also RelationCacheInvalidate under
// debug_discard_caches or a sinval overflow) installs the catalog's pg_class row, relam
// hotheap's, keeping the Relation pointer; relcache callbacks run right after it
// (inval.c LocalExecuteInvalidationMessage / InvalidateSystemCachesExtended), before control
// returns to the contrib code. Inside a transaction an open entry is always rebuilt at once,
// never left marked invalid for a later RelationIdGetRelation() to rebuild without a callback
// (the exceptions are nailed catalogs and !IsTransactionState(), neither of which applies to
// a user table in the middle of a call).
void
reapply_after_rebuild(Datum, Oid relid)
{
	for (ContribScope *scope = open_scopes; scope != nullptr; scope = scope->outer)
	{
		if (relid == InvalidOid || relid == RelationGetRelid(scope->rel))
			scope->rel->rd_rel->relam = HEAP_TABLE_AM_OID;
	}
}

void
scope_enter(ContribScope *scope, Relation rel)
{
	scope->rel = rel;
	scope->restore_relam = rel->rd_rel->relam;
	scope->outer = open_scopes;
	open_scopes = scope;
	as_heap_enter(&scope->tableam, rel, rel->rd_tableam);
	rel->rd_rel->relam = HEAP_TABLE_AM_OID;
}

// Invariant 4: restore_relam is the catalog's relam (the entry was valid when the scope
// opened, and the catalog row cannot change under the wrapper's lock). Call from PG_FINALLY.
void
scope_leave(ContribScope *scope)
{
	Assert(open_scopes == scope);
	open_scopes = scope->outer;
	bool still_heap = false;
	for (ContribScope *outer = open_scopes; outer != nullptr; outer = outer->outer)
		still_heap |= (outer->rel == scope->rel);
	if (!still_heap)
		scope->rel->rd_rel->relam = scope->restore_relam;
	as_heap_leave(&scope->tableam);
}

// A contrib function by its SQL signature.
struct ContribFunction
{
	const char *extension;
	const char *name;
	int nargs;
	Oid argtypes[6];
	LOCKMODE lockmode;     // the lock the contrib function opens the relation with
	bool relation_by_name; // argument 0 is the relation's name as text (pgrowlocks)
};

// pg_extension.extnamespace (get_extension_schema() is static in 15's extension.c).
Oid
extension_schema(Oid extension)
{
	Relation catalog = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(extension));
	SysScanDesc scan = systable_beginscan(catalog, ExtensionOidIndexId, true, nullptr, 1, &key);
	HeapTuple tuple = systable_getnext(scan);
	Oid schema = HeapTupleIsValid(tuple) ? ((Form_pg_extension) GETSTRUCT(tuple))->extnamespace : InvalidOid;
	systable_endscan(scan);
	table_close(catalog, AccessShareLock);
	return schema;
}

// Invariant 1: the installed extension's function, or ERROR 42704.
Oid
find_contrib_function(const ContribFunction *f)
{
	Oid extension = get_extension_oid(f->extension, true);
	Oid schema = OidIsValid(extension) ? extension_schema(extension) : InvalidOid;
	Oid function = InvalidOid;
	if (OidIsValid(schema))
	{
		List *name = list_make2(makeString(get_namespace_name(schema)), makeString(pstrdup(f->name)));
		function = LookupFuncName(name, f->nargs, f->argtypes, true);
		if (OidIsValid(function) && getExtensionOfObject(ProcedureRelationId, function) != extension)
			function = InvalidOid;
	}
	if (!OidIsValid(function))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("hotplus_%s() needs the function %s() of the extension \"%s\"", f->name, f->name,
						f->extension),
				 errdetail(OidIsValid(extension) ? "The installed version of \"%s\" has no such function."
												 : "The extension \"%s\" is not installed in this database.",
						   f->extension),
				 errhint("Run CREATE EXTENSION %s (or ALTER EXTENSION %s UPDATE) in this database.", f->extension,
						 f->extension)));
	return function;
}

// The call. A plain frame: it owns no object with a destructor, so an ERROR from the contrib
// function may unwind it; PG_FINALLY closes the scope.
Datum
call_as_heap(FunctionCallInfo fcinfo, const ContribFunction *f)
{
	Oid function = find_contrib_function(f);
	AclResult acl = compat_function_aclcheck(function, GetUserId());
	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_FUNCTION, get_func_name(function));

	// Everything below lives in the memory of this call (the executor's per-call context):
	// the contrib function keeps nothing in them across calls (they all return their whole
	// result from one call: a row, void, or a materialized set in resultinfo).
	FmgrInfo *flinfo = static_cast<FmgrInfo *>(palloc0(sizeof(FmgrInfo)));
	fmgr_info_cxt(function, flinfo, CurrentMemoryContext);
	flinfo->fn_expr = fcinfo->flinfo->fn_expr;
	if (flinfo->fn_nargs != PG_NARGS() || flinfo->fn_retset != fcinfo->flinfo->fn_retset ||
		flinfo->fn_strict != fcinfo->flinfo->fn_strict)
		elog(ERROR, "hotplus_%s(): %s() of \"%s\" is not declared as hotplus expects", f->name, f->name,
			 f->extension);
	FunctionCallInfo inner = static_cast<FunctionCallInfo>(palloc0(SizeForFunctionCallInfo(PG_NARGS())));
	InitFunctionCallInfoData(*inner, flinfo, PG_NARGS(), PG_GET_COLLATION(), fcinfo->context, fcinfo->resultinfo);
	for (int i = 0; i < PG_NARGS(); i++)
		inner->args[i] = fcinfo->args[i];

	// A NULL relation (verify_heapam is not strict): the contrib function's own error.
	if (PG_ARGISNULL(0))
	{
		Datum result = FunctionCallInvoke(inner);
		fcinfo->isnull = inner->isnull;
		return result;
	}

	// Invariant 2. The contrib function's own lock, taken first: its relation_open() then finds
	// the lock held (LockRelationOid accepts no invalidation messages for a lock already held
	// and clear) and returns the same, valid relcache entry this one holds open.
	Oid relid;
	if (f->relation_by_name)
		relid = RangeVarGetRelid(makeRangeVarFromNameList(textToQualifiedNameList(PG_GETARG_TEXT_PP(0))),
								 f->lockmode, false);
	else
		relid = PG_GETARG_OID(0);
	Relation rel = try_relation_open(relid, f->lockmode);
	if (rel == nullptr)
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", relid)));
	if (rel->rd_tableam != hotheap_routine())
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a hotheap table", RelationGetRelationName(rel)),
				 errhint("Call %s() itself on relations of other access methods.", f->name)));
	// pgrowlocks resolves a name again: give it the schema-qualified name of this very
	// relation, which cannot be renamed or dropped while the lock is held.
	if (f->relation_by_name)
		inner->args[0].value = PointerGetDatum(cstring_to_text(
			quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)), RelationGetRelationName(rel))));

	ContribScope scope;
	Datum result = (Datum) 0;
	scope_enter(&scope, rel);
	PG_TRY();
	{
		result = FunctionCallInvoke(inner);
	}
	PG_FINALLY();
	{
		scope_leave(&scope);
	}
	PG_END_TRY();
	fcinfo->isnull = inner->isnull;
	// As the contrib function does with its own: the locks go with the call.
	relation_close(rel, f->lockmode);
	if (f->relation_by_name)
		UnlockRelationOid(relid, f->lockmode);
	return result;
}

const ContribFunction pgstattuple_fn = {"pgstattuple", "pgstattuple", 1, {REGCLASSOID}, AccessShareLock, false};
const ContribFunction pgstattuple_approx_fn = {"pgstattuple", "pgstattuple_approx", 1, {REGCLASSOID},
											   AccessShareLock, false};
const ContribFunction verify_heapam_fn = {"amcheck",
										  "verify_heapam",
										  6,
										  {REGCLASSOID, BOOLOID, BOOLOID, TEXTOID, INT8OID, INT8OID},
										  AccessShareLock,
										  false};
const ContribFunction pgrowlocks_fn = {"pgrowlocks", "pgrowlocks", 1, {TEXTOID}, AccessShareLock, true};
const ContribFunction heap_force_kill_fn = {"pg_surgery", "heap_force_kill", 2, {REGCLASSOID, TIDARRAYOID},
											RowExclusiveLock, false};
const ContribFunction heap_force_freeze_fn = {"pg_surgery", "heap_force_freeze", 2, {REGCLASSOID, TIDARRAYOID},
											  RowExclusiveLock, false};

} // namespace

void
contrib_as_heap_init()
{
	add_relcache_callback(reapply_after_rebuild);
}

} // namespace hotplus

extern "C" {

PG_FUNCTION_INFO_V1(hotplus_pgstattuple);
Datum
hotplus_pgstattuple(PG_FUNCTION_ARGS)
{
	return hotplus::call_as_heap(fcinfo, &hotplus::pgstattuple_fn);
}

PG_FUNCTION_INFO_V1(hotplus_pgstattuple_approx);
Datum
hotplus_pgstattuple_approx(PG_FUNCTION_ARGS)
{
	return hotplus::call_as_heap(fcinfo, &hotplus::pgstattuple_approx_fn);
}

PG_FUNCTION_INFO_V1(hotplus_verify_heapam);
Datum
hotplus_verify_heapam(PG_FUNCTION_ARGS)
{
	return hotplus::call_as_heap(fcinfo, &hotplus::verify_heapam_fn);
}

PG_FUNCTION_INFO_V1(hotplus_pgrowlocks);
Datum
hotplus_pgrowlocks(PG_FUNCTION_ARGS)
{
	return hotplus::call_as_heap(fcinfo, &hotplus::pgrowlocks_fn);
}

PG_FUNCTION_INFO_V1(hotplus_heap_force_kill);
Datum
hotplus_heap_force_kill(PG_FUNCTION_ARGS)
{
	return hotplus::call_as_heap(fcinfo, &hotplus::heap_force_kill_fn);
}

PG_FUNCTION_INFO_V1(hotplus_heap_force_freeze);
Datum
hotplus_heap_force_freeze(PG_FUNCTION_ARGS)
{
	return hotplus::call_as_heap(fcinfo, &hotplus::heap_force_freeze_fn);
}
}
