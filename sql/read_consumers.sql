-- The read path above the scan (src/README.md D14b, src/read/consumer_pushdown.hpp): calls
-- over one toastable column that a join, an aggregate or a projection above a hotheap scan
-- evaluates move below it (into the scan's output list, or a HotheapProject node above a sort
-- or another node) and share one detoasted copy per row. Every query runs with the read path
-- on and off and must give the same rows; the plans show where the calls went, EXPLAIN
-- ANALYZE how many values were detoasted, and sorts hold what they hold on heap.
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
-- Five fields of big in aggregates: the scan evaluates them, one detoast per row (heap: five).
EXPLAIN (VERBOSE, COSTS OFF)
SELECT max(big->>'1'), max(big->>'2'), min(big->>'3'), count(*) FILTER (WHERE big ? '5'), max(big->>'10') FROM b;
SELECT detoasted('SELECT max(big->>''1''), max(big->>''2''), min(big->>''3''), count(*) FILTER (WHERE big ? ''5''), max(big->>''10'') FROM b');
SELECT * FROM read_check('SELECT max(big->>''1''), max(big->>''2''), min(big->>''3''), count(*) FILTER (WHERE big ? ''5''), max(big->>''10'') FROM b');
-- A FILTER guards row 7, where (big->>'n')::int fails: the extraction (which cannot fail)
-- moves, the cast stays in the aggregate and runs on the filtered rows only, as on heap.
SELECT * FROM read_check('SELECT sum((big->>''n'')::int) FILTER (WHERE id <> 7), max(big->>''1''), min(big->>''n'') FROM b');
SELECT sum((big->>'n')::int) FILTER (WHERE id <> 7), max(big->>'1'), min(big->>'n') FROM b;
-- Unconditional arguments move whatever they call (upper, lower); arguments of a filtered
-- aggregate only if the call cannot fail (md5 moves, upper does not).
EXPLAIN (VERBOSE, COSTS OFF)
SELECT max(upper(note)), max(lower(note)), max(md5(note)) FILTER (WHERE id > 3), max(upper(note)) FILTER (WHERE id > 3) FROM b;
SELECT * FROM read_check('SELECT max(upper(note)), max(lower(note)), max(md5(note)) FILTER (WHERE id > 3), max(upper(note)) FILTER (WHERE id > 3) FROM b');
-- DISTINCT and ORDER BY in aggregates (they sort their arguments' values, computed as before).
-- 16 and later sort the input for one of them below the Agg (presorted aggregates): the Sort
-- holds heap's rows, and a HotheapProject between it and the Agg evaluates the arguments on
-- one copy per row; 15 detoasts in the scan (HotheapRead).
SELECT plan = CASE WHEN current_setting('server_version_num')::int < 160000 THEN 'HotheapRead' ELSE 'HotheapProject' END AS plan_as_expected, same
  FROM read_check('SELECT string_agg(DISTINCT big->>''g'', '','' ORDER BY big->>''g''), count(DISTINCT big->>''1''), jsonb_agg(big->''2'' ORDER BY id)->>3 FROM b');
-- GROUP BY an expression of big, aggregates over other fields: hashed, one detoast per row
-- for the key and the arguments together.
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
EXPLAIN (COSTS OFF) SELECT y.x, z.x, y.id + z.id FROM t y JOIN t z ON z.id = y.x + 1;
-- The read path off: the plan is heap's.
SET hotplus.read_path = off;
EXPLAIN (VERBOSE, COSTS OFF) SELECT max(big->>'1'), max(big->>'2') FROM b;
RESET hotplus.read_path;

------------------------------------------------------------------------------------------
-- joins
------------------------------------------------------------------------------------------
-- Hash join, b on the outer side: the join's output calls move into b's scan (they cannot
-- fail; the join keeps all of b's rows here, so heap detoasts as often as it joins).
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT x.id, x.big->'1', x.big->'2', x.big->>'3', x.big->'5', x.big->>'10', y.x FROM b x JOIN t y ON x.k = y.id;
SELECT detoasted('SELECT x.id, x.big->''1'', x.big->''2'', x.big->>''3'', x.big->''5'', x.big->>''10'', y.x FROM b x JOIN t y ON x.k = y.id');
SELECT * FROM read_check('SELECT x.id, x.big->''1'', x.big->''2'', x.big->>''3'', x.big->''5'', x.big->>''10'', y.x FROM b x JOIN t y ON x.k = y.id ORDER BY 1');
-- A join that keeps few of b's rows: heap detoasts only for its matches; nothing moves.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT x.id, x.big->'1', x.big->'2', y.x FROM b x JOIN t y ON x.id = y.id * 40;
-- b hashed (the inner side of a hash join): the join reads b's rows from its hash table,
-- with no node in between; the hash table holds what heap's holds.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT x.big->'1', x.big->'2', y.id FROM t y JOIN (SELECT * FROM b WHERE id <= 40) x ON x.id = y.id;
SELECT * FROM read_check('SELECT x.big->''1'', x.big->''2'', y.id FROM t y JOIN (SELECT * FROM b WHERE id <= 40) x ON x.id = y.id ORDER BY 3');
RESET enable_mergejoin;
RESET enable_nestloop;
-- Nested loop, b on the inner side through its primary key: the calls move into the inner
-- index scan, evaluated on each inner row.
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT y.id, x.big->>'1', x.big->>'2', x.note > 'a', length(x.note) FROM t y JOIN b x ON x.id = y.id * 2;
SELECT * FROM read_check('SELECT y.id, x.big->>''1'', x.big->>''2'', x.note > ''a'', length(x.note) FROM t y JOIN b x ON x.id = y.id * 2 ORDER BY 1');
-- A cast that fails on row 7 in the join's output, row 7 never joined: the extraction moves
-- below, the cast stays in the join and runs on the matches only, as on heap.
SELECT * FROM read_check('SELECT y.id, (x.big->>''n'')::int + 1, x.big->>''1'' FROM t y JOIN b x ON x.id = y.id * 2 ORDER BY 1');
RESET enable_hashjoin;
RESET enable_mergejoin;
-- Merge join on both hotheap tables' keys. Each side's calls move below the join: into a
-- HotheapProject above a side's Sort, or into the scan of a side read in key order (19 reads
-- one side from its index: HotheapRead).
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT plan IN ('HotheapProject', 'HotheapProject+HotheapRead') AS moved_below_join, same
  FROM read_check('SELECT x.id, x.big->>''1'', x.big->>''2'', y.big->>''3'', y.big->>''4'' FROM b x JOIN b y ON y.id = x.id + 1 ORDER BY 1');
RESET enable_hashjoin;
RESET enable_nestloop;
-- One side heap: only the hotheap side shares its copy.
EXPLAIN (VERBOSE, COSTS OFF)
SELECT x.big->>'1', x.big->>'2', y.big->>'1', y.big->>'2' FROM b x JOIN bh y USING (id);
SELECT * FROM read_check('SELECT x.big->>''1'', x.big->>''2'', y.big->>''1'', y.big->>''2'', id FROM b x JOIN bh y USING (id) ORDER BY id');

------------------------------------------------------------------------------------------
-- projections above other nodes, subqueries, windows, CTEs, set operations, partitions
------------------------------------------------------------------------------------------
-- A projection above a LIMIT of a sort: the calls, unconditional, move into a HotheapProject
-- between the two.
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
