-- jsonb fields as index inputs on wide documents, checked against a model of which indexed
-- fields changed (src/update/jsonb_parts.hpp). Not a decision_* test: its 400 updates take
-- minutes under the debug_discard_caches runs those get.
-- Design points: D11
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;
CREATE SCHEMA jsonb_wide;
SET search_path = jsonb_wide, public;

\i test/sql_helpers/hot_helpers.sql

-- Wide documents: 80 keys, so lookups cross jsonb's offset stride (every 32nd entry
-- stores an offset); values of every type, numerics and containers at shifting alignments
-- (a string before them changes length), keys added and removed. An update of the 400 that
-- changes an indexed field's value (as text, which distinguishes 1.0 from 1.00) must not be
-- HOT; one that changes none must not find an index changed (it is HOT, or finds the page
-- full): the expectation is computed before the update, the outcome read from this
-- backend's counters.
CREATE TABLE w (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 30);
INSERT INTO w SELECT g, (SELECT jsonb_object_agg('k' || k, CASE k % 5 WHEN 0 THEN to_jsonb(k * 1.5)
                                                             WHEN 1 THEN to_jsonb(repeat('s', k % 7))
                                                             WHEN 2 THEN jsonb_build_object('n', k)
                                                             WHEN 3 THEN to_jsonb(k % 2 = 0)
                                                             ELSE 'null'::jsonb END)
                         FROM generate_series(1, 80) k)
FROM generate_series(1, 8) g;
CREATE INDEX w_k1 ON w ((doc->>'k1'));
CREATE INDEX w_k10 ON w ((doc->'k10'));
CREATE INDEX w_k32 ON w ((doc->>'k32'));
CREATE INDEX w_k33 ON w ((doc->>'k33'));
CREATE INDEX w_k64 ON w ((doc->'k64'));
CREATE INDEX w_k80 ON w ((doc->>'k80')) WHERE doc->>'k77' IS NOT NULL;
CREATE INDEX w_absent ON w ((doc->>'nope'));
-- A twin that gets the same updates with two indexed fields: so few parts for so many
-- pairs that each is looked up in both documents instead of compared in one pass over them
-- (jsonb_parts.hpp, compare_parts); w's eight take the pass.
CREATE TABLE w_one (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 30);
INSERT INTO w_one SELECT * FROM w;
CREATE INDEX w_one_k33 ON w_one ((doc->>'k33')) WHERE doc->'k64' IS NOT NULL;
-- update_matches(rel, id, doc, unchanged): updates the row to doc and says whether the
-- outcome matches the model: with every index unchanged expected, no index was found
-- changed (the update is HOT, or found the page full); otherwise it was not HOT.
CREATE FUNCTION update_matches(rel regclass, row_id int, doc jsonb, unchanged boolean)
RETURNS boolean LANGUAGE plpgsql AS $f$
DECLARE
  changed_before bigint;
  hot_before bigint;
BEGIN
  SELECT nonhot_index_changed INTO changed_before FROM hotplus_stat_tables WHERE relid = rel;
  hot_before := pg_stat_get_xact_tuples_hot_updated(rel);
  EXECUTE format('UPDATE %s SET doc = $1 WHERE id = $2', rel) USING doc, row_id;
  IF unchanged THEN
    RETURN coalesce((SELECT nonhot_index_changed = coalesce(changed_before, 0)
                     FROM hotplus_stat_tables WHERE relid = rel), false);
  END IF;
  RETURN pg_stat_get_xact_tuples_hot_updated(rel) = hot_before;
END
$f$;
SELECT setseed(0.42);
DO $$
DECLARE
  keys text[] := ARRAY['k1', 'k2', 'k9', 'k10', 'k11', 'k31', 'k32', 'k33', 'k34', 'k63', 'k64', 'k65',
                       'k77', 'k79', 'k80', 'nope', 'k100'];
  vals jsonb[] := ARRAY['1.5', '1.50', '15', '"s"', '"ss"', '""', '{"n": 10}', '{"n": 10.0}', '[1, 2]',
                        'true', 'false', 'null', '"ssssss"', '1.5e0'];
  old jsonb;
  new jsonb;
  r int;
  expected boolean;
  expected_one boolean;
  mismatches int := 0;
