-- jsonb fields as index inputs: an index reading a document only through -> / ->> with a
-- constant key depends on that field, not on the whole document (src/update/jsonb_parts.hpp).
-- Design points: D3, D11
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;
CREATE SCHEMA decision_jsonb;
SET search_path = decision_jsonb, public;

-- noisy() says when it is evaluated, so the output shows which expressions hotplus had to
-- evaluate to decide. hotplus.verify evaluates every index again after each decision it
-- checks (src/update/verifier.hpp), so it is off here to count the decision's own work; the
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

SELECT hotplus_stat_reset();
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA decision_jsonb CASCADE;
RESET client_min_messages;
