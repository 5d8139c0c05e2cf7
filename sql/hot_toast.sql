-- HOT decision matrix, toastable values. A value written back equal after detoasting but
-- stored differently (a fresh copy of a compressed or out-of-line value: v || '', a value
-- read from elsewhere, a parameter with the same text) is image-equal: no index changes,
-- so the update is HOT under any index type; and with hotplus.reuse_toast (the default) the
-- old stored datum is kept, so no TOAST row is written or deleted and the stored form
-- (compression, size, TOAST value) stays. Values that really change are not HOT, and
-- numeric 1.0 -> 1.00 (equal for the opclass, different bytes) is not HOT either.
-- Design points: D2, D8, D8b
SET client_min_messages = warning;
SELECT NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'hotplus') AS created_extension \gset
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA hot_toast;
SET search_path = hot_toast, public;

\i test/sql_helpers/hot_helpers.sql
SET default_toast_compression = pglz;

-- toast_ids(rel): the TOAST value ids of rel, to see whether values were kept.
CREATE FUNCTION toast_ids(rel regclass) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
  ids text;
BEGIN
  EXECUTE format('SELECT coalesce(string_agg(DISTINCT chunk_id::text, %L), %L) FROM %s', ',', '',
                 (SELECT reltoastrelid::regclass FROM pg_class WHERE oid = rel))
    INTO ids;
  RETURN ids;
END
$f$;

-- cval(g): ~4 kB, compresses well (stored compressed inline);
-- eval(g): 2474 bytes of hex words, stored out of line uncompressed (STORAGE EXTERNAL).
CREATE FUNCTION cval(g int) RETURNS text IMMUTABLE LANGUAGE sql
  AS $$SELECT repeat('compressed text ', 250) || g$$;
CREATE FUNCTION eval(g int) RETURNS text IMMUTABLE LANGUAGE sql
  AS $$SELECT string_agg(md5(g || '-' || i), ' ') FROM generate_series(1, 75) i$$;

CREATE TABLE tw (id int PRIMARY KEY, c text, e text, n int) USING hotheap WITH (fillfactor = 50);
ALTER TABLE tw ALTER COLUMN e SET STORAGE EXTERNAL;
INSERT INTO tw SELECT g, cval(g), eval(g), 0 FROM generate_series(1, 4) g;
CREATE TABLE twh (LIKE tw INCLUDING ALL) USING heap WITH (fillfactor = 50);
INSERT INTO twh SELECT * FROM tw;
-- a heap table holding the same values, to copy them from
CREATE TABLE src (id int PRIMARY KEY, c text, e text) USING heap;
ALTER TABLE src ALTER COLUMN e SET STORAGE EXTERNAL;
INSERT INTO src SELECT id, c, e FROM tw;

-- forms(rel): the stored form of every value of c and e
CREATE FUNCTION forms(rel regclass) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
  r text;
BEGIN
  EXECUTE format('SELECT string_agg(format(%L, id, pg_column_compression(c), pg_column_size(c),
                         length(c), coalesce(pg_column_compression(e), %L), pg_column_size(e), length(e)), %L ORDER BY id)
                  FROM %s', '%s: c %s %s/%s, e %s %s/%s', 'uncompressed', E'\n', rel)
    INTO r;
  RETURN r;
END
$f$;
SELECT forms('tw');
SELECT forms('tw') AS forms, toast_ids('tw') AS ids \gset
SELECT cardinality(string_to_array(toast_ids('tw'), ',')) AS toast_values;

------------------------------------------------------------------------------------------
-- no index on c or e: heap goes HOT too, but rewrites the TOAST value
------------------------------------------------------------------------------------------
BEGIN;
CALL hot_start();
UPDATE tw SET c = c || '', e = e || '' WHERE id = 1;
SELECT hot('tw', 1);
SELECT toast_writes('tw');
UPDATE twh SET c = c || '', e = e || '' WHERE id = 1;
SELECT hot('twh', 1);
SELECT toast_writes('twh');
COMMIT;
SELECT forms('tw') = :'forms' AS same_forms, toast_ids('tw') = :'ids' AS same_toast_values;

