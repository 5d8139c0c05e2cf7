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