BEGIN
  FOR i IN 1 .. 400 LOOP
    r := 1 + (random() * 7)::int;
    SELECT doc INTO old FROM w WHERE id = r;
    new := old;
    FOR j IN 1 .. 1 + (random() * 2)::int LOOP
      IF random() < 0.15 THEN
        new := new - keys[1 + (random() * (array_length(keys, 1) - 1))::int];
      ELSE
        new := jsonb_set(new, ARRAY[keys[1 + (random() * (array_length(keys, 1) - 1))::int]],
                         vals[1 + (random() * (array_length(vals, 1) - 1))::int]);
      END IF;
    END LOOP;
    expected := (old->>'k1') IS NOT DISTINCT FROM (new->>'k1')
            AND (old->'k10')::text IS NOT DISTINCT FROM (new->'k10')::text
            AND (old->>'k32') IS NOT DISTINCT FROM (new->>'k32')
            AND (old->>'k33') IS NOT DISTINCT FROM (new->>'k33')
            AND (old->'k64')::text IS NOT DISTINCT FROM (new->'k64')::text
            AND (old->>'nope') IS NOT DISTINCT FROM (new->>'nope')
            AND ((old->>'k77' IS NULL AND new->>'k77' IS NULL)
                 OR ((old->>'k77' IS NULL) = (new->>'k77' IS NULL)
                     AND (old->>'k80') IS NOT DISTINCT FROM (new->>'k80')));
    IF NOT update_matches('w', r, new, expected) THEN
      mismatches := mismatches + 1;
      RAISE NOTICE 'update %: % -> %: index unchanged expected %', i, old, new, expected;
    END IF;
    expected_one := ((old->'k64') IS NULL AND (new->'k64') IS NULL)
                    OR ((old->'k64' IS NULL) = (new->'k64' IS NULL)
                        AND (old->>'k33') IS NOT DISTINCT FROM (new->>'k33'));
    IF NOT update_matches('w_one', r, new, expected_one) THEN
      mismatches := mismatches + 1;
      RAISE NOTICE 'w_one update %: % -> %: index unchanged expected %', i, old, new, expected_one;
    END IF;
  END LOOP;
  RAISE NOTICE 'wide documents: % mismatches in 400 updates of two tables', mismatches;
END $$;
-- Every index consistent with the rows, and answering like a sequential scan.
SELECT check_btrees('w');
SELECT * FROM check_scans($$SELECT id FROM w WHERE doc->>'k1' IN ('s', 'ss', '1.5', '1.50', 'true')$$);
SELECT * FROM check_scans($$SELECT id FROM w WHERE doc->'k10' IN ('{"n": 10}', '[1, 2]', '15', 'null')$$);
SELECT * FROM check_scans($$SELECT id FROM w WHERE doc->>'k33' IN ('ssssss', '', '1.5', 'false')$$);
SELECT * FROM check_scans($$SELECT id FROM w WHERE doc->'k64' IN ('{"n": 10.0}', '"s"', '1.5e0', 'null')$$);
SELECT * FROM check_scans($$SELECT id FROM w WHERE doc->>'k80' IN ('ssssss', 's', '15') AND doc->>'k77' IS NOT NULL$$);
SELECT check_btrees('w_one');
SELECT * FROM check_scans($$SELECT id FROM w_one WHERE doc->>'k33' IN ('ssssss', '', '1.5', 'false') AND doc->'k64' IS NOT NULL$$);
SELECT relid::regclass, hot_by_expression > 100 AS many_hot, nonhot_index_changed > 30 AS many_changed,
       updates = 400 AS all_counted
FROM hotplus_stat_tables WHERE relid IN ('w'::regclass, 'w_one'::regclass) ORDER BY relid;

SELECT hotplus_stat_reset();
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA jsonb_wide CASCADE;
RESET client_min_messages;
