-- Every way of reaching a hotheap table's tuple_update: UPDATE ... FROM, INSERT ... ON
-- CONFLICT DO UPDATE, MERGE, row movement between hotheap partitions, triggers (that
-- change NEW, that skip rows, that update other hotheap tables), RETURNING, foreign keys
-- with ON UPDATE CASCADE / SET NULL, updatable views, generated columns. Only results
-- are checked.
-- Design points: D7
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA am_update_paths;
SET search_path = am_update_paths, public;

CREATE TABLE acct (id int PRIMARY KEY, owner text NOT NULL, balance numeric NOT NULL,
                   updated_count int NOT NULL DEFAULT 0) USING hotheap;
CREATE INDEX acct_owner ON acct (owner);
INSERT INTO acct (id, owner, balance) SELECT g, 'owner' || (g % 10), g * 10 FROM generate_series(1, 100) g;

-- UPDATE ... FROM, with RETURNING of the new values
CREATE TABLE payments (acct_id int, amount numeric) USING hotheap;
INSERT INTO payments VALUES (1, 5), (2, 7.5), (3, -30), (50, 1000), (101, 1);
WITH u AS (
  UPDATE acct a SET balance = a.balance + p.amount, updated_count = a.updated_count + 1
  FROM payments p WHERE p.acct_id = a.id
  RETURNING a.id, a.balance, a.updated_count, p.amount)
SELECT * FROM u ORDER BY id;
-- UPDATE with a sub-select, and of a key column through a join
UPDATE acct SET balance = (SELECT sum(amount) FROM payments) WHERE id = 4 RETURNING id, balance;
UPDATE acct a SET id = a.id + 1000 FROM payments p WHERE p.acct_id = a.id AND p.amount > 100
RETURNING a.id, a.owner;
SELECT id, owner, balance, updated_count FROM acct WHERE id IN (1, 2, 3, 4, 50, 1050) ORDER BY id;

-- INSERT ... ON CONFLICT
INSERT INTO acct (id, owner, balance) VALUES (5, 'x', 1), (200, 'new', 2)
ON CONFLICT (id) DO UPDATE SET balance = acct.balance + EXCLUDED.balance,
                               updated_count = acct.updated_count + 1
RETURNING id, owner, balance, updated_count;
INSERT INTO acct (id, owner, balance) VALUES (6, 'x', 1)
ON CONFLICT (id) DO UPDATE SET owner = EXCLUDED.owner WHERE acct.balance > 1000
RETURNING id, owner;
INSERT INTO acct (id, owner, balance) VALUES (7, 'x', 1), (201, 'new', 3)
ON CONFLICT DO NOTHING RETURNING id;
-- the same row twice in one command is an error
INSERT INTO acct (id, owner, balance) VALUES (8, 'a', 1), (8, 'b', 2)
ON CONFLICT (id) DO UPDATE SET owner = EXCLUDED.owner;
-- ON CONFLICT that changes the indexed column, many rows
INSERT INTO acct (id, owner, balance) SELECT g, 'upserted', 0 FROM generate_series(90, 110) g
ON CONFLICT (id) DO UPDATE SET owner = EXCLUDED.owner || ' ' || acct.owner;
SELECT id, owner, balance, updated_count FROM acct WHERE id IN (5, 6, 7, 8, 89, 90, 100, 101, 110, 200, 201) ORDER BY id;

-- MERGE
CREATE TABLE changes (id int, op text, amount numeric) USING hotheap;
INSERT INTO changes VALUES (10, 'add', 1), (11, 'del', 0), (12, 'add', 2), (300, 'add', 30),
                           (301, 'del', 0), (13, 'rename', 0);
MERGE INTO acct a
USING changes c ON a.id = c.id
WHEN MATCHED AND c.op = 'del' THEN DELETE
WHEN MATCHED AND c.op = 'rename' THEN UPDATE SET owner = 'renamed', updated_count = a.updated_count + 1
WHEN MATCHED THEN UPDATE SET balance = a.balance + c.amount, updated_count = a.updated_count + 1
WHEN NOT MATCHED AND c.op = 'add' THEN INSERT (id, owner, balance) VALUES (c.id, 'merged', c.amount)
WHEN NOT MATCHED THEN DO NOTHING;
SELECT id, owner, balance, updated_count FROM acct WHERE id BETWEEN 10 AND 13 OR id >= 300 ORDER BY id;
-- MERGE that changes the key
MERGE INTO acct a USING (SELECT 12 AS id) s ON a.id = s.id
WHEN MATCHED THEN UPDATE SET id = 400;
SELECT id, owner, balance FROM acct WHERE id IN (12, 400) ORDER BY id;

-- the table is consistent through its indexes
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*), sum(balance), sum(updated_count), string_agg(id::text, ',' ORDER BY id) FILTER (WHERE id > 100)
FROM acct WHERE id > 0;
SELECT owner, count(*) FROM acct WHERE owner > '' GROUP BY owner ORDER BY owner;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(balance), sum(updated_count), string_agg(id::text, ',' ORDER BY id) FILTER (WHERE id > 100)
FROM acct;
SELECT owner, count(*) FROM acct GROUP BY owner ORDER BY owner;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'acct'::regclass ORDER BY 1;

