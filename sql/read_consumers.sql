-- The read path above the scan (src/README.md D14b, src/read/consumer_pushdown.hpp): calls
-- that cannot fail, over one toastable column, that an aggregate or a projection above a
-- hotheap scan evaluates on every row, move into a HotheapProject node directly below it and
-- share one detoasted copy per row. Every query runs with the read path on and off, or
-- against a heap twin of the table, and must give the same rows, the same errors, the same
-- sizes and the same memory and temporary space; the plans show where calls went (and where
-- they must not go), EXPLAIN ANALYZE how many values were detoasted.
-- Design points: D14, D14b
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA read_consumers;
SET search_path = read_consumers, public;
SET default_toast_compression = pglz;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

\i test/sql_helpers/read_helpers.sql

-- b: 200 documents of 600 keys (about 40 kB, stored out of line), a field 'n' that is a
-- number except in row 7, a field 'g' with four values, a text note (compressed in line or
-- NULL) and k, joining each row to one of t's; bh: the same on heap; t: 50 small rows.
CREATE TABLE b (id int PRIMARY KEY, big jsonb, note text, k int) USING hotheap WITH (autovacuum_enabled = off);
INSERT INTO b
SELECT g, (SELECT jsonb_object_agg(k::text, md5((g * k)::text) || md5(k::text)) FROM generate_series(1, 600) k)
          || jsonb_build_object('n', CASE WHEN g = 7 THEN 'seven' ELSE g::text END, 'g', g % 4),
       CASE WHEN g % 5 = 0 THEN NULL ELSE repeat(md5(g::text), 100) END, g % 50 + 1
FROM generate_series(1, 200) g;
CREATE TABLE bh (LIKE b INCLUDING ALL) USING heap;
INSERT INTO bh SELECT * FROM b;
CREATE TABLE t (id int PRIMARY KEY, x int) USING hotheap;
INSERT INTO t SELECT g, g % 10 FROM generate_series(1, 50) g;
VACUUM ANALYZE b, bh, t;
SELECT count(*) FILTER (WHERE pg_column_compression(note) IS NOT NULL) AS note_compressed FROM b;

