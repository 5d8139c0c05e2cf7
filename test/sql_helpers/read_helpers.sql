-- Helpers shared by the read_* regression tests (included with \i from the repository root,
-- where pg_regress runs psql). They are created in the including test's schema.

-- read_nodes(q): which read path nodes the plan of q made with the read path on has
-- ('HotheapRead', 'HotheapProject', both joined by '+', or 'plain').
CREATE FUNCTION read_nodes(q text) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
  line text;
  nodes text[] := '{}';
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
  RETURN coalesce(nullif(array_to_string(ARRAY(SELECT unnest(nodes) ORDER BY 1), '+'), ''), 'plain');
END
$f$;

-- read_check(q): read_nodes(q), and whether the rows (as text, in the query's order) are
-- the same with the read path off.
CREATE FUNCTION read_check(q text, OUT plan text, OUT same boolean)
LANGUAGE plpgsql AS $f$
DECLARE
  wrapped text := format('SELECT coalesce(string_agg(r::text, %L), %L) FROM (%s) r', E'\n', '-', q);
  rows_on text;
  rows_off text;
BEGIN
  plan := read_nodes(q);
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

-- outcome(q): q's rows as text (in the query's order), or 'ERROR ' and the SQLSTATE it
-- raised: what a heap table and its hotheap twin must agree on.
CREATE FUNCTION outcome(q text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
  result text;
BEGIN
  EXECUTE format('SELECT coalesce(string_agg(r::text, %L), %L) FROM (%s) r', E'\n', '-', q) INTO result;
  RETURN result;
EXCEPTION WHEN OTHERS THEN
  RETURN 'ERROR ' || SQLSTATE;
END
$f$;

-- temp_written(q): the temporary blocks q's execution wrote (spills, batches).
CREATE FUNCTION temp_written(q text) RETURNS bigint LANGUAGE plpgsql AS $f$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO plan;
  RETURN (plan->0->'Plan'->>'Temp Written Blocks')::bigint;
END
$f$;

-- as_heap(q, hot, heap): q (which names the hotheap table `hot`, as a word) and the same
-- query over its heap twin `heap`: their plans' read path nodes, whether their outcomes
-- (rows or SQLSTATE) are the same, and the hotheap one.
CREATE FUNCTION as_heap(q text, hot text, heap text, OUT plan text, OUT same boolean, OUT result text)
LANGUAGE plpgsql AS $f$
DECLARE
  qh text := regexp_replace(q, '\m' || hot || '\M', heap, 'g');
BEGIN
  plan := read_nodes(q);
  result := outcome(q);
  same := result IS NOT DISTINCT FROM outcome(qh);
END
$f$;
