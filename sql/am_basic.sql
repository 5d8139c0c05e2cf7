-- Basic DML on hotheap tables: INSERT, UPDATE, DELETE, RETURNING, transactions,
-- row locks, TRUNCATE, COPY, default_table_access_method, unlogged and temporary tables.
-- Design points: D5
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA am_basic;
SET search_path = am_basic, public;

SELECT amname, amtype FROM pg_am WHERE amname = 'hotheap';

CREATE TABLE t (id int PRIMARY KEY, val text, n int) USING hotheap;
SELECT c.relname, a.amname, c.relpersistence
FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = 't'::regclass;

-- INSERT: single row, multi-row with RETURNING, INSERT ... SELECT
INSERT INTO t VALUES (1, 'one', 10);
INSERT INTO t VALUES (2, 'two', 20), (3, 'three', 30) RETURNING *;
INSERT INTO t SELECT g, 'v' || g, g * 10 FROM generate_series(4, 1000) g;
SELECT count(*), sum(n), min(id), max(id) FROM t;
INSERT INTO t VALUES (1, 'duplicate', 0);
SELECT * FROM t WHERE id <= 3 ORDER BY id;

-- UPDATE: non-key column, key column, every row, RETURNING
WITH u AS (UPDATE t SET val = 'upd ' || id WHERE id % 100 = 0 RETURNING id, val)
SELECT * FROM u ORDER BY id;
UPDATE t SET n = n + 1;
UPDATE t SET id = id + 10000 WHERE id > 995;
SELECT count(*), sum(n), min(id), max(id) FROM t;
SELECT * FROM t WHERE id > 990 ORDER BY id;
-- a key update that would duplicate a key fails
UPDATE t SET id = 1 WHERE id = 2;
-- same row updated many times in one statement sequence
UPDATE t SET n = n + 1 WHERE id = 5;
UPDATE t SET n = n + 1 WHERE id = 5;
UPDATE t SET n = n + 1, val = 'five' WHERE id = 5;
SELECT * FROM t WHERE id = 5;
-- an update that changes nothing
UPDATE t SET val = val WHERE id BETWEEN 6 AND 8;
SELECT * FROM t WHERE id BETWEEN 6 AND 8 ORDER BY id;
-- a row that grows a lot (no longer fits where it was)
UPDATE t SET val = repeat('w', 1500) WHERE id = 9;
SELECT id, length(val), n FROM t WHERE id = 9;

-- DELETE
WITH d AS (DELETE FROM t WHERE id % 2 = 0 RETURNING id)
SELECT count(*), min(id), max(id) FROM d;
WITH d AS (DELETE FROM t WHERE id > 10000 RETURNING id, val, n)
SELECT * FROM d ORDER BY id;
SELECT count(*), sum(n), min(id), max(id) FROM t;

-- the rows are the same through the primary key and sequentially
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(n), string_agg(id::text, ',' ORDER BY id) FILTER (WHERE id < 40)
FROM t WHERE id BETWEEN 1 AND 2000;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(n), string_agg(id::text, ',' ORDER BY id) FILTER (WHERE id < 40)
FROM t;

-- transactions: rollback of every kind of change, savepoints
BEGIN;
INSERT INTO t VALUES (2, 'two again', 2);
UPDATE t SET val = 'x' WHERE id = 3;
DELETE FROM t WHERE id = 7;
SELECT * FROM t WHERE id IN (2, 3, 7) ORDER BY id;
ROLLBACK;
SELECT * FROM t WHERE id IN (2, 3, 7) ORDER BY id;
BEGIN;
UPDATE t SET val = 'first' WHERE id = 3;
SAVEPOINT s1;
UPDATE t SET val = 'second' WHERE id = 3;
DELETE FROM t WHERE id = 5;
ROLLBACK TO SAVEPOINT s1;
SELECT * FROM t WHERE id IN (3, 5) ORDER BY id;
UPDATE t SET val = 'third' WHERE id = 3;
COMMIT;
SELECT * FROM t WHERE id IN (3, 5) ORDER BY id;
-- a row updated and deleted in the same transaction
BEGIN;
UPDATE t SET n = -1 WHERE id = 11;
UPDATE t SET n = -2 WHERE id = 11;
DELETE FROM t WHERE id = 11;
COMMIT;
SELECT count(*) FROM t WHERE id = 11;

