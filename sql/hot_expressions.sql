-- HOT decision matrix, expression indexes: an UPDATE is HOT on a hotheap table when every
-- index expression keeps its value (image-equal, in the expression's own type), even though
-- an input column of the expression changed. Each case reads this transaction's HOT count
-- inside the transaction, then checks every touched index: amcheck (heapallindexed) for
-- btrees, and index scan, bitmap scan and sequential scan must return the same rows,
-- looking up both the old and the new value.
-- A stock heap twin shows heap's decision where it differs.
-- Design points: D2, D3, D4, D11
SET client_min_messages = warning;
SELECT NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'hotplus') AS created_extension \gset
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA hot_expressions;
SET search_path = hot_expressions, public;

\i test/sql_helpers/hot_helpers.sql

------------------------------------------------------------------------------------------
-- jsonb field expression index
------------------------------------------------------------------------------------------
CREATE TABLE j (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50);
CREATE INDEX j_k ON j ((doc->>'k'));
INSERT INTO j SELECT g, jsonb_build_object('k', 'key' || g, 'x', g) FROM generate_series(1, 10) g;
CREATE TABLE jh (LIKE j INCLUDING ALL) USING heap WITH (fillfactor = 50);
INSERT INTO jh SELECT * FROM j;

-- Unindexed field changes: doc changes, doc->>'k' does not. Expected: HOT (all 3).
-- Heap sees the indexed column doc change: not HOT.
BEGIN;
CALL hot_start();
UPDATE j SET doc = jsonb_set(doc, '{x}', '100') WHERE id <= 3;
SELECT hot('j', 3);
UPDATE jh SET doc = jsonb_set(doc, '{x}', '100') WHERE id <= 3;
SELECT hot('jh', 0);
COMMIT;
SELECT check_btrees('j');
SELECT * FROM check_scans($$SELECT id, doc->>'x' FROM j WHERE doc->>'k' = 'key1'$$);
SELECT * FROM check_scans($$SELECT id, doc->>'x' FROM j WHERE doc->>'k' BETWEEN 'key1' AND 'key3'$$);

-- Indexed field changes. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE j SET doc = jsonb_set(doc, '{k}', '"new1"') WHERE id = 1;
SELECT hot('j', 0);
COMMIT;
SELECT check_btrees('j');
-- the old key must find nothing, the new key the row
SELECT * FROM check_scans($$SELECT id FROM j WHERE doc->>'k' = 'key1'$$);
SELECT * FROM check_scans($$SELECT id FROM j WHERE doc->>'k' = 'new1'$$);

-- The indexed field appears (NULL -> value) and disappears (value -> NULL): not HOT;
-- an update that keeps it absent (NULL -> NULL): HOT.
INSERT INTO j VALUES (11, '{"x": 11}');
BEGIN;
CALL hot_start();
UPDATE j SET doc = doc || '{"y": 1}' WHERE id = 11;
SELECT hot('j', 1);
COMMIT;
BEGIN;
CALL hot_start();
UPDATE j SET doc = doc || '{"k": "key11"}' WHERE id = 11;
SELECT hot('j', 0);
COMMIT;
SELECT * FROM check_scans($$SELECT id FROM j WHERE doc->>'k' = 'key11'$$);
BEGIN;
CALL hot_start();
UPDATE j SET doc = doc - 'k' WHERE id = 2;
SELECT hot('j', 0);
COMMIT;
SELECT check_btrees('j');
SELECT * FROM check_scans($$SELECT id FROM j WHERE doc->>'k' = 'key2'$$);
SELECT * FROM check_scans($$SELECT id FROM j WHERE doc->>'k' IS NULL$$);
SELECT * FROM check_scans($$SELECT id, doc->>'k' FROM j WHERE doc->>'k' > ''$$);
DROP TABLE j, jh;