-- triggers: BEFORE UPDATE changing NEW and skipping rows, AFTER UPDATE row and statement
-- triggers with transition tables writing to another hotheap table
CREATE TABLE audit (n serial, tab text, op text, id int, old_v text, new_v text) USING hotheap;
CREATE TABLE trg (id int PRIMARY KEY, v text, stamp int DEFAULT 0, locked bool DEFAULT false)
  USING hotheap;
CREATE INDEX trg_v ON trg (v);
INSERT INTO trg (id, v) SELECT g, 'v' || g FROM generate_series(1, 20) g;
UPDATE trg SET locked = true WHERE id IN (3, 4);
CREATE FUNCTION trg_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.locked THEN
    RETURN NULL;                -- skip the row
  END IF;
  NEW.stamp := OLD.stamp + 1;
  NEW.v := upper(NEW.v);
  RETURN NEW;
END $$;
CREATE FUNCTION trg_after_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit (tab, op, id, old_v, new_v) VALUES (TG_TABLE_NAME, TG_OP, NEW.id, OLD.v, NEW.v);
  RETURN NULL;
END $$;
CREATE FUNCTION trg_after_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit (tab, op, id, old_v, new_v)
  SELECT TG_TABLE_NAME, 'stmt', count(*), string_agg(o.v, ',' ORDER BY o.id), string_agg(n.v, ',' ORDER BY n.id)
  FROM old_rows o JOIN new_rows n ON n.id = o.id;
  RETURN NULL;
END $$;
CREATE TRIGGER trg_b BEFORE UPDATE ON trg FOR EACH ROW EXECUTE FUNCTION trg_before();
CREATE TRIGGER trg_a AFTER UPDATE ON trg FOR EACH ROW WHEN (OLD.v IS DISTINCT FROM NEW.v)
  EXECUTE FUNCTION trg_after_row();
CREATE TRIGGER trg_s AFTER UPDATE ON trg REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION trg_after_stmt();
WITH u AS (UPDATE trg SET v = v || 'x' WHERE id BETWEEN 1 AND 5 RETURNING id, v, stamp)
SELECT * FROM u ORDER BY id;
UPDATE trg SET v = lower(v) WHERE id IN (1, 2);
UPDATE trg SET stamp = 100 WHERE id = 6;
SELECT * FROM trg WHERE id <= 6 ORDER BY id;
SELECT tab, op, id, old_v, new_v FROM audit ORDER BY n;
SET enable_seqscan = off;
SELECT id, v FROM trg WHERE v IN ('V1X', 'v1x', 'V3', 'v3', 'V5X') ORDER BY id;
RESET enable_seqscan;
-- a BEFORE trigger that changes the key (it runs after trg_b, which upper-cases v)
CREATE FUNCTION trg_rekey() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.id := OLD.id + 100;
  RETURN NEW;
END $$;
CREATE TRIGGER trg_rekey BEFORE UPDATE ON trg FOR EACH ROW WHEN (NEW.v = 'REKEY')
  EXECUTE FUNCTION trg_rekey();
UPDATE trg SET v = 'rekey' WHERE id IN (7, 8);
SELECT id, v, stamp FROM trg WHERE id IN (7, 8, 107, 108) ORDER BY id;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid IN ('trg'::regclass, 'acct'::regclass) ORDER BY 1;

-- row movement between hotheap partitions, with triggers on the partitions
CREATE TABLE pm (k int, id int, v text, PRIMARY KEY (k, id)) PARTITION BY LIST (k);
CREATE TABLE pm1 PARTITION OF pm FOR VALUES IN (1) USING hotheap;
CREATE TABLE pm2 PARTITION OF pm FOR VALUES IN (2) USING hotheap;
CREATE TABLE pm3 PARTITION OF pm FOR VALUES IN (3) USING hotheap;
CREATE INDEX pm_v ON pm (v);
CREATE FUNCTION pm_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO audit (tab, op, id, old_v, new_v)
  VALUES (TG_TABLE_NAME, TG_OP, coalesce(NEW.id, OLD.id), OLD.k::text, NEW.k::text);
  RETURN coalesce(NEW, OLD);
