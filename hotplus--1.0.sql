-- hotplus 1.0: the hotheap table access method.
-- Every object is schema-qualified with @extschema@ or pg_catalog, so the script does
-- not depend on the caller's search_path.

\echo Use "CREATE EXTENSION hotplus" to load this file. \quit

CREATE FUNCTION @extschema@.hotheap_tableam_handler(pg_catalog.internal)
RETURNS pg_catalog.table_am_handler
AS 'MODULE_PATHNAME', 'hotheap_tableam_handler'
LANGUAGE C STRICT;

COMMENT ON FUNCTION @extschema@.hotheap_tableam_handler(pg_catalog.internal) IS
  'table access method handler of hotheap';

CREATE ACCESS METHOD hotheap TYPE TABLE HANDLER @extschema@.hotheap_tableam_handler;

COMMENT ON ACCESS METHOD hotheap IS
  'the heap, on disk and in WAL, with HOT updates decided per index by hotplus';

-- ---------------------------------------------------------------------------------------
-- Statistics: why updates of hotheap tables were or were not HOT.
-- Backend mode (default): the calling backend's own counts. Shared mode (hotplus in
-- shared_preload_libraries): cluster-wide counts of the current database.

CREATE FUNCTION @extschema@.hotplus_stat_tables_internal(
    OUT relid pg_catalog.oid, OUT mode pg_catalog.text,
    OUT updates pg_catalog.int8, OUT hot_stock pg_catalog.int8,
    OUT hot_by_expression pg_catalog.int8, OUT hot_by_partial pg_catalog.int8,
    OUT hot_by_image pg_catalog.int8, OUT toast_reused pg_catalog.int8,
    OUT nonhot_index_changed pg_catalog.int8, OUT nonhot_page_full pg_catalog.int8,
    OUT nonhot_other pg_catalog.int8, OUT checks_skipped pg_catalog.int8,
    OUT check_time_ms pg_catalog.float8)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'hotplus_stat_tables_internal'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION @extschema@.hotplus_stat_indexes_internal(
    OUT indexrelid pg_catalog.oid, OUT relid pg_catalog.oid, OUT mode pg_catalog.text,
    OUT blocked_hot pg_catalog.int8)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'hotplus_stat_indexes_internal'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION @extschema@.hotplus_stat_mode()
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'hotplus_stat_mode'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE FUNCTION @extschema@.hotplus_stat_reset()
RETURNS pg_catalog.void
AS 'MODULE_PATHNAME', 'hotplus_stat_reset'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- Like pg_stat_reset(): superusers only, unless granted.
REVOKE ALL ON FUNCTION @extschema@.hotplus_stat_reset() FROM PUBLIC;

CREATE VIEW @extschema@.hotplus_stat_tables AS
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
       s.check_time_ms
FROM @extschema@.hotplus_stat_tables_internal() s
JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) s.relid;

CREATE VIEW @extschema@.hotplus_stat_indexes AS
SELECT s.indexrelid,
       i.relname AS indexrelname,
       s.relid,
       c.relname,
       s.mode,
       s.blocked_hot
FROM @extschema@.hotplus_stat_indexes_internal() s
JOIN pg_catalog.pg_class i ON i.oid OPERATOR(pg_catalog.=) s.indexrelid
JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) s.relid;

COMMENT ON VIEW @extschema@.hotplus_stat_tables IS
  'per hotheap table: how many updates were HOT and why, how many were not and why';
COMMENT ON VIEW @extschema@.hotplus_stat_indexes IS
  'per index: how many updates it kept from being HOT';

-- ---------------------------------------------------------------------------------------
-- Zero-rewrite conversion: switch a table (or every partition of a partitioned table)
-- between heap and hotheap by changing only the catalog. The caller must own the tables.
-- Returns the number of tables switched. Takes ACCESS EXCLUSIVE locks held until the
-- end of the transaction: run it in a short transaction of its own.

CREATE FUNCTION @extschema@.hotplus_convert(rel pg_catalog.regclass)
RETURNS pg_catalog.int4
AS 'MODULE_PATHNAME', 'hotplus_convert'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.hotplus_revert(rel pg_catalog.regclass)
RETURNS pg_catalog.int4
AS 'MODULE_PATHNAME', 'hotplus_revert'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@.hotplus_convert(pg_catalog.regclass) IS
  'switch a heap table (or all partitions) to hotheap without rewriting it';
COMMENT ON FUNCTION @extschema@.hotplus_revert(pg_catalog.regclass) IS
  'switch a hotheap table (or all partitions) back to heap without rewriting it';
