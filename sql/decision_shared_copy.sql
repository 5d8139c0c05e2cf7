-- The update check reads the old document the plan already detoasted (src/update/
-- version_values.hpp invariant 4, am/live_copies.hpp take_live_copy): where the
-- UPDATE's plan reads an indexed column of its target stored compressed or out of line
-- (`jsonb_set(doc, ...)`), a marker keeps the plan's detoasted copy, identified by the stored
-- bytes it was made from, and the check takes a private copy of it instead of decompressing
-- or fetching the document again. Counted as served by hotplus_shared_detoast_counts().
-- Below: which statements share (one reference and the check, two references and the check,
-- MERGE; not a column no index reads, nor with the read path off), that a copy of another
-- row's document never serves the check (a self-join: the decision would be that row's), and
-- an index function that runs queries over the table during the check (markers made and freed
-- under it). amcheck and index vs sequential scans check every index after.
-- Design points: D3, D11, D14b
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;
CREATE SCHEMA decision_shared_copy;
SET search_path = decision_shared_copy, public;
\i test/sql_helpers/hot_helpers.sql
-- hotplus.verify (on in every suite) would make a wrong decision's statement heap's own
-- (src/update/verifier.hpp): off, so that the outcomes below are the decision's.
SET hotplus.verify = off;
SET default_toast_compression = pglz;

-- Documents of about 6 kB: a, b and w first, then the bulk. ext stores them out of line
-- uncompressed (a TOAST pointer identifies them), main compressed in line (the compressed
-- bytes do).
CREATE FUNCTION make_doc(id int) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_object('a', 'x' || id, 'b', id % 3, 'w', 0, 'items', repeat(md5(id::text), 200))
$$;
CREATE PROCEDURE make_table(name text, storage text)
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %I (id int PRIMARY KEY, n int, doc jsonb) USING hotheap WITH (fillfactor = 40)', name);
  EXECUTE format('ALTER TABLE %I ALTER doc SET STORAGE %s', name, storage);
  EXECUTE format('CREATE INDEX ON %I ((doc->>%L))', name, 'a');
  EXECUTE format('CREATE INDEX ON %I ((doc->%L))', name, 'b');
  EXECUTE format('INSERT INTO %I SELECT g, 0, make_doc(g) FROM generate_series(1, 20) g', name);
END $$;
CALL make_table('ext', 'EXTERNAL');
CALL make_table('main', 'MAIN');
-- the same documents where no index reads doc
CREATE TABLE plain (id int PRIMARY KEY, n int, doc jsonb) USING hotheap WITH (fillfactor = 40);
ALTER TABLE plain ALTER doc SET STORAGE EXTERNAL;
INSERT INTO plain SELECT g, 0, make_doc(g) FROM generate_series(1, 20) g;
SELECT t AS "table", pg_column_size(doc) < 2000 AS in_line,
       pg_column_size(doc) < octet_length(doc::text) / 2 AS compressed
FROM (SELECT 'ext' t, doc FROM ext WHERE id = 1 UNION ALL SELECT 'main', doc FROM main WHERE id = 1
      UNION ALL SELECT 'plain', doc FROM plain WHERE id = 1) d
ORDER BY 1;

-- shared(statement, table, HOT expected): what the statement's markers and the check did
-- (copies made, and served: to a second reference or to the check), and whether its one
-- row's update was HOT as expected.
CREATE FUNCTION shared(q text, rel regclass, expect_hot boolean) RETURNS text
LANGUAGE plpgsql AS $f$
DECLARE
  b record;
  a record;
  hot_before bigint := pg_stat_get_xact_tuples_hot_updated(rel);
  was_hot boolean;
BEGIN
  SELECT * INTO b FROM hotplus_shared_detoast_counts();
  EXECUTE q;
  SELECT * INTO a FROM hotplus_shared_detoast_counts();
  was_hot := pg_stat_get_xact_tuples_hot_updated(rel) > hot_before;
  RETURN format('made %s, served %s: %s%s', a.copies_made - b.copies_made, a.copies_served - b.copies_served,
                CASE WHEN was_hot THEN 'HOT' ELSE 'not HOT' END,
                CASE WHEN was_hot <> expect_hot THEN ' <== WRONG' ELSE '' END);
END
$f$;

-- One statement of each kind per table, on its own row. This backend met the documents
-- stored compressed or out of line (the check of the first statement notes it): from then
-- on one-row plans get markers (core::marks_column()).
BEGIN;
SELECT t AS "table", s.what,
       shared(format(s.q, t, s.id), t::regclass, s.hot) AS "markers and check"
FROM unnest('{ext,main}'::text[]) WITH ORDINALITY u(t, o),
     (VALUES (1, 'warm-up: the backend meets the stored documents',
              $$UPDATE %I SET doc = jsonb_set(doc, '{w}', '1') WHERE id = %s$$, true),
             (2, 'one reference and the check',
              $$UPDATE %I SET doc = jsonb_set(doc, '{w}', '1') WHERE id = %s$$, true),
             (3, 'the counter: doc->>''w'' and the check (jsonb_set with a computed value is no reference)',
              $$UPDATE %I SET doc = jsonb_set(doc, '{w}', to_jsonb((doc->>'w')::int + 1)) WHERE id = %s$$, true),
             (4, 'an indexed field changed',
              $$UPDATE %I SET doc = jsonb_set(doc, '{a}', '"changed"') WHERE id = %s$$, false),
             (5, 'an indexed field written back',
              $$UPDATE %I SET doc = jsonb_set(doc, '{a}', to_jsonb(doc->>'a')) WHERE id = %s$$, true),
             (6, 'the document not read by the plan nor changed',
              $$UPDATE %I SET n = n + 1 WHERE id = %s$$, true),
             (7, 'MERGE: the action''s expressions are ModifyTable''s, no marker there',
              $$MERGE INTO %I d USING (VALUES (%s)) v(id) ON d.id = v.id
                WHEN MATCHED THEN UPDATE SET doc = jsonb_set(doc, '{b}', '7')$$, false),
             (9, 'MERGE whose join reads doc, and the check',
              $$MERGE INTO %I d USING (VALUES (%s)) v(id) ON d.id = v.id AND d.doc->>'a' IS NOT NULL
                WHEN MATCHED THEN UPDATE SET doc = jsonb_set(doc, '{b}', '7')$$, false),
             (8, 'a whole new document (no reference)',
              $$UPDATE %I SET doc = make_doc(100) || '{"a": "x8", "b": 2}' WHERE id = %s$$, true)) s(id, what, q, hot)
