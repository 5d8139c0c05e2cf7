-- The read path (src/README.md D14, D14b, D14c): a HotheapRead node above scans of hotheap
-- tables deforms only the columns a query reads; a value read by several expressions is
-- detoasted once per row (the shared detoast markers, which read_consumers tests in every
-- kind of node). Every query below runs with hotplus.read_path on and off (fresh plans each
-- time) and must give the same rows; read_check() also reports whether the plan used the
-- node, markers() where the markers went and shared() what they did, so a test that stopped
-- exercising the read path shows up as a changed expected output.
-- Design points: D8, D14, D14b, D14c
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA read_path;
SET search_path = read_path, public;
SET default_toast_compression = pglz;
SET max_parallel_workers_per_gather = 0;
-- The node's behaviour is tested on small tables, where the cost model (core/read_plan.hpp,
-- D14c) leaves scans of few rows to heap's plan: a node wherever one could serve, markers
-- wherever a column is read twice. The model's own decisions are tested at the end, with the
-- default.
SET hotplus.read_path_everywhere = on;

\i test/sql_helpers/read_helpers.sql

-- Seed 003's shape: many fixed-width columns, NULLs in some rows, a varlena in the middle.
CREATE TABLE wide (
  c1 int NOT NULL, c2 int, c3 bigint, c4 smallint, c5 int, c6 text, c7 int, c8 float8,
  c9 int, c10 int, c11 numeric, c12 int, c13 bool, c14 int, c15 date, c16 int
) USING hotheap WITH (autovacuum_enabled = off);
INSERT INTO wide
SELECT g, nullif(g % 5, 0), g * 1000000000::bigint, (g % 300)::smallint, g % 7,
       CASE WHEN g % 11 = 0 THEN NULL ELSE repeat('x', g % 40) END, g % 13, g / 3.0,
       nullif(g % 3, 1), g % 17, (g / 7.0)::numeric(10, 3), g % 19, g % 2 = 0, g % 23,
       date '2024-01-01' + g, g
FROM generate_series(1, 3000) g;
CREATE INDEX wide_c1 ON wide (c1);
CREATE INDEX wide_c14 ON wide (c14);
ANALYZE wide;

