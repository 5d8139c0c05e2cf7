-- Helpers shared by the hot_* regression tests (included with \i from the repository root,
-- where pg_regress runs psql). They are created in the including test's schema.

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

-- hot_by_version(rel, before16, since16): like hot(), for updates whose HOT-ness stock
-- PostgreSQL changed in 16, where summarizing indexes (BRIN) stopped blocking HOT. Prints the
-- same on every version unless the count is wrong.
CREATE FUNCTION hot_by_version(rel regclass, before16 int, since16 int) RETURNS text
LANGUAGE sql AS $f$
  SELECT format('%s: %s updated, HOT %s (%s before PG16, %s since)', rel, stat_delta(rel, 0),
                CASE WHEN stat_delta(rel, 1) = CASE WHEN current_setting('server_version_num')::int >= 160000
                                                    THEN since16 ELSE before16 END
                     THEN 'as expected' ELSE stat_delta(rel, 1) || ' <== WRONG' END,
                before16, since16)
$f$;

-- toast_writes(rel): rows inserted into and deleted from rel's TOAST table since hot_start().
CREATE FUNCTION toast_writes(rel regclass) RETURNS text
LANGUAGE sql AS $f$
  SELECT format('%s TOAST: %s inserted, %s deleted', rel,
                stat_delta(reltoastrelid, 2), stat_delta(reltoastrelid, 3))
  FROM pg_class WHERE oid = rel
$f$;

-- check_scans(query, ios, index_scan): runs the query by sequential scan, then with only
-- index scans (unless not index_scan: GIN has none, and what the planner falls back to
-- differs between versions), then with only bitmap scans (and, if ios, with index-only
-- scans allowed) enabled.
-- Returns the seq scan's rows (as text, sorted), whether every mode returned exactly those
-- rows, and the scan nodes each non-seq mode used.
CREATE FUNCTION check_scans(q text, ios boolean DEFAULT false, index_scan boolean DEFAULT true)
RETURNS TABLE (seq_rows text, all_same boolean, plans text)
LANGUAGE plpgsql
SET enable_seqscan = on SET enable_indexscan = on SET enable_indexonlyscan = on
SET enable_bitmapscan = on SET max_parallel_workers_per_gather = 0
AS $f$
DECLARE
  wrapped text := format('SELECT coalesce(string_agg(r::text, %L ORDER BY r::text COLLATE "C"), %L) FROM (%s) r',
                         ' ', '(none)', q);
  modes text[] := array_remove(CASE WHEN ios THEN '{seq,index,bitmap,ios}' ELSE '{seq,index,bitmap}' END::text[],
                               CASE WHEN NOT index_scan THEN 'index' END);
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
      IF line ~ 'Scan' AND line !~ 'Bitmap Heap Scan' AND line !~ 'HotheapRead' THEN
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
