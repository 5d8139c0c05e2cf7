-- HOT decision matrix through other update paths: INSERT ... ON CONFLICT DO UPDATE, MERGE,
-- and partitioned tables (hotheap partitions next to a heap partition, row movement
-- between partitions). The decision is the same as for a plain UPDATE: HOT when only an
-- unindexed part of an indexed expression's input changes.
-- Design points: D3, D11
SET client_min_messages = warning;
SELECT NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'hotplus') AS created_extension \gset
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA hot_dml;
SET search_path = hot_dml, public;

\i test/sql_helpers/hot_helpers.sql

CREATE TABLE oc (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50);
CREATE INDEX oc_k ON oc ((doc->>'k'));
INSERT INTO oc SELECT g, jsonb_build_object('k', 'k' || g, 'x', g) FROM generate_series(1, 10) g;
CREATE TABLE och (LIKE oc INCLUDING ALL) USING heap WITH (fillfactor = 50);
INSERT INTO och SELECT * FROM oc;

------------------------------------------------------------------------------------------
-- INSERT ... ON CONFLICT DO UPDATE
------------------------------------------------------------------------------------------
-- Only x changes. Expected: HOT; heap: not HOT.
BEGIN;
CALL hot_start();
INSERT INTO oc VALUES (1, '{"k": "k1", "x": 100}')
  ON CONFLICT (id) DO UPDATE SET doc = oc.doc || jsonb_build_object('x', excluded.doc->'x');
SELECT hot('oc', 1);
INSERT INTO och VALUES (1, '{"k": "k1", "x": 100}')
  ON CONFLICT (id) DO UPDATE SET doc = och.doc || jsonb_build_object('x', excluded.doc->'x');
SELECT hot('och', 0);
COMMIT;
-- Several rows: two conflicts changing x only, one new row. Expected: HOT (2).
BEGIN;
CALL hot_start();
INSERT INTO oc VALUES (2, '{"k": "k2", "x": 200}'), (3, '{"k": "k3", "x": 300}'), (11, '{"k": "k11", "x": 11}')
  ON CONFLICT (id) DO UPDATE SET doc = excluded.doc;
SELECT hot('oc', 2);
COMMIT;
-- The indexed field changes. Expected: not HOT.
BEGIN;
CALL hot_start();
INSERT INTO oc VALUES (4, '{"k": "k4 new", "x": 4}')
  ON CONFLICT (id) DO UPDATE SET doc = excluded.doc;
SELECT hot('oc', 0);
COMMIT;
SELECT check_btrees('oc');
SELECT * FROM check_scans($$SELECT id, doc->>'x' FROM oc WHERE doc->>'k' IN ('k1', 'k2', 'k3', 'k4', 'k4 new', 'k11')$$);

------------------------------------------------------------------------------------------
-- MERGE
------------------------------------------------------------------------------------------
-- Matched rows change x only, one row is inserted. Expected: HOT (2).
BEGIN;
CALL hot_start();
MERGE INTO oc USING (VALUES (5, 50), (6, 60), (12, 12)) AS s(id, x) ON oc.id = s.id
  WHEN MATCHED THEN UPDATE SET doc = jsonb_set(oc.doc, '{x}', to_jsonb(s.x))
  WHEN NOT MATCHED THEN INSERT VALUES (s.id, jsonb_build_object('k', 'k' || s.id, 'x', s.x));
SELECT hot('oc', 2);
MERGE INTO och USING (VALUES (5, 50), (6, 60), (12, 12)) AS s(id, x) ON och.id = s.id
  WHEN MATCHED THEN UPDATE SET doc = jsonb_set(och.doc, '{x}', to_jsonb(s.x))
  WHEN NOT MATCHED THEN INSERT VALUES (s.id, jsonb_build_object('k', 'k' || s.id, 'x', s.x));
SELECT hot('och', 0);
COMMIT;
-- The indexed field changes on one row, not on the other. Expected: HOT (1) of 2.
BEGIN;
CALL hot_start();
MERGE INTO oc USING (VALUES (7, 'k7 new'), (8, 'k8')) AS s(id, k) ON oc.id = s.id
  WHEN MATCHED THEN UPDATE SET doc = oc.doc || jsonb_build_object('k', s.k, 'x', 0);
SELECT hot('oc', 1);
COMMIT;
SELECT check_btrees('oc');
SELECT * FROM check_scans($$SELECT id, doc->>'x' FROM oc WHERE doc->>'k' IN ('k5', 'k6', 'k12', 'k7', 'k7 new', 'k8')$$);
SELECT * FROM check_scans($$SELECT id, doc->>'k', doc->>'x' FROM oc WHERE doc->>'k' >= 'k'$$);
DROP TABLE oc, och;

