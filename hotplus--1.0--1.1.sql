/* hotplus 1.0 -> 1.1: statistics of the read path (HotheapRead scans and the rows they
   returned) in hotplus_stat_tables.
   The view is replaced, never dropped, so that users' views, functions and grants on it
   stay: CREATE OR REPLACE VIEW keeps its columns and appends the new ones. Only a new
   function can return more columns: the view moves to one made under another name, the old
   function goes, and the new one takes its name (so the view reads as a fresh install's).
   (Until hotplus 1.4 this script dropped and recreated the view; the result is the same.) */
\echo Use "ALTER EXTENSION hotplus UPDATE TO '1.1'" to load this file. \quit

CREATE FUNCTION @extschema@.hotplus_stat_tables_internal_next(
    OUT relid pg_catalog.oid, OUT mode pg_catalog.text,
    OUT updates pg_catalog.int8, OUT hot_stock pg_catalog.int8,
    OUT hot_by_expression pg_catalog.int8, OUT hot_by_partial pg_catalog.int8,
    OUT hot_by_image pg_catalog.int8, OUT toast_reused pg_catalog.int8,
    OUT nonhot_index_changed pg_catalog.int8, OUT nonhot_page_full pg_catalog.int8,
    OUT nonhot_other pg_catalog.int8, OUT checks_skipped pg_catalog.int8,
    OUT check_time_ms pg_catalog.float8,
    OUT read_scans pg_catalog.int8, OUT read_rows pg_catalog.int8)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'hotplus_stat_tables_internal'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE OR REPLACE VIEW @extschema@.hotplus_stat_tables AS
SELECT s.relid,
       c.relname,
       s.mode,
       s.updates,
       s.hot_stock,
       s.hot_by_expression,
       s.hot_by_partial,
       s.hot_by_image,
       s.toast_reused,
       s.nonhot_index_changed,
       s.nonhot_page_full,
       s.nonhot_other,
       s.checks_skipped,
       s.check_time_ms,
       s.read_scans,
       s.read_rows
FROM @extschema@.hotplus_stat_tables_internal_next() s
JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) s.relid;

-- The privileges a DBA gave the function it replaces go with it (src/am/upgrade_privileges.cpp:
-- copied without becoming the extension's own in pg_init_privs, as a GRANT here would).
CREATE FUNCTION @extschema@.hotplus_take_privileges(pg_catalog.text, pg_catalog.text)
RETURNS pg_catalog.void AS 'MODULE_PATHNAME', 'hotplus_take_privileges' LANGUAGE C STRICT;
SELECT @extschema@.hotplus_take_privileges('hotplus_stat_tables_internal', 'hotplus_stat_tables_internal_next');
DROP FUNCTION @extschema@.hotplus_stat_tables_internal();
ALTER FUNCTION @extschema@.hotplus_stat_tables_internal_next() RENAME TO hotplus_stat_tables_internal;
DROP FUNCTION @extschema@.hotplus_take_privileges(pg_catalog.text, pg_catalog.text);

COMMENT ON VIEW @extschema@.hotplus_stat_tables IS
  'per hotheap table: how many updates were HOT and why, how many were not and why; how many scans the read path served';