-- sort_space(q): the memory of each Sort node of q's plan (kB), from EXPLAIN ANALYZE.
CREATE FUNCTION sort_space(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO plan;
  RETURN (SELECT string_agg(v::text, ',') FROM jsonb_path_query(plan::jsonb, 'strict $.**."Sort Space Used"') v);
END
$f$;

------------------------------------------------------------------------------------------
-- aggregates
------------------------------------------------------------------------------------------
-- Five fields of big in aggregates: a HotheapProject computes them, one detoast per row
-- (heap: five).
EXPLAIN (VERBOSE, COSTS OFF)
SELECT max(big->>'1'), max(big->>'2'), min(big->>'3'), count(*) FILTER (WHERE big ? '5'), max(big->>'10') FROM b;
SELECT detoasted('SELECT max(big->>''1''), max(big->>''2''), min(big->>''3''), count(*) FILTER (WHERE big ? ''5''), max(big->>''10'') FROM b');
SELECT * FROM read_check('SELECT max(big->>''1''), max(big->>''2''), min(big->>''3''), count(*) FILTER (WHERE big ? ''5''), max(big->>''10'') FROM b');
-- A FILTER guards row 7, where (big->>'n')::int fails: the filtered aggregate's argument
-- stays (heap evaluates it on the filtered rows only), the others move.
SELECT * FROM as_heap('SELECT sum((big->>''n'')::int) FILTER (WHERE id <> 7), max(big->>''1''), min(big->>''n''), max(big->>''2'') FROM b', 'b', 'bh');
-- Only calls that cannot fail move, even where every row evaluates them: upper() and lower()
-- stay in the aggregate (moved below, their errors could come before the node's own), md5()
-- moves, but not as the argument of a filtered aggregate.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT max(upper(note)), max(lower(note)), max(md5(note)), min(md5(note)), max(md5(note)) FILTER (WHERE id > 3) FROM b;
SELECT * FROM read_check('SELECT max(upper(note)), max(lower(note)), max(md5(note)), min(md5(note)), max(md5(note)) FILTER (WHERE id > 3) FROM b');
-- DISTINCT and ORDER BY in aggregates: the arguments are computed below the Agg (above the
-- Sort that 16 and later put below it for one of them, presorted aggregates) and sorted
-- inside it as on heap.
SELECT * FROM read_check('SELECT string_agg(DISTINCT big->>''g'', '','' ORDER BY big->>''g''), count(DISTINCT big->>''1''), jsonb_agg(big->''2'' ORDER BY id)->>3 FROM b');
-- GROUP BY an expression of big, hashed: hashed aggregation may write its input rows to
-- temporary files, so they stay heap's: nothing moves.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT big->>'g', count(*), max(big->>'1'), min(big->>'2') FROM b GROUP BY 1;
SELECT * FROM read_check('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM b GROUP BY 1 ORDER BY 1');
-- Sorted: the sort holds the scan's rows as on heap (the key and the stored datum), and a
-- HotheapProject between the sort and the aggregate computes the arguments once per row.
SET enable_hashagg = off;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT big->>'g', count(*), max(big->>'1'), min(big->>'2') FROM b GROUP BY 1;
SELECT detoasted('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM b GROUP BY 1');
SELECT * FROM read_check('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM b GROUP BY 1 ORDER BY 1');
SELECT sort_space('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM b GROUP BY 1')
     = sort_space('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM bh GROUP BY 1') AS same_sort_memory;
RESET enable_hashagg;
-- One reference per row: nothing to share, nothing moves. Short rows, nothing toastable read:
-- no node at all.
EXPLAIN (VERBOSE, COSTS OFF) SELECT max(big->>'1') FROM b;
EXPLAIN (COSTS OFF) SELECT max(x), sum(id), count(*) FILTER (WHERE x > 3) FROM t;
-- Values all short and in line (no TOAST block, narrow in ANALYZE's statistics): one copy
-- would save nothing, nothing moves. Once a value is stored out of line, they move.
CREATE TABLE sd (id int, doc jsonb) USING hotheap;
INSERT INTO sd SELECT i, jsonb_build_object('a', i, 'b', md5(i::text)) FROM generate_series(1, 100) i;
ANALYZE sd;
SELECT read_nodes('SELECT max(doc->>''a''), max(doc->>''b'') FROM sd') AS short_values;
INSERT INTO sd SELECT 0, (SELECT jsonb_object_agg(k::text, md5(k::text)) FROM generate_series(1, 600) k);
SELECT read_nodes('SELECT max(doc->>''a''), max(doc->>''b'') FROM sd') AS one_out_of_line;
-- Over few rows (D14c) only evidence of compressed or out-of-line values counts, not
-- ANALYZE's width: wide in-line documents (660 bytes, too small to be compressed) move over the
-- table, not for one row by key.
CREATE TABLE wd (id int PRIMARY KEY, doc jsonb) USING hotheap;
INSERT INTO wd SELECT i, jsonb_build_object('a', i, 'b', repeat(md5(i::text), 20)) FROM generate_series(1, 100) i;
ANALYZE wd;
SELECT read_nodes('SELECT max(doc->>''a''), max(doc->>''b'') FROM wd') AS all_rows,
       read_nodes('SELECT max(doc->>''a''), max(doc->>''b'') FROM wd WHERE id = 7') AS one_row;
EXPLAIN (COSTS OFF) SELECT y.x, z.x, y.id + z.id FROM t y JOIN t z ON z.id = y.x + 1;
-- The read path off: the plan is heap's.
SET hotplus.read_path = off;
EXPLAIN (VERBOSE, COSTS OFF) SELECT max(big->>'1'), max(big->>'2') FROM b;
RESET hotplus.read_path;

------------------------------------------------------------------------------------------
-- exactly heap: whole rows, conditional calls, errors, sizes, memory, wasted work
------------------------------------------------------------------------------------------
-- c: even ids hold a jsonb array, odd ids an object (jsonb_array_length fails on them), n is
-- 0 on every fifth row, arr NULL on the odd rows; ch the same on heap. Each query runs on c
-- and on ch (as_heap): the same rows or the same SQLSTATE.
CREATE TABLE c (id int PRIMARY KEY, n numeric, arr int[], big jsonb) USING hotheap WITH (autovacuum_enabled = off);
INSERT INTO c
SELECT i, i % 5, CASE WHEN i % 2 = 0 THEN ARRAY[i, i + 1] END,
       CASE WHEN i % 2 = 0 THEN (SELECT jsonb_agg(md5((i * k)::text)) FROM generate_series(1, 600) k)
            ELSE (SELECT jsonb_object_agg(k::text, md5((i * k)::text)) FROM generate_series(1, 600) k)
                 || jsonb_build_object('g', i % 7) END
FROM generate_series(1, 200) i;
CREATE TABLE ch (LIKE c INCLUDING ALL) USING heap;
INSERT INTO ch SELECT * FROM c;
VACUUM ANALYZE c, ch;

-- Whole-row references see the subquery's columns only (the issue's query; views,
-- security_barrier too; a row test).
SELECT * FROM as_heap('SELECT to_jsonb(s) - ''x'', s.x->>''g'', s.x->>''1'' FROM (SELECT id, big AS x FROM b OFFSET 0) s ORDER BY s.id LIMIT 2', 'b', 'bh');
SELECT * FROM as_heap('SELECT count(*) FILTER (WHERE s IS NOT NULL), max(s.x->>''1''), max(s.x->>''2'') FROM (SELECT id, big AS x FROM b OFFSET 0) s', 'b', 'bh');
CREATE VIEW bv AS SELECT id, big FROM b WHERE id % 2 = 0;
CREATE VIEW bhv AS SELECT id, big FROM bh WHERE id % 2 = 0;
CREATE VIEW bsv WITH (security_barrier) AS SELECT id, big FROM b WHERE id % 3 = 0;
CREATE VIEW bhsv WITH (security_barrier) AS SELECT id, big FROM bh WHERE id % 3 = 0;
SELECT * FROM as_heap('SELECT length(bv::text), bv.big->>''1'', bv.big->>''2'' FROM bv ORDER BY id LIMIT 3', 'bv', 'bhv');
SELECT * FROM as_heap('SELECT md5(bsv::text), bsv.big->>''1'', bsv.big->>''2'' FROM bsv ORDER BY id LIMIT 3', 'bsv', 'bhsv');
-- Row-locking copies of a subquery's rows: UPDATE ... FROM ... RETURNING the whole row.
BEGIN;
WITH u AS (UPDATE t SET x = t.x + 1 FROM (SELECT id, big AS x FROM b OFFSET 0) s
           WHERE s.id = t.id AND s.x->>'1' IS NOT NULL AND s.x->>'2' IS NOT NULL RETURNING s)
SELECT count(*), sum(length(u.s::text)) = (SELECT sum(length(r::text)) FROM (SELECT id, big AS x FROM bh WHERE id <= 50) r) AS heap_rows
  FROM u;
ROLLBACK;

-- Calls heap evaluates only on some rows: behind a row comparison, a subscript of a NULL
-- array, CASE, COALESCE, AND, OR, NULLIF, a strict function with a NULL argument, a FILTER.
-- jsonb_array_length() fails on the objects: heap never calls it there.
SELECT * FROM as_heap('SELECT count(*) FILTER (WHERE ROW(jsonb_typeof(big), jsonb_array_length(big)) > ROW(''array'', 0)), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT count(*) FILTER (WHERE ROW(id % 2, jsonb_array_length(big)) = ROW(0, 600)), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(arr[jsonb_array_length(big) - 598]), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(CASE WHEN jsonb_typeof(big) = ''array'' THEN jsonb_array_length(big) END), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(COALESCE(id % 2 + 1, jsonb_array_length(big))), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT count(*) FILTER (WHERE jsonb_typeof(big) = ''array'' AND jsonb_array_length(big) > 0), count(*) FILTER (WHERE jsonb_typeof(big) = ''object'' OR jsonb_array_length(big) > 0), max(big->>''1''), max(big->>''2'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(NULLIF(id % 2, 1) + 0), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(int4pl(arr[1], jsonb_array_length(big))), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(jsonb_array_length(big)) FILTER (WHERE id % 2 = 0), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
-- Which error a row raises is heap's: on row 5 (n = 0, an object) heap's aggregate divides
-- by zero (22012) before it calls jsonb_array_length (22023), and the other way round; the
-- moved calls raise none.
SELECT * FROM as_heap('SELECT sum(1 / n), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(1 / n), sum(jsonb_array_length(big)), max(big->>''1''), max(big->>''2'') FROM c WHERE id >= 5', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(jsonb_array_length(big)), sum(1 / n), max(big->>''1''), max(big->>''2'') FROM c WHERE id >= 5', 'c', 'ch');

-- Sizes and stored forms: a moved value reaches every function in the form heap's call gave
-- it, also on the first row of each group, which the Agg copies into a tuple (f: the first
-- row of every ten holds the largest short value).
CREATE TABLE f (id int PRIMARY KEY, big jsonb) USING hotheap WITH (autovacuum_enabled = off);
INSERT INTO f SELECT i, (SELECT jsonb_object_agg(k::text, md5((i * k)::text)) FROM generate_series(1, 600) k)
                        || jsonb_build_object('z', CASE WHEN i % 10 = 0 THEN 'zz' ELSE 'a' || i END)
FROM generate_series(0, 99) i;
CREATE TABLE fh (LIKE f INCLUDING ALL) USING heap;
INSERT INTO fh SELECT * FROM f;
VACUUM ANALYZE f, fh;
SELECT * FROM as_heap('SELECT pg_column_size(max(big->>''z'')), sum(pg_column_size(big->''z'')), max(pg_column_size(big->''z'')), max(pg_column_compression(big->>''1'')) FROM f', 'f', 'fh');
SET enable_hashagg = off;
SELECT * FROM as_heap('SELECT id / 10, pg_column_size(max(big->>''z'')), max(pg_column_size(big->''z'')), max(big->>''1'') FROM f GROUP BY 1 ORDER BY 1 LIMIT 3', 'f', 'fh');
RESET enable_hashagg;
SELECT * FROM as_heap('SELECT pg_column_size(big->>''z''), pg_column_size(big->''z''), big->>''1'' FROM (SELECT id, big FROM f ORDER BY id LIMIT 3) s', 'f', 'fh');

-- Memory and temporary space: spilling hash aggregates, sorts and multi-batch hash joins
-- store heap's rows (s: 3,000 rows whose 3 kB jsonb is stored out of line; sk their ids, a
-- table of its own: 18 removes a semi join of s with itself).
CREATE TABLE s (id int PRIMARY KEY, big jsonb) USING hotheap WITH (autovacuum_enabled = off);
ALTER TABLE s ALTER big SET STORAGE EXTERNAL;
INSERT INTO s SELECT i, (SELECT jsonb_object_agg(k::text, md5((i * k)::text)) FROM generate_series(1, 70) k)
FROM generate_series(1, 3000) i;
CREATE TABLE sh (LIKE s INCLUDING ALL) USING heap;
INSERT INTO sh SELECT * FROM s;
VACUUM ANALYZE s, sh;
CREATE TABLE sk AS SELECT id FROM s;
ANALYZE sk;
SET work_mem = '64kB';
SET enable_sort = off;
SELECT read_nodes(q) AS plan, temp_written(q) > 0 AS spilled,
       temp_written(q) = temp_written(replace(q, ' s ', ' sh ')) AS same_temp, outcome(q) = outcome(replace(q, ' s ', ' sh ')) AS same
  FROM (VALUES ('SELECT count(*), max(m1), max(m2), max(m3) FROM (SELECT id % 1000 AS g, max(big->>''1'') m1, max(big->>''2'') m2, max(big->>''3'') m3 FROM s GROUP BY 1) q')) v(q);
RESET enable_sort;
SET enable_hashagg = off;
SELECT read_nodes(q) AS plan, temp_written(q) > 0 AS spilled,
       temp_written(q) = temp_written(replace(q, ' s ', ' sh ')) AS same_temp, outcome(q) = outcome(replace(q, ' s ', ' sh ')) AS same
  FROM (VALUES ('SELECT count(*), max(m1), max(m2), max(m3) FROM (SELECT id % 1000 AS g, max(big->>''1'') m1, max(big->>''2'') m2, max(big->>''3'') m3 FROM s GROUP BY 1) q')) v(q);
RESET enable_hashagg;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT read_nodes(q) AS plan, temp_written(q) > 0 AS spilled,
       temp_written(q) = temp_written(replace(q, ' s ', ' sh ')) AS same_temp, outcome(q) = outcome(replace(q, ' s ', ' sh ')) AS same
  FROM (VALUES ('SELECT max(a), max(b) FROM (SELECT x.big->>''1'' a, x.big->>''2'' b FROM s x WHERE EXISTS (SELECT 1 FROM sk y WHERE y.id = x.id) OFFSET 0) q')) v(q);
RESET enable_mergejoin;
RESET enable_nestloop;
RESET work_mem;

-- Wasted work: where heap computes a call on some of the rows only, it is not moved to run on
-- all of them (calls in a filtered aggregate's argument, in a CASE branch or a COALESCE
-- fallback, in a join's output or quals, above a filter).
SELECT read_nodes('SELECT max(big->>''1'') FILTER (WHERE k = 5), max(big->>''2'') FILTER (WHERE k = 5), max(big->>''3'') FILTER (WHERE k = 5) FROM b') AS filtered;
SELECT read_nodes('SELECT max(CASE WHEN k = 5 THEN big->>''1'' END), max(CASE WHEN k = 5 THEN big->>''2'' END) FROM b') AS case_branch;
SELECT read_nodes('SELECT max(COALESCE(note, big->>''1'')), max(COALESCE(note, big->>''2'')) FROM b') AS coalesce_fallback;
SELECT read_nodes('SELECT x.big->>''1'', x.big->>''2'' FROM b x WHERE EXISTS (SELECT 1 FROM t y WHERE y.id = x.id + 1000)') AS semi_join;
SELECT read_nodes('SELECT x.big->>''1'', x.big->>''2'', y.x FROM b x JOIN t y ON y.id = x.id + 1000') AS join_output;
SELECT read_nodes('SELECT s.big->>''1'', s.big->>''2'' FROM (SELECT id, big, note FROM b OFFSET 0) s WHERE s.note = ''none''') AS filter_above;

------------------------------------------------------------------------------------------
-- joins: nothing moves (a join computes its output list and quals on its matches only)
------------------------------------------------------------------------------------------
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT x.id, x.big->'1', x.big->'2', x.big->>'3', y.x FROM b x JOIN t y ON x.k = y.id;
SELECT * FROM as_heap('SELECT x.id, x.big->''1'', x.big->''2'', x.big->>''3'', y.x FROM b x JOIN t y ON x.k = y.id ORDER BY 1 LIMIT 2', 'b', 'bh');
RESET enable_mergejoin;
RESET enable_nestloop;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT * FROM as_heap('SELECT y.id, (x.big->>''n'')::int + 1, x.big->>''1'', x.big->>''2'' FROM t y JOIN b x ON x.id = y.id * 2 ORDER BY 1 LIMIT 2', 'b', 'bh');
RESET enable_hashjoin;
RESET enable_mergejoin;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT * FROM read_check('SELECT x.id, x.big->>''1'', x.big->>''2'', y.big->>''3'', y.big->>''4'' FROM b x JOIN b y ON y.id = x.id + 1 ORDER BY 1');
RESET enable_hashjoin;
RESET enable_nestloop;
SELECT * FROM read_check('SELECT x.big->>''1'', x.big->>''2'', y.big->>''1'', y.big->>''2'', id FROM b x JOIN bh y USING (id) ORDER BY id');

------------------------------------------------------------------------------------------
-- projections above other nodes, subqueries, windows, CTEs, set operations, partitions
------------------------------------------------------------------------------------------
-- A projection above a LIMIT of a sort: the calls that cannot fail, unconditional, move into
-- a HotheapProject between the two; upper() and lower() stay.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT upper(note), lower(note), big->>'1', big->>'2' FROM (SELECT note, big FROM b ORDER BY id DESC LIMIT 30) s;
SELECT * FROM read_check('SELECT upper(note), lower(note), big->>''1'', big->>''2'' FROM (SELECT id, note, big FROM b ORDER BY id DESC LIMIT 30) s ORDER BY id');
-- Subqueries in the output list, LATERAL.
SELECT * FROM read_check('SELECT y.id, (SELECT max(x.big->>''1'') || max(x.big->>''2'') FROM b x WHERE x.id <= y.id) FROM t y WHERE y.id < 6 ORDER BY 1');
SELECT * FROM read_check('SELECT y.id, l.* FROM t y, LATERAL (SELECT max(x.big->>''1''), min(x.big->>''2''), count(*) FILTER (WHERE x.big ? ''3'') FROM b x WHERE x.id % 50 = y.id) l ORDER BY 1');
-- Window functions: their input is stored; nothing moves, results as on heap.
SELECT * FROM read_check('SELECT id, first_value(big->>''1'') OVER w, max(big->>''2'') OVER w FROM b WINDOW w AS (PARTITION BY big->>''g'' ORDER BY id) ORDER BY id');
-- CTEs, materialized or not; UNION.
SELECT * FROM read_check('WITH c AS MATERIALIZED (SELECT id, big FROM b) SELECT max(big->>''1''), max(big->>''2'') FROM c');
SELECT * FROM read_check('WITH c AS NOT MATERIALIZED (SELECT id, big FROM b) SELECT max(big->>''1''), max(big->>''2'') FROM c');
SELECT * FROM read_check('SELECT big->>''1'', big->>''2'' FROM b WHERE id < 5 UNION SELECT big->>''3'', big->>''4'' FROM b WHERE id > 195 ORDER BY 1');
-- Partitions (hotheap): an aggregate above the Append reads every partition's rows.
CREATE TABLE p (id int, big jsonb) PARTITION BY RANGE (id);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (100) USING hotheap;
CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (100) TO (1000) USING hotheap;
INSERT INTO p SELECT id, big FROM b;
ANALYZE p;
EXPLAIN (VERBOSE, COSTS OFF) SELECT max(big->>'1'), max(big->>'2') FROM p;
SELECT * FROM read_check('SELECT max(big->>''1''), max(big->>''2''), count(*) FILTER (WHERE big ? ''9'') FROM p');
-- A scrollable cursor over a projection above a sort, fetched backward.
EXPLAIN (COSTS OFF) SELECT id, big->>'1' AS f1, big->>'2' AS f2 FROM (SELECT id, big FROM b ORDER BY id LIMIT 5) s;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, big->>'1' AS f1, big->>'2' AS f2 FROM (SELECT id, big FROM b ORDER BY id LIMIT 5) s;
FETCH LAST FROM c;
FETCH BACKWARD 2 FROM c;
FETCH ABSOLUTE 1 FROM c;
COMMIT;
BEGIN;
SET LOCAL hotplus.read_path = off;
DECLARE c SCROLL CURSOR FOR SELECT id, big->>'1' AS f1, big->>'2' AS f2 FROM (SELECT id, big FROM b ORDER BY id LIMIT 5) s;
FETCH LAST FROM c;
FETCH BACKWARD 2 FROM c;
FETCH ABSOLUTE 1 FROM c;
COMMIT;

DROP SCHEMA read_consumers CASCADE;
