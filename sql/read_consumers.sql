-- One detoasted copy per row, in every plan node that reads a toasted column (src/README.md
-- D14b, src/read/shared_markers.hpp): the references a copy may serve are wrapped in markers
-- where they are, in the scan's filter and output list, a join's quals and output list, an
-- aggregate's arguments and FILTERs, a window function's arguments, a projection; nothing
-- moves, no node is added. markers() shows where they went (per node: its groups, one column
-- as that node reads it, and how many references each wraps), shared() what they did (values
-- detoasted into a copy, references served by a copy made for another). Every query runs
-- against a heap twin of its table, or with the read path off, and must give the same rows,
-- the same errors, the same sizes and the same memory and temporary space.
-- Design points: D14b, D14c
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
-- where the markers go, and what they save
------------------------------------------------------------------------------------------
-- EXPLAIN shows heap's expressions: the markers are the executor's business.
EXPLAIN (VERBOSE, COSTS OFF) SELECT big->'1', big->'2', big->>'3' FROM b;
-- The scan's output list: one copy per row, two references served by it (heap: three
-- detoasts per row).
SELECT markers('SELECT big->''1'', big->''2'', big->>''3'' FROM b'),
       shared('SELECT big->''1'', big->''2'', big->>''3'' FROM b');
SELECT same, result FROM as_heap('SELECT id, big->''1'', big->''2'', big->>''3'' FROM b ORDER BY id', 'b', 'bh');
-- The scan's filter and output: a row the filter rejects first makes one copy, not two.
SELECT markers('SELECT big->>''1'', big->>''2'' FROM b WHERE big->>''3'' > ''8'''),
       shared('SELECT big->>''1'', big->>''2'' FROM b WHERE big->>''3'' > ''8''');
-- Aggregates: their arguments and FILTERs, evaluated by the Agg on each input row.
SELECT markers('SELECT max(big->>''1''), max(big->>''2''), min(big->>''3''), count(*) FILTER (WHERE big ? ''5''), max(big->>''10'') FROM b'),
       shared('SELECT max(big->>''1''), max(big->>''2''), min(big->>''3''), count(*) FILTER (WHERE big ? ''5''), max(big->>''10'') FROM b');
SELECT * FROM as_heap('SELECT max(big->>''1''), max(big->>''2''), min(big->>''3''), count(*) FILTER (WHERE big ? ''5''), max(big->>''10'') FROM b', 'b', 'bh');
-- GROUP BY an expression of big, hashed: the scan computes the key (one copy per row), the
-- aggregate's arguments are served from that very copy (the scan's row is the one the
-- aggregate reads, its copy alive until the scan's next row): one detoast per row.
SELECT markers('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM b GROUP BY 1'),
       shared('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM b GROUP BY 1');
SELECT * FROM as_heap('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM b GROUP BY 1 ORDER BY 1', 'b', 'bh');
-- Sorted: the sort holds the scan's rows as on heap (the key and the stored datum); the
-- aggregate makes its own copy per row.
SET enable_hashagg = off;
SELECT markers('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM b GROUP BY 1'),
       shared('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM b GROUP BY 1');
SELECT * FROM as_heap('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM b GROUP BY 1 ORDER BY 1', 'b', 'bh');
SELECT sort_space('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM b GROUP BY 1')
     = sort_space('SELECT big->>''g'', count(*), max(big->>''1''), min(big->>''2'') FROM bh GROUP BY 1') AS same_sort_memory;
RESET enable_hashagg;
-- Grouping sets, DISTINCT and ordered aggregates.
SELECT shared('SELECT big->>''g'', max(big->>''1''), max(big->>''2'') FROM b GROUP BY GROUPING SETS ((big->>''g''), ())');
-- (their plans differ between versions: 16 and later sort below an ordered aggregate, 18
-- mixes hashing and sorting in grouping sets)
SELECT same, result FROM as_heap('SELECT big->>''g'', max(big->>''1''), max(big->>''2'') FROM b GROUP BY GROUPING SETS ((big->>''g''), ()) ORDER BY 1', 'b', 'bh');
SELECT same, result FROM as_heap('SELECT string_agg(DISTINCT big->>''g'', '','' ORDER BY big->>''g''), count(DISTINCT big->>''1''), jsonb_agg(big->''2'' ORDER BY id)->>3 FROM b', 'b', 'bh');
-- Window functions: their arguments, on the rows of each frame.
SELECT markers('SELECT id, count(big->>''1'') OVER w, max(big->>''2'') OVER w, min(big->>''3'') OVER w FROM b WINDOW w AS (ORDER BY id)'),
       shared('SELECT id, count(big->>''1'') OVER w, max(big->>''2'') OVER w, min(big->>''3'') OVER w FROM b WINDOW w AS (ORDER BY id)');