END $$;
CREATE TRIGGER pm_log AFTER INSERT OR UPDATE OR DELETE ON pm FOR EACH ROW EXECUTE FUNCTION pm_log();
INSERT INTO pm SELECT g % 3 + 1, g, 'v' || g FROM generate_series(1, 30) g;
TRUNCATE audit;
WITH m AS (UPDATE pm SET k = 3 WHERE k = 1 AND id <= 10 RETURNING tableoid::regclass AS part, k, id, v)
SELECT * FROM m ORDER BY id;
UPDATE pm SET k = 1, v = v || ' back' WHERE k = 3 AND id IN (3, 6);
UPDATE pm SET v = v || ' stays' WHERE id = 9;
SELECT tableoid::regclass AS part, k, id, v FROM pm WHERE id <= 10 ORDER BY id;
SELECT tab, op, id, old_v, new_v FROM audit ORDER BY n;
SELECT tableoid::regclass AS part, count(*) FROM pm GROUP BY 1 ORDER BY tableoid::regclass::text;
SET enable_seqscan = off;
SELECT k, id, v FROM pm WHERE v LIKE '%back' AND v > '' ORDER BY id;
RESET enable_seqscan;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_class c WHERE c.relname IN ('pm1_pkey', 'pm2_pkey', 'pm3_pkey', 'pm1_v_idx', 'pm2_v_idx', 'pm3_v_idx')
  AND c.relnamespace = 'am_update_paths'::regnamespace ORDER BY 1;

-- foreign keys between hotheap tables: ON UPDATE CASCADE, ON DELETE SET NULL, RESTRICT
CREATE TABLE parent (id int PRIMARY KEY, code text UNIQUE NOT NULL) USING hotheap;
CREATE TABLE child (id int PRIMARY KEY,
                    parent_id int REFERENCES parent (id) ON UPDATE CASCADE ON DELETE SET NULL,
                    parent_code text REFERENCES parent (code) ON UPDATE CASCADE ON DELETE CASCADE,
                    note text) USING hotheap;
CREATE INDEX child_parent_id ON child (parent_id);
CREATE INDEX child_parent_code ON child (parent_code);
INSERT INTO parent SELECT g, 'c' || g FROM generate_series(1, 10) g;
-- even children reference their parent by code too, odd ones only by id
INSERT INTO child SELECT g, g % 10 + 1, CASE WHEN g % 2 = 0 THEN 'c' || (g % 10 + 1) END, 'n' || g
FROM generate_series(1, 50) g;
UPDATE parent SET id = id + 100 WHERE id <= 3;
UPDATE parent SET code = upper(code) WHERE id IN (5, 101);
SELECT parent_id, parent_code, count(*) FROM child GROUP BY 1, 2 ORDER BY 1, 2 NULLS FIRST;
-- 102 has children by id only (set to NULL), 103 by code too (deleted)
DELETE FROM parent WHERE id = 102;
DELETE FROM parent WHERE id = 103;
SELECT parent_id, parent_code, count(*) FROM child GROUP BY 1, 2 ORDER BY 1, 2 NULLS FIRST;
-- violations
INSERT INTO child VALUES (100, 99, NULL, 'orphan');
UPDATE child SET parent_id = 98 WHERE id = 5;
UPDATE child SET parent_code = 'c98' WHERE id = 4;
UPDATE child SET note = 'fine' WHERE id IN (4, 5);
SELECT id, parent_id, parent_code, note FROM child WHERE id IN (4, 5) ORDER BY id;
SET enable_seqscan = off;
SELECT count(*) FROM child WHERE parent_id = 101;
SELECT count(*) FROM child WHERE parent_code = 'C1';
SELECT count(*) FROM child WHERE parent_id IS NULL;
RESET enable_seqscan;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid IN ('parent'::regclass, 'child'::regclass) ORDER BY 1;

-- updatable views with CHECK OPTION, and stored generated columns
CREATE TABLE g (id int PRIMARY KEY, a int, b int, total int GENERATED ALWAYS AS (a + b) STORED)
  USING hotheap;
CREATE INDEX g_total ON g (total);
INSERT INTO g (id, a, b) SELECT x, x, x * 2 FROM generate_series(1, 20) x;
CREATE VIEW g_small AS SELECT * FROM g WHERE total < 30 WITH CHECK OPTION;
WITH u AS (UPDATE g_small SET a = a + 1 WHERE id <= 3 RETURNING id, a, b, total)
SELECT * FROM u ORDER BY id;
UPDATE g_small SET a = 100 WHERE id = 4;
UPDATE g SET b = 0 WHERE id = 15 RETURNING total;
SELECT id, total FROM g_small ORDER BY id;
SET enable_seqscan = off;
SELECT id, total FROM g WHERE total BETWEEN 5 AND 15 ORDER BY id;
RESET enable_seqscan;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'g'::regclass ORDER BY 1;

-- an update in a function called by an update of the same table
CREATE FUNCTION bump(i int) RETURNS int LANGUAGE sql AS $$
  UPDATE g SET b = b + 1000 WHERE id = i + 1 RETURNING b
$$;
UPDATE g SET a = bump(id) WHERE id = 1;
SELECT id, a, b, total FROM g WHERE id IN (1, 2) ORDER BY id;

DROP VIEW g_small;
DROP FUNCTION bump(int);
DROP TABLE acct, payments, changes, audit, trg, pm, child, parent, g;
DROP FUNCTION trg_before(), trg_after_row(), trg_after_stmt(), trg_rekey(), pm_log();
DROP SCHEMA am_update_paths;