------------------------------------------------------------------------------------------
-- btree on c, on e, and e as an INCLUDE column
------------------------------------------------------------------------------------------
CREATE INDEX tw_c ON tw (c);
CREATE INDEX tw_e ON tw (e);
CREATE INDEX tw_n_e ON tw (n) INCLUDE (e);
CREATE INDEX twh_c ON twh (c);
CREATE INDEX twh_e ON twh (e);
-- Write-backs of the compressed value, the out-of-line value, and both.
-- Expected: HOT (3), no TOAST row written; heap: not HOT, TOAST rewritten.
BEGIN;
CALL hot_start();
UPDATE tw SET c = c || '' WHERE id = 1;
UPDATE tw SET e = e || '' WHERE id = 2;
UPDATE tw SET c = c || '', e = e || '' WHERE id = 3;
SELECT hot('tw', 3);
SELECT toast_writes('tw');
UPDATE twh SET c = c || '' WHERE id = 1;
UPDATE twh SET e = e || '' WHERE id = 2;
UPDATE twh SET c = c || '', e = e || '' WHERE id = 3;
SELECT hot('twh', 0);
SELECT toast_writes('twh');
COMMIT;
SELECT forms('tw') = :'forms' AS same_forms, toast_ids('tw') = :'ids' AS same_toast_values;
-- The same values read from another table (out-of-line there: another TOAST pointer).
-- Expected: HOT, no TOAST row written.
BEGIN;
CALL hot_start();
UPDATE tw SET c = src.c, e = src.e FROM src WHERE src.id = tw.id AND tw.id = 4;
UPDATE tw SET e = (SELECT e FROM src WHERE id = 1) WHERE id = 1;
SELECT hot('tw', 2);
SELECT toast_writes('tw');
COMMIT;
SELECT forms('tw') = :'forms' AS same_forms, toast_ids('tw') = :'ids' AS same_toast_values;
-- The same text as a parameter. Expected: HOT, no TOAST row written.
SELECT c AS c2, e AS e2 FROM tw WHERE id = 2 \gset
PREPARE tw_set(int, text, text) AS UPDATE tw SET c = $2, e = $3 WHERE id = $1;
BEGIN;
CALL hot_start();
EXECUTE tw_set(2, :'c2', :'e2');
SELECT hot('tw', 1);
SELECT toast_writes('tw');
COMMIT;
DEALLOCATE tw_set;
SELECT forms('tw') = :'forms' AS same_forms, toast_ids('tw') = :'ids' AS same_toast_values;
SELECT check_btrees('tw');
SELECT * FROM check_scans($$SELECT id FROM tw WHERE c = cval(1)$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE e = eval(2)$$);
SELECT * FROM check_scans($$SELECT id, md5(e) = md5(eval(id)) FROM tw WHERE n = 0$$);
VACUUM tw;
SELECT * FROM check_scans($$SELECT md5(e) FROM tw WHERE e = eval(3)$$, true);
SELECT * FROM check_scans($$SELECT n, md5(e) FROM tw WHERE n = 0$$, true);

-- A same-length change of the out-of-line value. Expected: not HOT (TOAST rewritten).
BEGIN;
CALL hot_start();
UPDATE tw SET e = overlay(e placing 'X' from 100 for 1) WHERE id = 1;
SELECT hot('tw', 0);
SELECT toast_writes('tw');
COMMIT;
-- A same-length change of the compressed value. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE tw SET c = overlay(c placing 'X' from 100 for 1) WHERE id = 2;
SELECT hot('tw', 0);
COMMIT;
-- A different length. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE tw SET e = e || 'x', c = c || 'x' WHERE id = 3;
SELECT hot('tw', 0);
SELECT toast_writes('tw');
COMMIT;
SELECT check_btrees('tw');
SELECT * FROM check_scans($$SELECT id FROM tw WHERE e = eval(1)$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE e = overlay(eval(1) placing 'X' from 100 for 1)$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE c = cval(2)$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE c = overlay(cval(2) placing 'X' from 100 for 1)$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE e = eval(3)$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE e = eval(3) || 'x'$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE c = cval(3) || 'x'$$);
-- back to the original values for the next blocks
UPDATE tw SET c = cval(id), e = eval(id);
SELECT forms('tw') AS forms, toast_ids('tw') AS ids \gset
DROP INDEX tw_c, tw_e, tw_n_e;

