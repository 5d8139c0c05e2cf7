-- jsonb fields compared from a prefix of the old document (src/update/jsonb_parts.hpp,
-- compare_parts_in_prefix): when the old document is stored compressed or out of line, the
-- fields indexes read are compared from the part of it that holds their values, without
-- decompressing or fetching the rest, where they come before the bulk of the document in
-- jsonb's key order (shorter keys first). A field is the same only if its bytes are, read in
-- full; a field after the bulk makes the whole document read. Every kind of field change
-- below is decided as the bytes say, for three stored forms, with the indexed fields before
-- the bulk (early_*) and one after it (late_*); amcheck and index vs sequential scans check
-- every index after. Twice: with the read path off, as described; then on, where the check
-- reads the copy the plan's markers made of the old document instead (decision_shared_copy).
-- Design points: D3, D11, D14b
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;
CREATE SCHEMA decision_jsonb_prefix;
SET search_path = decision_jsonb_prefix, public;
\i test/sql_helpers/hot_helpers.sql
-- hotplus.verify (on in every suite) would make a wrong decision's statement heap's own
-- (src/update/verifier.hpp): off, so that the outcomes below are the decision's.
SET hotplus.verify = off;
SET default_toast_compression = pglz;

-- The documents: fields a (string), b (boolean), n (number), o (object), nul (null), w (not
-- indexed), then the bulk under "items", then zz_late. Keys of one length sort bytewise, so
-- every field but zz_late comes before the bulk.
CREATE FUNCTION make_doc(id int, bulk text) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('a', 'x' || id, 'b', true, 'n', 1, 'o', jsonb_build_object('x', 1),
                            'nul', NULL::text, 'w', 1, 'items', bulk, 'zz_late', 'late' || id)
$$;

-- The rows: 42 documents with the bulk, row 0 a small one (again for the second pass).
CREATE PROCEDURE fill_table(name text, bulk text)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('TRUNCATE %I', name);
  EXECUTE format('INSERT INTO %I SELECT g, make_doc(g, %s) FROM generate_series(1, 42) g', name, bulk);
  EXECUTE format('INSERT INTO %I VALUES (0, make_doc(0, %L))', name, 'small');
END $$;

-- Three stored forms of the old document: compressed in line (MAIN), out of line not
-- compressed (EXTERNAL), out of line compressed (EXTENDED, a document of about 1 MB).
CREATE PROCEDURE make_table(name text, storage text, bulk text, late boolean)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 40)', name);
  EXECUTE format('ALTER TABLE %I ALTER doc SET STORAGE %s', name, storage);
  EXECUTE format('CREATE INDEX ON %I ((doc->>%L))', name, 'a');
  EXECUTE format('CREATE INDEX ON %I ((doc->%L))', name, 'b');
  EXECUTE format('CREATE INDEX ON %I ((doc->%L))', name, 'n');
  EXECUTE format('CREATE INDEX ON %I ((doc->%L))', name, 'o');
  EXECUTE format('CREATE INDEX ON %I ((doc->>%L))', name, 'nul');
  IF late THEN
    EXECUTE format('CREATE INDEX ON %I ((doc->>%L))', name, 'zz_late');
  END IF;
  CALL fill_table(name, bulk);
END $$;
CALL make_table('early_main', 'MAIN', $$repeat(md5(g::text), 200)$$, false);
CALL make_table('early_external', 'EXTERNAL', $$repeat(md5(g::text), 200)$$, false);
CALL make_table('early_extended', 'EXTENDED', $$repeat(md5(g::text), 30000)$$, false);
CALL make_table('late_main', 'MAIN', $$repeat(md5(g::text), 200)$$, true);
CALL make_table('late_extended', 'EXTENDED', $$repeat(md5(g::text), 30000)$$, true);
SELECT t AS "table", pg_column_compression(doc) AS compression,
       pg_column_size(doc) < 2000 AS in_line, pg_column_size(doc) < octet_length(doc::text) / 2 AS compressed
FROM unnest('{early_main,early_external,early_extended,late_main,late_extended}'::text[]) t,
     LATERAL (SELECT doc FROM early_main WHERE t = 'early_main' AND id = 1
              UNION ALL SELECT doc FROM early_external WHERE t = 'early_external' AND id = 1
              UNION ALL SELECT doc FROM early_extended WHERE t = 'early_extended' AND id = 1
              UNION ALL SELECT doc FROM late_main WHERE t = 'late_main' AND id = 1
              UNION ALL SELECT doc FROM late_extended WHERE t = 'late_extended' AND id = 1) d
