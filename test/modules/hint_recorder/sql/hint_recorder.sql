-- What each index of a non-HOT update of a hotheap table is told about its key (hotplus's
-- index hints, src/update/index_hints.hpp, src/README.md D16), as the index AM receives it:
-- hint_recorder indexes are btree but record the `indexUnchanged` of every entry. hotplus
-- tells "unchanged" per row where the decision found the key unchanged; every other index
-- keeps the executor's own answer, which comes from the statement's target columns alone.
-- Checked: an ORM's full-row save, a jsonb field, a page without room; rows of one
-- statement that differ, in both orders; a row that takes heap's path after a hinted one;
-- a trigger's nested statement; MERGE; INSERT ... ON CONFLICT DO UPDATE; partitions;
-- hotplus.enabled and hotplus.index_hints off (the executor's own answers); the statistics'
-- count; amcheck.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
CREATE EXTENSION IF NOT EXISTS amcheck;
CREATE EXTENSION IF NOT EXISTS hint_recorder;
RESET client_min_messages;

CREATE FUNCTION hints() RETURNS TABLE (n int, index text, key text, unchanged bool)
LANGUAGE sql AS $$
  SELECT l.n, c.relname::text, l.key, l.unchanged
  FROM hint_recorder_log() l JOIN pg_class c ON c.oid = l.index ORDER BY l.n
$$;

-- Room on every page (fillfactor 50): only an index change makes an update not HOT.
CREATE TABLE r (id int PRIMARY KEY, a int, b int, c text, doc jsonb) USING hotheap WITH (fillfactor = 50);
CREATE INDEX r_a ON r USING hint_recorder (a);
CREATE INDEX r_b ON r USING hint_recorder (b);
CREATE INDEX r_k ON r USING hint_recorder ((doc->>'k'));
CREATE INDEX r_lc ON r USING hint_recorder (lower(c));
-- btree twins, for amcheck.
CREATE INDEX r_a_bt ON r (a);
CREATE INDEX r_k_bt ON r ((doc->>'k'));
CREATE INDEX r_lc_bt ON r (lower(c));
INSERT INTO r SELECT g, g, g, 'C' || g, jsonb_build_object('k', 'k' || g, 'x', 0) FROM generate_series(1, 8) g;

-- An ORM's full-row save that changes b alone: r_b's key changed (the executor's own answer,
-- false); the other keys are written back, which the executor, reading the target columns,
-- takes for changed, and hotplus finds unchanged.
SELECT hint_recorder_reset();
UPDATE r SET a = a, b = b + 100, c = c, doc = doc WHERE id = 1;
SELECT * FROM hints();
-- The same with hotplus.enabled off: the executor's own answers.
SET hotplus.enabled = off;
SELECT hint_recorder_reset();
UPDATE r SET a = a, b = b + 100, c = c, doc = doc WHERE id = 2;
SELECT * FROM hints();
RESET hotplus.enabled;
-- And with hotplus.index_hints off: the executor's own answers, the update checked all the same.
SET hotplus.index_hints = off;
SELECT hint_recorder_reset();
UPDATE r SET a = a, b = b + 100, c = c, doc = doc WHERE id = 2;
SELECT * FROM hints();
RESET hotplus.index_hints;

-- A jsonb field no index reads, and b: the field r_k reads kept its value.
SELECT hint_recorder_reset();
UPDATE r SET doc = jsonb_set(doc, '{x}', '1'), b = b + 100 WHERE id = 3;
-- A case change: lower(c) is the same (the executor says changed; hotplus evaluates the
-- expression on both rows and hints it); then a change of lower(c) (the executor's answer).
UPDATE r SET c = lower(c), b = b + 100 WHERE id = 4;
UPDATE r SET c = c || 'x', b = b + 100 WHERE id = 4;
-- The same with hotplus.check_expressions off: nothing evaluated, the executor's answer.
SET hotplus.check_expressions = off;
UPDATE r SET c = upper(c), b = b + 100 WHERE id = 4;
RESET hotplus.check_expressions;
SELECT * FROM hints();

-- Rows of one statement that differ: a unchanged in the first row (hinted), changed in the
-- second (the executor's own answer: no hint left over from the first row), and the other
-- way round.
SELECT hint_recorder_reset();
UPDATE r SET a = CASE WHEN id = 6 THEN a + 100 ELSE a END, b = b + 100 WHERE id IN (5, 6);
UPDATE r SET a = CASE WHEN id = 7 THEN a + 100 ELSE a END, b = b + 100 WHERE id IN (7, 8);
SELECT * FROM hints();

-- A row that takes heap's path (hotplus.enabled turned off by the row before it, within the
-- statement) after a hinted row: the hinted row's hints are put back before it.
SELECT hint_recorder_reset();
UPDATE r SET a = a, b = b + 100,
             c = CASE WHEN id = 2 THEN c || set_config('hotplus.enabled', 'off', true) ELSE c END
WHERE id IN (1, 2);
RESET hotplus.enabled;
SELECT * FROM hints();

-- A trigger's nested statement between two rows of the outer one: each statement's rows get
-- their own hints.
CREATE FUNCTION r_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF pg_trigger_depth() = 1 AND NEW.id = 4 THEN
    UPDATE r SET a = a + 100, b = b WHERE id = 8;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER r_touch BEFORE UPDATE ON r FOR EACH ROW EXECUTE FUNCTION r_touch();
SELECT hint_recorder_reset();
UPDATE r SET a = a, b = b + 100 WHERE id IN (3, 4);
SELECT * FROM hints();
DROP TRIGGER r_touch ON r;

-- MERGE and INSERT ... ON CONFLICT DO UPDATE: the row's own hints.
SELECT hint_recorder_reset();
MERGE INTO r USING (VALUES (5)) v(id) ON r.id = v.id
WHEN MATCHED THEN UPDATE SET a = r.a, b = r.b + 100, c = r.c;
INSERT INTO r VALUES (6, 0, 0, 'x', '{}') ON CONFLICT (id) DO UPDATE SET a = r.a, b = r.b + 100;
SELECT * FROM hints();

-- A HOT update gives no entry at all.
SELECT hint_recorder_reset();
UPDATE r SET doc = jsonb_set(doc, '{x}', '2') WHERE id = 7;
SELECT count(*) AS entries FROM hints();

-- No room on the page (fillfactor 100, rows of 1,950 bytes stored in line): no index
-- changes, and every index is told so; with a key changed, the others are.
CREATE TABLE f (id int PRIMARY KEY, a int, doc jsonb, pad text) USING hotheap WITH (fillfactor = 100);
ALTER TABLE f ALTER pad SET STORAGE PLAIN;
CREATE INDEX f_a ON f USING hint_recorder (a);
CREATE INDEX f_k ON f USING hint_recorder ((doc->>'k'));
INSERT INTO f SELECT g, g, jsonb_build_object('k', g), repeat('p', 1950) FROM generate_series(1, 8) g;
SELECT hint_recorder_reset();
UPDATE f SET a = a, doc = doc || '{"x": 1}', pad = pad WHERE id = 1;
UPDATE f SET a = a + 100, doc = doc || '{"x": 1}' WHERE id = 5;
SELECT * FROM hints();

-- Partitions: each partition's rows get their own hints.
CREATE TABLE p (id int, a int, b int) PARTITION BY RANGE (id);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (10) USING hotheap;
CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (10) TO (20) USING hotheap;
CREATE INDEX p_a ON p USING hint_recorder (a);
CREATE INDEX p_b ON p USING hint_recorder (b);
INSERT INTO p VALUES (1, 1, 1), (11, 11, 11);
SELECT hint_recorder_reset();
UPDATE p SET a = CASE WHEN id = 11 THEN a + 100 ELSE a END, b = b + 100;
SELECT * FROM hints();

-- An index whose access method ignores the hint (hash, GiST, GIN, SP-GiST, BRIN) is not
-- hinted: h's ORM save hints h_c (btree) alone, not h_a (hash).
CREATE TABLE h (id int PRIMARY KEY, a int, b int, c int, t text) USING hotheap WITH (fillfactor = 50);
CREATE INDEX h_a ON h USING hash (a);
CREATE INDEX h_b ON h USING hint_recorder (b);
CREATE INDEX h_c ON h (c);
INSERT INTO h VALUES (1, 1, 1, 1, 't');
SELECT hint_recorder_reset();
UPDATE h SET a = a, b = b + 100, c = c, t = t WHERE id = 1;
SELECT * FROM hints();

-- The statistics count the indexes hotplus told "unchanged".
SELECT relname, index_hints FROM hotplus_stat_tables WHERE relname IN ('r', 'f', 'p1', 'p2', 'h') ORDER BY relname;

-- The indexes hold every row as heap does.
SELECT bt_index_check(i, true) FROM unnest(ARRAY['r_a_bt', 'r_k_bt', 'r_lc_bt', 'r_pkey', 'f_pkey']::regclass[]) i;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, a FROM r WHERE a > 0 ORDER BY a;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT id, a FROM r ORDER BY a;

DROP TABLE r, f, p;
DROP FUNCTION hints(), r_touch();
