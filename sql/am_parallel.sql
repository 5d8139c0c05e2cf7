-- Parallel query and parallel maintenance on hotheap tables: parallel btree builds (the
-- build scan runs in the workers too), parallel sequential, index and bitmap heap scans,
-- parallel VACUUM. Results must not depend on parallelism.
-- Design points: none (heap operations on hotheap tables)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA am_parallel;
SET search_path = am_parallel, public;

\i test/sql_helpers/am_check_scans.sql

CREATE TABLE par (id int PRIMARY KEY, k int NOT NULL, v text, pad text)
  USING hotheap WITH (parallel_workers = 2, autovacuum_enabled = off);
INSERT INTO par SELECT g, g % 997, 'v' || (g % 300), repeat('p', 100) FROM generate_series(1, 6000) g;
UPDATE par SET v = v || '!' WHERE id % 3 = 0;
UPDATE par SET k = k + 1000 WHERE id % 5 = 0;
DELETE FROM par WHERE id % 7 = 0;

-- parallel index builds
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
SET min_parallel_index_scan_size = 0;
SET maintenance_work_mem = '64MB';
CREATE INDEX par_k ON par (k);
CREATE UNIQUE INDEX par_v_id ON par (v, id);
CREATE INDEX par_k_v ON par (k) INCLUDE (v) WHERE id % 2 = 0;
REINDEX TABLE par;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'par'::regclass ORDER BY 1;

-- parallel scans (with statistics, so that the planner prefers the parallel plans)
VACUUM ANALYZE par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(k) FROM par;
SELECT count(*), sum(k), count(*) FILTER (WHERE v LIKE '%!') FROM par;
SET enable_seqscan = off;
SET enable_indexscan = on;
SET enable_indexonlyscan = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM par WHERE k BETWEEN 100 AND 900;
SELECT count(*), sum(id) FROM par WHERE k BETWEEN 100 AND 900;
SET enable_indexscan = off;
SET enable_bitmapscan = on;
EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM par WHERE k BETWEEN 100 AND 900;
SELECT count(*), sum(id) FROM par WHERE k BETWEEN 100 AND 900;
RESET enable_seqscan;
RESET enable_indexscan;
RESET enable_indexonlyscan;
RESET enable_bitmapscan;
RESET max_parallel_workers_per_gather;
SELECT count(*), sum(k), count(*) FILTER (WHERE v LIKE '%!') FROM par;
SELECT count(*), sum(id) FROM par WHERE k BETWEEN 100 AND 900;
-- the same through am_check_scans (which turns parallel query off)
SELECT * FROM am_check_scans('SELECT id, k, v FROM par WHERE k BETWEEN 100 AND 900');
SELECT * FROM am_check_scans('SELECT id, v FROM par WHERE v = ''v42!''');

-- more changes, parallel VACUUM, and the indexes are still complete
UPDATE par SET v = upper(v), k = k + 1 WHERE id % 4 = 0;
DELETE FROM par WHERE id % 11 = 0;
VACUUM (PARALLEL 2) par;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'par'::regclass ORDER BY 1;
SELECT * FROM am_check_scans('SELECT id, k FROM par WHERE k BETWEEN 100 AND 900');
SELECT * FROM am_check_scans('SELECT k, v FROM par WHERE k BETWEEN 100 AND 900 AND id % 2 = 0', '{index,bitmap,indexonly}');
SET max_parallel_workers_per_gather = 2;
SELECT count(*), sum(k), count(*) FILTER (WHERE v LIKE '%!') FROM par;
RESET max_parallel_workers_per_gather;
SELECT count(*), sum(k), count(*) FILTER (WHERE v LIKE '%!') FROM par;

RESET ALL;
SET search_path = am_parallel, public;
DROP TABLE par;
DROP FUNCTION am_check_scans(text, text[]);
DROP SCHEMA am_parallel;