ORDER BY 1;

-- step(table, id, new document, HOT expected, shorten, unguessed): one row's update, and
-- whether it was HOT as expected (the counters of this transaction, before and after). With
-- shorten, the bulk loses its last character too: the two versions' raw sizes differ, so the
-- row change does not read the old document in full to compare it (row_change.cpp) and the
-- fields are compared from a prefix; without, it does, and they are compared in full. The
-- index the last decision found changed is looked at first (D9a), its fields compared alone
-- (classify_index_parts); unguessed updates row 0 first, HOT, so that no index is guessed and
-- every field is compared in one pass (classify_parts).
CREATE FUNCTION step(rel regclass, row_id int, new_doc text, expect_hot boolean, shorten boolean,
                     unguessed boolean DEFAULT false) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  before bigint;
  was_hot boolean;
BEGIN
  IF unguessed THEN
    EXECUTE format($f$UPDATE %s SET doc = jsonb_set(doc, '{w}', to_jsonb((doc->>'w')::int + 1)) WHERE id = 0$f$, rel);
  END IF;
  before := pg_stat_get_xact_tuples_hot_updated(rel);
  IF shorten THEN
    new_doc := format($f$(SELECT CASE WHEN jsonb_typeof(d) = 'object' AND d ? 'items'
                                      THEN jsonb_set(d, '{items}', to_jsonb(left(d->>'items', -1))) ELSE d END
                         FROM (SELECT %s AS d) x)$f$, new_doc);
  END IF;
  EXECUTE format('UPDATE %s SET doc = %s WHERE id = $1', rel, new_doc) USING row_id;
  was_hot := pg_stat_get_xact_tuples_hot_updated(rel) > before;
  RETURN format('%s %s: %s%s', rel, row_id, CASE WHEN was_hot THEN 'HOT' ELSE 'not HOT' END,
                CASE WHEN was_hot <> expect_hot THEN ' <== WRONG' ELSE '' END);
END $$;

CREATE TABLE steps (id int, new_doc text, expect_hot boolean, what text);
INSERT INTO steps VALUES
  (1, $$jsonb_set(doc, '{w}', '2')$$, true, 'a field no index reads'),
  (2, $$jsonb_set(doc, '{a}', '"y2"')$$, false, 'a string of the same length'),
  (3, $$jsonb_set(doc, '{n}', '1.0')$$, false, 'a number of the same value, other bytes'),
  (4, $$jsonb_set(doc, '{o,x}', '2')$$, false, 'inside an object'),
  (5, $$jsonb_set(jsonb_set(doc, '{o}', doc->'o'), '{w}', '5')$$, true, 'an object written back'),
  (6, $$jsonb_set(doc, '{b}', 'false')$$, false, 'a boolean'),
  (7, $$jsonb_set(doc, '{nul}', '"null"')$$, false, 'null to a string'),
  (8, $$doc - 'a'$$, false, 'a field removed'),
  (9, $$jsonb_set(doc, '{items}', '"short"')$$, true, 'the bulk replaced'),
  (10, $$jsonb_set(doc, '{a}', to_jsonb(doc->>'a'))$$, true, 'a field written back'),
  (11, $$'[1, 2]'::jsonb$$, false, 'an array for the object'),
  (12, $$jsonb_set(doc, '{zz_late}', '"other"')$$, NULL, 'the late field'),
  (13, $$jsonb_set(doc, '{a}', to_jsonb((doc->>'a') || 'x'))$$, false, 'a longer string'),
  (14, $$jsonb_set(doc, '{n}', '2')$$, false, 'a number');