-- row locks
BEGIN;
SELECT id, val FROM t WHERE id IN (13, 15) ORDER BY id FOR UPDATE;
SELECT id FROM t WHERE id = 17 FOR NO KEY UPDATE;
SELECT id FROM t WHERE id = 19 FOR SHARE;
SELECT id FROM t WHERE id = 21 FOR KEY SHARE;
UPDATE t SET val = 'locked then updated' WHERE id IN (13, 17, 19, 21);
COMMIT;
SELECT * FROM t WHERE id BETWEEN 13 AND 21 ORDER BY id;

-- cursors: UPDATE/DELETE WHERE CURRENT OF
BEGIN;
DECLARE c CURSOR FOR SELECT id FROM t WHERE id BETWEEN 23 AND 29 ORDER BY id FOR UPDATE;
FETCH 1 FROM c;
UPDATE t SET val = 'current' WHERE CURRENT OF c;
FETCH 1 FROM c;
DELETE FROM t WHERE CURRENT OF c;
CLOSE c;
COMMIT;
SELECT * FROM t WHERE id BETWEEN 23 AND 29 ORDER BY id;

SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 't'::regclass ORDER BY 1;

-- TRUNCATE: rolled back, then for real; the table keeps its access method
BEGIN;
TRUNCATE t;
SELECT count(*) FROM t;
ROLLBACK;
SELECT count(*) FROM t;
TRUNCATE t;
SELECT count(*) FROM t;
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 't'::regclass;
INSERT INTO t VALUES (1, 'after truncate', 1);
SELECT * FROM t;
TRUNCATE t RESTART IDENTITY;

-- COPY FROM STDIN (text and csv), COPY TO STDOUT
COPY t (id, val, n) FROM STDIN;
1	one	10
2	two	20
3	\N	30
4	tab\there	40
5	five	\N
\.
COPY t FROM STDIN WITH (FORMAT csv, HEADER true);
id,val,n
6,"six, with comma",60
7,"seven ""quoted""",70
8,,80
\.
COPY t TO STDOUT;
COPY t (n, id) TO STDOUT WITH (FORMAT csv, HEADER true);
COPY (SELECT id, val FROM t WHERE id > 5 ORDER BY id DESC) TO STDOUT;
-- a failing COPY leaves nothing behind
COPY t FROM STDIN;
9	nine	90
1	duplicate key	100
\.
COPY t FROM STDIN;
10	ten	not a number
\.
SELECT count(*) FROM t;
-- COPY FREEZE into a table truncated in the same transaction
BEGIN;
TRUNCATE t;
COPY t FROM STDIN WITH (FREEZE);
100	frozen	1
101	frozen	2
\.
COMMIT;
SELECT * FROM t ORDER BY id;
-- a bigger COPY (several multi-insert batches), from a program run by the server
TRUNCATE t;
COPY t (id) FROM PROGRAM 'seq 1 2500';
SELECT count(*), sum(id), count(val), min(id), max(id) FROM t;
UPDATE t SET val = 'copied', n = id % 10 WHERE id % 3 = 0;
SELECT count(*), count(val), sum(n) FROM t;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 't'::regclass ORDER BY 1;

