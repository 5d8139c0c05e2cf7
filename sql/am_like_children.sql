-- Children made the way pg_partman makes them: CREATE TABLE child (LIKE parent INCLUDING
-- ...), then ALTER TABLE parent ATTACH PARTITION. LIKE copies no access method, so such a
-- child is heap even when its parent (or a sibling, or a template) is hotheap, unless
-- default_table_access_method is hotheap for the role that makes it (ALTER ROLE ... SET,
-- from its next session); a set made mixed by setting that late is mended by
-- hotplus_convert(parent) (doc/using.md, "Working with other tools"; scripts/tools-check.sh
-- runs pg_partman itself).
-- Design points: none (heap operations on hotheap tables, and conversion)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
SELECT current_user AS test_superuser \gset
-- The role that makes the children, as pg_partman's maintenance would. It connects below:
-- where the tests connect with a password (pg_virtualenv), it gets the same one.
\getenv regress_password PGPASSWORD
CREATE ROLE regress_am_like_maint LOGIN;
\if :{?regress_password}
ALTER ROLE regress_am_like_maint PASSWORD :'regress_password';
\endif
CREATE SCHEMA am_like_children AUTHORIZATION regress_am_like_maint;
SET search_path = am_like_children, public;
-- The access method of every table in the schema (partitioned tables have none on 15 and
-- 16, and on 17+ none unless given one: left out).
\set tables 'SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relnamespace = ''am_like_children''::regnamespace AND c.relkind = ''r'' ORDER BY 1;'

-- LIKE copies no access method: heap, from a hotheap table and from a partitioned table
-- whose partition is hotheap.
SET ROLE regress_am_like_maint;
SHOW default_table_access_method;
CREATE TABLE src (id int PRIMARY KEY, doc jsonb NOT NULL) USING hotheap;
CREATE TABLE src_like (LIKE src INCLUDING ALL);
CREATE TABLE events (id int NOT NULL, doc jsonb NOT NULL, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE INDEX events_a ON events ((doc->>'a'));
CREATE TABLE events_p0 PARTITION OF events FOR VALUES FROM (0) TO (100) USING hotheap;
CREATE TABLE events_p100 (LIKE events INCLUDING ALL);
ALTER TABLE events ATTACH PARTITION events_p100 FOR VALUES FROM (100) TO (200);
RESET ROLE;
:tables

-- With the role's default, its next session makes hotheap children: LIKE tables, attached
-- or not, and PARTITION OF.
ALTER ROLE regress_am_like_maint SET default_table_access_method = hotheap;
\c - regress_am_like_maint
SET search_path = am_like_children, public;
SHOW default_table_access_method;
CREATE TABLE src_like2 (LIKE src INCLUDING ALL);
CREATE TABLE events_p200 (LIKE events INCLUDING ALL);
ALTER TABLE events ATTACH PARTITION events_p200 FOR VALUES FROM (200) TO (300);
CREATE TABLE events_p300 PARTITION OF events FOR VALUES FROM (300) TO (400);
INSERT INTO events SELECT g, jsonb_build_object('a', g % 7, 'b', 0) FROM generate_series(0, 399) g;
\c - :test_superuser
SET search_path = am_like_children, public;
:tables

-- The set is mixed (events_p100 is heap): hotplus_convert(parent) switches what is heap and
-- skips the rest (a NOTICE each).
SET client_min_messages = warning;
SELECT public.hotplus_convert('am_like_children.events'::regclass);
RESET client_min_messages;
:tables
SELECT p.relid::regclass AS partition, a.amname, count(e.id) AS rows
FROM pg_partition_tree('events') p JOIN pg_class c ON c.oid = p.relid
JOIN pg_am a ON a.oid = c.relam LEFT JOIN events e ON e.tableoid = p.relid
WHERE p.isleaf GROUP BY 1, 2 ORDER BY 1;

-- The mended set: an update of field b (the expression index reads field a) is HOT in
-- every partition (5 rows each: a child's page of 100 rows has room for 7 new versions);
-- the indexes agree with sequential scans.
\i test/sql_helpers/am_check_scans.sql
\i test/sql_helpers/am_check_btrees.sql
BEGIN;
UPDATE events SET doc = jsonb_set(doc, '{b}', '1') WHERE id % 20 = 0;
SELECT p.relid::regclass AS partition, pg_stat_get_xact_tuples_updated(p.relid) AS updated,
       pg_stat_get_xact_tuples_hot_updated(p.relid) AS hot
FROM pg_partition_tree('events') p WHERE p.isleaf ORDER BY 1;
COMMIT;
SELECT * FROM am_check_btrees();
SELECT * FROM am_check_scans('SELECT id, doc FROM events WHERE doc->>''a'' = ''3''');
SELECT * FROM am_check_scans('SELECT id, doc FROM events WHERE id BETWEEN 95 AND 205');

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA am_like_children CASCADE;
RESET client_min_messages;
ALTER ROLE regress_am_like_maint RESET default_table_access_method;
DROP ROLE regress_am_like_maint;