ORDER BY u.o, s.id;
-- No index reads doc: one reference gets no marker (nothing would share its copy).
SELECT shared($$UPDATE plain SET doc = jsonb_set(doc, '{w}', '1') WHERE id = 1$$, 'plain', true) AS "no index reads doc",
       shared($$UPDATE plain SET doc = jsonb_set(doc, '{w}', to_jsonb((doc->>'w')::int + 1)) WHERE id = 2$$,
              'plain', true) AS "two references";
-- The read path off: no marker, the check reads the stored document.
SET LOCAL hotplus.read_path = off;
SELECT shared($$UPDATE ext SET doc = jsonb_set(doc, '{w}', '2') WHERE id = 18$$, 'ext', true) AS "read path off",
       shared($$UPDATE ext SET doc = jsonb_set(doc, '{a}', '"off"') WHERE id = 19$$, 'ext', false) AS "changed";
COMMIT;

-- Another row's document in the plan: a copy made from its stored bytes never serves the
-- check of the row updated, whose stored bytes differ. o.doc is read twice (o's markers make
-- a copy of row 12's or 14's document), d.doc once where it is a reference (then d's marker
-- makes a copy of the updated row's too, and the check is served that one). Row 11 takes row
-- 12's document (a differs: not HOT) or its own with w changed (HOT); row 13 its own with a
-- set to row 14's (not HOT): were the check served row 14's copy as row 13's old document, it
-- would find a the same and leave the index without an entry for the new version (amcheck
-- below).
BEGIN;
SELECT t AS "table", s.what,
       shared(format(s.q, t), t::regclass, s.hot) AS "markers and check"
FROM unnest('{ext,main}'::text[]) WITH ORDINALITY u(t, o),
     (VALUES (1, 'another row''s document',
              $$UPDATE %1$I d SET doc = jsonb_set(o.doc, '{w}', to_jsonb((o.doc->>'w')::int + 5))
                FROM %1$I o WHERE o.id = 12 AND d.id = 11 AND o.doc->>'a' IS NOT NULL$$, false),
             (2, 'its own, w changed, beside another row''s',
              $$UPDATE %1$I d SET doc = jsonb_set(d.doc, '{w}', '5')
                FROM %1$I o WHERE o.id = 12 AND d.id = 11 AND o.doc->>'a' IS NOT NULL$$, true),
             (3, 'its own, a set to another row''s',
              $$UPDATE %1$I d SET doc = jsonb_set(d.doc, '{a}', '"x14"')
                FROM %1$I o WHERE o.id = 14 AND d.id = 13 AND o.doc->>'a' = 'x14'$$, false)) s(id, what, q, hot)
ORDER BY u.o, s.id;
COMMIT;

-- An index function that runs a query while the check evaluates it (declared IMMUTABLE,
-- which it is not: a user may): the query's own markers make, serve and free copies, and
-- push older ones out of the backend's registry, during the check, which reads its private
-- copy (how many the query makes depends on its plans: only the outcomes are shown).
CREATE FUNCTION peek(doc jsonb) RETURNS text IMMUTABLE LANGUAGE plpgsql AS $f$
BEGIN
  PERFORM max(m.doc->>'a') || max(m.doc->>'b') FROM decision_shared_copy.main m WHERE m.id BETWEEN 15 AND 17;
  RETURN doc->>'b';
END $f$;
CREATE INDEX ext_peek ON ext (peek(doc));
BEGIN;
SELECT s.what, split_part(shared(s.q, 'ext', s.hot), ': ', 2) AS "HOT"
FROM (VALUES (1, 'the function''s field written back',
              $$UPDATE ext SET doc = jsonb_set(doc, '{b}', doc->'b') WHERE id = 15$$, true),
             (2, 'the function''s field changed',
              $$UPDATE ext SET doc = jsonb_set(doc, '{b}', '9') WHERE id = 16$$, false),
             (3, 'no indexed field changed',
              $$UPDATE ext SET doc = jsonb_set(doc, '{w}', to_jsonb((doc->>'w')::int + 1)) WHERE id = 17$$, true)) s(id, what, q, hot)
ORDER BY s.id;
COMMIT;
DROP INDEX ext_peek;

SELECT t AS "table", check_btrees(t::regclass)
FROM unnest('{ext,main,plain}'::text[]) t
ORDER BY 1;
SELECT t AS "table", c.all_same
FROM unnest('{ext,main}'::text[]) t,
     LATERAL check_scans(format($$SELECT id, doc->>'a', doc->'b' FROM %I
                                  WHERE doc->>'a' IN ('x1', 'x2', 'x3', 'changed', 'x5', 'x6', 'x7', 'x8', 'x9', 'x10',
                                                      'x11', 'x12', 'x13', 'x14', 'x15', 'x16', 'x17', 'x18', 'off')
                                     OR doc->'b' IN ('0', '1', '2', '7', '9')$$, t)) c
ORDER BY 1;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA decision_shared_copy CASCADE;
RESET client_min_messages;
