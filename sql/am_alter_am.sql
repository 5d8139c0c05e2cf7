-- ALTER TABLE ... SET ACCESS METHOD between heap and hotheap, in both directions: rows,
-- TOAST values, indexes (all kinds), constraints and the TOAST table's access method
-- survive. Other table rewrites (column type change, volatile default, SET LOGGED) keep
-- hotheap.
-- Design points: none (heap operations on hotheap tables)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA am_alter_am;
SET search_path = am_alter_am, public;

\i test/sql_helpers/am_check_scans.sql

CREATE FUNCTION am_of(rel regclass) RETURNS TABLE (tab name, am name, toast_am name)
LANGUAGE sql AS $f$
  SELECT c.relname, a.amname,
         (SELECT ta.amname FROM pg_class t JOIN pg_am ta ON ta.oid = t.relam WHERE t.oid = c.reltoastrelid)
  FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam WHERE c.oid = rel
$f$;

CREATE FUNCTION digest(rel regclass) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE d text;
BEGIN
  EXECUTE format('SELECT md5(string_agg(x::text, E''\n'' ORDER BY id)) FROM %s x', rel) INTO d;
  RETURN d;
END $f$;

CREATE FUNCTION index_defs(rel regclass) RETURNS TABLE (def text, valid boolean)
LANGUAGE sql AS $f$
  SELECT pg_get_indexdef(i.indexrelid), i.indisvalid
  FROM pg_index i WHERE i.indrelid = rel ORDER BY 1
$f$;

CREATE FUNCTION check_btrees(rel regclass) RETURNS TABLE (idx name, checked boolean)
LANGUAGE sql AS $f$
  SELECT c.relname, bt_index_check(c.oid, true)::text = ''
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
  WHERE i.indrelid = rel AND a.amname = 'btree' ORDER BY 1
$f$;

CREATE TABLE t (id int PRIMARY KEY, k int NOT NULL CHECK (k >= 0), v text, big text,
                tags int[], p point, n int, UNIQUE (k, id)) USING hotheap;
CREATE INDEX t_v ON t (lower(v)) WHERE k % 2 = 0;
CREATE INDEX t_v_hash ON t USING hash (v);
CREATE INDEX t_tags ON t USING gin (tags);
CREATE INDEX t_p ON t USING gist (p);
CREATE INDEX t_n_brin ON t USING brin (n);
CREATE TABLE t_child (id int PRIMARY KEY, t_id int REFERENCES t (id) ON UPDATE CASCADE) USING hotheap;
INSERT INTO t SELECT g, g % 200, 'Val' || g, CASE WHEN g % 50 = 0 THEN repeat(md5(g::text), 100) END,
                     ARRAY[g % 5, g % 7], point(g % 30, g / 30), g
FROM generate_series(1, 1500) g;
UPDATE t SET v = v || '!' WHERE id % 3 = 0;
UPDATE t SET k = k + 1 WHERE id % 4 = 0;
DELETE FROM t WHERE id % 9 = 0;
INSERT INTO t_child SELECT g, g FROM generate_series(1, 100) g WHERE g % 9 <> 0;
SELECT * FROM am_of('t');
SELECT digest('t') AS digest_before \gset
SELECT count(*) AS rows_before FROM t \gset

-- hotheap -> heap
ALTER TABLE t SET ACCESS METHOD heap;
SELECT * FROM am_of('t');
SELECT digest('t') = :'digest_before' AS same_rows, count(*) = :rows_before AS same_count FROM t;
SELECT * FROM index_defs('t');
SELECT * FROM check_btrees('t');
SELECT * FROM am_check_scans('SELECT id, k FROM t WHERE k BETWEEN 50 AND 60');
SELECT * FROM am_check_scans('SELECT id, v FROM t WHERE lower(v) BETWEEN ''val10'' AND ''val11'' AND k % 2 = 0');
SELECT * FROM am_check_scans('SELECT id, v FROM t WHERE v = ''Val300!''');
SELECT * FROM am_check_scans('SELECT id, tags FROM t WHERE tags @> ''{3,4}''', '{bitmap}');
SELECT * FROM am_check_scans('SELECT id, p FROM t WHERE p <@ box ''((0,0),(5,5))''');
SELECT * FROM am_check_scans('SELECT id, n FROM t WHERE n BETWEEN 100 AND 300', '{bitmap}');
SELECT count(*) FROM t WHERE big = repeat(md5('100'), 100);
-- changes while it is a heap
UPDATE t SET v = upper(v), k = k + 2 WHERE id % 5 = 0;
UPDATE t SET id = id + 10000 WHERE id BETWEEN 1 AND 20;
SELECT count(*) FROM t_child WHERE t_id > 10000;
SELECT digest('t') AS digest_before \gset

