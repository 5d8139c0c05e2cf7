// hotplus_take_privileges(from, to): in hotplus's upgrade scripts only, the privileges a DBA
// gave a function go to the function that replaces it.
//
// An upgrade that changes a function's result columns cannot replace it in place (CREATE OR
// REPLACE refuses a new row type): the script makes `to` beside it, moves the views onto it,
// drops `from` and renames `to` (src/README.md, "The SQL surface"). `to` starts with default
// privileges, so a REVOKE EXECUTE on `from` (how a DBA restricts the statistics, doc/using.md
// "Security") would be lost at ALTER EXTENSION UPDATE. This copies `from`'s ACL onto `to`.
//
// Why not GRANT and REVOKE in the script: inside an extension script every GRANT on a member
// is recorded in pg_init_privs as the extension's own privilege (aclchk.c,
// recordExtensionInitPriv(), while creating_extension), and pg_dump dumps only what differs
// from pg_init_privs: the DBA's REVOKE would vanish from every later dump, and a restore
// (CREATE EXTENSION) would leave the function open again. So the ACL is written as
// ExecGrant_Function (15) / ExecGrant_common (16+) write it, with the shared dependencies on
// the roles it names (updateAclDependencies), and nothing in pg_init_privs: `to` keeps the
// initial privileges a fresh install gives it, and the DBA's stay the DBA's.
//
// Invariants:
//  - runs only while an extension script runs (creating_extension), on two zero-argument
//    functions of the schema this function is in, both members of the extension being
//    created or updated (CurrentExtensionObject): no one can point it at another object;
//  - `from` with default privileges (NULL proacl) leaves `to` as it is;
//  - `to`'s owner keeps what `from`'s owner had (aclnewowner(), as ALTER ... OWNER does),
//    when another superuser runs the update than made `from`.
#include "am/pg.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_proc.h"
#include "commands/extension.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

namespace {

// The zero-argument function `name` of schema `namespace_oid`, a member of the extension
// being created or updated.
Oid
member_function(Oid namespace_oid, const char *name)
{
	oidvector *no_arguments = buildoidvector(nullptr, 0);
	const Oid oid = GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid, CStringGetDatum(name),
									PointerGetDatum(no_arguments), ObjectIdGetDatum(namespace_oid));
	if (!OidIsValid(oid) || getExtensionOfObject(ProcedureRelationId, oid) != CurrentExtensionObject)
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_FUNCTION),
						errmsg("function %s() is not a member of the extension being updated", name)));
	return oid;
}

void
take_privileges(Oid from, Oid to)
{
	HeapTuple from_tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(from));
	if (!HeapTupleIsValid(from_tuple))
		elog(ERROR, "cache lookup failed for function %u", from);
	bool isnull;
	const Datum from_acl = SysCacheGetAttr(PROCOID, from_tuple, Anum_pg_proc_proacl, &isnull);
	if (isnull)
	{
		ReleaseSysCache(from_tuple);
		return;
	}
	Acl *acl = DatumGetAclPCopy(from_acl);
	const Oid from_owner = reinterpret_cast<Form_pg_proc>(GETSTRUCT(from_tuple))->proowner;
	ReleaseSysCache(from_tuple);

	Relation pg_proc = table_open(ProcedureRelationId, RowExclusiveLock);
	HeapTuple to_tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(to));
	if (!HeapTupleIsValid(to_tuple))
		elog(ERROR, "cache lookup failed for function %u", to);
	const Oid to_owner = reinterpret_cast<Form_pg_proc>(GETSTRUCT(to_tuple))->proowner;
	if (to_owner != from_owner)
		acl = aclnewowner(acl, from_owner, to_owner);
	// The roles of `to`'s ACL now and after, for the shared dependencies.
	const Datum to_acl = SysCacheGetAttr(PROCOID, to_tuple, Anum_pg_proc_proacl, &isnull);
	Oid *old_members = nullptr;
	const int nold = isnull ? 0 : aclmembers(DatumGetAclP(to_acl), &old_members);
	Oid *new_members = nullptr;
	const int nnew = aclmembers(acl, &new_members);

	Datum values[Natts_pg_proc] = {};
	bool nulls[Natts_pg_proc] = {};
	bool replaces[Natts_pg_proc] = {};
	replaces[Anum_pg_proc_proacl - 1] = true;
	values[Anum_pg_proc_proacl - 1] = PointerGetDatum(acl);
	HeapTuple updated = heap_modify_tuple(to_tuple, RelationGetDescr(pg_proc), values, nulls, replaces);
	CatalogTupleUpdate(pg_proc, &updated->t_self, updated);
	// Deliberately no recordExtensionInitPriv(): see the head of this file.
	updateAclDependencies(ProcedureRelationId, to, 0, to_owner, nold, old_members, nnew, new_members);
	ReleaseSysCache(to_tuple);
	table_close(pg_proc, RowExclusiveLock);
	CommandCounterIncrement();
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(hotplus_take_privileges);
Datum
hotplus_take_privileges(PG_FUNCTION_ARGS)
{
	if (!creating_extension)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("hotplus_take_privileges() runs only in hotplus's extension scripts")));
	const Oid namespace_oid = get_func_namespace(fcinfo->flinfo->fn_oid);
	const Oid from = member_function(namespace_oid, text_to_cstring(PG_GETARG_TEXT_PP(0)));
	const Oid to = member_function(namespace_oid, text_to_cstring(PG_GETARG_TEXT_PP(1)));
	take_privileges(from, to);
	PG_RETURN_VOID();
}
}
