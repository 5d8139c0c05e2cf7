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
SET client_min_messages = warning;
SELECT NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'hotplus') AS created_extension \gset
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA hot_settings;
SET search_path = hot_settings, public;

-- Statistics of this transaction. pg_stat_get_xact_* count the backend's work since its
-- last flush of statistics, which never happens inside a transaction block: hot_start(),
-- called right after BEGIN, saves a baseline for every table and TOAST table, and the
-- functions below report what happened since (CALL hot_start() right after BEGIN).
CREATE PROCEDURE hot_start()
LANGUAGE sql AS $f$
  SELECT set_config('hot_test.base', jsonb_object_agg(c.oid::text, jsonb_build_array(
           pg_stat_get_xact_tuples_updated(c.oid), pg_stat_get_xact_tuples_hot_updated(c.oid),
           pg_stat_get_xact_tuples_inserted(c.oid), pg_stat_get_xact_tuples_deleted(c.oid)))::text,
           true)
  FROM pg_class c WHERE c.relkind IN ('r', 't');
$f$;

-- stat_delta(rel, k): counter k (0 updated, 1 HOT updated, 2 inserted, 3 deleted) of rel
-- since hot_start().
CREATE FUNCTION stat_delta(rel oid, k int) RETURNS bigint
LANGUAGE sql AS $f$
  SELECT CASE k WHEN 0 THEN pg_stat_get_xact_tuples_updated(rel)
                WHEN 1 THEN pg_stat_get_xact_tuples_hot_updated(rel)
                WHEN 2 THEN pg_stat_get_xact_tuples_inserted(rel)
                ELSE pg_stat_get_xact_tuples_deleted(rel) END
         - coalesce((current_setting('hot_test.base')::jsonb -> rel::text ->> k)::bigint, 0)
$f$;

-- hot(rel, expected): rows of rel updated and updated HOT since hot_start(), and the
-- expected number of HOT updates.
CREATE FUNCTION hot(rel regclass, expected int) RETURNS text
LANGUAGE sql AS $f$
  SELECT format('%s: %s updated, %s HOT (expected %s)%s', rel,
                stat_delta(rel, 0), stat_delta(rel, 1), expected,
                CASE WHEN stat_delta(rel, 1) <> expected THEN ' <== WRONG' ELSE '' END)
$f$;

-- toast_writes(rel): rows inserted into and deleted from rel's TOAST table since hot_start().
CREATE FUNCTION toast_writes(rel regclass) RETURNS text
LANGUAGE sql AS $f$
  SELECT format('%s TOAST: %s inserted, %s deleted', rel,
                stat_delta(reltoastrelid, 2), stat_delta(reltoastrelid, 3))
  FROM pg_class WHERE oid = rel
$f$;

-- check_scans(query, ios): runs the query by sequential scan, then with only index scans,
-- then with only bitmap scans (and, if ios, with index-only scans allowed) enabled.
-- Returns the seq scan's rows (as text, sorted), whether every mode returned exactly those
-- rows, and the scan nodes each non-seq mode used.
CREATE FUNCTION check_scans(q text, ios boolean DEFAULT false)
RETURNS TABLE (seq_rows text, all_same boolean, plans text)
LANGUAGE plpgsql
SET enable_seqscan = on SET enable_indexscan = on SET enable_indexonlyscan = on
SET enable_bitmapscan = on SET max_parallel_workers_per_gather = 0
AS $f$
DECLARE
  wrapped text := format('SELECT coalesce(string_agg(r::text, %L ORDER BY r::text COLLATE "C"), %L) FROM (%s) r',
                         ' ', '(none)', q);
  modes text[] := CASE WHEN ios THEN '{seq,index,bitmap,ios}' ELSE '{seq,index,bitmap}' END;
  m text;
  cur text;
  line text;
  nodes text;
BEGIN
  all_same := true;
  FOREACH m IN ARRAY modes LOOP
    PERFORM set_config('enable_seqscan', (m = 'seq')::text, true);
    PERFORM set_config('enable_indexscan', (m IN ('index', 'ios'))::text, true);
    PERFORM set_config('enable_indexonlyscan', (m = 'ios')::text, true);
    PERFORM set_config('enable_bitmapscan', (m = 'bitmap')::text, true);
    EXECUTE wrapped INTO cur;
    IF m = 'seq' THEN
      seq_rows := cur;
      CONTINUE;
    END IF;
    all_same := all_same AND cur = seq_rows;
    nodes := NULL;
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
      IF line ~ 'Scan' AND line !~ 'Bitmap Heap Scan' THEN
        nodes := concat_ws(', ', nodes, regexp_replace(line, '^\s*(->\s*)?', ''));
      END IF;
    END LOOP;
    plans := concat_ws('; ', plans, m || ': ' || nodes);
  END LOOP;
  RETURN NEXT;
END
$f$;

-- check_btrees(rel): bt_index_check(index, heapallindexed => true) on every btree of rel.
CREATE FUNCTION check_btrees(rel regclass) RETURNS text
LANGUAGE sql AS $f$
  SELECT coalesce(string_agg(c.relname || CASE WHEN bt_index_check(c.oid, true)::text = '' THEN ' ok' END,
                             ', ' ORDER BY c.relname), '(no btree)')
  FROM pg_index i
  JOIN pg_class c ON c.oid = i.indexrelid
  JOIN pg_am a ON a.oid = c.relam
  WHERE i.indrelid = rel AND a.amname = 'btree'
$f$;

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