------------------------------------------------------------------------------------------
-- twenty expression indexes on one document
------------------------------------------------------------------------------------------
CREATE TABLE j20 (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50);
DO $$
BEGIN
  FOR i IN 1..20 LOOP
    EXECUTE format('CREATE INDEX j20_f%s ON j20 ((doc->>%L))', i, 'f' || i);
  END LOOP;
END
$$;
INSERT INTO j20
SELECT g, jsonb_object_agg('f' || i, 'v' || g || '_' || i) || jsonb_build_object('u', 0)
FROM generate_series(1, 10) g, generate_series(1, 20) i GROUP BY g;
SELECT count(*) FROM pg_index WHERE indrelid = 'j20'::regclass;

-- Unindexed field u changes: all 20 expressions keep their values. Expected: HOT (all 10).
BEGIN;
CALL hot_start();
UPDATE j20 SET doc = jsonb_set(doc, '{u}', to_jsonb(id * 10));
SELECT hot('j20', 10);
COMMIT;
-- Only the last indexed field changes, on one row. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE j20 SET doc = jsonb_set(doc, '{f20}', '"changed"') WHERE id = 5;
SELECT hot('j20', 0);
COMMIT;
SELECT check_btrees('j20');
SELECT * FROM check_scans($$SELECT id, doc->>'u' FROM j20 WHERE doc->>'f1' = 'v3_1'$$);
SELECT * FROM check_scans($$SELECT id, doc->>'u' FROM j20 WHERE doc->>'f20' = 'v5_20'$$);
SELECT * FROM check_scans($$SELECT id, doc->>'u' FROM j20 WHERE doc->>'f20' = 'changed'$$);
SELECT * FROM check_scans($$SELECT id FROM j20 WHERE doc->>'f20' LIKE 'v%' AND doc->>'f20' < 'v4'$$);
DROP TABLE j20;

------------------------------------------------------------------------------------------
-- lower(v): a change of case only keeps the expression value
------------------------------------------------------------------------------------------
CREATE TABLE l (id int PRIMARY KEY, v text) USING hotheap WITH (fillfactor = 50);
CREATE INDEX l_lower ON l (lower(v));
INSERT INTO l SELECT g, 'Word' || g FROM generate_series(1, 10) g;
CREATE TABLE lh (LIKE l INCLUDING ALL) USING heap WITH (fillfactor = 50);
INSERT INTO lh SELECT * FROM l;

-- Case change only: lower(v) is the same. Expected: HOT; heap: not HOT.
BEGIN;
CALL hot_start();
UPDATE l SET v = upper(v) WHERE id IN (1, 2);
SELECT hot('l', 2);
UPDATE lh SET v = upper(v) WHERE id IN (1, 2);
SELECT hot('lh', 0);
COMMIT;
-- Real change. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE l SET v = 'Other' WHERE id = 3;
SELECT hot('l', 0);
COMMIT;
SELECT check_btrees('l');
SELECT * FROM check_scans($$SELECT id, v FROM l WHERE lower(v) = 'word1'$$);
SELECT * FROM check_scans($$SELECT id, v FROM l WHERE lower(v) = 'word3'$$);
SELECT * FROM check_scans($$SELECT id, v FROM l WHERE lower(v) = 'other'$$);
-- The same row, several times in one transaction: case only (HOT), case only (HOT), real
-- change (not HOT), case only (HOT), real change back (not HOT). Expected: HOT (3) of 5.
BEGIN;
CALL hot_start();
UPDATE l SET v = 'WORD4' WHERE id = 4;
UPDATE l SET v = 'word4' WHERE id = 4;
UPDATE l SET v = 'moved' WHERE id = 4;
UPDATE l SET v = 'MOVED' WHERE id = 4;
UPDATE l SET v = 'Word4' WHERE id = 4;
SELECT hot('l', 3);
COMMIT;
SELECT check_btrees('l');
SELECT * FROM check_scans($$SELECT id, v FROM l WHERE lower(v) = 'word4'$$);
SELECT * FROM check_scans($$SELECT id, v FROM l WHERE lower(v) = 'moved'$$);
DROP TABLE l, lh;