SELECT * FROM as_heap('SELECT id, count(big->>''1'') OVER w, max(big->>''2'') OVER w, min(big->>''3'') OVER w FROM b WINDOW w AS (ORDER BY id) ORDER BY id', 'b', 'bh');
SELECT * FROM as_heap('SELECT id, first_value(big->>''1'') OVER w, last_value(big->>''2'') OVER w, nth_value(big->>''3'', 2) OVER w, lag(big->>''4'') OVER w FROM b WINDOW w AS (PARTITION BY big->>''g'' ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) ORDER BY id', 'b', 'bh');
-- Joins: their output lists and quals, on the rows they join. Hash (b probing, b hashed),
-- nested loop (b outer, b inner), merge.
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT markers('SELECT x.id, x.big->''1'', x.big->''2'', x.big->>''3'', y.x FROM b x JOIN t y ON x.k = y.id'),
       shared('SELECT x.id, x.big->''1'', x.big->''2'', x.big->>''3'', y.x FROM b x JOIN t y ON x.k = y.id');
SELECT * FROM as_heap('SELECT x.id, x.big->''1'', x.big->''2'', x.big->>''3'', y.x FROM b x JOIN t y ON x.k = y.id ORDER BY 1', 'b', 'bh');
SELECT markers('SELECT y.id, x.big->>''1'', x.big->>''2'' FROM t y JOIN b x ON x.id = y.id * 2 WHERE x.big->>''3'' > ''2'''),
       shared('SELECT y.id, x.big->>''1'', x.big->>''2'' FROM t y JOIN b x ON x.id = y.id * 2 WHERE x.big->>''3'' > ''2''');
RESET enable_mergejoin;
RESET enable_nestloop;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT markers('SELECT y.id, (x.big->>''n'')::int + 1, x.big->>''1'', x.big->>''2'' FROM t y JOIN b x ON x.id = y.id * 2'),
       shared('SELECT y.id, x.big->>''n'', x.big->>''1'', x.big->>''2'' FROM t y JOIN b x ON x.id = y.id * 2');
SELECT * FROM as_heap('SELECT y.id, (x.big->>''n'')::int + 1, x.big->>''1'', x.big->>''2'' FROM t y JOIN b x ON x.id = y.id * 2 ORDER BY 1', 'b', 'bh');
SELECT * FROM as_heap('SELECT y.id, x.big->>''1'', x.big->>''2'' FROM b x JOIN t y ON y.id = x.k WHERE x.big->>''3'' < x.big->>''4'' ORDER BY 1, 2', 'b', 'bh');
RESET enable_hashjoin;
RESET enable_mergejoin;
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT markers('SELECT x.id, x.big->>''1'', x.big->>''2'', y.big->>''3'', y.big->>''4'' FROM b x JOIN b y ON y.id = x.id + 1'),
       shared('SELECT x.id, x.big->>''1'', x.big->>''2'', y.big->>''3'', y.big->>''4'' FROM b x JOIN b y ON y.id = x.id + 1');
SELECT * FROM read_check('SELECT x.id, x.big->>''1'', x.big->>''2'', y.big->>''3'', y.big->>''4'' FROM b x JOIN b y ON y.id = x.id + 1 ORDER BY 1');
RESET enable_hashjoin;
RESET enable_nestloop;
-- A projection above other nodes, a subquery, a LIMIT; set-returning functions.
SELECT markers('SELECT s.big->>''1'', s.big->>''2'' FROM (SELECT id, big FROM b ORDER BY id DESC LIMIT 30) s'),
       shared('SELECT s.big->>''1'', s.big->>''2'' FROM (SELECT id, big FROM b ORDER BY id DESC LIMIT 30) s');
