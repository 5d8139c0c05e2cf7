/* test/modules/direct_update: hotplus test module, not for production */
\echo Use "CREATE EXTENSION direct_update" to load this file. \quit

-- direct_update(rel, tid, k, doc): replaces columns "k" and "doc" of the row version at tid
-- with simple_table_tuple_update() and inserts its index entries when the table AM reports
-- that indexes need them, as ExecSimpleRelationUpdate() does. Returns true.
-- VOLATILE and expensive, so that in a WHERE clause it runs last, once per row that passes
-- the cheaper conditions.
CREATE FUNCTION direct_update(rel regclass, tid tid, k int, doc jsonb)
RETURNS bool
AS 'MODULE_PATHNAME', 'direct_update'
LANGUAGE C STRICT VOLATILE COST 10000;

REVOKE ALL ON FUNCTION direct_update(regclass, tid, int, jsonb) FROM PUBLIC;