------------------------------------------------------------------------------------------
-- write-backs under hash, SP-GiST, GIN (tsvector and array expressions), unique btree
------------------------------------------------------------------------------------------
CREATE INDEX tw_c ON tw USING hash (c);
CREATE INDEX tw_e ON tw USING hash (e);
BEGIN;
CALL hot_start();
UPDATE tw SET c = c || '' WHERE id = 1;
UPDATE tw SET e = e || '' WHERE id = 2;
UPDATE tw SET c = c || '', e = e || '' WHERE id = 3;
SELECT hot('tw', 3);
SELECT toast_writes('tw');
COMMIT;
SELECT forms('tw') = :'forms' AS same_forms, toast_ids('tw') = :'ids' AS same_toast_values;
SELECT * FROM check_scans($$SELECT id FROM tw WHERE c = cval(1)$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE e = eval(2)$$);
DROP INDEX tw_c, tw_e;

CREATE INDEX tw_c ON tw USING spgist (c);
CREATE INDEX tw_e ON tw USING spgist (e);
BEGIN;
CALL hot_start();
UPDATE tw SET c = c || '' WHERE id = 1;
UPDATE tw SET e = e || '' WHERE id = 2;
UPDATE tw SET c = c || '', e = e || '' WHERE id = 3;
SELECT hot('tw', 3);
SELECT toast_writes('tw');
COMMIT;
SELECT forms('tw') = :'forms' AS same_forms, toast_ids('tw') = :'ids' AS same_toast_values;
SELECT * FROM check_scans($$SELECT id FROM tw WHERE c = cval(1)$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE e = eval(2)$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE e < 'z'$$);
DROP INDEX tw_c, tw_e;

CREATE INDEX tw_c ON tw USING gin (to_tsvector('simple', c));
CREATE INDEX tw_e ON tw USING gin (string_to_array(e, ' '));
BEGIN;
CALL hot_start();
UPDATE tw SET c = c || '' WHERE id = 1;
UPDATE tw SET e = e || '' WHERE id = 2;
UPDATE tw SET c = c || '', e = e || '' WHERE id = 3;
SELECT hot('tw', 3);
SELECT toast_writes('tw');
COMMIT;
SELECT forms('tw') = :'forms' AS same_forms, toast_ids('tw') = :'ids' AS same_toast_values;
SELECT * FROM check_scans($$SELECT id FROM tw WHERE to_tsvector('simple', c) @@ to_tsquery('simple', 'compressed & 1')$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE string_to_array(e, ' ') @> ARRAY[md5('2-75')]$$);
DROP INDEX tw_c, tw_e;

ALTER TABLE tw ADD CONSTRAINT tw_c_key UNIQUE (c), ADD CONSTRAINT tw_e_key UNIQUE (e);
BEGIN;
CALL hot_start();
UPDATE tw SET c = c || '' WHERE id = 1;
UPDATE tw SET e = e || '' WHERE id = 2;
UPDATE tw SET c = c || '', e = e || '' WHERE id = 3;
SELECT hot('tw', 3);
SELECT toast_writes('tw');
COMMIT;
SELECT forms('tw') = :'forms' AS same_forms, toast_ids('tw') = :'ids' AS same_toast_values;
SELECT check_btrees('tw');
SELECT * FROM check_scans($$SELECT id FROM tw WHERE c = cval(1)$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE e = eval(2)$$);
-- the constraints still hold against the written-back values
\set VERBOSITY terse
INSERT INTO tw VALUES (11, cval(1), eval(11), 0);
INSERT INTO tw VALUES (12, cval(12), eval(3), 0);
UPDATE tw SET e = eval(1) WHERE id = 4;
\set VERBOSITY default
ALTER TABLE tw DROP CONSTRAINT tw_c_key, DROP CONSTRAINT tw_e_key;