SELECT * FROM read_check('SELECT upper(note), lower(note), big->>''1'', big->>''2'' FROM (SELECT id, note, big FROM b ORDER BY id DESC LIMIT 30) s ORDER BY id');
SELECT * FROM as_heap('SELECT id, jsonb_object_keys(big) k, big->>''1'' FROM b WHERE id < 3 ORDER BY 1, 2 LIMIT 5', 'b', 'bh');
-- Partitions (hotheap): an aggregate above the Append of their scans.
CREATE TABLE p (id int, big jsonb) PARTITION BY RANGE (id);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (100) USING hotheap;
CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (100) TO (1000) USING hotheap;
INSERT INTO p SELECT id, big FROM b;
ANALYZE p;
SELECT markers('SELECT max(big->>''1''), max(big->>''2'') FROM p'),
       shared('SELECT max(big->>''1''), max(big->>''2'') FROM p');
SELECT * FROM read_check('SELECT max(big->>''1''), max(big->>''2''), count(*) FILTER (WHERE big ? ''9'') FROM p');
-- UPDATE: the scan's filter reads big twice per row (twenty rows).
BEGIN;
SELECT copies_made AS made0, copies_served AS served0 FROM hotplus_shared_detoast_counts() \gset
UPDATE b SET k = k + 100 WHERE big->>'1' < big->>'2' AND id <= 20;
SELECT copies_made - :made0 AS made, copies_served - :served0 AS served FROM hotplus_shared_detoast_counts();
ROLLBACK;

------------------------------------------------------------------------------------------
-- where they do not go
------------------------------------------------------------------------------------------
-- One reference: nothing to share. Nothing toastable read twice.
SELECT markers('SELECT max(big->>''1'') FROM b') AS one_reference,
       markers('SELECT max(x), sum(id), count(*) FILTER (WHERE x > 3) FROM t') AS nothing_toastable;
-- Consumers that may not read the whole value (the stored size or a slice: texteq and textne,
-- octet_length, substr, left, starts_with; length() in a single-byte encoding), nor any: a
-- marker would detoast what heap never does. Functions that report storage, or are not built
-- in: nothing below them.
SELECT markers('SELECT note = ''x'', note <> ''y'', octet_length(note), substr(note, 1, 3), left(note, 2), starts_with(note, ''a'') FROM b') AS partial_readers,
       markers('SELECT pg_column_size(big->''1''), pg_column_size(big->''2'') FROM b') AS below_storage,
       markers('SELECT num_nonnulls(big, big), pg_typeof(big) FROM b') AS type_or_nulls;
