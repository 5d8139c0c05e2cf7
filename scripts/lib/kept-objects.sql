-- scripts/upgrade-check.sh: a user's objects on every statistics view of hotplus version :v
-- (the extension's views at that version, whatever they are): a view and an SQL, a PL/pgSQL
-- and a BEGIN ATOMIC function that read every column, and SELECT revoked from PUBLIC and
-- granted to a monitoring role (as DBAs do with pg_stat_statements), and EXECUTE on the
-- functions behind them revoked and granted the same way. A hotheap table's
-- updates give the table and index views rows (backend-mode counts: this one session).
-- Then scripts/lib/kept-snapshot.sql writes out what they return and who may read them,
-- before and after ALTER EXTENSION hotplus UPDATE.
SET client_min_messages = warning;
CREATE EXTENSION hotplus VERSION :'v';
CREATE TABLE kept (id int PRIMARY KEY, doc jsonb) USING hotheap;
CREATE INDEX kept_k ON kept ((doc->>'k'));
INSERT INTO kept SELECT g, jsonb_build_object('k', g, 'x', 0) FROM generate_series(1, 20) g;
UPDATE kept SET doc = doc || '{"x": 1}';
UPDATE kept SET doc = doc || jsonb_build_object('k', -id) WHERE id <= 5;
CREATE TEMP TABLE stat_views AS
SELECT c.oid::regclass AS v, c.relname AS name,
       (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FROM pg_attribute a
        WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS cols
FROM pg_depend d JOIN pg_class c ON c.oid = d.objid AND c.relkind = 'v'
WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'hotplus');
SELECT unnest(ARRAY[
  format('REVOKE SELECT ON %s FROM PUBLIC', v),
  format('GRANT SELECT ON %s TO hotplus_monitor', v),
  format('CREATE VIEW user_%s AS SELECT %s FROM %s', name, cols, v),
  format('GRANT SELECT ON user_%s TO hotplus_monitor', name),
  format('CREATE FUNCTION user_%s_sql() RETURNS SETOF text LANGUAGE sql AS %L', name,
         format('SELECT row(%s)::text FROM %s', cols, v)),
  format('CREATE FUNCTION user_%s_plpgsql() RETURNS SETOF text LANGUAGE plpgsql AS %L', name,
         format('BEGIN RETURN QUERY SELECT row(%s)::text FROM %s; END', cols, v)),
  format('CREATE FUNCTION user_%s_atomic() RETURNS SETOF text LANGUAGE sql BEGIN ATOMIC SELECT row(%s)::text FROM %s; END',
         name, cols, v)])
FROM stat_views ORDER BY name \gexec
-- The functions behind the statistics, restricted as the views are (doc/using.md,
-- "Security"): EXECUTE revoked from PUBLIC and granted to the monitoring role. An upgrade
-- that replaces one of them (new result columns) must keep that (hotplus_take_privileges).
CREATE TEMP TABLE stat_functions AS
SELECT p.oid::regprocedure AS f, p.proname AS name
FROM pg_depend d JOIN pg_proc p ON p.oid = d.objid
WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'hotplus')
  AND p.proname IN ('hotplus_stat_tables_internal', 'hotplus_stat_indexes_internal', 'hotplus_stat_info',
                    'hotplus_distributed_stat_tables');
SELECT unnest(ARRAY[format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f),
                    format('GRANT EXECUTE ON FUNCTION %s TO hotplus_monitor', f)])
FROM stat_functions ORDER BY name \gexec
