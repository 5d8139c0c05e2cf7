-- HOT decision matrix, GiST: an expression whose index storage type differs from its own
-- type (to_tsvector() is stored as gtsvector), and an exclusion constraint over an
-- expression. hotplus compares expression values in the expression's own type (tsvector,
-- int4range): equal values give equal stored keys, so the update is HOT; values that differ
-- as tsvector but would give the same gtsvector are still a change (not HOT).
-- Design points: D2, D6a
SET client_min_messages = warning;
SELECT NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'hotplus') AS created_extension \gset
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA hot_gist;
SET search_path = hot_gist, public;

\i test/sql_helpers/hot_helpers.sql

------------------------------------------------------------------------------------------
-- GiST on to_tsvector('simple', v)
------------------------------------------------------------------------------------------
CREATE TABLE gs (id int PRIMARY KEY, v text, n int) USING hotheap WITH (fillfactor = 50);
CREATE INDEX gs_ts ON gs USING gist (to_tsvector('simple', v));
INSERT INTO gs SELECT g, 'Hello World ' || g, 0 FROM generate_series(1, 10) g;
CREATE TABLE gsh (LIKE gs INCLUDING ALL) USING heap WITH (fillfactor = 50);
INSERT INTO gsh SELECT * FROM gs;
SELECT to_tsvector('simple', 'Hello World 1') = to_tsvector('simple', 'hello,  WORLD! 1') AS same_tsvector,
       to_tsvector('simple', 'Hello World 1') = to_tsvector('simple', 'World Hello 1') AS reordered_same;

-- An unrelated column. Expected: HOT (heap agrees).
BEGIN;
CALL hot_start();
UPDATE gs SET n = 1 WHERE id = 1;
SELECT hot('gs', 1);
COMMIT;
-- v changes, the tsvector does not (case, punctuation, spacing). Expected: HOT; heap: not HOT.
BEGIN;
CALL hot_start();
UPDATE gs SET v = 'hello,  WORLD! ' || id WHERE id IN (2, 3);
SELECT hot('gs', 2);
UPDATE gsh SET v = 'hello,  WORLD! ' || id WHERE id IN (2, 3);
SELECT hot('gsh', 0);
COMMIT;
-- The words change places: other positions, another tsvector (the gtsvector signature,
-- which ignores positions, would be the same; hotplus compares tsvectors). Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE gs SET v = 'World Hello ' || id WHERE id = 4;
SELECT hot('gs', 0);
COMMIT;
-- A word changes. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE gs SET v = 'Goodbye World ' || id WHERE id = 5;
SELECT hot('gs', 0);
COMMIT;
SELECT * FROM check_scans($$SELECT id, v FROM gs WHERE to_tsvector('simple', v) @@ to_tsquery('simple', 'hello')$$);
SELECT * FROM check_scans($$SELECT id, v FROM gs WHERE to_tsvector('simple', v) @@ to_tsquery('simple', 'goodbye | 2 | 4')$$);
SELECT * FROM check_scans($$SELECT id, v FROM gs WHERE to_tsvector('simple', v) @@ to_tsquery('simple', 'world <-> hello')$$);
DROP TABLE gs, gsh;

------------------------------------------------------------------------------------------
-- exclusion constraint: EXCLUDE USING gist (int4range(a, b, bnd) WITH &&)
------------------------------------------------------------------------------------------
CREATE TABLE ex (id int PRIMARY KEY, a int, b int, bnd text, n int,
                 EXCLUDE USING gist ((int4range(a, b, bnd)) WITH &&))
  USING hotheap WITH (fillfactor = 50);
INSERT INTO ex VALUES (1, 1, 5, '[)', 0), (2, 10, 15, '[)', 0), (3, 20, 25, '[)', 0),
                      (4, 30, 30, '[)', 0), (5, 40, 40, '[)', 0);
SELECT id, int4range(a, b, bnd) FROM ex ORDER BY id;
CREATE TABLE exh (LIKE ex INCLUDING ALL) USING heap WITH (fillfactor = 50);
INSERT INTO exh SELECT * FROM ex;

