-- The index most likely to change is decided first (src/README.md D9a): an update that
-- cannot be HOT needs one changed index, so the index the last decision for the same target
-- columns found changed is looked at before the others, only its jsonb fields are compared
-- first, and a field that differs as a string (or boolean) needs no evaluation of
-- `col ->> key` / `col -> key`. A wrong guess may cost time, never a decision: every
-- update's HOT outcome below is what the rule says, whichever index was guessed, as the
-- workload moves from one changed field to another; amcheck and index vs sequential scans
-- check every index after each phase.
-- Design points: D3, D9, D9a, D11
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;
CREATE SCHEMA decision_likely_first;
SET search_path = decision_likely_first, public;
\i test/sql_helpers/hot_helpers.sql

-- 1. Which expressions are evaluated, in which order. noisy() says when it is evaluated
-- (hotplus.verify, which evaluates every index again after a HOT decision it checks, and
-- hotplus.index_hints, which evaluates for its hint what the decision of an update that is
-- not HOT left, D16, are off here so that only the decision's own evaluations show). Both
-- indexes read their field through noisy(): no shortcut, a changed field is evaluated.
-- lower() makes 'A1' -> 'a1' a change of the field that leaves the index's value as it was.
SET hotplus.verify = off;
SET hotplus.index_hints = off;
CREATE FUNCTION noisy(tag text, v text) RETURNS text IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'evaluated %(%)', tag, v;
  RETURN lower(v);
END $$;
CREATE TABLE lf (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50);
INSERT INTO lf SELECT g, jsonb_build_object('a', 'A' || g, 'b', 'b' || g, 'c', 'c' || g)
FROM generate_series(1, 8) g;
CREATE INDEX lf_a ON lf (noisy('a', doc->>'a'));
CREATE INDEX lf_b ON lf (noisy('b', doc->>'b'));
SELECT hotplus_stat_reset();
PREPARE upd(int, text, text) AS
  UPDATE lf SET doc = doc || jsonb_build_object('a', $2::text, 'b', $3::text) WHERE id = $1;

BEGIN;
CALL hot_start();
-- Nothing learned yet: index order. a's value stays (evaluated, unchanged), b's changes.
EXECUTE upd(1, 'a1', 'b1x');
-- b changed last time: b is evaluated first, changes, and a is not looked at.
EXECUTE upd(2, 'a2', 'b2x');
-- The workload moves to a: b's field is the same (not evaluated), a's value stays: HOT.
EXECUTE upd(3, 'a3', 'b3');
-- HOT forgets the guess: index order again; a changes.
EXECUTE upd(4, 'zz4', 'b4');
-- a is guessed; its field is the same, so b (changed) is evaluated next.
EXECUTE upd(5, 'A5', 'b5x');
-- b is guessed and changes: a (changed too) is not evaluated.
EXECUTE upd(6, 'zz6', 'b6x');
SELECT hot('lf', 1);
COMMIT;
-- The first index found changed: b in updates 1, 2, 5 and 6, a in 4.
SELECT indexrelname, nonhot_first_changed FROM hotplus_stat_indexes
WHERE relname = 'lf' ORDER BY 1;
-- With hints (the default): b is decided first and changes, then a is evaluated for its
-- hint (its value stays: hinted); then the executor evaluates both for the new entries.
RESET hotplus.index_hints;
EXECUTE upd(7, 'a7', 'b7x');
SELECT index_hints FROM hotplus_stat_tables WHERE relname = 'lf';
RESET hotplus.verify;
SET client_min_messages = warning; -- amcheck and the scans evaluate noisy() too
SELECT check_btrees('lf');
SELECT * FROM check_scans($$SELECT id, doc FROM lf WHERE noisy('a', doc->>'a') IN ('a1', 'a2', 'a3', 'zz4', 'a5', 'zz6', 'a7')$$);
SELECT * FROM check_scans($$SELECT id, doc FROM lf WHERE noisy('b', doc->>'b') IN ('b1x', 'b2x', 'b3', 'b4', 'b5x', 'b6x', 'b7x')$$);
RESET client_min_messages;

-- 2. The shortcut is exact: only strings (or booleans) of other bytes make `->>` and `->`
-- differ without evaluation. A field that turns from the string "true" into true, from 1
-- into "1", or from null into absent keeps its `->>` value (HOT), not its `->` value.
-- Before each case an update of another row changes the field as a string, so that the
-- case runs with its index guessed.
CREATE TABLE sc_text (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50);
CREATE TABLE sc_json (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50);
INSERT INTO sc_text VALUES
  (1, '{"s": "x", "n": 1}'), (2, '{"s": "true", "n": 2}'), (3, '{"s": 1, "n": 3}'),
  (4, '{"s": null, "n": 4}'), (5, '{"s": 1.0, "n": 5}'), (6, '{"s": true, "n": 6}'),
  (7, '{"s": "abc", "n": 7}'), (8, '{"s": {"p": 1}, "n": 8}'), (9, '{"s": {"p": 1}, "n": 9}'),
  (10, '{"s": "learn", "n": 10}'), (11, '{"s": 2.5, "n": 11}');
INSERT INTO sc_json SELECT * FROM sc_text;
CREATE INDEX sc_text_s ON sc_text ((doc->>'s'));
CREATE INDEX sc_json_s ON sc_json ((doc->'s'));
CREATE FUNCTION learn_then(t regclass, id int, doc jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  -- Two statements with the same target column (doc): the first changes the field as a
  -- string (not HOT, guessing the index for the next), the second is the case.
  EXECUTE format($q$UPDATE %s SET doc = jsonb_set(doc, '{s}', to_jsonb(md5(random()::text))) WHERE id = 10$q$, t);
  EXECUTE format('UPDATE %s SET doc = $1 WHERE id = $2', t) USING doc, id;
  RETURN t || ' ' || id;
END $$;
BEGIN;
CALL hot_start();
SELECT learn_then('sc_text', 1, '{"s": "y", "n": 1}');        -- strings: not HOT
SELECT learn_then('sc_text', 2, '{"s": true, "n": 2}');       -- "true" -> true: ->> 'true' both, HOT
SELECT learn_then('sc_text', 3, '{"s": "1", "n": 3}');        -- 1 -> "1": ->> '1' both, HOT
SELECT learn_then('sc_text', 4, '{"n": 4}');                  -- null -> absent: NULL both, HOT
SELECT learn_then('sc_text', 5, '{"s": 1.00, "n": 5}');       -- 1.0 -> 1.00: not HOT
SELECT learn_then('sc_text', 6, '{"s": false, "n": 6}');      -- true -> false: not HOT
SELECT learn_then('sc_text', 7, '{"s": "abc", "n": 70}');     -- same string: HOT
SELECT learn_then('sc_text', 8, '{"s": {"p": 1}, "n": 80}');  -- same object: HOT
SELECT learn_then('sc_text', 9, '{"s": {"p": 2}, "n": 9}');   -- another object: not HOT
SELECT learn_then('sc_text', 11, '{"s": 2.5, "n": 110}');     -- same number: HOT
-- 10 learning updates (not HOT) and 6 HOT cases of 10.
SELECT hot('sc_text', 6);
COMMIT;
BEGIN;
CALL hot_start();
SELECT learn_then('sc_json', 1, '{"s": "y", "n": 1}');        -- not HOT
SELECT learn_then('sc_json', 2, '{"s": true, "n": 2}');       -- "true" -> true: -> differs, not HOT
SELECT learn_then('sc_json', 3, '{"s": "1", "n": 3}');        -- 1 -> "1": not HOT
SELECT learn_then('sc_json', 4, '{"n": 4}');                  -- null -> absent: 'null' vs NULL, not HOT
SELECT learn_then('sc_json', 5, '{"s": 1.00, "n": 5}');       -- not HOT
SELECT learn_then('sc_json', 6, '{"s": false, "n": 6}');      -- not HOT
SELECT learn_then('sc_json', 7, '{"s": "abc", "n": 70}');     -- HOT
SELECT learn_then('sc_json', 8, '{"s": {"p": 1}, "n": 80}');  -- HOT
SELECT learn_then('sc_json', 9, '{"s": {"p": 2}, "n": 9}');   -- not HOT
SELECT learn_then('sc_json', 11, '{"s": 2.5, "n": 110}');     -- HOT
SELECT hot('sc_json', 3);
COMMIT;
SELECT check_btrees('sc_text');
SELECT check_btrees('sc_json');
SELECT * FROM check_scans($$SELECT id, doc->>'s' FROM sc_text WHERE doc->>'s' IN ('x', 'y', 'true', '1', '1.0', '1.00', 'false', 'abc', '{"p": 1}', '{"p": 2}', '2.5')$$);
SELECT * FROM check_scans($$SELECT id FROM sc_text WHERE doc->>'s' IS NULL$$);
SELECT * FROM check_scans($$SELECT id, doc->'s' FROM sc_json WHERE doc->'s' IN ('"x"', '"y"', 'true', '"true"', '1', '"1"', '1.00', 'false', '"abc"', '{"p": 1}', '{"p": 2}', 'null', '2.5')$$);
SELECT * FROM check_scans($$SELECT id FROM sc_json WHERE doc->'s' IS NULL$$);

-- 3. Documents compressed in line, and stored out of line: the guessed index's field is
-- read from a prefix of the old document (decompressed or fetched only that far). The
-- field `late_field_name` sorts after `items` (longer keys come later), so its value lies
-- beyond the first slice. Same-length values keep the raw sizes equal, so the documents
-- are not told apart by size.
CREATE TABLE big (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50);
CREATE FUNCTION big_doc(g int) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('a', 'a' || g, 'late_field_name', 'l' || g,
    'items', (SELECT jsonb_agg(jsonb_build_object('sku', 'sku-' || i, 'qty', i % 7)) FROM generate_series(1, 150) i))
$$;
INSERT INTO big SELECT g, big_doc(g) FROM generate_series(1, 6) g;
ALTER TABLE big ALTER COLUMN doc SET STORAGE EXTERNAL;
INSERT INTO big SELECT g, big_doc(g) FROM generate_series(7, 12) g;
SELECT id, pg_column_compression(doc) IS NOT NULL AS compressed,
       pg_column_size(doc) > 2000 AS stored_big
FROM big WHERE id IN (1, 7) ORDER BY id;
CREATE INDEX big_a ON big ((doc->>'a'));
CREATE INDEX big_late ON big ((doc->>'late_field_name'));
PREPARE set_field(int, text, text) AS UPDATE big SET doc = jsonb_set(doc, ARRAY[$2], to_jsonb($3)) WHERE id = $1;
BEGIN;
CALL hot_start();
EXECUTE set_field(1, 'late_field_name', 'm1');    -- not HOT; late guessed from now on
EXECUTE set_field(2, 'late_field_name', 'm2');    -- guessed, proved changed from a prefix: not HOT
EXECUTE set_field(3, 'late_field_name', 'l3');    -- the same value written back: HOT (by image)
EXECUTE set_field(4, 'a', 'b4');                  -- late guessed, the same; a changed: not HOT
EXECUTE set_field(5, 'items', '"none"');          -- a guessed, the same; late the same: HOT
EXECUTE set_field(7, 'late_field_name', 'm7');    -- out of line: not HOT
EXECUTE set_field(8, 'late_field_name', 'm8');    -- guessed, fetched as a prefix: not HOT
EXECUTE set_field(9, 'late_field_name', 'l9');    -- written back: HOT
EXECUTE set_field(10, 'a', 'b10');                -- not HOT
SELECT hot('big', 3);
COMMIT;
SELECT check_btrees('big');
SELECT * FROM check_scans($$SELECT id, doc->>'a', doc->>'late_field_name' FROM big WHERE doc->>'late_field_name' IN ('m1', 'm2', 'l3', 'l4', 'l5', 'm7', 'm8', 'l9', 'l10', 'l1', 'l2')$$);
SELECT * FROM check_scans($$SELECT id, doc->>'a' FROM big WHERE doc->>'a' IN ('a1', 'a2', 'a3', 'b4', 'a4', 'a5', 'a7', 'b10', 'a10')$$);
SELECT id, doc = big_doc(id) AS unchanged FROM big WHERE id IN (3, 6, 9) ORDER BY id;

-- 5. A guessed index reading many fields of one compressed document: each field is read
-- from a prefix of the old version, which notes the column for the read path once
-- (UpdateScratch::old_noted), not once per field: six notes overran a one-column table's
-- list before, which assert-enabled servers report as "problem in alloc set".
SET default_toast_compression = pglz;
CREATE TABLE many_fields (doc jsonb) USING hotheap;
ALTER TABLE many_fields ALTER doc SET STORAGE MAIN;
CREATE INDEX many_fields_six ON many_fields ((doc->>'a'), (doc->>'b'), (doc->>'c'), (doc->>'d'), (doc->>'e'), (doc->>'f'));
INSERT INTO many_fields SELECT jsonb_build_object('a', g::text, 'b', 1, 'c', 1, 'd', 1, 'e', 1, 'f', 1, 'zz', repeat('x', 5000), 'g', 1)
FROM generate_series(1, 5) g;
SELECT pg_column_compression(doc) FROM many_fields LIMIT 1;
BEGIN;
CALL hot_start();
-- The first row changes a (not HOT: its index is guessed from now on), the others g only,
-- with every guessed field read from a prefix and found no different: HOT.
UPDATE many_fields SET doc = CASE WHEN doc->>'a' = '1' THEN jsonb_set(doc, '{a}', '"9"') ELSE jsonb_set(doc, '{g}', '7') END;
UPDATE many_fields SET doc = CASE WHEN doc->>'a' = '9' THEN jsonb_set(doc, '{a}', '"8"') ELSE jsonb_set(doc, '{g}', '6') END;
SELECT hot('many_fields', 8);
COMMIT;
SELECT check_btrees('many_fields');
SELECT * FROM check_scans($$SELECT doc->>'a', doc->>'g' FROM many_fields WHERE doc->>'a' IN ('8', '2', '3', '4', '5')$$);

DROP SCHEMA decision_likely_first CASCADE;
