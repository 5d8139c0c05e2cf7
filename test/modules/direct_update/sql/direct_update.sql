-- C code that updates a table directly (simple_table_tuple_update()) while a statement
-- updating the same table runs: its update is not the statement's own, so hotplus must not
-- take the statement's target columns for it and must compare it in full (src/README.md
-- D8c). Each statement below sets only doc; direct_update(), called in its WHERE clause (or
-- ON CONFLICT WHERE, or MERGE's WHEN condition), replaces another row's k and doc, keeping
-- doc->>'a'. Given the statement's targets, hotplus would take k as unchanged and the
-- expression index on doc->>'a' as unchanged, store that version as HOT, and the index on k
-- would miss it.
--
-- hotplus.verify would stop such a wrong decision with an ERROR; it is off in sections 1-4,
-- so that what the guard alone does is checked (amcheck with heapallindexed, index scans
-- against sequential scans), and on in section 5.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
CREATE EXTENSION IF NOT EXISTS amcheck;
CREATE EXTENSION IF NOT EXISTS direct_update;
RESET client_min_messages;
CREATE SCHEMA direct_update_test;
SET search_path = direct_update_test, public;
-- am_check_scans(query): the query's rows by sequential, index and bitmap scans, compared.
\set ECHO none
\i ../../sql_helpers/am_check_scans.sql
\set ECHO all

-- What hotplus counted for rel since the last hotplus_stat_reset().
CREATE FUNCTION outcome(rel regclass) RETURNS text LANGUAGE sql AS $$
  SELECT format('updates %s: hot_stock %s, hot_by_expression %s, nonhot_index_changed %s, nonhot_page_full %s, nonhot_other %s, checks_skipped %s',
                updates, hot_stock, hot_by_expression, nonhot_index_changed, nonhot_page_full, nonhot_other, checks_skipped)
  FROM public.hotplus_stat_tables WHERE relid = rel
$$;
-- bt_index_check(index, heapallindexed => true) on every index of rel: it raises an ERROR
-- naming the index and the heap tuple that lacks an entry.
CREATE FUNCTION indexes_checked(rel regclass) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(format('%s ok', i.indexrelid::regclass), ', ' ORDER BY i.indexrelid::regclass::text)
  FROM pg_index i, LATERAL (SELECT public.bt_index_check(i.indexrelid::regclass, true)) c
  WHERE i.indrelid = rel
$$;
-- The plan's nodes and their filters, with InitPlans written the same way on every version
-- ("InitPlan 1 (returns $0)" and $0 up to 16, "InitPlan 1" and (InitPlan 1).col1 in 17
-- and 18, "InitPlan expr_1" and (InitPlan expr_1).col1 in 19).
CREATE FUNCTION plan_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    line := regexp_replace(line, '^\s*(->\s*)?', '');
    line := regexp_replace(line, '^InitPlan .*', 'InitPlan');
    line := regexp_replace(line, '\$\d+|\(InitPlan [^)]+\)\.col\d+', '(InitPlan result)', 'g');
    RETURN NEXT line;
  END LOOP;
END
$$;

CREATE TABLE t (id int PRIMARY KEY, k int, doc jsonb) USING hotheap WITH (fillfactor = 50);
CREATE INDEX t_k ON t (k);
CREATE INDEX t_a ON t ((doc->>'a'));
-- Each section starts from the same rows, so that what amcheck finds is that section's.
CREATE PROCEDURE fresh_t() LANGUAGE sql AS $$
  TRUNCATE t;
  INSERT INTO t SELECT g, g, jsonb_build_object('a', g, 'b', 0) FROM generate_series(1, 4) g;
  SELECT public.hotplus_stat_reset();
$$;
-- The rows with k = each of ks by sequential, index and bitmap scans.
CREATE FUNCTION k_scans(VARIADIC ks int[])
RETURNS TABLE (k int, mode text, nrows bigint, same_as_seqscan boolean) LANGUAGE plpgsql AS $$
BEGIN
  FOREACH k IN ARRAY ks LOOP
    RETURN QUERY SELECT k, s.mode, s.nrows, s.same_as_seqscan
                 FROM am_check_scans(format('SELECT id, k FROM t WHERE k = %s', k)) s;
  END LOOP;
END
$$;
-- A sequential scan, so that direct_update() runs in the statement, once, on row 1 (the
-- cheap id = 1 first; the function is expensive), before the statement updates row 1.
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SET hotplus.verify = off;

-- 1. UPDATE; the direct update changes row 2's k (to 999) and doc's b: not HOT, and every
-- index gets an entry.
SELECT plan_of($q$
UPDATE t SET doc = jsonb_set(doc, '{b}', '1') WHERE id = 1
  AND direct_update('t', (SELECT ctid FROM t WHERE id = 2), 999, (SELECT jsonb_set(doc, '{b}', '7') FROM t WHERE id = 2))
$q$);
CALL fresh_t();
UPDATE t SET doc = jsonb_set(doc, '{b}', '1') WHERE id = 1
  AND direct_update('t', (SELECT ctid FROM t WHERE id = 2), 999, (SELECT jsonb_set(doc, '{b}', '7') FROM t WHERE id = 2));
SELECT outcome('t');
SELECT id, k, doc FROM t ORDER BY id;
SELECT indexes_checked('t');
SELECT * FROM k_scans(2, 999);
SELECT * FROM am_check_scans($$SELECT id, doc->>'a' FROM t WHERE doc->>'a' IN ('1', '2')$$);

-- 2. UPDATE; the direct update changes only doc's b in row 2: HOT, as when compared in full.
CALL fresh_t();
UPDATE t SET doc = jsonb_set(doc, '{b}', '1') WHERE id = 1
  AND direct_update('t', (SELECT ctid FROM t WHERE id = 2), 2, (SELECT jsonb_set(doc, '{b}', '7') FROM t WHERE id = 2));
SELECT outcome('t');
SELECT id, k, doc FROM t ORDER BY id;
SELECT indexes_checked('t');
SELECT * FROM k_scans(2);

-- 3. INSERT ... ON CONFLICT DO UPDATE, direct_update() in its WHERE: row 2's k becomes 999.
CALL fresh_t();
INSERT INTO t VALUES (1, 1, '{"a": 1, "b": 9}') ON CONFLICT (id) DO UPDATE SET doc = jsonb_set(t.doc, '{b}', '1')
  WHERE direct_update('t', (SELECT ctid FROM t WHERE id = 2), 999, (SELECT jsonb_set(doc, '{b}', '7') FROM t WHERE id = 2));
SELECT outcome('t');
SELECT id, k, doc FROM t ORDER BY id;
SELECT indexes_checked('t');
SELECT * FROM k_scans(2, 999);

-- 4. MERGE, direct_update() in its WHEN condition: row 2's k becomes 999.
CALL fresh_t();
MERGE INTO t USING (VALUES (1)) v(id) ON t.id = v.id
  WHEN MATCHED AND direct_update('t', (SELECT ctid FROM t WHERE id = 2), 999, (SELECT jsonb_set(doc, '{b}', '7') FROM t WHERE id = 2))
  THEN UPDATE SET doc = jsonb_set(t.doc, '{b}', '1');
SELECT outcome('t');
SELECT id, k, doc FROM t ORDER BY id;
SELECT indexes_checked('t');
SELECT * FROM k_scans(2, 999);

-- 5. Section 1 again with hotplus.verify on: the statement succeeds (a wrong HOT decision
-- would fail it with the verifier's ERROR).
SET hotplus.verify = on;
CALL fresh_t();
UPDATE t SET doc = jsonb_set(doc, '{b}', '1') WHERE id = 1
  AND direct_update('t', (SELECT ctid FROM t WHERE id = 2), 999, (SELECT jsonb_set(doc, '{b}', '7') FROM t WHERE id = 2));
SELECT outcome('t');
SELECT id, k, doc FROM t ORDER BY id;
SELECT indexes_checked('t');
SELECT * FROM k_scans(2, 999);

RESET hotplus.verify;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT hotplus_stat_reset();
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA direct_update_test CASCADE;
RESET client_min_messages;