-- heap -> hotheap
ALTER TABLE t SET ACCESS METHOD hotheap;
SELECT * FROM am_of('t');
SELECT digest('t') = :'digest_before' AS same_rows, count(*) = :rows_before AS same_count FROM t;
SELECT * FROM index_defs('t');
SELECT * FROM check_btrees('t');
SELECT * FROM am_check_scans('SELECT id, k FROM t WHERE k BETWEEN 50 AND 60');
SELECT * FROM am_check_scans('SELECT id, v FROM t WHERE lower(v) BETWEEN ''val10'' AND ''val11'' AND k % 2 = 0');
SELECT * FROM am_check_scans('SELECT id, v FROM t WHERE v = ''VAL300!''');
SELECT * FROM am_check_scans('SELECT id, tags FROM t WHERE tags @> ''{3,4}''', '{bitmap}');
SELECT * FROM am_check_scans('SELECT id, p FROM t WHERE p <@ box ''((0,0),(5,5))''');
SELECT * FROM am_check_scans('SELECT id, n FROM t WHERE n BETWEEN 100 AND 300', '{bitmap}');
-- and it works as a hotheap table afterwards
UPDATE t SET v = v || '?' WHERE id % 7 = 0;
UPDATE t SET k = k + 1, tags = tags || 9 WHERE id % 11 = 0;
UPDATE t SET id = id + 10000 WHERE id BETWEEN 21 AND 30;
INSERT INTO t VALUES (5000, 1, 'new', NULL, '{1}', point(1, 1), 5000);
DELETE FROM t WHERE id % 13 = 0 AND id BETWEEN 101 AND 9999;
SELECT count(*), sum(k), count(big), count(*) FILTER (WHERE v LIKE '%?') FROM t;
SELECT count(*) FROM t_child WHERE t_id > 10000;
SELECT * FROM check_btrees('t');
SELECT * FROM am_check_scans('SELECT id, k, v FROM t WHERE k BETWEEN 50 AND 60');
SELECT * FROM am_check_scans('SELECT id, tags FROM t WHERE tags @> ''{9}''', '{bitmap}');
-- constraints still hold
INSERT INTO t VALUES (1, -1, 'bad');
INSERT INTO t VALUES (5000, 1, 'duplicate');

-- setting the access method a table already has does nothing
SELECT digest('t') AS digest_before \gset
ALTER TABLE t SET ACCESS METHOD hotheap;
SELECT * FROM am_of('t');
SELECT digest('t') = :'digest_before' AS same_rows;

-- other rewrites keep hotheap
ALTER TABLE t ALTER COLUMN k TYPE bigint;
SELECT * FROM am_of('t');
ALTER TABLE t ADD COLUMN r float8 DEFAULT random();
SELECT * FROM am_of('t');
ALTER TABLE t DROP COLUMN r;
SELECT digest('t') = :'digest_before' AS same_rows;
ALTER TABLE t ADD COLUMN c int DEFAULT 7;
SELECT count(*), sum(c) FROM t;
SELECT * FROM check_btrees('t');
SELECT * FROM am_check_scans('SELECT id, k FROM t WHERE k BETWEEN 50 AND 60');
-- SET ACCESS METHOD together with another rewriting subcommand
ALTER TABLE t SET ACCESS METHOD heap, ALTER COLUMN c TYPE bigint;
SELECT * FROM am_of('t');
ALTER TABLE t ALTER COLUMN c TYPE int, SET ACCESS METHOD hotheap;
SELECT * FROM am_of('t');
SELECT count(*), sum(c) FROM t;
SELECT * FROM check_btrees('t');
-- errors
ALTER TABLE t SET ACCESS METHOD heap, SET ACCESS METHOD hotheap;
ALTER TABLE t SET ACCESS METHOD btree;
ALTER TABLE t SET ACCESS METHOD no_such_am;

-- materialized views and partitions
CREATE MATERIALIZED VIEW mv USING heap AS SELECT id, k FROM t WHERE id < 100;
CREATE UNIQUE INDEX mv_id ON mv (id);
ALTER MATERIALIZED VIEW mv SET ACCESS METHOD hotheap;
SELECT * FROM am_of('mv');
REFRESH MATERIALIZED VIEW CONCURRENTLY mv;
SELECT count(*), sum(k) FROM mv;
SELECT bt_index_check('mv_id', true);
CREATE TABLE pt (id int, v text) PARTITION BY RANGE (id);
CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (0) TO (100) USING heap;
INSERT INTO pt SELECT g, 'x' || g FROM generate_series(0, 99) g;
ALTER TABLE pt1 SET ACCESS METHOD hotheap;
SELECT * FROM am_of('pt1');
UPDATE pt SET v = v || 'y' WHERE id % 2 = 0;
SELECT count(*), count(*) FILTER (WHERE v LIKE '%y') FROM pt;

DROP MATERIALIZED VIEW mv;
DROP TABLE t_child, t, pt;
DROP FUNCTION am_of(regclass), digest(regclass), index_defs(regclass), check_btrees(regclass);
DROP FUNCTION am_check_scans(text, text[]);
DROP SCHEMA am_alter_am;
