-- VACUUM (plain, FREEZE, options), VACUUM FULL, CLUSTER, ANALYZE and TABLESAMPLE on
-- hotheap tables. Table rewrites keep the access method; contents are compared with a
-- plain heap table that gets the same changes.
-- Design points: none (heap operations on hotheap tables)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA am_maintenance;
SET search_path = am_maintenance, public;

\i test/sql_helpers/am_check_scans.sql

\i test/sql_helpers/am_check_btrees.sql

CREATE TABLE m (id int PRIMARY KEY, k int NOT NULL, grp int NOT NULL, v text, arr int[], seq int)
  USING hotheap WITH (autovacuum_enabled = off);
CREATE INDEX m_k ON m (k);
CREATE INDEX m_grp ON m (grp) INCLUDE (v);
CREATE INDEX m_v_hash ON m USING hash (v);
CREATE INDEX m_arr ON m USING gin (arr);
CREATE INDEX m_seq_brin ON m USING brin (seq) WITH (pages_per_range = 1);
CREATE TABLE m_ref (LIKE m) USING heap WITH (autovacuum_enabled = off);

CREATE PROCEDURE work(tab regclass, step int) LANGUAGE plpgsql AS $p$
BEGIN
  IF step = 1 THEN
    EXECUTE format($q$INSERT INTO %s SELECT g, 2001 - g, g %% 10, 'v' || (g %% 100), ARRAY[g %% 5], g
                      FROM generate_series(1, 2000) g$q$, tab);
  ELSIF step = 2 THEN
    EXECUTE format('UPDATE %s SET v = v || ''a'' WHERE id %% 2 = 0', tab);
    EXECUTE format('UPDATE %s SET v = v || ''b'' WHERE id %% 3 = 0', tab);
    EXECUTE format('UPDATE %s SET seq = seq + 10000 WHERE id %% 11 = 0', tab);
    EXECUTE format('UPDATE %s SET k = k + 5000 WHERE id %% 5 = 0', tab);
    EXECUTE format('DELETE FROM %s WHERE id %% 7 = 0', tab);
  ELSIF step = 3 THEN
    EXECUTE format('UPDATE %s SET arr = arr || id WHERE id %% 4 = 0', tab);
    EXECUTE format('UPDATE %s SET grp = grp + 10 WHERE id %% 9 = 0', tab);
    EXECUTE format('DELETE FROM %s WHERE id BETWEEN 500 AND 900', tab);
    EXECUTE format('INSERT INTO %s SELECT g, g, 0, ''late'', ''{}'', g FROM generate_series(3001, 3100) g', tab);
  ELSIF step = 4 THEN
    EXECUTE format('UPDATE %s SET v = ''w'' || id, k = k - 1 WHERE id %% 6 = 1', tab);
    EXECUTE format('DELETE FROM %s WHERE id %% 10 = 9', tab);
  END IF;
END
$p$;

CREATE FUNCTION same_as_heap() RETURNS TABLE (rows bigint, same_as_heap boolean)
LANGUAGE sql AS $f$
  SELECT (SELECT count(*) FROM m),
         (SELECT string_agg(x::text, E'\n' ORDER BY id) FROM m x)
       = (SELECT string_agg(x::text, E'\n' ORDER BY id) FROM m_ref x)
$f$;

CREATE FUNCTION check_scans() RETURNS TABLE (query int, mode text, plan text, nrows bigint, same_as_seqscan boolean)
LANGUAGE sql AS $f$
  SELECT 1, * FROM am_check_scans('SELECT id, k FROM m WHERE k BETWEEN 1000 AND 1200')
  UNION ALL
  SELECT 2, * FROM am_check_scans('SELECT grp, v FROM m WHERE grp = 3', '{index,bitmap,indexonly}')
  UNION ALL
  SELECT 3, * FROM am_check_scans('SELECT id, v FROM m WHERE v = ''v42ab''')
  UNION ALL
  SELECT 4, * FROM am_check_scans('SELECT id, arr FROM m WHERE arr @> ''{2}''', '{bitmap}')
  UNION ALL
  SELECT 5, * FROM am_check_scans('SELECT id FROM m WHERE id BETWEEN 1500 AND 3050', '{index,bitmap,indexonly}')
  UNION ALL
  SELECT 6, * FROM am_check_scans('SELECT id, seq FROM m WHERE seq BETWEEN 1500 AND 3050 OR seq > 11000', '{bitmap}')
  ORDER BY 1
$f$;

CALL work('m', 1);
CALL work('m_ref', 1);
CALL work('m', 2);
CALL work('m_ref', 2);

-- VACUUM with its options
VACUUM m;
SELECT * FROM same_as_heap();
VACUUM (FREEZE, ANALYZE) m;
VACUUM (DISABLE_PAGE_SKIPPING, INDEX_CLEANUP ON, TRUNCATE false) m;
CALL work('m', 3);
CALL work('m_ref', 3);
VACUUM (INDEX_CLEANUP OFF) m;
VACUUM (PARALLEL 2, INDEX_CLEANUP ON) m;
VACUUM (PROCESS_TOAST false) m;
VACUUM (SKIP_LOCKED, TRUNCATE true) m;
SELECT * FROM same_as_heap();
SELECT * FROM am_check_btrees();
SELECT * FROM check_scans();
-- VACUUM of a table whose rows were all deleted
CREATE TABLE m_empty (id int PRIMARY KEY, v text) USING hotheap;
INSERT INTO m_empty SELECT g, 'x' FROM generate_series(1, 500) g;
UPDATE m_empty SET v = 'y';
DELETE FROM m_empty;
VACUUM m_empty;
INSERT INTO m_empty VALUES (1, 'again');
UPDATE m_empty SET v = 'again, updated';
SELECT * FROM m_empty;
SELECT * FROM am_check_btrees() WHERE tab = 'm_empty';
DROP TABLE m_empty;

