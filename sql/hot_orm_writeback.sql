-- ORM-style updates: a toasted value written back unchanged in the same statement as a real
-- change of an index input (src/README.md D7, D8, D9; lifetimes in hot_update.cpp). The
-- version with the reused TOAST datum is stored only after the last read of the new
-- version's detoasted values; before that fix the decision read freed memory: a row that
-- left a partial index stayed in it (HOT), and a jsonb expression crashed the server.
-- Also: indexes a failed CREATE INDEX CONCURRENTLY left behind are never evaluated (D1),
-- the old version read from the TID (ON CONFLICT DO UPDATE) stays readable, and
-- hotplus.verify stops wrong decisions (hotplus.verify_selftest).
-- Design points: D1, D7, D8, D8a, D9, D13
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA hot_orm;
SET search_path = hot_orm, public;
SET hotplus.verify = on;

\i test/sql_helpers/hot_helpers.sql
SET default_toast_compression = pglz;

-- 1. Partial index: the row leaves the predicate while big is written back (compressed).
CREATE TABLE p (id int, big text, e text COLLATE "C") USING hotheap;
CREATE INDEX p_part ON p (id) WHERE e >= 'M';
INSERT INTO p VALUES (1, repeat('x', 3000), 'Z' || repeat('a', 9999)),
                     (2, repeat('y', 3000), 'Z' || repeat('b', 9999));
BEGIN;
CALL hot_start();
UPDATE p SET big = repeat('x', 3000), e = 'A' || repeat('a', 9999) WHERE id = 1;
-- ... and one that stays out of it: HOT, the predicate is false on both sides.
UPDATE p SET big = repeat('x', 3000), e = 'B' || repeat('a', 9999) WHERE id = 1;
-- ... and one that enters it again: not HOT.
UPDATE p SET big = repeat('x', 3000), e = 'Y' || repeat('a', 9999) WHERE id = 1;
SELECT hot('p', 1);
SELECT toast_writes('p');
COMMIT;
SELECT * FROM check_scans($$SELECT id, left(e, 2) FROM hot_orm.p WHERE e >= 'M'$$);
SELECT * FROM check_scans($$SELECT id FROM hot_orm.p WHERE e >= 'M' AND id = 1$$);
SELECT check_btrees('p');

-- 2. jsonb expression: the indexed field changes while big is written back.
CREATE TABLE j (id int PRIMARY KEY, big text, doc jsonb) USING hotheap;
CREATE INDEX j_a ON j ((doc->>'a'));
CREATE INDEX j_b ON j ((doc->>'b')) WHERE (doc->>'a') <> 'off';
INSERT INTO j VALUES (1, repeat('x', 3000), jsonb_build_object('a', 'old', 'b', 1, 'pad', repeat('q', 10000))),
                     (2, repeat('x', 3000), jsonb_build_object('a', 'old', 'b', 2, 'pad', repeat('q', 10000)));
BEGIN;
CALL hot_start();
UPDATE j SET big = repeat('x', 3000), doc = jsonb_build_object('a', 'new', 'b', 1, 'pad', repeat('q', 10000)) WHERE id = 1;
-- the same with an unindexed field changing: HOT by expression, big reused.
UPDATE j SET big = repeat('x', 3000), doc = jsonb_build_object('a', 'new', 'b', 1, 'pad', repeat('r', 10000)) WHERE id = 1;
-- leaving j_b's predicate while big and the pad are written back: not HOT.
UPDATE j SET big = repeat('x', 3000), doc = jsonb_build_object('a', 'off', 'b', 2, 'pad', repeat('q', 10000)) WHERE id = 2;
SELECT hot('j', 1);
SELECT toast_writes('j');
COMMIT;
SELECT * FROM check_scans($$SELECT id, doc->>'a' FROM hot_orm.j WHERE doc->>'a' IN ('old', 'new', 'off')$$);
SELECT * FROM check_scans($$SELECT id, doc->>'b' FROM hot_orm.j WHERE doc->>'b' IN ('1', '2') AND (doc->>'a') <> 'off'$$);
SELECT check_btrees('j');

-- 3. Every column set, as an ORM saves a row: write-backs in every form (the same literal,
-- v || '', a jsonb text round trip, a bound parameter) next to real changes.
CREATE TABLE o (id int PRIMARY KEY, title text, body text, doc jsonb, n int) USING hotheap;
ALTER TABLE o ALTER body SET STORAGE EXTERNAL;
CREATE INDEX o_title ON o (lower(title));
CREATE INDEX o_k ON o ((doc->>'k')) INCLUDE (n);
CREATE UNIQUE INDEX o_n ON o (n) WHERE n > 0;
CREATE INDEX o_h ON o USING hash ((doc->>'h'));
INSERT INTO o SELECT g, 'Title ' || g || repeat('t', 3000), repeat(md5(g::text), 100),
                     jsonb_build_object('k', g % 3, 'h', 'v' || g, 'pad', repeat('p', 5000)), g
