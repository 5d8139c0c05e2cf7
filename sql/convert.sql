-- Zero-rewrite conversion between heap and hotheap.
-- Design points: D11
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;

CREATE TABLE cv (id int PRIMARY KEY, doc jsonb, n int) WITH (fillfactor = 50);
INSERT INTO cv SELECT g, jsonb_build_object('a', g, 'b', 0), g FROM generate_series(1, 500) g;
CREATE INDEX cv_a ON cv ((doc->>'a'));
CREATE INDEX cv_n ON cv (n) WHERE n < 0;
SELECT pg_relation_filenode('cv') AS filenode_before \gset

-- On heap, an unindexed field of a document under an expression index is never HOT.
BEGIN;
UPDATE cv SET doc = jsonb_set(doc, '{b}', '1') WHERE id <= 20;
SELECT pg_stat_get_xact_tuples_hot_updated('cv'::regclass) AS hot_on_heap;
COMMIT;

-- Refused in a read-only transaction (and so on a standby), like ALTER TABLE ... SET ACCESS
-- METHOD; nothing changes.
BEGIN READ ONLY;
SELECT hotplus_convert('cv');
ROLLBACK;
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'cv'::regclass;

SELECT hotplus_convert('cv');
SELECT a.amname, pg_relation_filenode('cv') = :filenode_before AS same_relfilenode
FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'cv'::regclass;
-- The dependency on the access method is recorded, as CREATE TABLE ... USING would.
SELECT (SELECT amname FROM pg_am WHERE oid = d.refobjid) AS depends_on, d.deptype
FROM pg_depend d
WHERE d.classid = 'pg_class'::regclass AND d.objid = 'cv'::regclass AND d.refclassid = 'pg_am'::regclass;

BEGIN;
UPDATE cv SET doc = jsonb_set(doc, '{b}', '2') WHERE id <= 20;
SELECT pg_stat_get_xact_tuples_hot_updated('cv'::regclass) AS hot_on_hotheap;
COMMIT;
SELECT count(*) AS checked FROM (SELECT bt_index_check(indexrelid::regclass, true)
  FROM pg_index WHERE indrelid = 'cv'::regclass) s;
SET enable_seqscan = off;
SELECT count(*) FROM cv WHERE doc->>'a' = '7';
RESET enable_seqscan;

-- Converted tables block DROP EXTENSION like any hotheap table.
DROP EXTENSION hotplus;

-- Converting again is a no-op with a notice; reverting restores heap and drops the dependency.
SELECT hotplus_convert('cv');
SELECT hotplus_revert('cv');
SELECT a.amname, pg_relation_filenode('cv') = :filenode_before AS same_relfilenode
FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'cv'::regclass;
SELECT count(*) AS am_dependencies FROM pg_depend
WHERE classid = 'pg_class'::regclass AND objid = 'cv'::regclass AND refclassid = 'pg_am'::regclass;
SELECT hotplus_revert('cv');

-- Partitioned tables: every plain partition is switched.
CREATE TABLE cvp (id int, v text) PARTITION BY RANGE (id);
CREATE TABLE cvp1 PARTITION OF cvp FOR VALUES FROM (0) TO (100);
CREATE TABLE cvp2 PARTITION OF cvp FOR VALUES FROM (100) TO (200) PARTITION BY RANGE (id);
CREATE TABLE cvp2a PARTITION OF cvp2 FOR VALUES FROM (100) TO (150);
CREATE TABLE cvp2b PARTITION OF cvp2 FOR VALUES FROM (150) TO (200) USING hotheap;
INSERT INTO cvp SELECT g, 'v' || g FROM generate_series(0, 199) g;
SELECT hotplus_convert('cvp');
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.relname LIKE 'cvp%' ORDER BY 1;
SELECT count(*) FROM cvp;
SELECT hotplus_revert('cvp2');
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.relname LIKE 'cvp%' ORDER BY 1;

-- Refusals.
SELECT hotplus_convert('pg_class');
SELECT hotplus_convert('cv_a');
CREATE VIEW cv_view AS SELECT 1 AS x;
SELECT hotplus_convert('cv_view');
CREATE SEQUENCE cv_seq;
SELECT hotplus_convert('cv_seq');
CREATE MATERIALIZED VIEW cv_mat AS SELECT 1 AS x;
SELECT hotplus_convert('cv_mat');
SELECT hotplus_revert('cv');
SELECT hotplus_convert(NULL);
SELECT hotplus_convert(0);
-- A table in use by this session (an open cursor) cannot be switched.
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM cv;
FETCH 1 FROM c;
SELECT hotplus_convert('cv');
ROLLBACK;
-- Only the owner may switch a table.
CREATE ROLE hotplus_cv_other;
GRANT SELECT, UPDATE ON cv TO hotplus_cv_other;
SET ROLE hotplus_cv_other;
SELECT hotplus_convert('cv');
RESET ROLE;
REVOKE ALL ON cv FROM hotplus_cv_other;
DROP ROLE hotplus_cv_other;

DROP VIEW cv_view;
DROP SEQUENCE cv_seq;
DROP MATERIALIZED VIEW cv_mat;
DROP TABLE cv, cvp;
