-- Security: no superuser needed to use hotheap tables; statistics readable by everyone,
-- reset restricted; the settings for tests the superuser's; the extension script is immune
-- to a hostile search_path, and its advice to a schema name that needs quoting.
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
-- The settings for tests are the superuser's: each one changes what hotplus does for every
-- query (a node everywhere, markers shown, the page-full sample).
SET hotplus.read_path_everywhere = on;
SET hotplus.read_path_show_markers = on;
SET hotplus.page_full_sample_every = 1;
SET hotplus.verify = off;
-- The four a user tunes stay theirs.
SET hotplus.enabled = off;
SET hotplus.check_expressions = off;
SET hotplus.reuse_toast = off;
SET hotplus.read_path = off;
RESET ALL;
RESET ROLE;
-- hotplus.verify_selftest, which writes wrong decisions on purpose, exists in assert-enabled
-- builds only (where the tests use it); a release build has no such setting to grant.
SELECT (current_setting('hotplus.verify_selftest', true) IS NOT NULL) = current_setting('debug_assertions')::bool
       AS selftest_only_in_assert_builds;

-- The hostile objects changed nothing: one row per table, real names.
SET search_path = evil, pg_catalog, public;
SELECT relname, updates FROM public.hotplus_stat_tables;
SELECT relid, access_method FROM public.hotplus_advise() ORDER BY 1;
RESET search_path;
SELECT hotplus_stat_reset();

\c contrib_regression
DROP DATABASE hotplus_security;
DROP ROLE hotplus_app;

-- A schema whose name needs quoting and holds a format() directive: the advice names it as
-- SQL must, and its command runs as advised (1.5 and earlier spliced the name into format
-- strings, the CVE-2023-39417 pattern).
CREATE DATABASE hotplus_schema;
\c hotplus_schema
SET client_min_messages = warning;
CREATE SCHEMA "Hot %L plus";
CREATE EXTENSION hotplus SCHEMA "Hot %L plus";
RESET client_min_messages;
CREATE TABLE advised (id int PRIMARY KEY, doc jsonb);
CREATE INDEX advised_a ON advised ((doc->>'a'));
SELECT advice FROM "Hot %L plus".hotplus_advise() WHERE relid = 'advised'::regclass;
SELECT substring(advice FROM 'SELECT .*$') FROM "Hot %L plus".hotplus_advise() WHERE relid = 'advised'::regclass \gexec
SELECT access_method FROM "Hot %L plus".hotplus_advise() WHERE relid = 'advised'::regclass;
\c contrib_regression
DROP DATABASE hotplus_schema;