------------------------------------------------------------------------------------------
-- multi-column index mixing a plain column and an expression: (a, lower(v))
------------------------------------------------------------------------------------------
CREATE TABLE m (id int PRIMARY KEY, a int, v text, n int) USING hotheap WITH (fillfactor = 50);
CREATE INDEX m_a_lower ON m (a, lower(v));
INSERT INTO m SELECT g, g % 3, 'Word' || g, 0 FROM generate_series(1, 12) g;

-- Only v changes case. Expected: HOT.
BEGIN;
CALL hot_start();
UPDATE m SET v = upper(v) WHERE id = 1;
SELECT hot('m', 1);
COMMIT;
-- Only an unindexed column changes. Expected: HOT (heap would agree).
BEGIN;
CALL hot_start();
UPDATE m SET n = n + 1 WHERE id = 2;
SELECT hot('m', 1);
COMMIT;
-- The plain column changes, v changes case only. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE m SET a = a + 10, v = lower(v) WHERE id = 4;
SELECT hot('m', 0);
COMMIT;
-- The expression changes, the plain column does not. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE m SET v = 'Changed' WHERE id = 5;
SELECT hot('m', 0);
COMMIT;
SELECT check_btrees('m');
SELECT * FROM check_scans($$SELECT id, a, v FROM m WHERE a = 1 AND lower(v) = 'word1'$$);
SELECT * FROM check_scans($$SELECT id, a, v FROM m WHERE a = 1 AND lower(v) = 'word4'$$);
SELECT * FROM check_scans($$SELECT id, a, v FROM m WHERE a = 11 AND lower(v) = 'word4'$$);
SELECT * FROM check_scans($$SELECT id, a, v FROM m WHERE a = 2 AND lower(v) = 'word5'$$);
SELECT * FROM check_scans($$SELECT id, a, v FROM m WHERE a = 2 AND lower(v) = 'changed'$$);
SELECT * FROM check_scans($$SELECT id, a, v FROM m WHERE a = 1$$);
DROP TABLE m;

------------------------------------------------------------------------------------------
-- integer expression: (100 / a) keeps its value when a goes from 60 to 70
------------------------------------------------------------------------------------------
CREATE TABLE d (id int PRIMARY KEY, a int) USING hotheap WITH (fillfactor = 50);
CREATE INDEX d_q ON d ((100 / a));
INSERT INTO d SELECT g, g * 10 FROM generate_series(1, 10) g;
CREATE TABLE dh (LIKE d INCLUDING ALL) USING heap WITH (fillfactor = 50);
INSERT INTO dh SELECT * FROM d;

-- 100/60 = 100/70 = 1. Expected: HOT; heap: not HOT.
BEGIN;
CALL hot_start();
UPDATE d SET a = 70 WHERE id = 6;
SELECT hot('d', 1);
UPDATE dh SET a = 70 WHERE id = 6;
SELECT hot('dh', 0);
COMMIT;
-- 100/30 = 3, 100/40 = 2. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE d SET a = 40 WHERE id = 3;
SELECT hot('d', 0);
COMMIT;
SELECT check_btrees('d');
SELECT * FROM check_scans($$SELECT id, a FROM d WHERE 100 / a = 1$$);
SELECT * FROM check_scans($$SELECT id, a FROM d WHERE 100 / a = 3$$);
SELECT * FROM check_scans($$SELECT id, a FROM d WHERE 100 / a = 2$$);

-- The expression fails on the new row (no predicate guards it): the UPDATE must fail with
-- heap's error, and change nothing.
UPDATE d SET a = 0 WHERE id = 1;
UPDATE dh SET a = 0 WHERE id = 1;
SELECT count(*) FILTER (WHERE a = 0) AS zeros FROM d;
-- Fails on one row of several: same.
UPDATE d SET a = a - 10 WHERE id <= 2;
UPDATE dh SET a = a - 10 WHERE id <= 2;
SELECT id, a FROM d WHERE id <= 2 ORDER BY id;
SELECT check_btrees('d');
DROP TABLE d, dh;

