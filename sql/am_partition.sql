-- Partitioned tables whose partitions are hotheap (and mixed with heap): routing of
-- INSERT and COPY, UPDATE inside a partition and across partitions (row movement), DELETE,
-- partitioned indexes, ATTACH/DETACH, TRUNCATE, sub-partitions, default_table_access_method.
-- Design points: none (heap operations on hotheap tables)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA am_partition;
SET search_path = am_partition, public;

\i test/sql_helpers/am_check_scans.sql

\i test/sql_helpers/am_check_btrees.sql

CREATE TABLE p (id int, k int, v text, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE INDEX p_k ON p (k);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (1) TO (1001) USING hotheap;
CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (1001) TO (2001) USING hotheap;
CREATE TABLE p3 PARTITION OF p FOR VALUES FROM (2001) TO (3001) USING heap;
CREATE TABLE p_def PARTITION OF p DEFAULT USING hotheap;
-- indexes created on the parent after the partitions exist
CREATE INDEX p_v ON p (v);
CREATE INDEX p_v_hash ON p USING hash (upper(v));
SELECT c.relname, c.relkind, a.amname, pg_get_expr(c.relpartbound, c.oid) AS bound
FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
WHERE c.oid IN (SELECT 'p'::regclass UNION ALL SELECT relid FROM pg_partition_tree('p'))
ORDER BY c.relname;

-- even ids only: rows moved below get odd ids, so a move never meets an existing key
INSERT INTO p SELECT g, g % 100, 'v' || g FROM generate_series(2, 3500, 2) g;
SELECT tableoid::regclass AS part, count(*), min(id), max(id) FROM p GROUP BY 1 ORDER BY tableoid::regclass::text;
COPY p (id, k, v) FROM STDIN;
0	0	zero
-6	6	negative
3600	36	copied
\.
SELECT tableoid::regclass AS part, count(*), min(id), max(id) FROM p GROUP BY 1 ORDER BY tableoid::regclass::text;

-- updates that stay in their partition
UPDATE p SET v = v || '!' WHERE id % 3 = 0;
UPDATE p SET k = k + 1000 WHERE id % 5 = 0;
-- updates that move rows: hotheap -> hotheap, hotheap -> heap, heap -> hotheap, to and from
-- the default partition
UPDATE p SET id = id + 1001 WHERE id BETWEEN 901 AND 950 AND id % 2 = 0;
UPDATE p SET id = id + 1001 WHERE id BETWEEN 1901 AND 1920 AND id % 2 = 0;
UPDATE p SET id = id - 2001 WHERE id BETWEEN 2981 AND 3000 AND id % 2 = 0;
UPDATE p SET id = id + 5001 WHERE id BETWEEN 1 AND 10 AND id % 2 = 0;
UPDATE p SET id = id - 3001 WHERE id BETWEEN 3401 AND 3410 AND id % 2 = 0;
WITH moved AS (UPDATE p SET id = id + 1001, v = v || ' moved' WHERE id IN (100, 1100, 2100)
               RETURNING tableoid::regclass AS part, id, v)
SELECT * FROM moved ORDER BY id;
DELETE FROM p WHERE id % 7 = 0;
SELECT tableoid::regclass AS part, count(*), min(id), max(id), sum(k) FROM p GROUP BY 1 ORDER BY tableoid::regclass::text;
SELECT * FROM p WHERE id IN (12, 401, 903, 1101, 1903, 1951, 2903, 2921, 981, 5003, 3101) ORDER BY id;
-- a row that would leave the partition when updated through the partition fails
UPDATE p1 SET id = 1501 WHERE id = 12;
-- a moved row keeps its identity once: no duplicates, nothing lost
SELECT count(*), count(DISTINCT id) FROM p;

SELECT * FROM am_check_btrees();
SELECT * FROM am_check_scans('SELECT id, k, v FROM p WHERE k BETWEEN 1010 AND 1030');
SELECT * FROM am_check_scans('SELECT id, v FROM p WHERE v BETWEEN ''v1900'' AND ''v1950''');
SELECT * FROM am_check_scans('SELECT id, v FROM p WHERE upper(v) = ''V2986''');
SELECT * FROM am_check_scans('SELECT id, k FROM p WHERE id BETWEEN 850 AND 1150');

-- partition-wise operations: VACUUM, ANALYZE, CLUSTER of a partition, REINDEX of the tree
VACUUM p;
ANALYZE p;
CLUSTER p1 USING p1_k_idx;
REINDEX TABLE p;
REINDEX TABLE CONCURRENTLY p2;
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid IN (SELECT relid FROM pg_partition_tree('p')) ORDER BY 1;
SELECT * FROM am_check_btrees();

-- ATTACH a hotheap table, DETACH a partition: the tables keep their access methods
CREATE TABLE p4 (id int NOT NULL, k int, v text) USING hotheap;
INSERT INTO p4 SELECT g, g % 100, 'attached' FROM generate_series(6001, 6300, 2) g;
ALTER TABLE p ATTACH PARTITION p4 FOR VALUES FROM (6001) TO (7001);
SELECT tableoid::regclass AS part, count(*) FROM p GROUP BY 1 ORDER BY tableoid::regclass::text;
UPDATE p SET id = id - 5000, v = 'from p4' WHERE id BETWEEN 6001 AND 6010;
UPDATE p SET v = 'into p4', id = id + 4000 WHERE id BETWEEN 2202 AND 2210;
SELECT tableoid::regclass AS part, id, v FROM p WHERE v IN ('from p4', 'into p4') ORDER BY id;
ALTER TABLE p DETACH PARTITION p2;
SELECT c.relname, c.relispartition, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.relname IN ('p2', 'p4') AND c.relnamespace = 'am_partition'::regnamespace ORDER BY 1;
UPDATE p2 SET v = 'detached' WHERE id % 10 = 1;
SELECT count(*), count(*) FILTER (WHERE v = 'detached') FROM p2;
SELECT * FROM am_check_btrees();

-- TRUNCATE of the tree and of one partition
TRUNCATE p3;
SELECT tableoid::regclass AS part, count(*) FROM p GROUP BY 1 ORDER BY tableoid::regclass::text;
TRUNCATE p;
SELECT count(*) FROM p;
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid IN (SELECT relid FROM pg_partition_tree('p')) ORDER BY 1;

-- default_table_access_method decides the access method of new partitions; list and hash
-- partitioning, and sub-partitions
SET default_table_access_method = hotheap;
CREATE TABLE l (region text, id int, amount numeric) PARTITION BY LIST (region);
CREATE TABLE l_eu PARTITION OF l FOR VALUES IN ('eu');
CREATE TABLE l_us PARTITION OF l FOR VALUES IN ('us') PARTITION BY HASH (id);
CREATE TABLE l_us0 PARTITION OF l_us FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE l_us1 PARTITION OF l_us FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE TABLE l_other PARTITION OF l DEFAULT USING heap;
RESET default_table_access_method;
CREATE UNIQUE INDEX l_region_id ON l (region, id);
SELECT c.relname, c.relkind, a.amname
FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
WHERE c.oid IN (SELECT relid FROM pg_partition_tree('l'))
ORDER BY c.relname;
INSERT INTO l SELECT (ARRAY['eu', 'us', 'asia'])[g % 3 + 1], g, g * 1.5 FROM generate_series(1, 600) g;
UPDATE l SET amount = amount * 2 WHERE id % 4 = 0;
-- moves between hash sub-partitions, between list partitions, into and out of heap
UPDATE l SET id = id + 1000 WHERE region = 'us' AND id % 5 = 0;
UPDATE l SET region = 'us' WHERE region = 'eu' AND id % 6 = 0;
UPDATE l SET region = 'eu' WHERE region = 'asia' AND id % 9 = 2;
UPDATE l SET region = 'asia' WHERE region = 'us' AND id % 8 = 1;
SELECT tableoid::regclass AS part, region, count(*), sum(id), sum(amount)
FROM l GROUP BY 1, 2 ORDER BY tableoid::regclass::text, 2;
SELECT count(*), count(DISTINCT (region, id)) FROM l;
SELECT * FROM am_check_btrees();
SELECT * FROM am_check_scans('SELECT region, id, amount FROM l WHERE region = ''us'' AND id BETWEEN 100 AND 300');

DROP TABLE p, p2, l;
DROP FUNCTION am_check_scans(text, text[]);
DROP FUNCTION am_check_btrees();
DROP SCHEMA am_partition;
