-- Security: no superuser needed to use hotheap tables; statistics readable by everyone,
-- reset restricted; the extension script is immune to a hostile search_path.
-- Design points: none (privileges and the extension script)
CREATE DATABASE hotplus_security;
\c hotplus_security
SET client_min_messages = warning;

-- A hostile schema ahead of pg_catalog: an "=" on oid that is always true, and a
-- pg_class look-alike. CREATE EXTENSION must bind every name to pg_catalog anyway.
CREATE SCHEMA evil;
CREATE FUNCTION evil.always(oid, oid) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR evil.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = evil.always);
CREATE TABLE evil.pg_class (oid oid, relname name);
INSERT INTO evil.pg_class SELECT g::oid, 'fake' || g FROM generate_series(1, 3) g;
SET search_path = evil, pg_catalog, public;
CREATE EXTENSION hotplus SCHEMA public;
CREATE EXTENSION amcheck SCHEMA public;
RESET search_path;
RESET client_min_messages;

-- An ordinary role uses hotheap tables, reads the statistics and advice, converts its own
-- tables; it may not reset the statistics.
CREATE ROLE hotplus_app LOGIN;
GRANT CREATE ON SCHEMA public TO hotplus_app;
SET ROLE hotplus_app;
CREATE TABLE app_docs (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50);
INSERT INTO app_docs SELECT g, jsonb_build_object('a', g, 'b', 0) FROM generate_series(1, 100) g;
CREATE INDEX app_docs_a ON app_docs ((doc->>'a'));
UPDATE app_docs SET doc = jsonb_set(doc, '{b}', '1');
SELECT relname, updates, hot_by_expression FROM hotplus_stat_tables;
SELECT relid, access_method, expression_indexes FROM hotplus_advise() WHERE relid = 'app_docs'::regclass;
CREATE TABLE app_plain (id int PRIMARY KEY, doc jsonb);
SELECT hotplus_convert('app_plain');
SELECT hotplus_revert('app_plain');
SELECT hotplus_stat_reset();
RESET ROLE;

-- The hostile objects changed nothing: one row per table, real names.
SET search_path = evil, pg_catalog, public;
SELECT relname, updates FROM public.hotplus_stat_tables;
SELECT relid, access_method FROM public.hotplus_advise() ORDER BY 1;
RESET search_path;
SELECT hotplus_stat_reset();

\c contrib_regression
DROP DATABASE hotplus_security;
DROP ROLE hotplus_app;