CREATE FUNCTION user_fn(jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS 'BEGIN RETURN $1; END';
SELECT markers('SELECT user_fn(big->''1''), user_fn(big->''2'') FROM b') AS below_user_function;
-- A strict consumer with an argument that may be NULL is not called on those rows: no marker
-- (k is NULL on some rows of kn; heap never detoasts big there).
CREATE TABLE kn (id int, k text, big jsonb) USING hotheap;
INSERT INTO kn SELECT id, CASE WHEN id % 2 = 0 THEN (id % 7)::text END, big FROM b;
ANALYZE kn;
SELECT markers('SELECT big->>k, big->>(k || ''1'') FROM kn') AS nullable_key,
       markers('SELECT big->>''1'', big->>''2'', big->>k FROM kn') AS constant_keys_only;
-- Columns that are not a hotheap table's as stored: a CTE's rows, a function's, an
-- expression's, a heap table's.
SELECT markers('WITH c AS MATERIALIZED (SELECT id, big FROM b) SELECT max(big->>''1''), max(big->>''2'') FROM c') AS cte,
       markers('SELECT max(j->>''1''), max(j->>''2'') FROM (SELECT big || ''{}'' AS j FROM b OFFSET 0) s') AS computed,
       markers('SELECT max(big->>''1''), max(big->>''2'') FROM bh') AS heap_table;
-- The read path off: no markers in new plans; plans made with them pass the stored value on.
SET hotplus.read_path = off;
SET hotplus.read_path_show_markers = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT max(big->>'1'), max(big->>'2') FROM b;
RESET hotplus.read_path_show_markers;
RESET hotplus.read_path;
SET plan_cache_mode = force_generic_plan;
PREPARE two_fields AS SELECT big->>'1', big->>'2' FROM b WHERE id <= 3;
SELECT copies_made AS made0, passed_stored AS passed0 FROM hotplus_shared_detoast_counts() \gset
EXECUTE two_fields;
SELECT copies_made - :made0 AS made, passed_stored - :passed0 AS passed FROM hotplus_shared_detoast_counts();
SET hotplus.read_path = off;
SELECT copies_made AS made0, passed_stored AS passed0 FROM hotplus_shared_detoast_counts() \gset
EXECUTE two_fields;
SELECT copies_made - :made0 AS made, passed_stored - :passed0 AS passed FROM hotplus_shared_detoast_counts();
RESET hotplus.read_path;
RESET plan_cache_mode;
DEALLOCATE two_fields;

------------------------------------------------------------------------------------------
-- exactly heap: whole rows, conditional calls, errors, sizes, memory
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

-- Whole-row references, views, security-barrier views.
SELECT * FROM as_heap('SELECT to_jsonb(s) - ''x'', s.x->>''g'', s.x->>''1'' FROM (SELECT id, big AS x FROM b OFFSET 0) s ORDER BY s.id LIMIT 2', 'b', 'bh');
SELECT * FROM as_heap('SELECT count(*) FILTER (WHERE s IS NOT NULL), max(s.x->>''1''), max(s.x->>''2'') FROM (SELECT id, big AS x FROM b OFFSET 0) s', 'b', 'bh');
CREATE VIEW bv AS SELECT id, big FROM b WHERE id % 2 = 0;
CREATE VIEW bhv AS SELECT id, big FROM bh WHERE id % 2 = 0;
CREATE VIEW bsv WITH (security_barrier) AS SELECT id, big FROM b WHERE id % 3 = 0;
CREATE VIEW bhsv WITH (security_barrier) AS SELECT id, big FROM bh WHERE id % 3 = 0;
SELECT * FROM as_heap('SELECT length(bv::text), bv.big->>''1'', bv.big->>''2'' FROM bv ORDER BY id LIMIT 3', 'bv', 'bhv');
SELECT * FROM as_heap('SELECT md5(bsv::text), bsv.big->>''1'', bsv.big->>''2'' FROM bsv ORDER BY id LIMIT 3', 'bsv', 'bhsv');

-- Calls heap evaluates only on some rows: behind a row comparison, a subscript of a NULL
-- array, CASE, COALESCE, AND, OR, NULLIF, a strict function with a NULL argument, a FILTER.
-- jsonb_array_length() fails on the objects: heap never calls it there, nor does the marker
-- in its place detoast the value there.
SELECT * FROM as_heap('SELECT count(*) FILTER (WHERE ROW(jsonb_typeof(big), jsonb_array_length(big)) > ROW(''array'', 0)), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT count(*) FILTER (WHERE ROW(id % 2, jsonb_array_length(big)) = ROW(0, 600)), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(arr[jsonb_array_length(big) - 598]), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(CASE WHEN jsonb_typeof(big) = ''array'' THEN jsonb_array_length(big) END), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(COALESCE(id % 2 + 1, jsonb_array_length(big))), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT count(*) FILTER (WHERE jsonb_typeof(big) = ''array'' AND jsonb_array_length(big) > 0), count(*) FILTER (WHERE jsonb_typeof(big) = ''object'' OR jsonb_array_length(big) > 0), max(big->>''1''), max(big->>''2'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(NULLIF(id % 2, 1) + 0), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(int4pl(arr[1], jsonb_array_length(big))), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(jsonb_array_length(big)) FILTER (WHERE id % 2 = 0), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
-- CASE branches only taken on some rows copy only there: one copy per row that takes one.
SELECT shared('SELECT CASE WHEN id % 10 = 0 THEN (big->>''1'') || (big->>''2'') END FROM c') AS case_branch,
       shared('SELECT max(big->>''1'') FILTER (WHERE id % 10 = 0), max(big->>''2'') FILTER (WHERE id % 10 = 0) FROM c') AS filtered;
-- Which error a row raises, and on which row: heap's (row 5: n = 0, an object).
SELECT * FROM as_heap('SELECT sum(1 / n), max(big->>''g''), max(big->>''1'') FROM c', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(1 / n), sum(jsonb_array_length(big)), max(big->>''1''), max(big->>''2'') FROM c WHERE id >= 5', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum(jsonb_array_length(big)), sum(1 / n), max(big->>''1''), max(big->>''2'') FROM c WHERE id >= 5', 'c', 'ch');
SELECT * FROM as_heap('SELECT sum((big->>''n'')::int), max(big->>''1''), max(big->>''2'') FROM b', 'b', 'bh');

-- Sizes and stored forms: what a consumer returns is what heap's call returns (f: the first
-- row of every ten holds the largest short value); a copy never leaves through a bare column,
-- COALESCE, NULLIF's first argument or an argument a function returns as received.
CREATE TABLE f (id int PRIMARY KEY, big jsonb, note text) USING hotheap WITH (autovacuum_enabled = off);
INSERT INTO f SELECT i, (SELECT jsonb_object_agg(k::text, md5((i * k)::text)) FROM generate_series(1, 600) k)
                        || jsonb_build_object('z', CASE WHEN i % 10 = 0 THEN 'zz' ELSE 'a' || i END),
                     repeat(md5(i::text), 200)
FROM generate_series(0, 99) i;
CREATE TABLE fh (LIKE f INCLUDING ALL) USING heap;
INSERT INTO fh SELECT * FROM f;
VACUUM ANALYZE f, fh;
SELECT * FROM as_heap('SELECT pg_column_size(max(big->>''z'')), sum(pg_column_size(big->''z'')), max(pg_column_size(big->''z'')), max(pg_column_compression(big->>''1'')) FROM f', 'f', 'fh');
SET enable_hashagg = off;
SELECT * FROM as_heap('SELECT id / 10, pg_column_size(max(big->>''z'')), max(pg_column_size(big->''z'')), max(big->>''1'') FROM f GROUP BY 1 ORDER BY 1 LIMIT 3', 'f', 'fh');
RESET enable_hashagg;
SELECT * FROM as_heap('SELECT pg_column_size(big->>''z''), pg_column_size(big->''z''), big->>''1'' FROM (SELECT id, big FROM f ORDER BY id LIMIT 3) s', 'f', 'fh');
SELECT * FROM as_heap('SELECT id, pg_column_size(x), pg_column_compression(x), y, z FROM (SELECT id, COALESCE(big, ''{}''), big->''1'', big->''2'' FROM f OFFSET 0) s(id, x, y, z) ORDER BY id LIMIT 3', 'f', 'fh');
SELECT * FROM as_heap('SELECT id, pg_column_size(x), pg_column_compression(x), pg_column_size(r), y FROM (SELECT id, note::varchar(100000), replace(note, ''#'', ''-''), md5(note) FROM f OFFSET 0) s(id, x, r, y) ORDER BY id LIMIT 3', 'f', 'fh');
SELECT markers('SELECT note::varchar(100000), replace(note, ''#'', ''-''), md5(note) FROM f') AS aliasing_consumers;
-- and what a table stores from them is what it stores on heap
CREATE TABLE stored_from (on_heap boolean, x varchar, r text);
INSERT INTO stored_from SELECT false, note::varchar(100000), replace(note, '#', '-') FROM f WHERE md5(note) > '8';
INSERT INTO stored_from SELECT true, note::varchar(100000), replace(note, '#', '-') FROM fh WHERE md5(note) > '8';
SELECT on_heap, count(*), sum(pg_column_size(x)) AS x_size, sum(pg_column_size(r)) AS r_size,
       string_agg(DISTINCT coalesce(pg_column_compression(x), 'none'), ',') AS x_compression
FROM stored_from GROUP BY on_heap ORDER BY on_heap;

-- Memory and temporary space: spilling hash aggregates, sorts, multi-batch hash joins and
-- window frames store heap's rows, and the copies of their rows re-read are made again (s:
-- 3,000 rows whose 3 kB jsonb is stored out of line; sk their ids).
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
SELECT markers(q), temp_written(q) > 0 AS spilled, temp_written(q) = temp_written(replace(q, ' s ', ' sh ')) AS same_temp,
       outcome(q) = outcome(replace(q, ' s ', ' sh ')) AS same
  FROM (VALUES ('SELECT count(*), max(m1), max(m2), max(m3) FROM (SELECT id % 1000 AS g, max(big->>''1'') m1, max(big->>''2'') m2, max(big->>''3'') m3 FROM s GROUP BY 1) q')) v(q);