-- ANALYZE: with fewer rows than the sample size every row is read, so the statistics
-- are exact
ANALYZE m;
SELECT c.reltuples, (SELECT count(*) FROM m) AS count
FROM pg_class c WHERE c.oid = 'm'::regclass;
SELECT attname, null_frac, n_distinct FROM pg_stats
WHERE schemaname = 'am_maintenance' AND tablename = 'm' AND attname IN ('id', 'grp')
ORDER BY attname;
SELECT most_common_vals FROM pg_stats
WHERE schemaname = 'am_maintenance' AND tablename = 'm' AND attname = 'grp';
ANALYZE m (v, k);
ANALYZE m_ref;

-- TABLESAMPLE: only what does not depend on the seed or on the physical layout
SELECT count(*) FROM m TABLESAMPLE SYSTEM (100) REPEATABLE (1);
SELECT count(*) FROM m TABLESAMPLE BERNOULLI (100) REPEATABLE (2);
SELECT count(*) FROM m TABLESAMPLE SYSTEM (0) REPEATABLE (3);
SELECT count(*) FROM m TABLESAMPLE BERNOULLI (0);
SELECT (SELECT sum(id) FROM m TABLESAMPLE BERNOULLI (100) REPEATABLE (5)) = (SELECT sum(id) FROM m);
-- the same seed samples the same rows, and a sample is part of the table
SELECT (SELECT array_agg(id ORDER BY id) FROM m TABLESAMPLE BERNOULLI (30) REPEATABLE (42))
     = (SELECT array_agg(id ORDER BY id) FROM m TABLESAMPLE BERNOULLI (30) REPEATABLE (42)) AS bernoulli_repeats,
       (SELECT array_agg(id ORDER BY id) FROM m TABLESAMPLE SYSTEM (30) REPEATABLE (42))
     = (SELECT array_agg(id ORDER BY id) FROM m TABLESAMPLE SYSTEM (30) REPEATABLE (42)) AS system_repeats;
SELECT count(*) FROM m s TABLESAMPLE BERNOULLI (50) REPEATABLE (7)
WHERE NOT EXISTS (SELECT 1 FROM m WHERE m.id = s.id AND m.v IS NOT DISTINCT FROM s.v);
SELECT count(*) < (SELECT count(*) FROM m) AS smaller
FROM m TABLESAMPLE BERNOULLI (50) REPEATABLE (7);

-- VACUUM FULL rewrites the table (and its indexes); it stays hotheap
VACUUM FULL m;
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'm'::regclass;
SELECT * FROM same_as_heap();
SELECT * FROM am_check_btrees();
CALL work('m', 4);
CALL work('m_ref', 4);
VACUUM (FULL, FREEZE, ANALYZE) m;
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'm'::regclass;
SELECT * FROM same_as_heap();
SELECT * FROM am_check_btrees();
SELECT * FROM check_scans();

-- CLUSTER: by an index whose order is the reverse of id; a sequential scan then returns
-- the rows in that index's order
UPDATE m SET v = v || 'c' WHERE id % 8 = 0;
UPDATE m_ref SET v = v || 'c' WHERE id % 8 = 0;
-- (enable_sort = off: CLUSTER reads the old table through the index)
SET enable_sort = off;
CLUSTER m USING m_k;
RESET enable_sort;
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'm'::regclass;
SELECT c.relname, i.indisclustered FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'm'::regclass ORDER BY 1;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT k FROM m LIMIT 5;
SELECT bool_and(k >= prev) AS in_k_order FROM (SELECT k, lag(k) OVER () AS prev FROM m) s;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT * FROM same_as_heap();
SELECT * FROM am_check_btrees();
SELECT * FROM check_scans();
-- CLUSTER again without naming the index, and CLUSTER of the whole database's clustered
-- tables (only m is marked clustered here)
UPDATE m SET k = k + 1 WHERE id % 3 = 0;
UPDATE m_ref SET k = k + 1 WHERE id % 3 = 0;
CLUSTER m;
CLUSTER;
-- CLUSTER on the primary key (enable_indexscan = off: sequential scan and sort)
SET enable_indexscan = off;
CLUSTER m USING m_pkey;
SET enable_bitmapscan = off;
SELECT id, k FROM m LIMIT 5;
SELECT bool_and(id > prev) AS in_id_order FROM (SELECT id, lag(id) OVER () AS prev FROM m) s;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'm'::regclass;
SELECT * FROM same_as_heap();
SELECT * FROM am_check_btrees();
SELECT * FROM check_scans();
-- the table works as usual after all the rewrites
INSERT INTO m VALUES (5000, 1, 1, 'after', '{1}', 5000);
UPDATE m SET v = 'after, updated', k = 2 WHERE id = 5000;
SELECT * FROM m WHERE id = 5000;
SELECT * FROM am_check_btrees();

DROP TABLE m, m_ref;
DROP PROCEDURE work(regclass, int);
DROP FUNCTION same_as_heap();
DROP FUNCTION check_scans();
DROP FUNCTION am_check_scans(text, text[]);
DROP FUNCTION am_check_btrees();
DROP SCHEMA am_maintenance;
