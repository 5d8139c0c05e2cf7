-- Helpers shared by the read_* regression tests (included with \i from the repository root,
-- where pg_regress runs psql). They are created in the including test's schema.

-- read_check(q): which read path nodes the plan made with the read path on has
-- ('HotheapRead', 'HotheapProject', both joined by '+', or 'plain'), and whether the rows (as
-- text, in the query's order) are the same with the read path off.
CREATE FUNCTION read_check(q text, OUT plan text, OUT same boolean)
LANGUAGE plpgsql AS $f$
DECLARE
  wrapped text := format('SELECT coalesce(string_agg(r::text, %L), %L) FROM (%s) r', E'\n', '-', q);
  line text;
  nodes text[] := '{}';
  rows_on text;
  rows_off text;
BEGIN
  PERFORM set_config('hotplus.read_path', 'on', true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ 'HotheapRead' AND NOT 'HotheapRead' = ANY(nodes) THEN
      nodes := array_append(nodes, 'HotheapRead');
    END IF;
    IF line ~ 'HotheapProject' AND NOT 'HotheapProject' = ANY(nodes) THEN
      nodes := array_append(nodes, 'HotheapProject');
    END IF;
  END LOOP;
  plan := coalesce(nullif(array_to_string(ARRAY(SELECT unnest(nodes) ORDER BY 1), '+'), ''), 'plain');
  EXECUTE wrapped INTO rows_on;
  PERFORM set_config('hotplus.read_path', 'off', true);
  EXECUTE wrapped INTO rows_off;
  PERFORM set_config('hotplus.read_path', 'on', true);
  same := rows_on IS NOT DISTINCT FROM rows_off;
END
$f$;

-- detoasted(q): the plan's read path and scan nodes and how many values they detoasted, from
-- EXPLAIN ANALYZE (whose other lines differ between server versions).
CREATE FUNCTION detoasted(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
  line text;
  shown text[] := '{}';
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF line ~ '(HotheapRead|HotheapProject|Scan using|Values Detoasted)' THEN
      shown := shown || regexp_replace(trim(line), '\s*\(actual.*\)$', '');
    END IF;
  END LOOP;
  RETURN array_to_string(shown, ' / ');
END
$f$;
