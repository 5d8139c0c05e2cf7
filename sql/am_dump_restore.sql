-- pg_dump -Fc of a schema with hotheap tables, pg_restore into a fresh database that has
-- the extension: the tables are hotheap again (heap stays heap), with the same rows and
-- working, complete indexes.
-- Design points: none (heap operations on hotheap tables)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA am_dump;
SET search_path = am_dump, public;

CREATE TABLE dt (id int PRIMARY KEY, k int NOT NULL, v text, big text, tags int[]) USING hotheap;
CREATE INDEX dt_k ON dt (k);
CREATE INDEX dt_lower_v ON dt (lower(v)) WHERE k > 10;
CREATE INDEX dt_v_hash ON dt USING hash (v);
CREATE INDEX dt_tags ON dt USING gin (tags);
CREATE TABLE dt_child (id int PRIMARY KEY, dt_id int REFERENCES dt (id) ON UPDATE CASCADE) USING hotheap;
CREATE TABLE dt_heap (id int PRIMARY KEY, v text) USING heap;
CREATE TABLE dpart (id int, v text) PARTITION BY RANGE (id);
CREATE TABLE dpart1 PARTITION OF dpart FOR VALUES FROM (0) TO (500) USING hotheap;
CREATE TABLE dpart2 PARTITION OF dpart FOR VALUES FROM (500) TO (1000) USING heap;
CREATE MATERIALIZED VIEW dmv USING hotheap AS SELECT k, count(*) AS n FROM dt GROUP BY k;

INSERT INTO dt SELECT g, g % 50, 'Val' || g, CASE WHEN g % 100 = 0 THEN repeat(md5(g::text), 100) END,
                      ARRAY[g % 3, g % 8]
FROM generate_series(1, 800) g;
UPDATE dt SET v = upper(v), k = k + 1 WHERE id % 3 = 0;
UPDATE dt SET tags = tags || 42 WHERE id % 10 = 0;
DELETE FROM dt WHERE id % 7 = 0;
INSERT INTO dt_child SELECT g, g FROM generate_series(1, 100) g WHERE g % 7 <> 0;
INSERT INTO dt_heap SELECT g, 'h' || g FROM generate_series(1, 50) g;
INSERT INTO dpart SELECT g, 'p' || g FROM generate_series(0, 999) g;
UPDATE dpart SET v = v || '+' WHERE id % 4 = 0;
UPDATE dpart SET id = id + 500 WHERE id BETWEEN 100 AND 110;
REFRESH MATERIALIZED VIEW dmv;

CREATE FUNCTION am_dump_digest() RETURNS TABLE (tab text, am name, rows bigint, digest text)
LANGUAGE sql AS $f$
  SELECT 'dt', (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'am_dump.dt'::regclass),
         count(*), md5(string_agg(x::text, E'\n' ORDER BY id)) FROM am_dump.dt x
  UNION ALL
  SELECT 'dt_child', (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'am_dump.dt_child'::regclass),
         count(*), md5(string_agg(x::text, E'\n' ORDER BY id)) FROM am_dump.dt_child x
  UNION ALL
  SELECT 'dt_heap', (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'am_dump.dt_heap'::regclass),
         count(*), md5(string_agg(x::text, E'\n' ORDER BY id)) FROM am_dump.dt_heap x
  UNION ALL
  SELECT 'dpart1', (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'am_dump.dpart1'::regclass),
         count(*), md5(string_agg(x::text, E'\n' ORDER BY id)) FROM am_dump.dpart1 x
  UNION ALL
  SELECT 'dpart2', (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'am_dump.dpart2'::regclass),
         count(*), md5(string_agg(x::text, E'\n' ORDER BY id)) FROM am_dump.dpart2 x
  UNION ALL
  SELECT 'dmv', (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'am_dump.dmv'::regclass),
         count(*), md5(string_agg(x::text, E'\n' ORDER BY k)) FROM am_dump.dmv x