-- default_table_access_method
SET default_table_access_method = hotheap;
CREATE TABLE d_plain (a int);
CREATE TABLE d_ctas AS SELECT g AS a FROM generate_series(1, 10) g;
SELECT g AS a INTO d_selinto FROM generate_series(1, 5) g;
CREATE TABLE d_like (LIKE t INCLUDING ALL);
CREATE TABLE d_heap (a int) USING heap;
CREATE MATERIALIZED VIEW d_mv AS SELECT a, a * 2 AS b FROM d_ctas;
CREATE SEQUENCE d_seq;
CREATE VIEW d_view AS SELECT a FROM d_ctas;
RESET default_table_access_method;
CREATE TABLE d_default (a int);
CREATE TABLE d_ctas_using USING hotheap AS SELECT g AS a FROM generate_series(1, 3) g;
SELECT c.relname, c.relkind, a.amname
FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
WHERE c.relnamespace = 'am_basic'::regnamespace AND c.relname LIKE 'd\_%'
ORDER BY c.relname;
SELECT sum(a) FROM d_ctas;
SELECT sum(a) FROM d_selinto;
SELECT sum(a) FROM d_ctas_using;
-- materialized views on hotheap: refresh, and refresh concurrently (deletes, inserts)
CREATE UNIQUE INDEX d_mv_a ON d_mv (a);
UPDATE d_ctas SET a = a + 100 WHERE a > 7;
REFRESH MATERIALIZED VIEW d_mv;
SELECT * FROM d_mv ORDER BY a;
UPDATE d_ctas SET a = a - 100 WHERE a > 100;
DELETE FROM d_ctas WHERE a = 1;
REFRESH MATERIALIZED VIEW CONCURRENTLY d_mv;
SELECT * FROM d_mv ORDER BY a;
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'd_mv'::regclass;
SELECT bt_index_check('d_mv_a', true);
DROP MATERIALIZED VIEW d_mv;
DROP VIEW d_view;
DROP TABLE d_plain, d_ctas, d_selinto, d_like, d_heap, d_default, d_ctas_using;
DROP SEQUENCE d_seq;

-- unlogged table
CREATE UNLOGGED TABLE u (id int PRIMARY KEY, val text) USING hotheap;
CREATE INDEX u_val ON u (val);
INSERT INTO u SELECT g, 'u' || g FROM generate_series(1, 500) g;
UPDATE u SET val = val || '!' WHERE id % 3 = 0;
DELETE FROM u WHERE id % 5 = 0;
SELECT count(*), count(*) FILTER (WHERE val LIKE '%!') FROM u;
SELECT c.relname, c.relpersistence, a.amname
FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
WHERE c.oid IN ('u'::regclass, 'u_pkey'::regclass, 'u_val'::regclass) ORDER BY 1;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'u'::regclass ORDER BY 1;
-- SET LOGGED / SET UNLOGGED rewrite the table; it stays hotheap
ALTER TABLE u SET LOGGED;
SELECT c.relpersistence, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = 'u'::regclass;
UPDATE u SET val = 'logged' WHERE id = 1;
ALTER TABLE u SET UNLOGGED;
SELECT c.relpersistence, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = 'u'::regclass;
SELECT count(*), count(*) FILTER (WHERE val LIKE '%!') FROM u;
SELECT * FROM u WHERE id = 1;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'u'::regclass ORDER BY 1;
DROP TABLE u;

-- temporary tables
CREATE TEMP TABLE tmp (id int PRIMARY KEY, val text) USING hotheap;
CREATE INDEX tmp_val ON tmp (val);
INSERT INTO tmp SELECT g, 't' || g FROM generate_series(1, 500) g;
UPDATE tmp SET val = val || '?' WHERE id % 4 = 0;
UPDATE tmp SET id = id + 1000 WHERE id % 7 = 0;
DELETE FROM tmp WHERE id % 6 = 0;
SELECT count(*), sum(id), count(*) FILTER (WHERE val LIKE '%?') FROM tmp;
SELECT c.relpersistence, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = 'tmp'::regclass;
SET enable_seqscan = off;
SELECT count(*), sum(id) FROM tmp WHERE val LIKE 't%?' AND val > '';
RESET enable_seqscan;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'tmp'::regclass ORDER BY 1;
DROP TABLE tmp;
BEGIN;
CREATE TEMP TABLE tmp_del (a int) USING hotheap ON COMMIT DELETE ROWS;
INSERT INTO tmp_del SELECT generate_series(1, 10);
UPDATE tmp_del SET a = a + 1;
SELECT count(*), sum(a) FROM tmp_del;
COMMIT;
SELECT count(*) FROM tmp_del;
DROP TABLE tmp_del;
BEGIN;
CREATE TEMP TABLE tmp_drop (a int) USING hotheap ON COMMIT DROP;
INSERT INTO tmp_drop VALUES (1);
UPDATE tmp_drop SET a = 2;
SELECT * FROM tmp_drop;
COMMIT;
SELECT count(*) FROM pg_class WHERE relname = 'tmp_drop';

DROP TABLE t;
DROP SCHEMA am_basic;