EXPLAIN (VERBOSE, COSTS OFF) SELECT c16 FROM wide WHERE c14 = 3;
EXPLAIN (VERBOSE, COSTS OFF) SELECT c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16 FROM wide;
-- fixed offsets, NULLs before the wanted column, a varlena before it
SELECT * FROM read_check('SELECT c16, c12 FROM wide WHERE c14 = 3 ORDER BY c16');
SELECT * FROM read_check('SELECT c10 FROM wide WHERE c9 IS NULL ORDER BY c10, c16');
SELECT * FROM read_check('SELECT c15, c16 FROM wide WHERE c13 AND c16 % 100 = 0');
SELECT * FROM read_check('SELECT c11 FROM wide WHERE c16 BETWEEN 10 AND 40 OR c14 IN (1, 2)');
-- quals and outputs of any shape, system columns, a whole-row reference
SELECT * FROM read_check('SELECT c16 + c14, CASE WHEN c12 > 5 THEN c11 END FROM wide WHERE c14 = 4 AND (c12 > 3 OR c16 IS NULL)');
SELECT * FROM read_check('SELECT ctid, c16, tableoid::regclass FROM wide WHERE c14 = 5 ORDER BY ctid');
SELECT * FROM read_check('SELECT wide::text FROM wide WHERE c14 = 6 ORDER BY c16');
-- index and bitmap heap scans under the node
SET enable_seqscan = off;
SELECT * FROM read_check('SELECT c16, c12 FROM wide WHERE c14 = 7 ORDER BY c16');
SET enable_indexscan = off;
SELECT * FROM read_check('SELECT c16, c12 FROM wide WHERE c14 = 7 ORDER BY c16');
RESET enable_seqscan;
RESET enable_indexscan;
-- parameterized index scans rescanned by a nested loop, LATERAL
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT * FROM read_check('SELECT a.c16, b.c16 FROM wide a JOIN wide b ON b.c1 = a.c14 WHERE a.c16 < 60 ORDER BY 1, 2');
SELECT * FROM read_check('SELECT a.c16, l.c12 FROM wide a, LATERAL (SELECT c12 FROM wide b WHERE b.c14 = a.c14 AND b.c16 < a.c16 ORDER BY c16 DESC LIMIT 1) l WHERE a.c16 < 40 ORDER BY 1');
RESET enable_hashjoin;
RESET enable_mergejoin;
-- merge join over an index scan that must mark and restore
SET enable_hashjoin = off;
SET enable_nestloop = off;
SET enable_sort = off;
SET enable_seqscan = off;
SET enable_material = off;
-- (the inner side computes an expression of an outer join: a scan with its own output list)
EXPLAIN (COSTS OFF) SELECT a.c16, b.x FROM wide a LEFT JOIN (SELECT c14, coalesce(c16, 0) + c12 AS x FROM wide WHERE c16 < 200) b ON b.c14 = a.c14 WHERE a.c16 < 30;
SELECT * FROM read_check('SELECT a.c16, b.x FROM wide a LEFT JOIN (SELECT c14, coalesce(c16, 0) + c12 AS x FROM wide WHERE c16 < 200) b ON b.c14 = a.c14 WHERE a.c16 < 30 ORDER BY 1, 2');
RESET enable_hashjoin;
RESET enable_nestloop;
RESET enable_sort;
RESET enable_seqscan;
RESET enable_material;
-- correlated subplans reading columns of the scanned row
SELECT * FROM read_check('SELECT c16, (SELECT count(*) FROM wide b WHERE b.c14 = a.c7) FROM wide a WHERE c16 < 30 ORDER BY 1');
SELECT * FROM read_check('SELECT c16 FROM wide a WHERE EXISTS (SELECT 1 FROM wide b WHERE b.c1 = a.c12 + 1 AND b.c13) AND c16 < 100 ORDER BY 1');

-- Selective deformation over every pair of columns of a table mixing alignments (char,
-- short, int, double), fixed and variable widths, short and long varlenas, rows with and
-- without NULLs: each pair read with the read path on must equal the read with it off.
CREATE TABLE mixed (
  m1 int2, m2 int8, m3 int4, m4 text, m5 int2, m6 int4, m7 float8, m8 bool, m9 "char",
  m10 int8, m11 varchar(20), m12 int4, m13 int2, m14 numeric, m15 bool, m16 int4,
  m17 text, m18 float4, m19 int8, m20 int2, m21 name, m22 int4, m23 bytea, m24 int4
) USING hotheap;
INSERT INTO mixed
SELECT g % 7, g * 3, g, CASE WHEN g % 4 = 0 THEN repeat('t', g * 37 % 300) ELSE 'ab' END,
       g % 5, g * 11, g / 7.0, g % 2 = 0, chr(65 + g % 26)::"char", g * 1000003, 'v' || g,
       g % 9, g % 3, g / 3.0, g % 3 = 0, g * 13, repeat('x', g % 9), g / 3.0, g * 7, g % 11,
       'n' || g, g * 17, decode(repeat('ab', g % 5), 'hex'), g
FROM generate_series(1, 120) g;
-- the same rows again with NULLs sprinkled in
INSERT INTO mixed
SELECT CASE WHEN g % 3 = 0 THEN NULL ELSE m1 END, m2, CASE WHEN g % 5 = 0 THEN NULL ELSE m3 END,
       CASE WHEN g % 2 = 0 THEN NULL ELSE m4 END, m5, m6, m7, CASE WHEN g % 7 = 0 THEN NULL ELSE m8 END,
       m9, m10, m11, m12, CASE WHEN g % 4 = 0 THEN NULL ELSE m13 END, m14, m15, m16, m17, m18,
       CASE WHEN g % 6 = 0 THEN NULL ELSE m19 END, m20, m21, m22, m23, m24 + 1000