------------------------------------------------------------------------------------------
-- GIN over the whole document: every field is indexed
------------------------------------------------------------------------------------------
CREATE TABLE jg (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50);
CREATE INDEX jg_doc ON jg USING gin (doc jsonb_path_ops);
INSERT INTO jg SELECT g, jsonb_build_object('k', 'key' || g, 'x', g) FROM generate_series(1, 10) g;
-- Any field. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE jg SET doc = jsonb_set(doc, '{x}', '100') WHERE id = 1;
SELECT hot('jg', 0);
COMMIT;
-- The same document again (same bytes). Expected: HOT (heap agrees).
BEGIN;
CALL hot_start();
UPDATE jg SET doc = doc || '{}' WHERE id = 2;
SELECT hot('jg', 1);
COMMIT;
SELECT * FROM check_scans($$SELECT id FROM jg WHERE doc @> '{"x": 1}'$$, index_scan => false);
SELECT * FROM check_scans($$SELECT id FROM jg WHERE doc @> '{"x": 100}'$$, index_scan => false);
SELECT * FROM check_scans($$SELECT id FROM jg WHERE doc @> '{"x": 2}'$$, index_scan => false);
DROP TABLE jg;

------------------------------------------------------------------------------------------
-- a column added with a default: old rows do not store it (the default is "missing")
------------------------------------------------------------------------------------------
CREATE TABLE ma (id int PRIMARY KEY, a int) USING hotheap WITH (fillfactor = 50);
INSERT INTO ma SELECT g, g FROM generate_series(1, 5) g;
ALTER TABLE ma ADD COLUMN d int DEFAULT 5;
CREATE INDEX ma_s ON ma ((a + d));
CREATE INDEX ma_p ON ma (id) WHERE d > 0;
-- d: 5 (missing) -> NULL: a + d changes, the predicate flips. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE ma SET d = NULL WHERE id = 1;
SELECT hot('ma', 0);
COMMIT;
-- d: 5 (missing) -> 5 stored. Expected: HOT (heap agrees).
BEGIN;
CALL hot_start();
UPDATE ma SET d = 5 WHERE id = 2;
SELECT hot('ma', 1);
COMMIT;
-- a + 1, d: 5 (missing) -> 4: a + d the same, predicate true on both sides. Expected: HOT.
BEGIN;
CALL hot_start();
UPDATE ma SET a = a + 1, d = 4 WHERE id = 3;
SELECT hot('ma', 1);
COMMIT;
-- a + 5, d: 5 (missing) -> 0: a + d the same, the predicate flips. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE ma SET a = a + 5, d = 0 WHERE id = 4;
SELECT hot('ma', 0);
COMMIT;
SELECT id, a, d FROM ma ORDER BY id;
SELECT check_btrees('ma');
SELECT * FROM check_scans($$SELECT id, a, d FROM ma WHERE a + d BETWEEN 0 AND 100$$);
SELECT * FROM check_scans($$SELECT id, a, d FROM ma WHERE a + d = 6$$);
SELECT * FROM check_scans($$SELECT id, a, d FROM ma WHERE d > 0 AND id > 0$$);
DROP TABLE ma;

