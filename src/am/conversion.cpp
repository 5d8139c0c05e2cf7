// Zero-rewrite conversion between heap and hotheap: hotplus_convert() / hotplus_revert().
//
// hotheap is heap on disk and in WAL, so switching a table's access method only has to
// change pg_class.relam and the access method dependency; ALTER TABLE ... SET ACCESS METHOD
// would rewrite the whole table. Invariants:
//  - only plain tables (relkind 'r') whose access method is heap or hotheap are switched;
//    a partitioned table switches all its plain-table partitions (foreign partitions are
//    skipped with a NOTICE);
//  - the caller must own each table; system catalogs and other sessions' temporary tables
//    are refused; ownership, kind and catalog status of the named relation are checked
//    before its lock is requested and again once it is granted (as the callbacks of
//    RangeVarGetRelidExtended do), so a role that owns nothing cannot queue an ACCESS
//    EXCLUSIVE lock on someone else's table behind which every later reader would wait;
//  - refused in read-only transactions and on standbys, like ALTER TABLE;
//  - each table is switched under ACCESS EXCLUSIVE lock, which its transaction holds until
//    it ends: no backend can be inside the table's access method during the switch, and
//    every backend sees the new method at its next lock on the table (relcache
//    invalidation from the pg_class update);
//  - the dependency record is changed exactly like ALTER TABLE SET ACCESS METHOD does
//    (changeDependencyFor), so DROP EXTENSION stays blocked by converted tables;
//  - the relfilenode, the data, the indexes and the TOAST table are untouched;
//  - a table Citus keeps in pg_dist_partition (tested: hash-distributed, partitioned and
//    partition tables) named on the coordinator switches everywhere: first every shard placement, then the shell table
//    on every other node, each by this same function run there (Citus's
//    run_command_on_placements / run_command_on_workers), then the coordinator's own table.
//    The remote switches commit on their own (Citus runs those commands outside the
//    coordinator's transaction), so an error part-way leaves some nodes switched: running
//    the function again finishes the job, because a table already switched is skipped.
//    For the same reason it is refused inside a transaction block there. On any other
//    node the function switches only that node's table.
#include "am/pg.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "commands/tablecmds.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace {

// Switches one locked plain table; returns whether it changed.
bool
switch_table(Oid relid, Oid from_am, Oid to_am, const char *function)
{
	Relation rel = table_open(relid, NoLock); // locked by the caller
	const char *name = RelationGetRelationName(rel);

	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						errmsg("cannot convert temporary tables of other sessions")));
	if (IsSystemRelation(rel))
		ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						errmsg("permission denied: \"%s\" is a system catalog", name)));
	if (!compat_table_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, get_relkind_objtype(rel->rd_rel->relkind), name);

	Oid current = rel->rd_rel->relam;
	if (current == to_am)
	{
		ereport(NOTICE, (errmsg("table \"%s\" already uses access method \"%s\", skipping", name,
								get_am_name(to_am))));
		table_close(rel, NoLock);
		return false;
	}
	if (current != from_am)
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						errmsg("table \"%s\" uses access method \"%s\"", name, get_am_name(current)),
						errdetail("%s() only switches tables between heap and hotheap.", function)));
	CheckTableNotInUse(rel, function);
	table_close(rel, NoLock);

	Relation pg_class = table_open(RelationRelationId, RowExclusiveLock);
	HeapTuple tuple = SearchSysCacheCopy1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relam = to_am;
	CatalogTupleUpdate(pg_class, &tuple->t_self, tuple);
	heap_freetuple(tuple);
	table_close(pg_class, RowExclusiveLock);

	if (changeDependencyFor(RelationRelationId, relid, AccessMethodRelationId, from_am, to_am) != 1)
		elog(ERROR, "failed to change access method dependency for relation \"%s\"", get_rel_name(relid));
	InvokeObjectPostAlterHook(RelationRelationId, relid, 0);
	CommandCounterIncrement();
	return true;
}

// What can be checked about the named relation without a lock on it (the syscache entry
// as of now); returns its kind.
char
check_may_switch(Oid relid, const char *function)
{
	HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("relation with OID %u does not exist", relid)));
	Form_pg_class form = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple));
	const char relkind = form->relkind;
	const bool system = IsSystemClass(relid, form);
	NameData name = form->relname;
	ReleaseSysCache(tuple);

	if (relkind != RELKIND_RELATION && relkind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("\"%s\" is not a table", NameStr(name)),
						errdetail("%s() takes a table or a partitioned table.", function)));
	if (system)
		ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						errmsg("permission denied: \"%s\" is a system catalog", NameStr(name))));
	if (!compat_table_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, get_relkind_objtype(relkind), NameStr(name));
	return relkind;
}

