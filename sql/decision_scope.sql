-- The running statement and the indexes' true inputs: when hotplus skips its checks, and
-- when it must not.
-- Design points: D6, D9, D12
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
CREATE EXTENSION IF NOT EXISTS amcheck;
RESET client_min_messages;
CREATE SCHEMA decision_scope;
SET search_path = decision_scope, public;

CREATE FUNCTION outcome(rel regclass) RETURNS text LANGUAGE sql AS $$
  SELECT format('updates %s: hot_stock %s, hot_by_expression %s, hot_by_partial %s, nonhot_index_changed %s, nonhot_page_full %s, checks_skipped %s',
                updates, hot_stock, hot_by_expression, hot_by_partial, nonhot_index_changed, nonhot_page_full, checks_skipped)
  FROM public.hotplus_stat_tables WHERE relid = rel
$$;
-- amcheck with heapallindexed on every index of rel (all btree here); it raises an error
-- on a missing entry. Returns how many indexes it checked.
CREATE FUNCTION indexes_checked(rel regclass) RETURNS bigint LANGUAGE sql AS $$
  SELECT count(*) FROM pg_index i, LATERAL (SELECT public.bt_index_check(i.indexrelid::regclass, true)) c
  WHERE i.indrelid = rel
$$;

-- 1. An index on an inlined SQL function of the whole row reads only column a. Heap's HOT
-- check takes the whole-row reference from the raw expression and blocks on every column;
-- hotplus decides on the true input. Updates that leave a alone are HOT, also when the
-- statement touches no column heap's check would see as an index input of ours.
CREATE TABLE w (id int PRIMARY KEY, a int, b text, c int) USING hotheap WITH (fillfactor = 50);
CREATE FUNCTION w_key(w) RETURNS int IMMUTABLE LANGUAGE sql AS 'SELECT $1.a * 2';
CREATE INDEX w_k ON w (w_key(w));
INSERT INTO w SELECT g, g, 'x', 0 FROM generate_series(1, 10) g;
SELECT hotplus_stat_reset();
UPDATE w SET b = 'y';
UPDATE w SET c = 1;
UPDATE w SET a = a + 100 WHERE id = 1;
SELECT outcome('w');
SELECT indexes_checked('w');
SET enable_seqscan = off;
SELECT id FROM w WHERE w_key(w) IN (2, 202) ORDER BY id;
RESET enable_seqscan;
SELECT id FROM w WHERE w_key(w) IN (2, 202) ORDER BY id;

-- 2. A statement whose SET columns are neither indexed nor toastable: nothing to check.
CREATE TABLE t (id int PRIMARY KEY, doc jsonb, n int, plain int) USING hotheap WITH (fillfactor = 50);
INSERT INTO t SELECT g, jsonb_build_object('a', g, 'b', 0), g, 0 FROM generate_series(1, 20) g;
CREATE INDEX t_a ON t ((doc->>'a'));
CREATE INDEX t_n ON t (n) WHERE n < 0;
SELECT hotplus_stat_reset();
UPDATE t SET plain = plain + 1;
SELECT outcome('t');

-- 3. A BEFORE ROW trigger may change any column: no skipping, and its change counts.
CREATE FUNCTION t_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.plain = 100 THEN
    NEW.doc := jsonb_set(NEW.doc, '{a}', to_jsonb(-NEW.id));
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER t_touch BEFORE UPDATE ON t FOR EACH ROW EXECUTE FUNCTION t_touch();
SELECT hotplus_stat_reset();
UPDATE t SET plain = 100 WHERE id <= 3;
UPDATE t SET plain = 5 WHERE id BETWEEN 4 AND 6;
SELECT outcome('t');
DROP TRIGGER t_touch ON t;
SELECT indexes_checked('t');
SET enable_seqscan = off;
SELECT id FROM t WHERE doc->>'a' IN ('1', '-1', '2', '-2', '3', '-3') ORDER BY id;
RESET enable_seqscan;