------------------------------------------------------------------------------------------
-- an expression or a predicate over the whole row
------------------------------------------------------------------------------------------
-- Heap counts a whole-row reference as changed by every update (HeapDetermineColumnsInfo),
-- and so does hotplus: the whole-row value of a stored row changes with ADD COLUMN / DROP
-- COLUMN, which re-index nothing, so equal values before and after an update do not mean
-- the index holds today's key. (A SQL function reading one field of its row argument is
-- inlined to that column: decision_scope.)
CREATE TABLE w (id int PRIMARY KEY, a int, b text) USING hotheap WITH (fillfactor = 50);
-- (plpgsql: a SQL function would be inlined, and w_key(w) simplified to a * 2)
CREATE FUNCTION w_key(w) RETURNS int IMMUTABLE LANGUAGE plpgsql AS 'BEGIN RETURN $1.a * 2; END';
CREATE FUNCTION w_text(w) RETURNS text IMMUTABLE LANGUAGE plpgsql AS 'BEGIN RETURN $1::text; END';
CREATE INDEX w_k ON w (w_key(w));
CREATE INDEX w_t ON w (w_text(w));
CREATE INDEX w_p ON w (id) WHERE w_key(w) > 10;
INSERT INTO w SELECT g, g, 'b' || g FROM generate_series(1, 10) g;
-- The heap twin (LIKE cannot copy an index with a whole-row reference).
CREATE TABLE wh (id int PRIMARY KEY, a int, b text) USING heap WITH (fillfactor = 50);
CREATE FUNCTION wh_key(wh) RETURNS int IMMUTABLE LANGUAGE plpgsql AS 'BEGIN RETURN $1.a * 2; END';
CREATE FUNCTION wh_text(wh) RETURNS text IMMUTABLE LANGUAGE plpgsql AS 'BEGIN RETURN $1::text; END';
CREATE INDEX wh_k ON wh (wh_key(wh));
CREATE INDEX wh_t ON wh (wh_text(wh));
CREATE INDEX wh_p ON wh (id) WHERE wh_key(wh) > 10;
INSERT INTO wh SELECT * FROM w;
-- b is not read by w_key, and the values of all three indexes would be equal for a write
-- of the same value: not HOT, on heap as on hotheap (all 0).
BEGIN;
CALL hot_start();
UPDATE w SET b = 'changed' WHERE id = 1;
UPDATE w SET a = a WHERE id = 2;
UPDATE w SET id = id WHERE id = 3;
SELECT hot('w', 0);
UPDATE wh SET b = 'changed' WHERE id = 1;
UPDATE wh SET a = a WHERE id = 2;
UPDATE wh SET id = id WHERE id = 3;
SELECT hot('wh', 0);
COMMIT;
SELECT check_btrees('w');
-- After ADD COLUMN the stored rows' whole-row value has a fourth field; their keys in w_t do
-- not until an update gives them a new entry (amcheck would find them missing). An update
-- of a row with the same values makes that entry on heap and on hotheap: the index then
-- finds the row by today's value.
ALTER TABLE w ADD COLUMN z int DEFAULT 7;
ALTER TABLE wh ADD COLUMN z int DEFAULT 7;
BEGIN;
CALL hot_start();
UPDATE w SET a = a;
SELECT hot('w', 0);
UPDATE wh SET a = a;
SELECT hot('wh', 0);
COMMIT;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id FROM w WHERE w_text(w) = '(1,1,changed,7)';
SELECT id FROM w WHERE w_text(w) = '(4,4,b4,7)';
SELECT id FROM wh WHERE wh_text(wh) = '(1,1,changed,7)';
SELECT id FROM wh WHERE wh_text(wh) = '(4,4,b4,7)';
RESET enable_seqscan;
RESET enable_bitmapscan;
-- Every update of the table goes to heap's own decision: counted as blocked by the first
-- index that reads the whole row.
SELECT hotplus_stat_reset();
UPDATE w SET b = 'again' WHERE id = 5;
SELECT nonhot_index_changed, hot_by_expression FROM hotplus_stat_tables WHERE relid = 'w'::regclass;
SELECT indexrelid::regclass, nonhot_first_changed FROM hotplus_stat_indexes WHERE relid = 'w'::regclass AND nonhot_first_changed > 0;
SELECT check_btrees('w');
SELECT * FROM check_scans($$SELECT id, b FROM w WHERE w_key(w) = 2$$);
SELECT * FROM check_scans($$SELECT id, a FROM w WHERE w_key(w) BETWEEN 4 AND 12$$);
SELECT * FROM check_scans($$SELECT id FROM w WHERE w_key(w) > 10 AND id > 0$$);
-- The verifier agrees: made to allow HOT on purpose, it stops the update at the whole-row
-- index (hotplus.verify_selftest exists in assert-enabled builds only: release builds skip
-- this, expected/hot_expressions_1.out).
SELECT current_setting('hotplus.verify_selftest', true) IS NOT NULL AS selftest \gset
\if :selftest
SET hotplus.verify = on;
SET hotplus.verify_selftest = on;
UPDATE w SET b = 'wrong' WHERE id = 6;
RESET hotplus.verify_selftest;
RESET hotplus.verify;
\endif
DROP INDEX w_k, w_t, w_p, wh_k, wh_t, wh_p;
DROP FUNCTION w_key(w), w_text(w), wh_key(wh), wh_text(wh);
DROP TABLE w, wh;

