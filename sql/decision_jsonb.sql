-- jsonb fields as index inputs: an index reading a document only through -> / ->> with a
-- constant key depends on that field, not on the whole document (src/glue/jsonb_parts.hpp).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;
CREATE SCHEMA decision_jsonb;
SET search_path = decision_jsonb, public;

-- noisy() says when it is evaluated, so the output shows which expressions hotplus had to
-- evaluate to decide. hotplus.verify evaluates every index again after each decision it
-- checks (src/glue/verifier.hpp), so it is off here to count the decision's own work; the
-- differential test verifies the same kinds of jsonb field updates.
SET hotplus.verify = off;
CREATE FUNCTION noisy(v text) RETURNS text IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'evaluated noisy(%)', v;
  RETURN v;
END $$;
CREATE FUNCTION outcome(rel regclass) RETURNS text LANGUAGE sql AS $$
  SELECT format('updates %s: hot_by_expression %s, nonhot_index_changed %s, hot_stock %s',
                updates, hot_by_expression, nonhot_index_changed, hot_stock)
  FROM public.hotplus_stat_tables WHERE relid = rel
$$;
CREATE FUNCTION indexes_checked(rel regclass) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM pg_index i, LATERAL (SELECT public.bt_index_check(i.indexrelid::regclass, true)) c
  WHERE i.indrelid = rel
$$;

CREATE TABLE d (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 40);
INSERT INTO d VALUES (1, '{"a": "x", "b": 1, "n": 1.0, "o": {"p": 1}, "z": 0}'),
                     (2, '{"a": "y", "b": 2, "n": 2.0, "o": {"p": 2}, "z": 0}');
CREATE INDEX d_a ON d (noisy(doc->>'a'));
CREATE INDEX d_n ON d ((doc->>'n'));
CREATE INDEX d_o ON d ((doc->'o'));
CREATE INDEX d_b_when ON d ((doc->>'b')) WHERE (doc->>'z') = '0';
SELECT hotplus_stat_reset();

-- A field no index reads: HOT, and nothing evaluated (no notice).
UPDATE d SET doc = jsonb_set(doc, '{z2}', '5') WHERE id = 1;
SELECT outcome('d');
-- The field noisy() reads: evaluated (old and new), changed, not HOT.
UPDATE d SET doc = jsonb_set(doc, '{a}', '"x2"') WHERE id = 1;
SELECT outcome('d');
-- The same value written into the field: the bytes are the same, nothing evaluated, HOT.
UPDATE d SET doc = jsonb_set(doc, '{a}', '"x2"') WHERE id = 1;
SELECT outcome('d');
-- numeric 1.0 -> 1.00 in a field: different bytes, ->> gives different text: not HOT.
UPDATE d SET doc = jsonb_set(doc, '{n}', '1.00') WHERE id = 1;
SELECT outcome('d');
-- A nested object under -> changes: not HOT; one that keeps its bytes: HOT.
UPDATE d SET doc = jsonb_set(doc, '{o,p}', '3') WHERE id = 2;
UPDATE d SET doc = jsonb_set(doc, '{o}', '{"p": 3}') WHERE id = 2;
SELECT outcome('d');
-- The predicate's field: leaving the partial index is not HOT.
UPDATE d SET doc = jsonb_set(doc, '{z}', '1') WHERE id = 2;
SELECT outcome('d');
-- A field removed: the index value becomes NULL, not HOT.
UPDATE d SET doc = doc - 'n' WHERE id = 2;
SELECT outcome('d');
-- Documents that stop or start being objects: every field reads NULL there.
UPDATE d SET doc = '[1, 2]' WHERE id = 2;
UPDATE d SET doc = '"scalar"' WHERE id = 2;
UPDATE d SET doc = '{"a": "y"}' WHERE id = 2;
SELECT outcome('d');

SELECT indexes_checked('d');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, doc FROM d WHERE noisy(doc->>'a') IN ('x', 'x2', 'y') ORDER BY id;
SELECT id FROM d WHERE doc->>'n' IN ('1.0', '1.00', '2.0') ORDER BY id;
SELECT id FROM d WHERE doc->'o' IN ('{"p": 1}', '{"p": 2}', '{"p": 3}') ORDER BY id;
SELECT id FROM d WHERE (doc->>'z') = '0' AND doc->>'b' IS NOT NULL ORDER BY id;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT id, doc FROM d WHERE noisy(doc->>'a') IN ('x', 'x2', 'y') ORDER BY id;
SELECT id FROM d WHERE doc->>'n' IN ('1.0', '1.00', '2.0') ORDER BY id;
SELECT id FROM d WHERE doc->'o' IN ('{"p": 1}', '{"p": 2}', '{"p": 3}') ORDER BY id;
SELECT id FROM d WHERE (doc->>'z') = '0' AND doc->>'b' IS NOT NULL ORDER BY id;

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
  changed_before bigint;
  hot_before bigint;
  expected boolean;
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
    SELECT nonhot_index_changed INTO changed_before FROM hotplus_stat_tables WHERE relid = 'w'::regclass;
    hot_before := pg_stat_get_xact_tuples_hot_updated('w'::regclass);
    UPDATE w SET doc = new WHERE id = r;
    IF (CASE WHEN expected
             THEN (SELECT nonhot_index_changed > coalesce(changed_before, 0) FROM hotplus_stat_tables
                   WHERE relid = 'w'::regclass)
             ELSE pg_stat_get_xact_tuples_hot_updated('w'::regclass) > hot_before END) THEN
      mismatches := mismatches + 1;
      RAISE NOTICE 'update %: % -> %: index unchanged expected %', i, old, new, expected;
    END IF;
  END LOOP;
  RAISE NOTICE 'wide documents: % mismatches in 400 updates', mismatches;
END $$;
SELECT indexes_checked('w');
SELECT hot_by_expression > 100 AS many_hot, nonhot_index_changed > 50 AS many_changed,
       updates = 400 AS all_counted
FROM hotplus_stat_tables WHERE relid = 'w'::regclass;

SELECT hotplus_stat_reset();
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA decision_jsonb CASCADE;
RESET client_min_messages;
