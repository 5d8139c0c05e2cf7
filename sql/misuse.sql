-- Bad input and misuse: each gets a clear error or a documented behaviour.
-- Design points: D4
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
-- The GUCs exist once the library is loaded (any use of a hotheap table loads it).
LOAD 'hotplus';

-- GUCs: bad values are rejected, unknown hotplus.* names too (the prefix is reserved),
-- and the shared-memory bound only exists with shared_preload_libraries.
SET hotplus.enabled = maybe;
SET hotplus.check_expressions = 2;
SET hotplus.reuse_toast = '';
SET hotplus.verify_sample_rate = 1.5;
SET hotplus.verify_sample_rate = -0.1;
SET hotplus.no_such_setting = on;
SHOW hotplus.max_tracked_tables;
SELECT name, setting, context FROM pg_settings WHERE name LIKE 'hotplus.%' ORDER BY 1;
-- hotplus.verify is on by default exactly in assert-enabled builds (the test clusters set it
-- on everywhere, so its boot value is what shows the build's default).
SELECT boot_val = CASE WHEN current_setting('debug_assertions')::bool THEN 'on' ELSE 'off' END
       AS verify_default_follows_assertions
FROM pg_settings WHERE name = 'hotplus.verify';

-- hotheap where it cannot serve: PostgreSQL refuses a table access method for
-- partitioned tables, views and (without allow_system_table_mods) catalogs.
CREATE TABLE mu (id int PRIMARY KEY, a int, doc jsonb) USING hotheap WITH (fillfactor = 50);
CREATE VIEW mu_view USING hotheap AS SELECT 1;
CREATE TABLE pg_catalog.mu_catalog (id int) USING hotheap;
-- A materialized view may use hotheap: it is a table.
CREATE MATERIALIZED VIEW mu_mat USING hotheap AS SELECT g AS id FROM generate_series(1, 3) g;
REFRESH MATERIALIZED VIEW mu_mat;
SELECT count(*) FROM mu_mat;
DROP MATERIALIZED VIEW mu_mat;

-- An index expression that fails on some rows: the UPDATE fails exactly as on heap, where
-- index insertion evaluates the same expression for the new row.
INSERT INTO mu SELECT g, g, jsonb_build_object('k', g) FROM generate_series(1, 10) g;
CREATE INDEX mu_div ON mu ((100 / a));
UPDATE mu SET a = 0 WHERE id = 3;
CREATE TABLE mu_heap (id int PRIMARY KEY, a int, doc jsonb);
INSERT INTO mu_heap SELECT * FROM mu;
CREATE INDEX mu_heap_div ON mu_heap ((100 / a));
UPDATE mu_heap SET a = 0 WHERE id = 3;
-- The same failure inside a plpgsql exception block is caught like any error, and the
-- next update works (nothing is left behind by the failed one).
DO $$
BEGIN
  UPDATE mu SET a = 0 WHERE id = 4;
EXCEPTION WHEN division_by_zero THEN
  RAISE NOTICE 'caught: %', SQLERRM;
END $$;
UPDATE mu SET doc = jsonb_set(doc, '{z}', '1') WHERE id = 4;
SELECT id, a, doc FROM mu WHERE id IN (3, 4) ORDER BY id;
DROP INDEX mu_div;
DROP TABLE mu_heap;

-- A function wrongly declared IMMUTABLE, reading a table: once its answer changes, the
-- index is stale whatever the table AM (hotplus re-evaluates it on the old row, so it may
-- keep a stale entry where heap would add a fresh one; see README). REINDEX repairs it.
CREATE TABLE mu_lookup (k int PRIMARY KEY, label text);
INSERT INTO mu_lookup VALUES (1, 'one');
CREATE FUNCTION mu_label(int) RETURNS text LANGUAGE sql IMMUTABLE
  AS $$ SELECT label FROM public.mu_lookup WHERE k = $1 $$;
CREATE INDEX mu_lbl ON mu (mu_label(a)) WHERE a = 1;
UPDATE mu_lookup SET label = 'uno';
REINDEX INDEX mu_lbl;
SELECT count(*) FROM (SELECT bt_index_check('mu_lbl'::regclass, true)) s;
DROP INDEX mu_lbl;
DROP FUNCTION mu_label(int);
DROP TABLE mu_lookup;

-- The extension cannot be dropped while hotheap tables exist; nothing is lost.
DROP EXTENSION hotplus;
SELECT count(*) FROM mu;
DROP TABLE mu;