FROM generate_series(1, 6) g;
PREPARE save(int, text, text, text, int) AS
  UPDATE o SET title = $2, body = $3, doc = $4::jsonb, n = $5 WHERE id = $1;
BEGIN;
CALL hot_start();
-- title written back, body written back, doc round trip, n changed (a key): not HOT.
UPDATE o SET title = title || '', body = body || '', doc = doc::text::jsonb, n = n + 10 WHERE id = 1;
-- only an unindexed field of doc changes, everything else written back: HOT.
UPDATE o SET title = title, body = body || '', doc = jsonb_set(doc, '{pad}', to_jsonb(repeat('z', 5000))), n = n WHERE id = 2;
-- the title changes its case: lower(title) is the same, HOT by expression.
UPDATE o SET title = upper(title), body = body || '', doc = doc || '{}', n = n WHERE id = 3;
-- the hashed field changes, the rest written back: not HOT.
UPDATE o SET title = title || '', body = body, doc = jsonb_set(doc, '{h}', '"w4"'), n = n WHERE id = 4;
SELECT hot('o', 2);
SELECT toast_writes('o');
COMMIT;
BEGIN;
CALL hot_start();
-- bound parameters with the values read back: all written back except k (not HOT), then
-- except pad (HOT).
SELECT title AS t5, body AS b5, doc::text AS d5 FROM o WHERE id = 5 \gset
EXECUTE save(5, :'t5', :'b5', jsonb_set(:'d5'::jsonb, '{k}', '9')::text, 5);
SELECT title AS t6, body AS b6, doc::text AS d6 FROM o WHERE id = 6 \gset
EXECUTE save(6, :'t6', :'b6', jsonb_set(:'d6'::jsonb, '{pad}', '"short"')::text, 6);
SELECT hot('o', 1);
COMMIT;
SELECT * FROM check_scans($$SELECT id, n FROM hot_orm.o
  WHERE lower(title) IN ('title 1' || repeat('t', 3000), 'title 3' || repeat('t', 3000), 'title 6' || repeat('t', 3000))$$);
SELECT * FROM check_scans($$SELECT id, n FROM hot_orm.o WHERE doc->>'k' IN ('0', '1', '2', '9')$$, ios => true);
SELECT * FROM check_scans($$SELECT id FROM hot_orm.o WHERE n > 0 AND n IN (1, 2, 5, 11)$$, ios => true);
SELECT * FROM check_scans($$SELECT id FROM hot_orm.o WHERE doc->>'h' IN ('v1', 'v4', 'w4')$$);
SELECT check_btrees('o');

-- 4. A failed CREATE INDEX CONCURRENTLY leaves an index that is not ready: heap never
-- evaluates it, so neither does hotplus (the old row's d::int would fail). It still counts:
-- changing its input is not HOT; changing anything else is.
CREATE TABLE c (id int, d text, other text) USING hotheap;
INSERT INTO c VALUES (1, 'bad', 'x'), (2, '5', 'x');
CREATE INDEX c_ok ON c ((d || 'ok'));
CREATE INDEX CONCURRENTLY c_int ON c ((d::int));
SELECT indisready, indisvalid FROM pg_index WHERE indexrelid = 'c_int'::regclass;
BEGIN;
CALL hot_start();
UPDATE c SET d = '1' WHERE d = 'bad';
UPDATE c SET other = 'y' WHERE id = 2;
SELECT hot('c', 1);
COMMIT;
SELECT * FROM c ORDER BY id;
DROP INDEX c_int;
SELECT check_btrees('c');

-- 5. Updates that read the old version from the TID, not from the executor's slot (INSERT
-- ... ON CONFLICT DO UPDATE): HOT by expression, index intact.
CREATE TABLE u (id int PRIMARY KEY, doc jsonb) USING hotheap;
CREATE INDEX u_a ON u ((doc->>'a'));
INSERT INTO u SELECT g, jsonb_build_object('a', g, 'b', 0) FROM generate_series(1, 20) g;
BEGIN;
CALL hot_start();
INSERT INTO u SELECT g, NULL FROM generate_series(1, 20) g
ON CONFLICT (id) DO UPDATE SET doc = jsonb_set(u.doc, '{b}', '1');
INSERT INTO u VALUES (3, NULL) ON CONFLICT (id) DO UPDATE SET doc = jsonb_set(u.doc, '{a}', '"three"');
SELECT hot('u', 20);
COMMIT;
SELECT * FROM check_scans($$SELECT id FROM hot_orm.u WHERE doc->>'a' IN ('1', '3', 'three', '20')$$);
SELECT check_btrees('u');

