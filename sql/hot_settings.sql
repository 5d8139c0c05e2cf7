-- HOT decision matrix under each GUC:
--   hotplus.enabled = off            heap's own decision (and no TOAST reuse);
--   hotplus.check_expressions = off  no predicate or expression is evaluated: an index whose
--                                    predicate or expression input changed counts as changed,
--                                    but image equality of stored columns (write-backs) holds;
--   hotplus.reuse_toast = off        image-equal values are stored again (TOAST rewritten).
-- The same six updates run under every setting, on fresh rows:
--   A  an unindexed field of a jsonb document with an expression index
--   B  the key of a partial index, on a row outside its predicate
--   C  a write-back (e || '') of an out-of-line value under a plain btree
--   D  an unindexed column (heap goes HOT too)
--   E  the indexed field of the document (never HOT)
--   F  the partial index's predicate becomes true (never HOT)
-- Design points: D2, D8, D11
SET client_min_messages = warning;
SELECT NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'hotplus') AS created_extension \gset
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA hot_settings;
SET search_path = hot_settings, public;

\i test/sql_helpers/hot_helpers.sql

-- Set before any hotheap table is used in this session (maybe before the library is
-- loaded): the value must hold once it is.
SET hotplus.enabled = off;

CREATE TABLE s (id int PRIMARY KEY, doc jsonb, flag bool, k int, e text, n int)
  USING hotheap WITH (fillfactor = 50);
ALTER TABLE s ALTER COLUMN e SET STORAGE EXTERNAL;
CREATE INDEX s_doc ON s ((doc->>'k'));
CREATE INDEX s_k ON s (k) WHERE flag;
CREATE INDEX s_e ON s (e);
-- every row outside s_k's predicate; e: 2474 bytes, out of line
CREATE FUNCTION ev(g int) RETURNS text IMMUTABLE LANGUAGE sql
  AS $$SELECT string_agg(md5(g || '-' || i), ' ') FROM generate_series(1, 75) i$$;
INSERT INTO s SELECT g, jsonb_build_object('k', 'k' || g, 'x', 0), false, g, ev(g), 0
FROM generate_series(1, 30) g;
SHOW hotplus.enabled;
SHOW hotplus.check_expressions;
SHOW hotplus.reuse_toast;

-- run_cases(first): runs A .. F on rows first .. first + 5, each in its own statement,
-- and reports per case whether it was HOT, and the TOAST rows written. Call it inside a
-- transaction after hot_start(); it restarts the baseline for each case.
CREATE FUNCTION run_cases(first int) RETURNS TABLE (case_name text, hot bigint, toast_inserted bigint, toast_deleted bigint)
LANGUAGE plpgsql AS $f$
DECLARE
  toast oid := (SELECT reltoastrelid FROM pg_class WHERE oid = 's'::regclass);
BEGIN
  FOR i IN 0..5 LOOP
    CALL hot_start();
    CASE i
      WHEN 0 THEN
        case_name := 'A expression input';
        UPDATE s SET doc = jsonb_set(doc, '{x}', '1') WHERE id = first + i;
      WHEN 1 THEN
        case_name := 'B partial index key';
        UPDATE s SET k = k + 100 WHERE id = first + i;
      WHEN 2 THEN
        case_name := 'C toast write-back';
        UPDATE s SET e = e || '' WHERE id = first + i;
      WHEN 3 THEN
        case_name := 'D unindexed column';
        UPDATE s SET n = n + 1 WHERE id = first + i;
      WHEN 4 THEN
        case_name := 'E expression value';
        UPDATE s SET doc = jsonb_set(doc, '{k}', to_jsonb('new' || id)) WHERE id = first + i;
      WHEN 5 THEN
        case_name := 'F predicate flip';
        UPDATE s SET flag = true WHERE id = first + i;
    END CASE;
    hot := stat_delta('s'::regclass, 1);
    toast_inserted := stat_delta(toast, 2);
    toast_deleted := stat_delta(toast, 3);
    RETURN NEXT;
  END LOOP;
END
$f$;

-- hotplus.enabled = off: heap's decisions. Expected: HOT only for D; C rewrites the value.
BEGIN;
SELECT * FROM run_cases(1);
COMMIT;
RESET hotplus.enabled;

-- All on (defaults). Expected: HOT for A to D; C writes no TOAST row.
BEGIN;
SELECT * FROM run_cases(7);
COMMIT;

-- hotplus.check_expressions = off. Expected: A and B not HOT (not evaluated); C HOT with
-- no TOAST row written; D HOT.
SET hotplus.check_expressions = off;
BEGIN;
SELECT * FROM run_cases(13);
COMMIT;

-- ... and hotplus.reuse_toast = off too. Expected: as above, but C rewrites the value
-- (still HOT: image equality).
SET hotplus.reuse_toast = off;
BEGIN;
SELECT * FROM run_cases(19);
COMMIT;
RESET hotplus.check_expressions;
RESET hotplus.reuse_toast;

-- SET LOCAL in the middle of a transaction: each update uses the value current at the time.
-- Expected: HOT, then not HOT, then HOT again.
BEGIN;
CALL hot_start();
UPDATE s SET doc = jsonb_set(doc, '{x}', '2') WHERE id = 25;
SELECT hot('s', 1);
SET LOCAL hotplus.enabled = off;
UPDATE s SET doc = jsonb_set(doc, '{x}', '2') WHERE id = 26;
SELECT hot('s', 1);
SET LOCAL hotplus.enabled = on;
UPDATE s SET doc = jsonb_set(doc, '{x}', '2') WHERE id = 27;
SELECT hot('s', 2);
COMMIT;
SHOW hotplus.enabled;

-- A decision that fails inside hotplus (hotplus.check_selftest throws a C++ exception in
-- it) is caught: heap decides alone (not HOT: an expression index's input column changed),
-- the row and every index are right, and check_failures counts it.
SELECT check_failures AS failures_before FROM hotplus_stat_tables WHERE relid = 's'::regclass \gset
BEGIN;
CALL hot_start();
SET LOCAL hotplus.check_selftest = on;
UPDATE s SET doc = jsonb_set(doc, '{x}', '3') WHERE id = 28;
SELECT hot('s', 0);
COMMIT;
SELECT check_failures - :failures_before AS check_failures_added FROM hotplus_stat_tables
WHERE relid = 's'::regclass;
SELECT doc->>'x' AS x FROM s WHERE id = 28;

SELECT check_btrees('s');
SELECT id, doc, k, length(e), md5(e), n FROM s ORDER BY id;
SELECT * FROM check_scans($$SELECT id, doc->>'x' FROM s WHERE doc->>'k' IN ('k1', 'k7', 'k13', 'k19', 'k25', 'k26', 'k27')$$);
SELECT * FROM check_scans($$SELECT id, doc->>'k' FROM s WHERE doc->>'k' IN ('k5', 'k11', 'k17', 'k23', 'new5', 'new11', 'new17', 'new23')$$);
SELECT * FROM check_scans($$SELECT id, k FROM s WHERE flag AND k > 0$$);
SELECT * FROM check_scans($$SELECT id FROM s WHERE e IN (ev(3), ev(9), ev(15), ev(21))$$);
DROP TABLE s;
DROP FUNCTION run_cases(int), ev(int);

DROP SCHEMA hot_settings CASCADE;
-- the extension stays as this file found it
\if :created_extension
DROP EXTENSION hotplus;
\endif