-- An unrelated column. Expected: HOT (heap agrees).
BEGIN;
CALL hot_start();
UPDATE ex SET n = n + 1 WHERE id = 1;
SELECT hot('ex', 1);
COMMIT;
-- Other columns, the same range: [1,5) = int4range(1, 4, '[]'). Expected: HOT; heap: not HOT.
BEGIN;
CALL hot_start();
UPDATE ex SET b = 4, bnd = '[]' WHERE id = 1;
SELECT hot('ex', 1);
UPDATE exh SET b = 4, bnd = '[]' WHERE id = 1;
SELECT hot('exh', 0);
COMMIT;
-- An empty range stays empty. Expected: HOT.
BEGIN;
CALL hot_start();
UPDATE ex SET a = 33, b = 33 WHERE id = 4;
SELECT hot('ex', 1);
COMMIT;
-- The range changes without conflict. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE ex SET b = 18 WHERE id = 2;
SELECT hot('ex', 0);
COMMIT;
SELECT id, a, b, bnd, int4range(a, b, bnd) FROM ex ORDER BY id;
-- the constraint still rejects conflicts with the HOT-updated rows
INSERT INTO ex VALUES (10, 2, 3, '[)', 0);
UPDATE ex SET a = 3 WHERE id = 2;
INSERT INTO ex VALUES (11, 5, 10, '[)', 0);
SELECT * FROM check_scans($$SELECT id FROM ex WHERE int4range(a, b, bnd) && int4range(0, 100)$$);
SELECT * FROM check_scans($$SELECT id FROM ex WHERE int4range(a, b, bnd) && int4range(4, 5)$$);
SELECT * FROM check_scans($$SELECT id FROM ex WHERE int4range(a, b, bnd) && int4range(15, 17)$$);
SELECT * FROM check_scans($$SELECT id FROM ex WHERE int4range(a, b, bnd) = 'empty'$$);
DROP TABLE ex, exh;

------------------------------------------------------------------------------------------
-- BRIN over an expression (before PG16 BRIN blocks HOT like any index; since, it never
-- does, and heap_update reports TU_Summarizing so that only BRIN gets the new entry)
------------------------------------------------------------------------------------------
CREATE TABLE br (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50);
CREATE INDEX br_k ON br USING brin (((doc->>'k')::int));
INSERT INTO br SELECT g, jsonb_build_object('k', g, 'x', g) FROM generate_series(1, 10) g;
-- An unindexed field. Expected: HOT.
BEGIN;
CALL hot_start();
UPDATE br SET doc = jsonb_set(doc, '{x}', '0') WHERE id <= 2;
SELECT hot('br', 2);
COMMIT;
-- The indexed field. Expected: not HOT before PG16, HOT since.
BEGIN;
CALL hot_start();
UPDATE br SET doc = jsonb_set(doc, '{k}', '1000') WHERE id = 3;
SELECT hot_by_version('br', 0, 1);
COMMIT;
SELECT * FROM check_scans($$SELECT id FROM br WHERE (doc->>'k')::int = 1000$$);
SELECT * FROM check_scans($$SELECT id FROM br WHERE (doc->>'k')::int BETWEEN 1 AND 3$$);
DROP TABLE br;

-- A btree and a BRIN over two fields of one document, the BRIN built on existing rows (so
-- every range is summarized: a range that misses the new value would hide the row from a
-- bitmap scan). Changing the BRIN's field changes the column both indexes read: hotplus
-- proves the btree unchanged; before PG16 the BRIN still blocks HOT; since, the update is
-- HOT and must still get its BRIN entry (TU_Summarizing).
CREATE TABLE bb (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50, autovacuum_enabled = off);
INSERT INTO bb SELECT g, jsonb_build_object('a', 'a' || g, 'k', g) FROM generate_series(1, 300) g;
CREATE INDEX bb_a ON bb ((doc->>'a'));
CREATE INDEX bb_k ON bb USING brin (((doc->>'k')::int)) WITH (pages_per_range = 1);
BEGIN;
CALL hot_start();
UPDATE bb SET doc = jsonb_set(doc, '{k}', '100000') WHERE id IN (5, 150);
SELECT hot_by_version('bb', 0, 2);
COMMIT;
SELECT * FROM check_scans($$SELECT id FROM bb WHERE (doc->>'k')::int = 100000$$, index_scan => false);
SELECT * FROM check_scans($$SELECT id FROM bb WHERE doc->>'a' IN ('a5', 'a150')$$);
SELECT check_btrees('bb');
-- A field neither index reads: HOT on every version, nothing for BRIN to add.
BEGIN;
CALL hot_start();
UPDATE bb SET doc = doc || '{"z": 1}' WHERE id = 7;
SELECT hot('bb', 1);
COMMIT;
DROP TABLE bb;

DROP SCHEMA hot_gist CASCADE;
-- the extension stays as this file found it
\if :created_extension
DROP EXTENSION hotplus;
\endif