-- 4. A nested statement (a trigger on another table updates t's indexed field) is its own
-- statement: its target columns are its own, and its update is checked.
CREATE TABLE u (id int PRIMARY KEY, v int);
INSERT INTO u VALUES (1, 0);
CREATE FUNCTION u_cascade() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE decision_scope.t SET doc = jsonb_set(doc, '{a}', to_jsonb(1000 + id)) WHERE id = 7;
  UPDATE decision_scope.t SET doc = jsonb_set(doc, '{b}', to_jsonb(NEW.v)) WHERE id = 8;
  RETURN NEW;
END $$;
CREATE TRIGGER u_cascade AFTER UPDATE ON u FOR EACH ROW EXECUTE FUNCTION u_cascade();
SELECT hotplus_stat_reset();
UPDATE u SET v = v + 1;
SELECT outcome('t');

-- 5. Interleaved: a cursor whose function updates t, fetched between other updates of t
-- whose SET columns differ.
CREATE FUNCTION bump(i int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  UPDATE decision_scope.t SET n = -n WHERE id = i;
  RETURN i;
END $$;
SELECT hotplus_stat_reset();
BEGIN;
DECLARE c CURSOR FOR SELECT bump(g) FROM generate_series(9, 12) g;
FETCH 1 FROM c;
UPDATE t SET plain = 7 WHERE id = 13;
FETCH 1 FROM c;
UPDATE t SET doc = jsonb_set(doc, '{b}', '9') WHERE id = 14;
FETCH 2 FROM c;
CLOSE c;
COMMIT;
SELECT outcome('t');

-- 6. A data-modifying CTE that is finished in ExecutorFinish.
SELECT hotplus_stat_reset();
WITH moved AS (UPDATE t SET doc = jsonb_set(doc, '{a}', to_jsonb(2000 + id)) WHERE id = 15 RETURNING id)
UPDATE u SET v = 0 WHERE id = 99;
SELECT outcome('t');

SELECT indexes_checked('t');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, n FROM t WHERE n < 0 ORDER BY id;
SELECT id FROM t WHERE doc->>'a' IN ('7', '1007', '15', '2015') ORDER BY id;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT id, n FROM t WHERE n < 0 ORDER BY id;
SELECT id FROM t WHERE doc->>'a' IN ('7', '1007', '15', '2015') ORDER BY id;

-- 7. A statement that sets only toastable columns no index reads can gain only by TOAST
-- reuse. Values in line and uncompressed in the old version, and nothing out of line in the
-- new one, leave the row to heap unchecked; a compressed or out-of-line old value written
-- back is still compared and reused, and a new value out of line is compared. UPDATE,
-- INSERT ... ON CONFLICT DO UPDATE and MERGE each come in the statement's own slot.
-- body's method is pglz: lz4 (19's default) compresses incompressible() a little.
CREATE TABLE r (id int PRIMARY KEY, k int, body text COMPRESSION pglz, note text) USING hotheap WITH (fillfactor = 50);
CREATE INDEX r_k ON r (k);
CREATE FUNCTION incompressible() RETURNS text IMMUTABLE LANGUAGE sql AS
  $$ SELECT string_agg(md5(i::text), '') FROM generate_series(1, 300) i $$;
INSERT INTO r SELECT g, g, repeat('x', 20), 'n' FROM generate_series(1, 6) g;
INSERT INTO r VALUES (7, 7, repeat('abcdefgh', 1000), 'n'), (8, 8, incompressible(), 'n');
SELECT id, pg_column_compression(body) IS NOT NULL AS compressed,
       pg_column_size(body) < octet_length(body) AS smaller_than_text
FROM r WHERE id >= 7 ORDER BY id;
SELECT hotplus_stat_reset();
UPDATE r SET body = repeat('y', 20) WHERE id = 1;
UPDATE r SET body = body || '', note = 'm' WHERE id = 2;
INSERT INTO r VALUES (3, 3, 'z', 'n') ON CONFLICT (id) DO UPDATE SET body = excluded.body;
MERGE INTO r USING (VALUES (4)) v(id) ON r.id = v.id WHEN MATCHED THEN UPDATE SET body = 'w';
SELECT outcome('r');
SELECT toast_reused FROM public.hotplus_stat_tables WHERE relid = 'r'::regclass;
SELECT hotplus_stat_reset();
UPDATE r SET body = repeat('abcdefgh', 1000) WHERE id = 7;
UPDATE r SET body = incompressible() WHERE id = 8;
UPDATE r SET body = (SELECT body FROM r WHERE id = 8) WHERE id = 5;
SELECT outcome('r');
SELECT toast_reused FROM public.hotplus_stat_tables WHERE relid = 'r'::regclass;
SELECT indexes_checked('r');
SELECT id, k, md5(body), note FROM r ORDER BY id;

SELECT hotplus_stat_reset();
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA decision_scope CASCADE;
RESET client_min_messages;