FROM (SELECT row_number() OVER () AS g, * FROM mixed) s;
DO $d$
DECLARE
  i int;
  j int;
  q text;
  r record;
  served int := 0;
  different int := 0;
BEGIN
  FOR i IN 1..24 LOOP
    FOR j IN i..24 LOOP
      q := format('SELECT m%s::text || ''|'' || m%s::text AS x, m24 AS o FROM mixed', i, j);
      SELECT * INTO r FROM read_check(q || ' ORDER BY o');
      IF r.plan = 'HotheapRead' THEN served := served + 1; END IF;
      IF NOT r.same THEN
        different := different + 1;
        RAISE NOTICE 'columns % and % differ', i, j;
      END IF;
    END LOOP;
  END LOOP;
  RAISE NOTICE '% column pairs read, % through HotheapRead, % different', 24 * 25 / 2, served, different;
END
$d$;

-- Columns dropped and added later with a default (not stored in the older rows).
CREATE TABLE evolved (LIKE wide) USING hotheap;
INSERT INTO evolved SELECT * FROM wide WHERE c16 <= 500;
ALTER TABLE evolved DROP COLUMN c3;
ALTER TABLE evolved ADD COLUMN c17 int NOT NULL DEFAULT 42, ADD COLUMN c18 text DEFAULT 'missing';
INSERT INTO evolved SELECT c1, c2, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c16 % 3, NULL
FROM wide WHERE c16 > 500 AND c16 <= 1000;
EXPLAIN (VERBOSE, COSTS OFF) SELECT c17, c18 FROM evolved WHERE c14 = 3;
SELECT * FROM read_check('SELECT c16, c17, c18 FROM evolved WHERE c14 = 3 ORDER BY c16');
SELECT * FROM read_check('SELECT count(*), sum(c17), count(c18) FROM evolved WHERE c12 = 1');

-- Seed 004's shape: a big jsonb read several times, stored compressed or out of line.
CREATE TABLE docs (id int PRIMARY KEY, big jsonb, note text, small jsonb) USING hotheap;
INSERT INTO docs
SELECT g, (SELECT jsonb_object_agg(k::text, md5((g * k)::text) || CASE WHEN g % 2 = 0 THEN md5(k::text) ELSE '' END)
           FROM generate_series(1, CASE WHEN g % 5 = 0 THEN 3 ELSE 700 END) k),
       CASE WHEN g % 4 = 0 THEN NULL ELSE repeat(md5(g::text), g % 300) END,
       jsonb_build_object('a', g, 'b', g % 3)
FROM generate_series(1, 60) g;
UPDATE docs SET big = NULL WHERE id % 7 = 0;
ALTER TABLE docs ALTER COLUMN note SET STORAGE EXTERNAL;
INSERT INTO docs SELECT 100 + id, big, note || 'x', small FROM docs WHERE id <= 20;
ANALYZE docs;
SELECT count(*) FILTER (WHERE pg_column_size(big) < octet_length(big::text)) AS compressed_or_external
FROM docs;
-- EXPLAIN shows heap's expressions; the markers are in the scan's output list.
EXPLAIN (VERBOSE, COSTS OFF) SELECT big->'1', big->'2', big->>'3' FROM docs;
SELECT markers('SELECT big->''1'', big->''2'', big->>''3'' FROM docs') AS three_references,
       markers('SELECT big->''1'' FROM docs') AS one_reference;