------------------------------------------------------------------------------------------
-- indexes created and dropped between updates of one transaction
------------------------------------------------------------------------------------------
CREATE TABLE ci (id int PRIMARY KEY, v text, doc jsonb, n int) USING hotheap WITH (fillfactor = 50);
CREATE INDEX ci_lower ON ci (lower(v));
INSERT INTO ci SELECT g, 'Word' || g, jsonb_build_object('k', g), 0 FROM generate_series(1, 10) g;
BEGIN;
CALL hot_start();
-- row 1: v changes case, doc is not indexed yet. Expected: HOT.
UPDATE ci SET v = upper(v), doc = doc || '{"x": 1}' WHERE id = 1;
CREATE INDEX ci_k ON ci ((doc->>'k'));
-- row 2: the new index's value changes. Expected: not HOT.
UPDATE ci SET v = upper(v), doc = jsonb_set(doc, '{k}', '100') WHERE id = 2;
-- row 3: the new index's value stays. Expected: HOT.
UPDATE ci SET v = upper(v), doc = doc || '{"x": 1}' WHERE id = 3;
CREATE INDEX ci_n ON ci (n) WHERE n > 0;
-- row 4: enters the new partial index. Expected: not HOT.
UPDATE ci SET n = 5 WHERE id = 4;
-- row 5: stays outside it. Expected: HOT.
UPDATE ci SET n = -5 WHERE id = 5;
SELECT hot('ci', 3);
COMMIT;
SELECT check_btrees('ci');
SELECT * FROM check_scans($$SELECT id, v FROM ci WHERE lower(v) IN ('word1', 'word2', 'word3')$$);
SELECT * FROM check_scans($$SELECT id, doc->>'k' FROM ci WHERE doc->>'k' IN ('1', '2', '3', '100')$$);
SELECT * FROM check_scans($$SELECT id, n FROM ci WHERE n > 0$$);
-- An index dropped in the transaction: a real change of v becomes HOT; rolled back, the
-- index is back and the row is found through it with its old value.
BEGIN;
CALL hot_start();
UPDATE ci SET v = 'changed' WHERE id = 6;
DROP INDEX ci_lower;
UPDATE ci SET v = 'changed' WHERE id = 7;
SELECT hot('ci', 1);
ROLLBACK;
SELECT check_btrees('ci');
SELECT * FROM check_scans($$SELECT id, v FROM ci WHERE lower(v) IN ('word6', 'word7', 'changed')$$);
-- The same, committed.
BEGIN;
CALL hot_start();
DROP INDEX ci_lower;
UPDATE ci SET v = 'changed' WHERE id = 7;
SELECT hot('ci', 1);
COMMIT;
CREATE INDEX ci_lower ON ci (lower(v));
SELECT check_btrees('ci');
SELECT * FROM check_scans($$SELECT id, v FROM ci WHERE lower(v) IN ('word6', 'word7', 'changed')$$);
DROP TABLE ci;

