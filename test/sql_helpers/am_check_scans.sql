-- Helpers shared by the am_* regression tests (included with \i from the repository root,
-- where pg_regress runs psql). They are created in the including test's schema.

-- am_check_scans(query, modes): runs the query once per scan mode ('seqscan' first, then
-- each of modes: 'index', 'bitmap', 'indexonly'), with the other scan types disabled.
-- Reports the scan nodes of the plan, the number of rows and whether the rows (compared
-- as text) are the same as those of the sequential scan.
CREATE FUNCTION am_check_scans(q text, modes text[] DEFAULT '{index,bitmap}')
RETURNS TABLE (mode text, plan text, nrows bigint, same_as_seqscan boolean)
LANGUAGE plpgsql AS $f$
DECLARE
  wrapped text := format('SELECT count(*), coalesce(string_agg(r::text, %L ORDER BY r::text), %L) FROM (%s) r',
                         E'\n', '', q);
  saved text[] := array[current_setting('enable_seqscan'), current_setting('enable_indexscan'),
                        current_setting('enable_indexonlyscan'), current_setting('enable_bitmapscan'),
                        current_setting('max_parallel_workers_per_gather')];
  ref_rows text;
  cur_rows text;
  line text;
BEGIN
  PERFORM set_config('max_parallel_workers_per_gather', '0', false);
  FOREACH mode IN ARRAY array['seqscan'] || modes LOOP
    PERFORM set_config('enable_seqscan', (mode = 'seqscan')::text, false);
    PERFORM set_config('enable_indexscan', (mode IN ('index', 'indexonly'))::text, false);
    PERFORM set_config('enable_indexonlyscan', (mode = 'indexonly')::text, false);
    PERFORM set_config('enable_bitmapscan', (mode = 'bitmap')::text, false);
    plan := NULL;
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || wrapped LOOP
      IF line ~ 'Scan' AND line !~ 'HotheapRead' THEN  -- the read path's node (D14) is not a scan type
        plan := concat_ws('; ', plan, regexp_replace(line, '^\s*(->\s*)?', ''));
      END IF;
    END LOOP;
    EXECUTE wrapped INTO nrows, cur_rows;
    IF mode = 'seqscan' THEN
      ref_rows := cur_rows;
    END IF;
    same_as_seqscan := cur_rows = ref_rows;
    RETURN NEXT;
  END LOOP;
  PERFORM set_config('enable_seqscan', saved[1], false);
  PERFORM set_config('enable_indexscan', saved[2], false);
  PERFORM set_config('enable_indexonlyscan', saved[3], false);
  PERFORM set_config('enable_bitmapscan', saved[4], false);
  PERFORM set_config('max_parallel_workers_per_gather', saved[5], false);
END
$f$;