------------------------------------------------------------------------------------------
-- partitioned table: hotheap partitions pt1 and pt3, heap partition pt2
------------------------------------------------------------------------------------------
CREATE TABLE pt (id int, part int, doc jsonb, PRIMARY KEY (part, id)) PARTITION BY LIST (part);
CREATE TABLE pt1 PARTITION OF pt FOR VALUES IN (1) USING hotheap WITH (fillfactor = 50);
CREATE TABLE pt2 PARTITION OF pt FOR VALUES IN (2) USING heap WITH (fillfactor = 50);
CREATE TABLE pt3 PARTITION OF pt FOR VALUES IN (3) USING hotheap WITH (fillfactor = 50);
CREATE INDEX pt_k ON pt ((doc->>'k'));
CREATE INDEX pt_x ON pt (id) WHERE (doc->>'x')::int > 100;
INSERT INTO pt SELECT g, g % 3 + 1, jsonb_build_object('k', 'k' || g, 'x', g) FROM generate_series(1, 12) g;
SELECT c.relname, a.amname, count(*) AS rows
FROM pt JOIN pg_class c ON c.oid = pt.tableoid JOIN pg_am a ON a.oid = c.relam
GROUP BY 1, 2 ORDER BY 1;

-- An unindexed field, every row. Expected: HOT in pt1 and pt3 (4 each); heap pt2: not HOT.
BEGIN;
CALL hot_start();
UPDATE pt SET doc = doc || '{"y": 1}';
SELECT hot('pt1', 4);
SELECT hot('pt2', 0);
SELECT hot('pt3', 4);
COMMIT;
-- The partial index's predicate input, staying below 100. Expected: HOT in pt1 and pt3.
BEGIN;
CALL hot_start();
UPDATE pt SET doc = jsonb_set(doc, '{x}', to_jsonb((doc->>'x')::int + 50)) WHERE id IN (3, 4, 5);
SELECT hot('pt1', 1);
SELECT hot('pt2', 0);
SELECT hot('pt3', 1);
COMMIT;
-- The predicate input, crossing 100 (rows 6 in pt1, 7 in pt2, 8 in pt3). Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE pt SET doc = jsonb_set(doc, '{x}', '150') WHERE id IN (6, 7, 8);
SELECT hot('pt1', 0);
SELECT hot('pt2', 0);
SELECT hot('pt3', 0);
COMMIT;
-- The indexed field (row 9 in pt1). Expected: not HOT.
BEGIN;
CALL hot_start();
UPDATE pt SET doc = jsonb_set(doc, '{k}', '"k9 new"') WHERE id = 9;
SELECT hot('pt1', 0);
COMMIT;
-- Row movement: pt1 -> pt3 (row 3), pt3 -> pt2 (row 2), pt2 -> pt1 (row 1), with an
-- unindexed field changed too: a delete and an insert, no update.
BEGIN;
CALL hot_start();
UPDATE pt SET part = CASE part WHEN 1 THEN 3 WHEN 3 THEN 2 ELSE 1 END, doc = doc || '{"moved": true}'
WHERE id IN (1, 2, 3);
SELECT hot('pt1', 0);
SELECT hot('pt2', 0);
SELECT hot('pt3', 0);
COMMIT;
-- After the move, an unindexed field of the moved rows. Expected: HOT in pt1 and pt3.
BEGIN;
CALL hot_start();
UPDATE pt SET doc = doc || '{"y": 2}' WHERE id IN (1, 2, 3);
SELECT hot('pt1', 1);
SELECT hot('pt2', 0);
SELECT hot('pt3', 1);
COMMIT;
SELECT tableoid::regclass AS part_table, id, part, doc FROM pt ORDER BY id;
SELECT check_btrees('pt1'), check_btrees('pt2'), check_btrees('pt3');
SELECT * FROM check_scans($$SELECT tableoid::regclass, id, part FROM pt WHERE doc->>'k' IN ('k1', 'k2', 'k3', 'k9', 'k9 new', 'k10')$$);
SELECT * FROM check_scans($$SELECT tableoid::regclass, id, doc->>'x' FROM pt WHERE (doc->>'x')::int > 100$$);
SELECT * FROM check_scans($$SELECT tableoid::regclass, id FROM pt WHERE part = 1 AND id > 0$$);
DROP TABLE pt;

DROP SCHEMA hot_dml CASCADE;
-- the extension stays as this file found it
\if :created_extension
DROP EXTENSION hotplus;
\endif