$f$;
SELECT tab, am, rows FROM am_dump_digest();
SELECT string_agg(tab || ' ' || am || ' ' || rows || ' ' || digest, ', ' ORDER BY tab) AS src_digest
FROM am_dump_digest() \gset
SELECT string_agg(pg_get_indexdef(indexrelid), E'\n' ORDER BY pg_get_indexdef(indexrelid)) AS src_indexes
FROM pg_index WHERE indrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'am_dump'::regnamespace) \gset

-- dump the schema; restore it into a new database that has the extension
SELECT current_database() AS src_db \gset
SET client_min_messages = warning;
DROP DATABASE IF EXISTS am_dump_target;
RESET client_min_messages;
CREATE DATABASE am_dump_target;
\c am_dump_target
CREATE EXTENSION hotplus;
CREATE EXTENSION amcheck;
\set dump_rc `pg_dump -Fc -n am_dump -f /tmp/hotplus_am_dump.$PGPORT.dump -d :'src_db' >/dev/null 2>&1; echo $?`
\set restore_rc `pg_restore --exit-on-error -d am_dump_target /tmp/hotplus_am_dump.$PGPORT.dump >/dev/null 2>&1; echo $?`
\! rm -f /tmp/hotplus_am_dump.$PGPORT.dump
SELECT :'dump_rc' AS pg_dump_exit, :'restore_rc' AS pg_restore_exit;
SET search_path = am_dump, public;

SELECT tab, am, rows FROM am_dump_digest();
SELECT string_agg(tab || ' ' || am || ' ' || rows || ' ' || digest, ', ' ORDER BY tab) = :'src_digest' AS same_tables
FROM am_dump_digest();
SELECT string_agg(pg_get_indexdef(indexrelid), E'\n' ORDER BY pg_get_indexdef(indexrelid)) = :'src_indexes' AS same_indexes
FROM pg_index WHERE indrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'am_dump'::regnamespace);
SELECT c.relname, c.relkind, a.amname
FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
WHERE c.relnamespace = 'am_dump'::regnamespace AND c.relkind IN ('r', 'p', 'm')
ORDER BY 1;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'am_dump.dt'::regclass);
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE c.relnamespace = 'am_dump'::regnamespace AND a.amname = 'btree' AND c.relkind = 'i'
ORDER BY 1;
-- the restored indexes answer like a sequential scan
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(id) FROM dt WHERE k BETWEEN 5 AND 15;
SELECT count(*), sum(id) FROM dt WHERE lower(v) LIKE 'val1%' AND lower(v) >= 'val1' AND lower(v) < 'val2' AND k > 10;
SELECT id, k, v FROM dt WHERE v = 'VAL300';
SET enable_bitmapscan = on;
SET enable_indexscan = off;
SELECT count(*), sum(id) FROM dt WHERE tags @> '{42}';
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_indexscan;
SELECT count(*), sum(id) FROM dt WHERE k BETWEEN 5 AND 15;
SELECT count(*), sum(id) FROM dt WHERE lower(v) LIKE 'val1%' AND lower(v) >= 'val1' AND lower(v) < 'val2' AND k > 10;
SELECT count(*), sum(id) FROM dt WHERE tags @> '{42}';
-- and the restored tables work
UPDATE dt SET id = id + 1000, v = v || ' restored' WHERE id <= 20;
UPDATE dpart SET id = id - 500 WHERE id BETWEEN 600 AND 605;
SELECT count(*) FROM dt_child WHERE dt_id > 1000;
SELECT tableoid::regclass AS part, count(*) FROM dpart GROUP BY 1 ORDER BY tableoid::regclass::text;
REFRESH MATERIALIZED VIEW dmv;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE c.relnamespace = 'am_dump'::regnamespace AND a.amname = 'btree' AND c.relkind = 'i'
ORDER BY 1;

\c :src_db
DROP DATABASE am_dump_target;
SET client_min_messages = warning;
DROP SCHEMA am_dump CASCADE;
RESET client_min_messages;