-- One copy per row whose big is compressed or out of line, however many expressions read
-- it, none for inline values (rows 5, 10 and 15 hold three keys, 16 and 17 seven hundred).
-- (shared(): test/sql_helpers/read_helpers.sql)
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT shared('SELECT big->''1'', big->''2'' FROM docs WHERE id IN (5, 10, 15, 16, 17)');
SELECT shared('SELECT big->''1'', big->''2'' FROM docs WHERE id IN (5, 10, 15)');
SELECT * FROM read_check('SELECT id, big->''1'', big->>''2'', big->''700'' FROM docs WHERE id IN (5, 10, 15, 16, 17)');
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT * FROM read_check('SELECT id, big->''1'', big->''2'', big->>''3'', big->''700'' FROM docs ORDER BY id');
SELECT * FROM read_check('SELECT id FROM docs WHERE big->>''5'' > big->>''6'' AND big ? ''7'' ORDER BY id');
SELECT * FROM read_check('SELECT id, note || ''!'', length(note), substr(note, 5, 10), note FROM docs WHERE note LIKE ''%a%'' ORDER BY id');
-- pg_column_size reports how the value is stored: never the shared detoasted copy's size
SELECT * FROM read_check('SELECT id, pg_column_size(big), big->''1'', big->''2'', pg_column_size(note), note > '''', note < ''z'' FROM docs ORDER BY id');
-- a value that leaves the node is heap's datum: the stored one where an expression returns
-- its argument as received (COALESCE; NULLIF's first argument is never a shared copy), the
-- detoasted one where a function detoasted its argument and returned it (varchar(n), replace
-- without a match), as heap's own call would (test/differential/function_results.py asks
-- every built-in function)
SELECT * FROM read_check('SELECT id, pg_column_size(x), y, z FROM (SELECT id, COALESCE(big, ''{}''), big->''1'', big->''2'' FROM docs OFFSET 0) s(id, x, y, z) ORDER BY id');
SELECT * FROM read_check('SELECT id, pg_column_size(x), y, z FROM (SELECT id, NULLIF(note, ''''), note > ''a'', length(note) FROM docs OFFSET 0) s(id, x, y, z) ORDER BY id');
SELECT * FROM read_check('SELECT id, pg_column_size(x), pg_column_compression(x), pg_column_size(r), y FROM (SELECT id, note::varchar(100000), replace(note, ''#'', ''-''), length(note) FROM docs OFFSET 0) s(id, x, r, y) ORDER BY id');
-- and what a table stores from them is what it stores on heap
CREATE TABLE stored_from (on_heap boolean, x varchar, r text);
INSERT INTO stored_from SELECT false, note::varchar(100000), replace(note, '#', '-') FROM docs WHERE length(note) > 1000;
SET hotplus.read_path = off;
INSERT INTO stored_from SELECT true, note::varchar(100000), replace(note, '#', '-') FROM docs WHERE length(note) > 1000;
RESET hotplus.read_path;
SELECT on_heap, count(*), sum(pg_column_size(x)) AS x_size, sum(pg_column_size(r)) AS r_size,
       string_agg(DISTINCT coalesce(pg_column_compression(x), 'none'), ',') AS x_compression