------------------------------------------------------------------------------------------
-- hotplus.reuse_toast = off: still HOT (image equality), but the values are toasted again
------------------------------------------------------------------------------------------
CREATE INDEX tw_e ON tw (e);
CREATE INDEX tw_c ON tw USING gin (to_tsvector('simple', c));
SET hotplus.reuse_toast = off;
-- Expected: HOT (2); TOAST: 2 rows (one value) inserted and 2 deleted.
BEGIN;
CALL hot_start();
UPDATE tw SET e = e || '' WHERE id = 1;
UPDATE tw SET c = c || '' WHERE id = 2;
SELECT hot('tw', 2);
SELECT toast_writes('tw');
COMMIT;
RESET hotplus.reuse_toast;
SELECT forms('tw') = :'forms' AS same_forms, toast_ids('tw') = :'ids' AS same_toast_values;
SELECT check_btrees('tw');
SELECT * FROM check_scans($$SELECT id FROM tw WHERE e = eval(1)$$);
SELECT * FROM check_scans($$SELECT id FROM tw WHERE to_tsvector('simple', c) @@ to_tsquery('simple', 'compressed & 2')$$);
DROP TABLE tw, twh, src;
DROP FUNCTION forms(regclass), toast_ids(regclass), cval(int), eval(int);

------------------------------------------------------------------------------------------
-- numeric scale: 1.0 -> 1.00 is equal for btree and hash, but the bytes differ
------------------------------------------------------------------------------------------
CREATE TABLE nu (id int PRIMARY KEY, x numeric, y numeric) USING hotheap WITH (fillfactor = 50);
CREATE INDEX nu_x ON nu (x);
CREATE INDEX nu_y ON nu USING hash (y);
INSERT INTO nu SELECT g, (g || '.0')::numeric, (g || '.0')::numeric FROM generate_series(1, 5) g;
-- btree: an index-only scan returns the stored 1.0 if the entry is kept. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE nu SET x = 1.00 WHERE id = 1;
SELECT hot('nu', 0);
COMMIT;
-- hash (cannot return values; not HOT by image equality). Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE nu SET y = 2.00 WHERE id = 2;
SELECT hot('nu', 0);
COMMIT;
-- The same bytes (x + 0 keeps the scale). Expected: HOT (heap agrees).
BEGIN;
CALL hot_start();
UPDATE nu SET x = x + 0, y = y + 0 WHERE id = 3;
SELECT hot('nu', 1);
COMMIT;
SELECT check_btrees('nu');
VACUUM nu;
SELECT * FROM check_scans($$SELECT x FROM nu WHERE x = 1$$, true);
SELECT * FROM check_scans($$SELECT x FROM nu WHERE x BETWEEN 1 AND 5$$, true);
SELECT * FROM check_scans($$SELECT id, y FROM nu WHERE y = 2$$);
DROP TABLE nu;

-- D8b: a statement whose first 32 fetched comparisons of a column all found different values
-- stops comparing that column: its later write-backs are stored anew, as heap stores them
-- (not HOT under an index on the column, new TOAST values). A statement that wrote one back
-- keeps comparing to its end. Rows are updated in id order (sequential scan of a fresh table).
CREATE FUNCTION gval(g int) RETURNS text IMMUTABLE LANGUAGE sql
  AS $$SELECT string_agg(md5(g || '-' || i), ' ') FROM generate_series(1, 75) i$$;