------------------------------------------------------------------------------------------
-- BEFORE ROW trigger changing an index input
------------------------------------------------------------------------------------------
CREATE TABLE tr (id int PRIMARY KEY, v text, n int) USING hotheap WITH (fillfactor = 50);
CREATE INDEX tr_lower ON tr (lower(v));
INSERT INTO tr SELECT g, 'Word' || g, 0 FROM generate_series(1, 10) g;
CREATE FUNCTION tr_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.n = 1 THEN
    NEW.v := upper(NEW.v);          -- same lower(v)
  ELSIF NEW.n = 2 THEN
    NEW.v := 'trigger ' || NEW.id;  -- a new lower(v)
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER tr_before BEFORE UPDATE ON tr FOR EACH ROW EXECUTE FUNCTION tr_before();

-- The trigger changes nothing indexed. Expected: HOT.
BEGIN;
CALL hot_start();
UPDATE tr SET n = 5 WHERE id = 1;
SELECT hot('tr', 1);
COMMIT;
-- The trigger changes v's case only. Expected: HOT.
BEGIN;
CALL hot_start();
UPDATE tr SET n = 1 WHERE id = 2;
SELECT hot('tr', 1);
COMMIT;
-- The trigger changes v: the trigger's change counts. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE tr SET n = 2 WHERE id = 3;
SELECT hot('tr', 0);
COMMIT;
-- The statement changes v's case, the trigger then changes v for real. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE tr SET v = upper(v), n = 2 WHERE id = 4;
SELECT hot('tr', 0);
COMMIT;
SELECT id, v, n FROM tr WHERE id <= 4 ORDER BY id;
SELECT check_btrees('tr');
SELECT * FROM check_scans($$SELECT id, v FROM tr WHERE lower(v) = 'word2'$$);
SELECT * FROM check_scans($$SELECT id, v FROM tr WHERE lower(v) = 'word3'$$);
SELECT * FROM check_scans($$SELECT id, v FROM tr WHERE lower(v) = 'word4'$$);
SELECT * FROM check_scans($$SELECT id, v FROM tr WHERE lower(v) BETWEEN 'trigger' AND 'triggez'$$);
DROP TABLE tr;
DROP FUNCTION tr_before();

------------------------------------------------------------------------------------------
-- stored generated column used by indexes
------------------------------------------------------------------------------------------
CREATE TABLE g (id int PRIMARY KEY, v text, n int,
                lv text GENERATED ALWAYS AS (lower(v)) STORED) USING hotheap WITH (fillfactor = 50);
CREATE INDEX g_lv ON g (lv);
CREATE INDEX g_len ON g (length(lv));
INSERT INTO g (id, v, n) SELECT g, 'Word' || g, 0 FROM generate_series(1, 10) g;

-- An unrelated column changes. Expected: HOT.
BEGIN;
CALL hot_start();
UPDATE g SET n = 1 WHERE id = 1;
SELECT hot('g', 1);
COMMIT;
-- v changes case: lv is recomputed with the same value. Expected: HOT (heap agrees: v
-- itself is not indexed).
BEGIN;
CALL hot_start();
UPDATE g SET v = upper(v) WHERE id = 2;
SELECT hot('g', 1);
COMMIT;
-- v changes: lv changes. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE g SET v = 'Other' WHERE id = 3;
SELECT hot('g', 0);
COMMIT;
-- v changes, same length of lv: g_len keeps its value but g_lv changes. Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE g SET v = 'Wxyz4' WHERE id = 4;
SELECT hot('g', 0);
COMMIT;
SELECT check_btrees('g');
SELECT * FROM check_scans($$SELECT id, v FROM g WHERE lv = 'word2'$$);
SELECT * FROM check_scans($$SELECT id, v FROM g WHERE lv = 'word3'$$);
SELECT * FROM check_scans($$SELECT id, v FROM g WHERE lv = 'other'$$);
SELECT * FROM check_scans($$SELECT id, v FROM g WHERE lv = 'word4'$$);
SELECT * FROM check_scans($$SELECT id, v FROM g WHERE length(lv) = 5$$);
DROP TABLE g;

DROP SCHEMA hot_expressions CASCADE;
-- the extension stays as this file found it
\if :created_extension
DROP EXTENSION hotplus;
\endif
