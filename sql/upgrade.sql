-- ALTER EXTENSION hotplus UPDATE from 1.0 on a database with hotheap tables and statistics:
-- tables keep their access method and rows, the counts gathered before stay, and the view
-- gains the read path's columns (1.1), which then count HotheapRead scans; 1.2 adds the
-- statistics of Citus distributed tables, empty where Citus is not installed; 1.3 adds
-- check_failures (decisions that failed inside hotplus), 0 for the counts gathered before;
-- 1.4 adds verified and verify_sampled_out (hotplus.verify's checks), nonhot_page_full_unchecked
-- and unchecked_hot_estimate (page-full updates whose indexes were not evaluated), the indexes'
-- nonhot_first_changed (blocked_hot, its old name, stays as a deprecated alias), and wrappers
-- of the contrib tools; 1.5 adds hotplus_stat_flush() (shared mode's counts flushed now).
-- The views are replaced, never dropped: a user's view on them stays
-- (scripts/upgrade-check.sh tests views, functions and grants from every version).
-- Design points: none (the extension's objects)
CREATE DATABASE hotplus_upgrade;
\c hotplus_upgrade
CREATE EXTENSION hotplus VERSION '1.0';
CREATE VIEW my_blocked AS SELECT indexrelname, blocked_hot FROM hotplus_stat_indexes;
CREATE TABLE docs (id int PRIMARY KEY, c2 int, c3 int, c4 int, c5 int, c6 int, c7 int,
                   doc jsonb, n int) USING hotheap;
CREATE INDEX docs_k ON docs ((doc->>'k'));
INSERT INTO docs SELECT g, g, g, g, g, g, g, jsonb_build_object('k', g, 'x', 0), 0
FROM generate_series(1, 20) g;
UPDATE docs SET doc = doc || jsonb_build_object('x', 1);
UPDATE docs SET doc = doc || jsonb_build_object('k', -id) WHERE id <= 2;
SELECT relname, updates, hot_by_expression FROM hotplus_stat_tables;
SELECT extversion FROM pg_extension WHERE extname = 'hotplus';
ALTER EXTENSION hotplus UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'hotplus';
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'docs';
SELECT relname, updates, hot_by_expression, read_scans, read_rows, check_failures, verified, verify_sampled_out FROM hotplus_stat_tables;
SELECT indexrelname, nonhot_first_changed, blocked_hot FROM hotplus_stat_indexes;
SELECT * FROM my_blocked;
SELECT relname, nonhot_page_full, nonhot_page_full_unchecked, unchecked_hot_estimate FROM hotplus_stat_tables;
SELECT id FROM docs WHERE n = 0 AND c7 > 17 ORDER BY id;
SELECT relname, updates, read_scans, read_rows FROM hotplus_stat_tables;
UPDATE docs SET doc = doc || jsonb_build_object('x', 2);
SELECT relname, updates, hot_by_expression FROM hotplus_stat_tables;
SELECT count(*) FROM hotplus_advise();
SELECT count(*) FROM hotplus_stat_distributed_tables;
-- the updated objects are those of a fresh installation
SELECT md5(pg_get_viewdef('hotplus_stat_tables'::regclass)) AS updated_view,
       md5(pg_get_function_result('hotplus_stat_tables_internal'::regproc)) AS updated_function,
       md5(pg_get_viewdef('hotplus_stat_distributed_tables'::regclass)) AS updated_dist_view,
       md5(pg_get_functiondef('hotplus_distributed_stat_tables'::regproc)) AS updated_dist_function,
       (SELECT string_agg(pg_describe_object(classid, objid, 0), ', ' ORDER BY 1)
        FROM pg_depend WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
          AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'hotplus')) AS updated_members \gset
CREATE DATABASE hotplus_fresh;
\c hotplus_fresh
CREATE EXTENSION hotplus;
SELECT extversion FROM pg_extension WHERE extname = 'hotplus';
SELECT md5(pg_get_viewdef('hotplus_stat_tables'::regclass)) = :'updated_view' AS same_view,
       md5(pg_get_function_result('hotplus_stat_tables_internal'::regproc)) = :'updated_function' AS same_function,
       md5(pg_get_viewdef('hotplus_stat_distributed_tables'::regclass)) = :'updated_dist_view' AS same_dist_view,
       md5(pg_get_functiondef('hotplus_distributed_stat_tables'::regproc)) = :'updated_dist_function' AS same_dist_function,
       (SELECT string_agg(pg_describe_object(classid, objid, 0), ', ' ORDER BY 1)
        FROM pg_depend WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
          AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'hotplus')) = :'updated_members' AS same_members;
\c contrib_regression
DROP DATABASE hotplus_upgrade;
DROP DATABASE hotplus_fresh;
