-- Helpers shared by the read_* regression tests (included with \i from the repository root,
-- where pg_regress runs psql). They are created in the including test's schema.

-- read_nodes(q): whether the plan of q made with the read path on has a HotheapRead node
-- ('HotheapRead' or 'plain').
CREATE FUNCTION read_nodes(q text) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
  line text;
BEGIN
  PERFORM set_config('hotplus.read_path', 'on', true);
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line ~ 'HotheapRead' THEN
      RETURN 'HotheapRead';
    END IF;
  END LOOP;
  RETURN 'plain';
END
$f$;

-- markers(q): where the plan of q made with the read path on has shared detoast markers
-- (src/read/shared_markers.hpp): per plan node that has some, in the plan's order, its groups
-- (one column as that node reads it) and how many references each wraps, 'a' for a group
-- whose consumers may alias the copy: 'Hash Join: g1 x5'. A node's output list shows the
-- markers of the nodes below it too (a Var naming their output); each group is counted in the
-- deepest node that shows it, its own. 'none' without markers.
CREATE FUNCTION markers(q text) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
  plan jsonb;
  result text;
BEGIN
  PERFORM set_config('hotplus.read_path', 'on', true);
  PERFORM set_config('hotplus.read_path_show_markers', 'on', true);
  EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF, FORMAT JSON) ' || q INTO plan;
  PERFORM set_config('hotplus.read_path_show_markers', 'off', true);
  WITH RECURSIVE nodes(node, depth, path) AS (
    SELECT plan->0->'Plan', 0, ARRAY[1]
    UNION ALL
    SELECT c.child, n.depth + 1, n.path || c.i::int
    FROM nodes n, jsonb_array_elements(n.node->'Plans') WITH ORDINALITY AS c(child, i)
  ), shown AS (
    SELECT n.path, n.depth,
           n.node->>'Node Type' || coalesce(' (' || lower(n.node->>'Strategy') || ')', '') AS type,
           m[1]::int AS grp, m[2] IS NOT NULL AS aliasing
    FROM nodes n, regexp_matches((n.node - 'Plans')::text, 'group ([0-9]+)(, aliasing)?', 'g') AS m
  ), owner AS (
    SELECT DISTINCT ON (grp) grp, path FROM shown ORDER BY grp, depth DESC
  ), counted AS (
    SELECT s.path, s.type, s.grp, bool_or(s.aliasing) AS aliasing, count(*) AS refs
    FROM shown s JOIN owner o ON o.grp = s.grp AND o.path = s.path
    GROUP BY s.path, s.type, s.grp
  ), per_node AS (
    SELECT path, type, string_agg(format('g%s x%s%s', grp, refs, CASE WHEN aliasing THEN ' a' ELSE '' END), ', ' ORDER BY grp) AS groups
    FROM counted GROUP BY path, type
  )
  SELECT string_agg(type || ': ' || groups, ' / ' ORDER BY path) INTO result FROM per_node;
  RETURN coalesce(result, 'none');
END
$f$;

-- shared(q): what the markers of q did, run with the read path on (the backend's counts
-- before and after: hotplus_shared_detoast_counts()): values detoasted into a copy, references
-- served by a copy made for another, stored values passed on as heap passes them.
CREATE FUNCTION shared(q text) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
  b record;
  a record;
BEGIN
  PERFORM set_config('hotplus.read_path', 'on', true);
  SELECT * INTO b FROM hotplus_shared_detoast_counts();
  EXECUTE format('SELECT coalesce(string_agg(r::text, %L), %L) FROM (%s) r', E'\n', '-', q);
  SELECT * INTO a FROM hotplus_shared_detoast_counts();
  RETURN format('made %s, served %s, passed %s', a.copies_made - b.copies_made,
                a.copies_served - b.copies_served, a.passed_stored - b.passed_stored);
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
-- query over its heap twin `heap`: q's markers, whether their outcomes (rows or SQLSTATE) are
-- the same, and the hotheap one (its md5 when longer than 120 characters).
CREATE FUNCTION as_heap(q text, hot text, heap text, OUT marked text, OUT same boolean, OUT result text)
LANGUAGE plpgsql AS $f$
DECLARE
  qh text := regexp_replace(q, '\m' || hot || '\M', heap, 'g');
BEGIN
  marked := markers(q);
  result := outcome(q);
  same := result IS NOT DISTINCT FROM outcome(qh);
  IF length(result) > 120 THEN
    result := 'md5 ' || md5(result);
  END IF;
END
$f$;
