-- CREATE INDEX CONCURRENTLY, REINDEX and REINDEX CONCURRENTLY on hotheap tables (index
-- builds and validation scans run heap's code on a hotheap relation), with every index
-- access method, unique and failed builds, and indexes built inside the transaction that
-- changed the rows. Results are compared with a plain heap table that gets the same changes.
-- Design points: D1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA am_concurrent;
SET search_path = am_concurrent, public;

\i test/sql_helpers/am_check_scans.sql

\i test/sql_helpers/am_check_btrees.sql

CREATE TABLE c (id int PRIMARY KEY, k int, v text, arr int[], pt point, pt2 point, seq int, big text)
  USING hotheap WITH (autovacuum_enabled = off);
CREATE TABLE c_ref (LIKE c) USING heap WITH (autovacuum_enabled = off);
ALTER TABLE c_ref ADD PRIMARY KEY (id);

CREATE PROCEDURE work(tab regclass, step int) LANGUAGE plpgsql AS $p$
BEGIN
  IF step = 1 THEN
    EXECUTE format($q$
      INSERT INTO %s SELECT g, g %% 700, 'Val' || (g %% 300), ARRAY[g %% 10, g %% 17],
                            point(g %% 60, g / 60), point(g / 60, g %% 60), g,
                            CASE WHEN g %% 100 = 0 THEN repeat(md5(g::text), 200) END
      FROM generate_series(1, 3000) g $q$, tab);
    EXECUTE format('UPDATE %s SET v = v || ''!'' WHERE id %% 3 = 0', tab);
    EXECUTE format('UPDATE %s SET k = k + 1 WHERE id %% 5 = 0', tab);
    EXECUTE format('UPDATE %s SET big = big || ''x'' WHERE id %% 200 = 0', tab);
    EXECUTE format('DELETE FROM %s WHERE id %% 11 = 0', tab);
  ELSIF step = 2 THEN
    EXECUTE format('UPDATE %s SET arr = arr || 99, pt = point(pt[0], pt[1] + 100) WHERE id %% 7 = 0', tab);
    EXECUTE format('UPDATE %s SET pt2 = point(pt2[0] + 100, pt2[1]), seq = seq + 10000 WHERE id %% 8 = 0', tab);
    EXECUTE format('UPDATE %s SET v = upper(v) WHERE id %% 13 = 0', tab);
    EXECUTE format('UPDATE %s SET k = -k WHERE id %% 17 = 0', tab);
    EXECUTE format('DELETE FROM %s WHERE id %% 19 = 0', tab);
    EXECUTE format('INSERT INTO %s SELECT g, g, ''new'', ''{1}'', point(0, 0), point(0, 0), g FROM generate_series(3001, 3100) g', tab);
  ELSIF step = 3 THEN
    EXECUTE format('UPDATE %s SET k = k + 10000 WHERE id %% 2 = 0', tab);
    EXECUTE format('UPDATE %s SET v = lower(v), arr = arr[1:1] WHERE id %% 9 = 0', tab);
    EXECUTE format('DELETE FROM %s WHERE id %% 29 = 0', tab);
  END IF;
END
$p$;

CREATE FUNCTION same_as_heap() RETURNS TABLE (rows bigint, same_as_heap boolean)
LANGUAGE sql AS $f$
  SELECT (SELECT count(*) FROM c),
         (SELECT string_agg(x::text, E'\n' ORDER BY id) FROM c x)
       = (SELECT string_agg(x::text, E'\n' ORDER BY id) FROM c_ref x)
$f$;

CALL work('c', 1);
CALL work('c_ref', 1);

-- CREATE INDEX CONCURRENTLY with every index access method
CREATE INDEX CONCURRENTLY c_k ON c (k) INCLUDE (v);
CREATE INDEX CONCURRENTLY c_lower_v ON c (lower(v)) WHERE k % 2 = 0;
CREATE INDEX CONCURRENTLY c_v_hash ON c USING hash (v);
CREATE INDEX CONCURRENTLY c_arr ON c USING gin (arr);
CREATE INDEX CONCURRENTLY c_pt ON c USING gist (pt);
CREATE INDEX CONCURRENTLY c_pt2 ON c USING spgist (pt2);
CREATE INDEX CONCURRENTLY c_seq_brin ON c USING brin (seq) WITH (pages_per_range = 1);
CREATE INDEX CONCURRENTLY c_big ON c (md5(big));
-- a unique build that finds duplicates fails and leaves an invalid index behind
-- (terse: which duplicate the sort meets first depends on the physical row order)
\set VERBOSITY terse
CREATE UNIQUE INDEX CONCURRENTLY c_k_unique ON c ((k * 2));
\set VERBOSITY default
SELECT c.relname, a.amname, i.indisvalid, i.indisready
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = 'c'::regclass ORDER BY 1;
DROP INDEX CONCURRENTLY c_k_unique;

SELECT * FROM same_as_heap();
SELECT * FROM am_check_btrees();
SELECT * FROM am_check_scans('SELECT id, k, v FROM c WHERE k BETWEEN 100 AND 150');
SELECT * FROM am_check_scans('SELECT id, v FROM c WHERE lower(v) = ''val12!'' AND k % 2 = 0');
SELECT * FROM am_check_scans('SELECT id, v FROM c WHERE v = ''Val7''');
SELECT * FROM am_check_scans('SELECT id, arr FROM c WHERE arr @> ''{3,5}''', '{bitmap}');
SELECT * FROM am_check_scans('SELECT id, pt FROM c WHERE pt <@ box ''((0,0),(10,10))''');
SELECT * FROM am_check_scans('SELECT id, pt FROM c WHERE pt <@ circle ''((5,5),4)''');
SELECT * FROM am_check_scans('SELECT id, pt2 FROM c WHERE pt2 <@ box ''((0,0),(10,10))''');
SELECT * FROM am_check_scans('SELECT id, seq FROM c WHERE seq BETWEEN 1000 AND 1100', '{bitmap}');
SELECT * FROM am_check_scans('SELECT id, length(big) FROM c WHERE md5(big) = md5(repeat(md5(''500''), 200))');

CALL work('c', 2);
CALL work('c_ref', 2);

-- REINDEX: one index, the table (with its TOAST index), each kind of index
REINDEX INDEX c_k;
REINDEX INDEX c_arr;
REINDEX TABLE c;
SELECT * FROM same_as_heap();
SELECT * FROM am_check_btrees();
SELECT * FROM am_check_scans('SELECT id, k, v FROM c WHERE k BETWEEN 100 AND 150');
SELECT * FROM am_check_scans('SELECT id, k FROM c WHERE k < 0');
SELECT * FROM am_check_scans('SELECT id, v FROM c WHERE v = ''VAL7''');
SELECT * FROM am_check_scans('SELECT id, arr FROM c WHERE arr @> ''{99}''', '{bitmap}');
SELECT * FROM am_check_scans('SELECT id, pt FROM c WHERE pt <@ box ''((0,100),(10,110))''');

-- REINDEX CONCURRENTLY: index, table, schema
REINDEX INDEX CONCURRENTLY c_lower_v;
REINDEX INDEX CONCURRENTLY c_pkey;
REINDEX TABLE CONCURRENTLY c;
CALL work('c', 3);
CALL work('c_ref', 3);
REINDEX SCHEMA CONCURRENTLY am_concurrent;
SELECT c.relname, a.amname, i.indisvalid, i.indisready
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = 'c'::regclass ORDER BY 1;
SELECT * FROM same_as_heap();
SELECT * FROM am_check_btrees();
SELECT * FROM am_check_scans('SELECT id, k, v FROM c WHERE k BETWEEN 100 AND 150');
SELECT * FROM am_check_scans('SELECT id, k, v FROM c WHERE k > 10500');
SELECT * FROM am_check_scans('SELECT id, v FROM c WHERE lower(v) = ''val12!'' AND k % 2 = 0');
SELECT * FROM am_check_scans('SELECT id, v FROM c WHERE v = ''val9!''');
SELECT * FROM am_check_scans('SELECT id, arr FROM c WHERE arr @> ''{99}''', '{bitmap}');
SELECT * FROM am_check_scans('SELECT id, arr FROM c WHERE arr = ''{9}''', '{bitmap}');
SELECT * FROM am_check_scans('SELECT id, pt FROM c WHERE pt <@ box ''((0,100),(10,110))''');
SELECT * FROM am_check_scans('SELECT id, pt FROM c WHERE pt <@ circle ''((5,105),4)''');
SELECT * FROM am_check_scans('SELECT id, pt2 FROM c WHERE pt2 <@ box ''((100,0),(110,60))''');
SELECT * FROM am_check_scans('SELECT id, seq FROM c WHERE seq BETWEEN 2900 AND 3050 OR seq > 12000', '{bitmap}');
SELECT * FROM am_check_scans('SELECT id, k FROM c WHERE id BETWEEN 2900 AND 3050');
SELECT * FROM am_check_scans('SELECT id, length(big) FROM c WHERE md5(big) = md5(repeat(md5(''500''), 200))');

-- a failed unique index, made valid by REINDEX INDEX CONCURRENTLY once the duplicates are gone
\set VERBOSITY terse
CREATE UNIQUE INDEX CONCURRENTLY c_k_unique ON c ((k * 2));
\set VERBOSITY default
SELECT indisvalid FROM pg_index WHERE indexrelid = 'c_k_unique'::regclass;
UPDATE c SET k = id * 100;
UPDATE c_ref SET k = id * 100;
REINDEX INDEX CONCURRENTLY c_k_unique;
SELECT indisvalid FROM pg_index WHERE indexrelid = 'c_k_unique'::regclass;
UPDATE c SET k = 100 WHERE id = 2;
SELECT * FROM same_as_heap();
SELECT * FROM am_check_btrees();
SELECT * FROM am_check_scans('SELECT id, k FROM c WHERE k * 2 BETWEEN 200000 AND 300000');

-- an index built by the transaction that just changed the rows
BEGIN;
UPDATE c SET v = 'in tx ' || id WHERE id % 4 = 1;
DELETE FROM c WHERE id % 4 = 3;
CREATE INDEX c_v ON c (v);
CREATE INDEX c_arr_part ON c USING gin (arr) WHERE id % 4 = 1;
SELECT count(*) FROM c WHERE v LIKE 'in tx%';
COMMIT;
BEGIN;
UPDATE c_ref SET v = 'in tx ' || id WHERE id % 4 = 1;
DELETE FROM c_ref WHERE id % 4 = 3;
COMMIT;
SELECT * FROM same_as_heap();
SELECT * FROM am_check_btrees();
SELECT * FROM am_check_scans('SELECT id, v FROM c WHERE v BETWEEN ''in tx 1'' AND ''in tx 2''');
DROP INDEX c_arr;
SELECT * FROM am_check_scans('SELECT id, v, arr FROM c WHERE id % 4 = 1 AND arr @> ''{5}''', '{bitmap}');

DROP TABLE c, c_ref;
DROP PROCEDURE work(regclass, int);
DROP FUNCTION same_as_heap();
DROP FUNCTION am_check_scans(text, text[]);
DROP FUNCTION am_check_btrees();
DROP SCHEMA am_concurrent;