-- 6. hotplus.verify stops every wrong decision before anything is written. The self-test
-- decides wrongly on purpose: each update below must fail with the verifier's error, and
-- the rows and indexes stay as they were. hotplus.verify_selftest exists in assert-enabled
-- builds only: release builds skip this (expected/hot_orm_writeback_1.out).
UPDATE p SET e = 'A' WHERE id = 1;                              -- leaves p_part, not HOT
SELECT current_setting('hotplus.verify_selftest', true) IS NOT NULL AS selftest \gset
\if :selftest
SET hotplus.verify_selftest = on;
SET hotplus.reuse_toast = off; -- decisions first; reuse below
UPDATE p SET e = 'A' || repeat('c', 9999) WHERE id = 2;        -- leaves p_part
UPDATE p SET e = 'N' WHERE id = 1;                              -- enters p_part
UPDATE j SET doc = jsonb_set(doc, '{a}', '"other"') WHERE id = 1;  -- expression value
UPDATE o SET doc = jsonb_set(doc, '{h}', '"w9"') WHERE id = 5;  -- hash expression
UPDATE o SET n = 99 WHERE id = 6;                               -- stored key column
UPDATE c SET d = '7' WHERE id = 2;                              -- plain expression
-- indexes that are not ready are checked without evaluation: by their whole columns, and by
-- the value under each key for a jsonb field.
CREATE TABLE jn (id int, doc jsonb, other text) USING hotheap;
INSERT INTO jn VALUES (1, '{"a": "x", "pad": 1}', 'o');
CREATE INDEX CONCURRENTLY jn_a ON jn (((doc->>'a')::int));
CREATE INDEX CONCURRENTLY jn_other ON jn ((other::int));
UPDATE jn SET doc = jsonb_set(doc, '{a}', '"y"');               -- the field read
UPDATE jn SET other = 'p';                                      -- the column read
BEGIN;
CALL hot_start();
UPDATE jn SET doc = jsonb_set(doc, '{pad}', '2');               -- right: HOT
SELECT hot('jn', 1);
COMMIT;
RESET hotplus.reuse_toast;
-- a value of the same size that is not the same: reusing the old datum would be wrong.
UPDATE o SET body = repeat(md5('x'), 100) WHERE id = 6;
-- hotplus.verify_sample_rate: the verifier checks that fraction of the updates it would
-- check, drawn per update. The self-test's wrong decisions on the updates left out are
-- written (a throwaway table): with 1 every update fails, with 0 none, with 0.5 some (all
-- 200 or none: probability 2^-199).
-- fillfactor 10: room on every page for each row's next versions, so no update is left to
-- heap for want of space (which would count as neither stopped nor wrongly written).
CREATE TABLE sampled (id int, d text) USING hotheap WITH (fillfactor = 10);
CREATE INDEX sampled_d ON sampled ((d || 'x'));
INSERT INTO sampled SELECT g, '0' FROM generate_series(1, 200) g;
CREATE FUNCTION verify_failures(rate float8, n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  failures int := 0;
BEGIN
  PERFORM set_config('hotplus.verify_sample_rate', rate::text, true);
  FOR i IN 1..n LOOP
    BEGIN
      UPDATE sampled SET d = i || '/' || rate WHERE id = i;
    EXCEPTION WHEN internal_error THEN
      IF SQLERRM NOT LIKE 'hotplus.verify: a HOT update of table "sampled" would leave index "sampled_d" wrong' THEN
        RAISE;
      END IF;
      failures := failures + 1;
    END;
  END LOOP;
  RETURN failures;
END $$;
SELECT verify_failures(1, 20) AS failed_of_20;
SELECT verify_failures(0, 20) AS failed_of_20;
SELECT verify_failures(0.5, 200) BETWEEN 1 AND 199 AS some_of_200_failed;
SHOW hotplus.verify_sample_rate; -- each call set it for its own transaction only
DROP TABLE sampled;
DROP FUNCTION verify_failures;
-- The self-test does nothing without the verifier: this update is not HOT.
SET hotplus.verify = off;
BEGIN;
CALL hot_start();
UPDATE c SET d = '8' WHERE id = 2;
SELECT hot('c', 0);
COMMIT;
SET hotplus.verify = on;
RESET hotplus.verify_selftest;
\endif
SELECT id, left(e, 2) FROM p ORDER BY id;
SELECT id, doc->>'k' AS k, doc->>'h' AS h, n, md5(body) = md5(repeat(md5(id::text), 100)) AS body_kept FROM o ORDER BY id;
SELECT * FROM check_scans($$SELECT id FROM hot_orm.p WHERE e >= 'M'$$);
SELECT * FROM check_scans($$SELECT id, n FROM hot_orm.o WHERE doc->>'h' IN ('v5', 'w9')$$);
SELECT * FROM check_scans($$SELECT id, d FROM hot_orm.c WHERE d || 'ok' IN ('5ok', '7ok', '8ok')$$);
SELECT check_btrees('o'), check_btrees('c');

RESET hotplus.verify;
DROP SCHEMA hot_orm CASCADE;