-- fillfactor 10: each page has room for every row's next two versions, so no update here
-- needs pruning (which an old snapshot elsewhere, e.g. autovacuum's in a slow run, stops).
CREATE TABLE gu (id int PRIMARY KEY, e text) USING hotheap WITH (fillfactor = 10);
ALTER TABLE gu ALTER COLUMN e SET STORAGE EXTERNAL;
CREATE INDEX gu_e ON gu USING hash (e);
INSERT INTO gu SELECT g, gval(g) FROM generate_series(1, 80) g;
VACUUM ANALYZE gu;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
-- rows 1-40 change (same length), 41-80 are written back: 32 changes, then no comparing
BEGIN;
CALL hot_start();
UPDATE gu SET e = CASE WHEN id <= 40 THEN overlay(e placing 'x' from 1 for 1) ELSE e || '' END;
SELECT hot('gu', 0);
SELECT toast_writes('gu');
COMMIT;
-- rows 1-40 are written back first, 41-80 change: all compared, the write-backs kept
BEGIN;
CALL hot_start();
UPDATE gu SET e = CASE WHEN id > 40 THEN overlay(e placing 'y' from 2 for 1) ELSE e || '' END;
SELECT hot('gu', 40);
SELECT toast_writes('gu');
COMMIT;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT count(*) FILTER (WHERE e = CASE WHEN id <= 40 THEN overlay(gval(id) placing 'x' from 1 for 1)
                                       ELSE overlay(gval(id) placing 'y' from 2 for 1) END) AS right_values
FROM gu;
SELECT * FROM check_scans($$SELECT id FROM gu WHERE e = overlay(gval(7) placing 'x' from 1 for 1)$$);
SELECT * FROM check_scans($$SELECT id FROM gu WHERE e = overlay(gval(70) placing 'y' from 2 for 1)$$);
DROP TABLE gu;

-- In-line uncompressed values are compared in place: a write-back of a short value is HOT,
-- a change (longer, or of the same length) is not. Values an UPDATE stored while the
-- column's storage was PLAIN have 4-byte headers; after SET STORAGE EXTENDED new versions get
-- 1-byte headers: a write-back then differs in its stored bytes only, and is still
-- image-equal (HOT; stock heap: not HOT). (While s is PLAIN, the table offers hotplus nothing.)
CREATE TABLE sv (id int PRIMARY KEY, s text, n int) USING hotheap WITH (fillfactor = 50);
INSERT INTO sv SELECT g, 'k' || g, 0 FROM generate_series(1, 6) g;
CREATE INDEX sv_s ON sv (s);
ALTER TABLE sv ALTER COLUMN s SET STORAGE PLAIN;
UPDATE sv SET s = s || '' WHERE id >= 4;
ALTER TABLE sv ALTER COLUMN s SET STORAGE EXTENDED;
-- (PostgreSQL 15 stores rows 4-6 with 4-byte headers here; 18 packs values of PLAIN columns
-- too, heap's as well, so there the write-back of row 4 below is byte-equal: same output.)
BEGIN;
CALL hot_start();
UPDATE sv SET s = s || '' WHERE id = 1;
UPDATE sv SET s = s || 'x' WHERE id = 2;
UPDATE sv SET s = overlay(s placing 'z' from 1 for 1) WHERE id = 3;
SELECT hot('sv', 1);
COMMIT;
BEGIN;
CALL hot_start();
UPDATE sv SET s = s || '', n = n + 1 WHERE id = 4;
UPDATE sv SET s = overlay(s placing 'z' from 1 for 1) WHERE id = 5;
SELECT hot('sv', 1);
COMMIT;
SELECT id, s, n FROM sv ORDER BY id;
SELECT * FROM check_scans($$SELECT id FROM sv WHERE s = 'k4'$$);
SELECT * FROM check_scans($$SELECT id FROM sv WHERE s IN ('k1', 'z5', 'z3', 'k2x')$$);
SELECT check_btrees('sv');
DROP TABLE sv;

------------------------------------------------------------------------------------------
-- old and new values compressed with different methods (PostgreSQL 19 compresses with lz4
-- by default; a column's method can change at any time; a value copied from elsewhere keeps
-- the method it was compressed with). Image equality reads through both methods. A
-- write-back keeps the old datum only where heap would store the same method: the column's
-- (or default_toast_compression) for a value arriving plain, the value's own for one arriving
-- compressed; else the new value is stored as heap stores it, and the update is still HOT.
------------------------------------------------------------------------------------------
CREATE TABLE mc (id int PRIMARY KEY, v text COMPRESSION pglz, n int) USING hotheap WITH (fillfactor = 20);
CREATE INDEX mc_md5 ON mc (md5(v));
CREATE INDEX mc_v ON mc (left(v, 20));
INSERT INTO mc SELECT g, repeat('pglz value ' || g || ' ', 400), g FROM generate_series(1, 4) g;
ALTER TABLE mc ALTER v SET COMPRESSION lz4;
INSERT INTO mc SELECT g, repeat('lz4 value ' || g || ' ', 400), g FROM generate_series(5, 8) g;
-- the same values, compressed with the other method each
CREATE TABLE mc_other (id int PRIMARY KEY, v text COMPRESSION lz4) USING heap;
INSERT INTO mc_other SELECT id, v || '' FROM mc WHERE id <= 4;
ALTER TABLE mc_other ALTER v SET COMPRESSION pglz;
INSERT INTO mc_other SELECT id, v || '' FROM mc WHERE id > 4;
CREATE TABLE mch (LIKE mc INCLUDING ALL) USING heap WITH (fillfactor = 20);
INSERT INTO mch SELECT * FROM mc;
SELECT t.id, pg_column_compression(t.v) AS mc, pg_column_compression(o.v) AS mc_other
FROM mc t JOIN mc_other o USING (id) ORDER BY id;
-- Written back as a fresh copy (compressed with the column's method, now lz4, when stored):
-- pglz rows 1-2 and lz4 rows 5-6. Expected: HOT (4); rows 5-6's old datums kept (2 reused),
-- rows 1-2 compressed anew with lz4, as heap does (`SET v = v || ''` recompresses after SET
-- COMPRESSION). Heap: not HOT, every value compressed anew with lz4.
SELECT hotplus_stat_reset();
BEGIN;
CALL hot_start();
UPDATE mc SET v = v || '', n = n + 100 WHERE id IN (1, 2, 5, 6);
SELECT hot('mc', 4);
UPDATE mch SET v = v || '', n = n + 100 WHERE id IN (1, 2, 5, 6);
SELECT hot('mch', 0);
COMMIT;
SELECT toast_reused FROM hotplus_stat_tables WHERE relid = 'mc'::regclass;
SELECT t.id, pg_column_compression(t.v) AS hotheap, pg_column_compression(h.v) AS heap
FROM mc t JOIN mch h USING (id) WHERE id IN (1, 2, 5, 6) ORDER BY id;
-- A column with no method of its own: heap compresses with default_toast_compression as it is
-- at the update. Expected: HOT, stored with lz4 (not reused); written back again: HOT, reused.
CREATE TABLE mcd (id int PRIMARY KEY, v text, n int) USING hotheap;
CREATE INDEX mcd_md5 ON mcd (md5(v));
INSERT INTO mcd VALUES (1, repeat('default method ', 400), 1);
SELECT hotplus_stat_reset();
SET default_toast_compression = lz4;
BEGIN;
CALL hot_start();
UPDATE mcd SET v = v || '', n = n + 1;
SELECT hot('mcd', 1);
COMMIT;
SELECT pg_column_compression(v) FROM mcd;
BEGIN;
CALL hot_start();
UPDATE mcd SET v = v || '', n = n + 1;
SELECT hot('mcd', 1);
COMMIT;
SET default_toast_compression = pglz;
SELECT toast_reused, pg_column_compression(v) FROM hotplus_stat_tables, mcd WHERE relid = 'mcd'::regclass;
SELECT check_btrees('mcd');
DROP TABLE mcd;
-- The same values arriving compressed with the other method (copied from mc_other, so
-- heap_form_tuple keeps their compression): rows 3 (pglz, new lz4) and 7 (lz4, new pglz),
-- and after the column's method is switched to pglz, row 4 (pglz, new lz4) and 8 (lz4, new
-- pglz) again. Expected: HOT (4), each new value stored with the method it arrived with, as
-- heap stores it (none reused).
ALTER TABLE mc ALTER v SET COMPRESSION pglz;
BEGIN;
CALL hot_start();
UPDATE mc SET v = o.v FROM mc_other o WHERE o.id = mc.id AND mc.id IN (3, 4, 7, 8);
SELECT hot('mc', 4);
COMMIT;
SELECT toast_reused FROM hotplus_stat_tables WHERE relid = 'mc'::regclass;
SELECT id, pg_column_compression(v), md5(v) = (SELECT md5(v) FROM mc_other o WHERE o.id = mc.id) AS same_value
FROM mc ORDER BY id;
-- Real changes, compressed with another method than the old value. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE mc SET v = replace(v, 'value', 'other') WHERE id IN (1, 5);
SELECT hot('mc', 0);
COMMIT;
SELECT check_btrees('mc');
SELECT * FROM check_scans($$SELECT id FROM mc WHERE left(v, 20) = left(repeat('pglz value 2 ', 2), 20)$$);
SELECT * FROM check_scans($$SELECT id FROM mc WHERE left(v, 20) IN ('lz4 value 7 lz4 valu', 'pglz other 1 pglz ot', 'lz4 other 5 lz4 othe')$$);
SELECT * FROM check_scans($$SELECT id FROM mc WHERE md5(v) IN (md5(repeat('pglz value 2 ', 400)), md5(repeat('lz4 value 8 ', 400)), md5(repeat('lz4 value 5 ', 400)))$$);
DROP TABLE mc, mc_other, mch;

RESET default_toast_compression;
DROP SCHEMA hot_toast CASCADE;
-- the extension stays as this file found it
\if :created_extension
DROP EXTENSION hotplus;
\endif