-- Each table's steps: in full on rows 1 to 14, from a prefix on rows 15 to 28 (the index of
-- the step before guessed) and 29 to 42 (none guessed); then the second round's, on the rows
-- without a and the arrays (SQL functions, for the two passes below). Each round is a
-- statement of its own, in a transaction of its own: row 0's versions of the first round are
-- then dead, and pruned where its page fills, so that a step the decision allows HOT finds
-- room on that page (in one transaction they stayed, filled row 39's page, and its arrays
-- went non-HOT for want of room: step() cannot tell that from a decision's "changed").
-- step()'s counts are of its own statement, whatever the transaction.
CREATE FUNCTION first_round() RETURNS TABLE (what text, "in full" text, "from a prefix" text, unguessed text)
LANGUAGE sql AS $f$
SELECT s.what, step(t::regclass, s.id, s.new_doc, coalesce(s.expect_hot, t NOT LIKE 'late%'), false),
       step(t::regclass, s.id + 14, s.new_doc, coalesce(s.expect_hot, t NOT LIKE 'late%'), true),
       step(t::regclass, s.id + 28, s.new_doc, coalesce(s.expect_hot, t NOT LIKE 'late%'), true, true)
FROM unnest('{early_main,early_external,early_extended,late_main,late_extended}'::text[]) WITH ORDINALITY AS u(t, o),
     steps s
ORDER BY u.o, s.id;
$f$;
CREATE FUNCTION second_round() RETURNS TABLE (t text, "field added" text, "absent in both" text, arrays text,
                                              "an object again" text)
LANGUAGE sql AS $f$
SELECT u.t, step(u.t::regclass, r.a, $$jsonb_set(doc, '{a}', '"back"')$$, false, r.shorten, r.unguessed),
       step(u.t::regclass, r.a, $$jsonb_set(doc, '{w}', '9')$$, true, r.shorten, r.unguessed),
       step(u.t::regclass, r.arr, $$'[2, 1]'::jsonb$$, true, r.shorten, r.unguessed),
       step(u.t::regclass, r.arr, $$make_doc(11, 'small')$$, false, r.shorten, r.unguessed)
FROM unnest('{early_main,early_external,early_extended,late_main,late_extended}'::text[]) WITH ORDINALITY AS u(t, o),
     (VALUES (8, 11, false, false), (22, 25, true, false), (36, 39, true, true)) r(a, arr, shorten, unguessed)
ORDER BY u.o, r.a;
$f$;
-- amcheck and index vs sequential scans on every table.
CREATE FUNCTION check_tables() RETURNS TABLE ("table" text, btrees text, all_same boolean)
LANGUAGE sql AS $f$
SELECT t, check_btrees(t::regclass), c.all_same
FROM unnest('{early_main,early_external,early_extended,late_main,late_extended}'::text[]) t,
     LATERAL check_scans(format($$SELECT id, doc->>'a', doc->'b', doc->'n', doc->'o', doc->>'nul', doc->>'zz_late' FROM %I
                                  WHERE doc->>'a' IN ('x1', 'y2', 'x3', 'x4', 'x5', 'x6', 'x7', 'back', 'x9', 'x10', 'x13x', 'x14', 'x12', 'x11',
                                                      'x15', 'x16', 'x17', 'x18', 'x19', 'x20', 'x21', 'x23', 'x24', 'x27x', 'x28',
                                                      'x29', 'x30', 'x31', 'x32', 'x33', 'x34', 'x35', 'x37', 'x38', 'x41x', 'x42')
                                     OR doc->'b' = 'false' OR doc->'n' IN ('1.0', '2') OR doc->'o' = '{"x": 2}'
                                     OR doc->>'nul' = 'null'$$, t)) c
ORDER BY 1;
$f$;

-- The first pass, with the read path off: the plans get no marker (read/shared_markers.hpp),
-- so the check reads the stored documents, from a prefix or in full, as described above.
SET hotplus.read_path = off;
SELECT * FROM first_round();
SELECT * FROM second_round();
RESET hotplus.read_path;
SELECT * FROM check_tables();

-- The second pass, on the same rows again, with the read path on: the steps that read doc
-- (all but the arrays and the new objects) get markers over it (this backend met the
-- documents stored compressed or out of line), and the check reads the plan's copy
-- (version_values.hpp invariant 4), in full, whatever the step would have read: every kind of
-- change is decided as in the first pass.
CALL fill_table('early_main', $$repeat(md5(g::text), 200)$$);
CALL fill_table('early_external', $$repeat(md5(g::text), 200)$$);
CALL fill_table('early_extended', $$repeat(md5(g::text), 30000)$$);
CALL fill_table('late_main', $$repeat(md5(g::text), 200)$$);
CALL fill_table('late_extended', $$repeat(md5(g::text), 30000)$$);
SELECT copies_served AS served0 FROM hotplus_shared_detoast_counts() \gset
SELECT * FROM first_round();
SELECT * FROM second_round();
SELECT copies_served - :served0 AS "served (markers and checks)" FROM hotplus_shared_detoast_counts();
SELECT * FROM check_tables();

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA decision_jsonb_prefix CASCADE;
RESET client_min_messages;