// Whether relid is a table Citus distributes (any kind Citus keeps in pg_dist_partition)
// and this node is the coordinator, which alone may switch it everywhere.
bool
is_citus_table_on_coordinator(Oid relid)
{
	if (!OidIsValid(get_extension_oid("citus", true)))
		return false;
	Oid argtypes[] = {OIDOID};
	Datum args[] = {ObjectIdGetDatum(relid)};
	SPI_connect();
	if (SPI_execute_with_args("SELECT pg_catalog.citus_is_coordinator() AND EXISTS ("
							  "SELECT FROM pg_catalog.pg_dist_partition WHERE logicalrelid OPERATOR(pg_catalog.=) $1)",
							  1, argtypes, args, nullptr, true, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "could not read Citus's metadata");
	bool isnull;
	const bool result = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	return result && !isnull;
}

// text with every % doubled: what format() turns back into text.
const char *
percent_doubled(const char *text)
{
	StringInfoData out;
	initStringInfo(&out);
	for (const char *c = text; *c != '\0'; c++)
	{
		if (*c == '%')
			appendStringInfoChar(&out, '%');
		appendStringInfoChar(&out, *c);
	}
	return out.data;
}

// Runs `function` (this very function, as the remote nodes know it) on every shard placement
// of the distributed table relid, then on its shell table on every worker; errors with the
// first node's message if any of them failed.
void
switch_citus_placements(Oid relid, Oid function_oid, const char *function)
{
	const char *qualified_function = quote_qualified_identifier(
		get_namespace_name(get_func_namespace(function_oid)), function);
	const char *qualified_table = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
															 get_rel_name(relid));
	// run_command_on_placements makes each shard's command with format(command, shard name)
	// (citus--8.0-1.sql): %L puts the name in as a literal, whatever it holds (a name may
	// hold any quote, even a dollar quote). Any % of the function's own name is doubled, so
	// format() reads it as text.
	const char *on_shards = psprintf("SELECT %s(%%L::pg_catalog.regclass)", percent_doubled(qualified_function));
	const char *on_shells =
		psprintf("SELECT CASE WHEN pg_catalog.to_regclass(%s) IS NULL THEN 0 ELSE %s(%s::pg_catalog.regclass) END",
				 quote_literal_cstr(qualified_table), qualified_function, quote_literal_cstr(qualified_table));
	Oid argtypes[] = {REGCLASSOID, TEXTOID, TEXTOID};
	Datum args[] = {ObjectIdGetDatum(relid), CStringGetTextDatum(on_shards), CStringGetTextDatum(on_shells)};
	SPI_connect();
	if (SPI_execute_with_args("SELECT pg_catalog.format('%s:%s', nodename, nodeport), result"
							  " FROM pg_catalog.run_command_on_placements($1, $2) WHERE NOT success"
							  " UNION ALL "
							  "SELECT pg_catalog.format('%s:%s', nodename, nodeport), result"
							  " FROM pg_catalog.run_command_on_workers($3) WHERE NOT success",
							  3, argtypes, args, nullptr, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not run %s() on Citus's nodes", function);
	if (SPI_processed > 0)
	{
		char *node = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		char *message = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						errmsg("%s() failed on Citus node %s: %s", function, node, message ? message : "(no message)"),
						errdetail("Nodes already switched stay switched."),
						errhint("Fix the cause and run %s() again: tables already switched are skipped.", function)));
	}
	SPI_finish();
}

int32
switch_access_method(Oid relid, Oid from_am, Oid to_am, Oid function_oid, const char *function)
{
	PreventCommandIfReadOnly(psprintf("%s()", function));
	PreventCommandIfParallelMode(psprintf("%s()", function));
	// Look, lock, look again: the first look refuses a caller who may not switch the table
	// before the lock is queued; the second sees what the lock now protects (the owner or
	// the kind may have changed while we waited, and the relation may be gone).
	check_may_switch(relid, function);
	LockRelationOid(relid, AccessExclusiveLock);
	const char relkind = check_may_switch(relid, function);

	if (is_citus_table_on_coordinator(relid))
	{
		// The nodes commit their switches on their own: a transaction block that rolled
		// back would leave the shards switched and the coordinator not.
		PreventInTransactionBlock(true, psprintf("%s() of a Citus table", function));
		switch_citus_placements(relid, function_oid, function);
	}
	if (relkind == RELKIND_RELATION)
		return switch_table(relid, from_am, to_am, function) ? 1 : 0;
	int32 switched = 0;
	ListCell *lc;
	foreach (lc, find_all_inheritors(relid, AccessExclusiveLock, nullptr))
	{
		Oid child = lfirst_oid(lc);
		char kind = get_rel_relkind(child);
		if (kind == RELKIND_RELATION)
			switched += switch_table(child, from_am, to_am, function) ? 1 : 0;
		else if (kind == RELKIND_FOREIGN_TABLE)
			ereport(NOTICE, (errmsg("skipping foreign table \"%s\"", get_rel_name(child))));
	}
	return switched;
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(hotplus_convert);
Datum
hotplus_convert(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(switch_access_method(PG_GETARG_OID(0), HEAP_TABLE_AM_OID,
										 get_table_am_oid("hotheap", false), fcinfo->flinfo->fn_oid,
										 "hotplus_convert"));
}

PG_FUNCTION_INFO_V1(hotplus_revert);
Datum
hotplus_revert(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(switch_access_method(PG_GETARG_OID(0), get_table_am_oid("hotheap", false),
										 HEAP_TABLE_AM_OID, fcinfo->flinfo->fn_oid, "hotplus_revert"));
}
}
