-- DROP EXTENSION hotplus while hotheap tables exist fails and loses nothing. DROP EXTENSION
-- hotplus CASCADE runs in a database of its own, so that it never touches what other tests
-- use; the extension can be created again afterwards.
-- Design points: none (the extension's objects)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA am_dropext;
SET search_path = am_dropext, public;

CREATE TABLE keep (id int PRIMARY KEY, v text, big text) USING hotheap;
CREATE INDEX keep_v ON keep (v);
INSERT INTO keep SELECT g, 'v' || g, CASE WHEN g % 50 = 0 THEN repeat(md5(g::text), 100) END
FROM generate_series(1, 300) g;
UPDATE keep SET v = v || '!' WHERE id % 3 = 0;
CREATE MATERIALIZED VIEW keep_mv USING hotheap AS SELECT id % 10 AS d, count(*) AS n FROM keep GROUP BY 1;
SELECT count(*), sum(id), count(*) FILTER (WHERE v LIKE '%!'), count(big) FROM keep;

-- terse: the DETAIL would list every object of the database that uses hotheap
\set VERBOSITY terse
DROP EXTENSION hotplus;
DROP EXTENSION hotplus RESTRICT;
\set VERBOSITY default
DROP ACCESS METHOD hotheap;
DROP FUNCTION hotheap_tableam_handler(internal);
-- nothing was lost, and everything still works
SELECT extname FROM pg_extension WHERE extname = 'hotplus';
SELECT amname, amtype FROM pg_am WHERE amname = 'hotheap';
SELECT count(*), sum(id), count(*) FILTER (WHERE v LIKE '%!'), count(big) FROM keep;
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'keep'::regclass;
UPDATE keep SET v = v || '?' WHERE id % 5 = 0;
INSERT INTO keep VALUES (301, 'new');
REFRESH MATERIALIZED VIEW keep_mv;
SELECT sum(n) FROM keep_mv;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = 'keep'::regclass ORDER BY 1;
DROP MATERIALIZED VIEW keep_mv;
DROP TABLE keep;
DROP SCHEMA am_dropext;

-- DROP EXTENSION ... CASCADE, in a database of its own
SELECT current_database() AS src_db \gset
SET client_min_messages = warning;
DROP DATABASE IF EXISTS am_dropext_db;
RESET client_min_messages;
CREATE DATABASE am_dropext_db;
\c am_dropext_db
CREATE EXTENSION hotplus;
-- the default README suggests (ALTER DATABASE ... SET), for the database and for a role in it
ALTER DATABASE am_dropext_db SET default_table_access_method = hotheap;
ALTER ROLE CURRENT_USER IN DATABASE am_dropext_db SET default_table_access_method = hotheap;
CREATE TABLE a (id int PRIMARY KEY, v text) USING hotheap;
CREATE TABLE h (id int PRIMARY KEY, a_id int REFERENCES a (id)) USING heap;
CREATE TABLE p (id int) PARTITION BY RANGE (id);
CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (10) USING hotheap;
CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (10) TO (20) USING heap;
CREATE MATERIALIZED VIEW mv USING hotheap AS SELECT 1 AS one;
CREATE VIEW va AS SELECT * FROM a;
INSERT INTO a SELECT g, 'a' || g FROM generate_series(1, 10) g;
INSERT INTO h SELECT g, g FROM generate_series(1, 5) g;
INSERT INTO p SELECT generate_series(0, 19);
DROP EXTENSION hotplus;
SELECT count(*) FROM a;
DROP EXTENSION hotplus CASCADE;
SELECT relname, relkind FROM pg_class
WHERE relname IN ('a', 'h', 'p', 'p1', 'p2', 'mv', 'va') AND relnamespace = 'public'::regnamespace
ORDER BY 1;
SELECT count(*) FROM h;
SELECT count(*) FROM p;
-- (not NOT NULL constraints, which PG18 also records in pg_constraint)
SELECT conname FROM pg_constraint WHERE conrelid = 'h'::regclass AND contype <> 'n' ORDER BY 1;
SELECT count(*) FROM pg_am WHERE amname = 'hotheap';
CREATE TABLE b (id int) USING hotheap;
-- the settings outlive the extension: every new connection warns (twice: the database's and
-- the role's), and tables are created as heap; RESET takes them away (README "Uninstalling")
\c am_dropext_db
SHOW default_table_access_method;
CREATE TABLE n (id int);
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'n'::regclass;
DROP TABLE n;
SELECT CASE WHEN s.setrole = 0 THEN 'database' WHEN r.rolname = current_user THEN 'role in database' END AS setting,
       s.setconfig
FROM pg_db_role_setting s LEFT JOIN pg_roles r ON r.oid = s.setrole
WHERE s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
ORDER BY 1;
ALTER DATABASE am_dropext_db RESET default_table_access_method;
ALTER ROLE CURRENT_USER IN DATABASE am_dropext_db RESET default_table_access_method;
\c am_dropext_db
SHOW default_table_access_method;
SELECT count(*) FROM pg_db_role_setting
WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database());
-- the extension can be created again
CREATE EXTENSION hotplus;
CREATE TABLE b (id int PRIMARY KEY) USING hotheap;
INSERT INTO b SELECT generate_series(1, 10);
UPDATE b SET id = id + 10;
SELECT count(*), sum(id) FROM b;
\c :src_db
DROP DATABASE am_dropext_db;