FROM stored_from GROUP BY on_heap ORDER BY on_heap;
DROP TABLE stored_from;
-- seed 004's warning: the bare column goes up as stored, the sort sees heap's datums
EXPLAIN (VERBOSE, COSTS OFF) SELECT big, big->'1' FROM docs ORDER BY big->'2';
SELECT * FROM read_check('SELECT md5(big::text), pg_column_size(big), big->''1'' FROM (SELECT big FROM docs ORDER BY big->''2'', id) s');
-- whole rows and aggregates over shared columns
SELECT * FROM read_check('SELECT d::text FROM docs d WHERE big->>''1'' < big->>''2'' ORDER BY id');
SELECT * FROM read_check('SELECT big->>''2'', count(*), max(big->>''3'') FROM docs GROUP BY 1 ORDER BY 1');
-- Ordered aggregates: their arguments are served by one copy per row (16 and later plan a Sort
-- below the Agg, presorted aggregates: it holds heap's rows).
SELECT markers('SELECT jsonb_agg(big->''1'' ORDER BY id), string_agg(big->>''2'', '','' ORDER BY id) FROM docs') AS ordered,
       same FROM read_check('SELECT jsonb_agg(big->''1'' ORDER BY id), string_agg(big->>''2'', '','' ORDER BY id) FROM docs');

-- Below a function that reports storage, even through a function that returns its argument
-- (NULLIF, a length coercion), the stored datum is what it sees.
CREATE TABLE shown (id int, v text, w varchar(100)) USING hotheap;
INSERT INTO shown VALUES (1, 'abc', 'abc'), (2, repeat('xyz', 5000), repeat('xyz', 30));
SELECT * FROM read_check('SELECT id, pg_column_size(NULLIF(v, ''zz'')), pg_column_compression(NULLIF(v, ''zz'')), length(v), v > ''a'' FROM shown ORDER BY id');
SELECT * FROM read_check('SELECT id, pg_column_size(w::varchar(50)), length(w), w > ''a'', w < ''z'' FROM shown ORDER BY id');
SELECT id, pg_column_size(NULLIF(v, 'zz')), pg_column_compression(NULLIF(v, 'zz')), length(v), v > 'a'
FROM shown ORDER BY id;
-- A node without a projection hands the scan's row up: the node above deforms it itself.
SELECT * FROM read_check('SELECT shown.id, shown.v = shown.w, x FROM shown, (VALUES (1), (2)) v(x) WHERE shown.v > ''a'' OR shown.v LIKE ''x%'' ORDER BY 1, 3');
SELECT s.id, length(s.w), x FROM shown s, (VALUES (1), (2)) v(x) WHERE s.v > 'a' OR s.v LIKE 'x%' ORDER BY 1, 3;

-- Prepared statements, custom and generic plans.
PREPARE fetch5(int) AS SELECT big->'1', big->'2', big->'3', big->'5', big->'10' FROM docs WHERE id = $1;
EXECUTE fetch5(3); EXECUTE fetch5(4); EXECUTE fetch5(5); EXECUTE fetch5(6); EXECUTE fetch5(8);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE fetch5(9);
EXECUTE fetch5(9);
SELECT copies_made AS made0, copies_served AS served0 FROM hotplus_shared_detoast_counts() \gset
EXECUTE fetch5(9);
SELECT copies_made - :made0 AS made, copies_served - :served0 AS served FROM hotplus_shared_detoast_counts();
-- planned with the read path, run without it: the markers pass the stored values on, same
-- rows (expected/read_path_1.out: with debug_discard_caches the plan is made again, without
-- markers)
SET hotplus.read_path = off;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE fetch5(9);
SELECT copies_made AS made0, passed_stored AS passed0 FROM hotplus_shared_detoast_counts() \gset
EXECUTE fetch5(9);
SELECT copies_made - :made0 AS made, passed_stored - :passed0 AS passed FROM hotplus_shared_detoast_counts();
RESET hotplus.read_path;
RESET plan_cache_mode;
DEALLOCATE fetch5;
-- new plans with the read path off have no node, no marker
SET hotplus.read_path = off;
SET hotplus.read_path_show_markers = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT big->'1', big->'2' FROM docs;
EXPLAIN (COSTS OFF) SELECT c16, c12 FROM wide WHERE c14 = 8;
RESET hotplus.read_path_show_markers;
RESET hotplus.read_path;

-- Scrollable cursors moving backwards; WHERE CURRENT OF through the node.
SET enable_bitmapscan = off;
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT c16, c12 FROM wide WHERE c14 = 8;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT c16, c12 FROM wide WHERE c14 = 8;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH ABSOLUTE 5 FROM c;
FETCH PRIOR FROM c;
MOVE LAST IN c;
FETCH BACKWARD 1 FROM c;
COMMIT;
RESET enable_bitmapscan;
RESET enable_indexscan;
EXPLAIN (COSTS OFF) DECLARE u CURSOR FOR SELECT c16, c12 FROM wide WHERE c14 = 9;
BEGIN;
DECLARE u CURSOR FOR SELECT c16, c12 FROM wide WHERE c14 = 9;
FETCH 2 FROM u;
UPDATE wide SET c12 = -1 WHERE CURRENT OF u RETURNING c16, c12;
COMMIT;
SELECT c16, c12 FROM wide WHERE c12 = -1;

-- Row locks and DML through the node (the same scan decides which rows change).
SELECT * FROM read_check('SELECT c16 FROM wide WHERE c14 = 10 AND c16 < 500 ORDER BY c16 FOR UPDATE');
BEGIN;
UPDATE wide SET c10 = c10 + 100 WHERE c14 = 11 AND c16 < 300 RETURNING c16, c10;
DELETE FROM docs WHERE big->>'1' < big->>'2' AND id > 100 RETURNING id;
ROLLBACK;

-- Partitions and inheritance: the node sits above each hotheap child's scan.
CREATE TABLE parted (k int, c2 int, c3 int, c4 int, c5 int, c6 int, c7 int, c8 int, c9 int, c10 int)
  PARTITION BY RANGE (k);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (100) USING hotheap;
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (100) TO (200) USING heap;
INSERT INTO parted SELECT g % 200, g, g, g, g, g, g, g, g % 5, g FROM generate_series(1, 2000) g;
CREATE TABLE inh_parent (LIKE parted) USING hotheap;
CREATE TABLE inh_child () INHERITS (inh_parent) USING hotheap;
INSERT INTO inh_child SELECT * FROM parted;
EXPLAIN (COSTS OFF) SELECT c10 FROM parted WHERE c9 = 1;
SELECT * FROM read_check('SELECT k, c10 FROM parted WHERE c9 = 1 ORDER BY c10');
SELECT * FROM read_check('SELECT c10 FROM inh_parent WHERE c9 = 2 ORDER BY c10');

-- Row-level security: the policy's expression is part of the filter the node evaluates.
CREATE ROLE read_path_reader;
GRANT USAGE ON SCHEMA read_path TO read_path_reader;
GRANT SELECT ON wide TO read_path_reader;
ALTER TABLE wide ENABLE ROW LEVEL SECURITY;
CREATE POLICY only_small ON wide FOR SELECT USING (c14 < 3);
SET ROLE read_path_reader;
EXPLAIN (COSTS OFF) SELECT c16 FROM wide WHERE c12 = 2;
SELECT * FROM read_check('SELECT c16 FROM wide WHERE c12 = 2 ORDER BY c16');
RESET ROLE;
ALTER TABLE wide DISABLE ROW LEVEL SECURITY;

-- Parallel sequential scans: the node runs in each worker above its part of the scan.
ALTER TABLE wide SET (parallel_workers = 2);
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT c16 FROM wide WHERE c14 = 12;
SELECT * FROM read_check('SELECT c16 FROM wide WHERE c14 = 12 ORDER BY c16');
SELECT * FROM read_check('SELECT count(*), sum(c16) FROM wide WHERE c12 = 3');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- JIT-compiled filters and outputs (where the server has JIT).
SET jit = on;
SET jit_above_cost = 0;
SET jit_inline_above_cost = 0;
SET jit_optimize_above_cost = 0;
SELECT * FROM read_check('SELECT c16, c11 FROM wide WHERE c14 = 13 AND c9 IS NOT NULL ORDER BY c16');
SELECT * FROM read_check('SELECT id, big->''1'', big->>''2'' FROM docs WHERE big->>''3'' IS NOT NULL ORDER BY id');
RESET jit;
RESET jit_above_cost;
RESET jit_inline_above_cost;
RESET jit_optimize_above_cost;

-- The update path's TOAST reuse: values stored again by a write-back read back the same.
UPDATE docs SET big = big::text::jsonb, note = note || '' WHERE id <= 10;
SELECT * FROM read_check('SELECT id, big->''1'', big->''2'', note > '''', length(note) FROM docs WHERE id <= 10 ORDER BY id');

RESET ROLE;

-- The cost model (D14c), with the default: a node only where it repays its start within the
-- rows its scan reads (wide: 16 columns, c1 and c16 read, 14 skipped: from 28 rows read),
-- whatever the scan returns; no more than a LIMIT above asks for.
RESET hotplus.read_path_everywhere;
SELECT read_nodes('SELECT c16 FROM wide WHERE c1 = 7') AS one_row_by_key,
       read_nodes('SELECT c16 FROM wide WHERE c1 <= 20') AS twenty_rows,
       read_nodes('SELECT c16 FROM wide WHERE c1 <= 100') AS hundred_rows;
-- Seed 003's query: a filter that no row passes reads the whole table.
SET enable_indexscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT c16 FROM wide WHERE c16 = 0;
SELECT read_nodes('SELECT c16 FROM wide WHERE c16 = 0') AS no_row_returned,
       read_nodes('SELECT c16, c1 FROM wide WHERE c16 + 1 > 0 LIMIT 1') AS limit_one,
       read_nodes('SELECT c16, c1 FROM wide WHERE c16 + 1 > 0 LIMIT 1000') AS limit_thousand;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT read_nodes('SELECT c15, c16 FROM wide WHERE c1 > 10 ORDER BY c1 LIMIT 1') AS index_limit_one;
-- Markers: over few rows only for a column this backend met stored compressed or out of line,
-- over more where the table says its values may be (the TOAST relation has blocks, ANALYZE
-- found them wide).
CREATE TABLE costs (id int PRIMARY KEY, small jsonb, packed jsonb, outside jsonb) USING hotheap;
-- small: 200 bytes in line; packed: 6 kB compressed to a few hundred bytes in line (no TOAST
-- block, ANALYZE sees the stored width); outside: stored out of line, in another table
INSERT INTO costs
SELECT g, jsonb_build_object('a', g, 'b', repeat('s', 200)),
       jsonb_build_object('a', g, 'b', repeat('p', 6000)), NULL
FROM generate_series(1, 1000) g;
CREATE INDEX costs_packed_a ON costs ((packed->>'a'));
ANALYZE costs;
SELECT pg_column_compression(small) AS small, pg_column_compression(packed) AS packed,
       pg_relation_size(reltoastrelid) AS toast_bytes
FROM costs, pg_class WHERE id = 1 AND oid = 'costs'::regclass;
-- A backend that has met no compressed value of the table: one row by key, no markers.
\c
SET search_path = read_path, public;
SELECT markers('SELECT small->>''a'', small->>''b'' FROM costs WHERE id = 5') AS small_one_row,
       markers('SELECT packed->>''a'', packed->>''b'' FROM costs WHERE id = 5') AS packed_one_row,
       markers('SELECT small->>''a'', small->>''b'' FROM costs WHERE id <= 50') AS small_50_rows,
       markers('UPDATE costs SET small = jsonb_set(small, ''{a}'', to_jsonb((small->>''a'')::int + 1)) WHERE id = 5') AS update_small;
-- An update that decompressed the old version's value (its expression index) is evidence.
UPDATE costs SET packed = jsonb_set(packed, '{c}', '1') WHERE id = 6;
SELECT markers('SELECT packed->>''a'', packed->>''b'' FROM costs WHERE id = 5') AS packed_after_update,
       markers('SELECT small->>''a'', small->>''b'' FROM costs WHERE id = 5') AS small_still;
-- Values out of line: the TOAST relation has blocks, evidence for many rows, not for one; a
-- marker that met such a value of the column is evidence for one row too.
ALTER TABLE costs ALTER outside SET STORAGE EXTERNAL;
UPDATE costs SET outside = (SELECT jsonb_agg(md5(i::text)) FROM generate_series(1, 400) i) WHERE id = 9;
\c
SET search_path = read_path, public;
SELECT pg_relation_size(reltoastrelid) > 0 AS toast_has_blocks
FROM costs, pg_class WHERE id = 9 AND oid = 'costs'::regclass;
SELECT markers('SELECT outside->0, outside->1 FROM costs WHERE id = 9') AS outside_one_row,
       markers('SELECT outside->0, outside->1 FROM costs WHERE id <= 100') AS outside_100_rows;
SELECT shared('SELECT outside->0, outside->1 FROM costs WHERE id <= 100') AS meeting;
SELECT markers('SELECT outside->0, outside->1 FROM costs WHERE id = 9') AS outside_one_row_after;
-- A TOAST relation of kilobytes per row of the table (every document out of line) is evidence
-- for one row too, in a backend that has met none of its values (a lookup's first plan, a
-- prepared statement's); before ANALYZE or VACUUM the table's rows are unknown: none.
CREATE TABLE dense (id int PRIMARY KEY, doc jsonb) USING hotheap;
ALTER TABLE dense ALTER doc SET STORAGE EXTERNAL;
INSERT INTO dense
SELECT i, (SELECT jsonb_object_agg('k' || g, md5((i * g)::text)) FROM generate_series(1, 100) g)
FROM generate_series(1, 30) i;
\c
SET search_path = read_path, public;
SELECT markers('SELECT doc->>''k1'', doc->>''k2'' FROM dense WHERE id = 3') AS dense_not_analyzed;
ANALYZE dense;
SELECT pg_relation_size(reltoastrelid) >= 2048 * reltuples AS toast_kilobytes_per_row
FROM pg_class WHERE oid = 'dense'::regclass;
\c
SET search_path = read_path, public;
SELECT markers('SELECT doc->>''k1'', doc->>''k2'' FROM dense WHERE id = 3') AS dense_one_row;
SELECT shared('SELECT doc->>''k1'', doc->>''k2'' FROM dense WHERE id = 3') AS dense_one_row_shared;
SELECT * FROM read_check('SELECT id, doc->>''k1'', doc->>''k2'' FROM dense WHERE id IN (3, 4) ORDER BY id');
-- The TOAST relation's size is remembered once seen to have blocks (no lseek for it at the next
-- plans) and forgotten at the table's next relcache invalidation: TRUNCATE sends one, and then
-- the table's short values get no markers over many rows.
CREATE TABLE shrinking (id int PRIMARY KEY, small jsonb, outside text) USING hotheap;
ALTER TABLE shrinking ALTER outside SET STORAGE EXTERNAL;
INSERT INTO shrinking
SELECT g, jsonb_build_object('a', g, 'b', md5(g::text)), CASE WHEN g = 1 THEN repeat(md5('x'), 100) END
FROM generate_series(1, 100) g;
ANALYZE shrinking;
SELECT markers('SELECT max(small->>''a''), max(small->>''b'') FROM shrinking') AS toast_blocks,
       markers('SELECT max(small->>''a''), max(small->>''b'') FROM shrinking') AS toast_blocks_remembered;
TRUNCATE shrinking;
INSERT INTO shrinking SELECT g, jsonb_build_object('a', g, 'b', md5(g::text)), NULL FROM generate_series(1, 100) g;
SELECT pg_relation_size(reltoastrelid) AS toast_bytes FROM pg_class WHERE oid = 'shrinking'::regclass;
SELECT markers('SELECT max(small->>''a''), max(small->>''b'') FROM shrinking') AS after_truncate;
SELECT * FROM read_check('SELECT id, outside->0, outside->1, packed->''a'', packed->>''b'' = repeat(''p'', 6000) FROM costs WHERE id IN (5, 9) ORDER BY id');
-- hotplus.read_path_everywhere (for tests) overrides the model.
SET hotplus.read_path_everywhere = on;
SELECT markers('SELECT small->>''a'', small->>''b'' FROM costs WHERE id = 5') AS small_everywhere;
RESET hotplus.read_path_everywhere;

DROP SCHEMA read_path CASCADE;
REVOKE ALL ON SCHEMA public FROM read_path_reader;
DROP ROLE read_path_reader;