RESET enable_sort;
SET enable_hashagg = off;
SELECT markers(q), temp_written(q) > 0 AS spilled, temp_written(q) = temp_written(replace(q, ' s ', ' sh ')) AS same_temp,
       outcome(q) = outcome(replace(q, ' s ', ' sh ')) AS same
  FROM (VALUES ('SELECT count(*), max(m1), max(m2), max(m3) FROM (SELECT id % 1000 AS g, max(big->>''1'') m1, max(big->>''2'') m2, max(big->>''3'') m3 FROM s GROUP BY 1) q')) v(q);
RESET enable_hashagg;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT markers(q), temp_written(q) > 0 AS spilled, temp_written(q) = temp_written(replace(q, ' s ', ' sh ')) AS same_temp,
       outcome(q) = outcome(replace(q, ' s ', ' sh ')) AS same, shared(q)
  FROM (VALUES ('SELECT max(a), max(b) FROM (SELECT x.big->>''1'' a, x.big->>''2'' b FROM s x JOIN sk y ON y.id = x.id OFFSET 0) q'),
               ('SELECT max(a), max(b) FROM (SELECT x.big->>''1'' a, x.big->>''2'' b FROM sk y JOIN s x ON y.id = x.id OFFSET 0) q')) v(q);
RESET enable_mergejoin;
RESET enable_nestloop;
SELECT markers(q), temp_written(q) > 0 AS spilled, temp_written(q) = temp_written(replace(q, ' s ', ' sh ')) AS same_temp,
       outcome(q) = outcome(replace(q, ' s ', ' sh ')) AS same
  FROM (VALUES ('SELECT max(f1), max(f2) FROM (SELECT id, max(big->>''1'') OVER w f1, min(big->>''2'') OVER w f2 FROM s WINDOW w AS (ORDER BY id ROWS BETWEEN 30 PRECEDING AND CURRENT ROW)) q')) v(q);
