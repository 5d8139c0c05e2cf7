-- The access method of a partitioned table itself. PostgreSQL 15 and 16 have none: USING
-- and SET ACCESS METHOD are refused on a partitioned table (expected/am_partitioned_am.out).
-- 17 and later record one, which partitions created afterwards inherit, and which depends
-- on the access method like a table's (expected/am_partitioned_am_1.out).
-- Design points: D3
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA am_partitioned_am;
SET search_path = am_partitioned_am, public;

CREATE TABLE pc (id int, v text) PARTITION BY RANGE (id) USING hotheap;
CREATE TABLE pa (id int, v text) PARTITION BY RANGE (id);
CREATE TABLE pa0 PARTITION OF pa FOR VALUES FROM (0) TO (100);
ALTER TABLE pa SET ACCESS METHOD hotheap;
CREATE TABLE pa1 PARTITION OF pa FOR VALUES FROM (100) TO (200);
SELECT c.relname, c.relkind, a.amname
FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
WHERE c.relnamespace = 'am_partitioned_am'::regnamespace AND c.relkind IN ('r', 'p')
ORDER BY 1;

-- hotplus_convert() converts the partitions that exist; the partitioned table's own access
-- method (17+) is left as it is.
SELECT hotplus_convert('pa');
SELECT c.relname, a.amname
FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
WHERE c.relnamespace = 'am_partitioned_am'::regnamespace AND c.relkind IN ('r', 'p')
ORDER BY 1;

-- Updates through the partitioned table; lower(v) stays the same.
CREATE INDEX pa_lower_v ON pa (lower(v));
INSERT INTO pa SELECT g, 'x' || g FROM generate_series(0, 199) g;
UPDATE pa SET v = upper(v) WHERE id % 3 = 0;
SET enable_seqscan = off;
SELECT count(*) FROM pa WHERE lower(v) = 'x150';
RESET enable_seqscan;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'pa_lower_v'::regclass ORDER BY 1;

-- DROP EXTENSION names everything that uses hotheap.
SET client_min_messages = warning;
DROP EXTENSION hotplus;
RESET client_min_messages;
DROP SCHEMA am_partitioned_am CASCADE;