RESET work_mem;

-- Cursors moving backwards over a projection of a sort; a nested loop rescanning its inner
-- side; a correlated subplan.
BEGIN;
DECLARE cur SCROLL CURSOR FOR SELECT id, big->>'1' AS f1, big->>'2' AS f2 FROM (SELECT id, big FROM b ORDER BY id LIMIT 5) s;
FETCH LAST FROM cur;
FETCH BACKWARD 2 FROM cur;
FETCH ABSOLUTE 1 FROM cur;
COMMIT;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT * FROM as_heap('SELECT y.id, x.id, x.big->>''1'' > x.big->>''2'' FROM t y JOIN b x ON x.big->>''g'' = (y.id % 4)::text WHERE y.id < 4 ORDER BY 1, 2 LIMIT 20', 'b', 'bh');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
SELECT * FROM as_heap('SELECT y.id, (SELECT max(x.big->>''1'') || max(x.big->>''2'') FROM b x WHERE x.id <= y.id) FROM t y WHERE y.id < 6 ORDER BY 1', 'b', 'bh');

------------------------------------------------------------------------------------------
-- few rows (D14c): markers where this backend met the column's values stored compressed or
-- out of line; over more rows, where the table says they may be
------------------------------------------------------------------------------------------
RESET hotplus.read_path_everywhere;
CREATE TABLE sd (id int PRIMARY KEY, doc jsonb, pad text) USING hotheap;
INSERT INTO sd SELECT i, jsonb_build_object('a', i, 'b', md5(i::text)), NULL FROM generate_series(1, 100) i;
ANALYZE sd;
-- Short in-line documents, no TOAST block: no markers.
SELECT markers('SELECT max(doc->>''a''), max(doc->>''b'') FROM sd') AS short_values;
-- Once the TOAST relation has a block: over all rows, markers; for one row, not yet.
UPDATE sd SET pad = (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 400) i) WHERE id = 100;
ALTER TABLE sd ALTER pad SET STORAGE EXTERNAL;
UPDATE sd SET pad = pad || '' WHERE id = 100;
\c
SET search_path = read_consumers, public;
SELECT pg_relation_size(reltoastrelid) > 0 AS toast_has_blocks FROM pg_class WHERE oid = 'read_consumers.sd'::regclass;
SELECT markers('SELECT max(doc->>''a''), max(doc->>''b'') FROM sd') AS all_rows,
       markers('SELECT doc->>''a'', doc->>''b'' FROM sd WHERE id = 7') AS one_row;
-- b's TOAST relation holds kilobytes per row of b: markers for one row even before this backend
-- met a value (read_path tests a backend that met one, on a table of a few TOAST blocks).
SELECT markers('SELECT big->>''1'', big->>''2'' FROM b WHERE id = 7') AS before_meeting;
SELECT shared('SELECT big->>''1'', big->>''2'' FROM b WHERE id <= 30') AS meeting;
SELECT markers('SELECT big->>''1'', big->>''2'' FROM b WHERE id = 7') AS after_meeting,
       shared('SELECT big->>''1'', big->>''2'' FROM b WHERE id = 7') AS one_row_shared;

DROP SCHEMA read_consumers CASCADE;
