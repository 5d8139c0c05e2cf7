-- The contrib tools that refuse relam <> heap, on hotheap tables (issue 32 part 2):
-- hotplus_pgstattuple(), hotplus_pgstattuple_approx(), hotplus_verify_heapam(),
-- hotplus_pgrowlocks(), hotplus_heap_force_kill() and hotplus_heap_force_freeze() run the
-- contrib function with the relation presented as heap for that one call. Each gives the
-- contrib function's own result on a heap twin; the contrib function itself still refuses the
-- hotheap table (so the wrapper is what makes it work, and the relcache entry is hotheap's
-- again after each call); verify_heapam through the wrapper finds real corruption of a
-- hotheap page; bad input, a missing extension and missing privileges get SQLSTATEs; relcache
-- invalidations between and during calls leave the table hotheap (pg_class, the contrib's
-- refusal, an UPDATE counted by hotheap).
-- Design points: D15
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;

-- An error as "SQLSTATE: message" (the messages are the same on every supported version).
CREATE FUNCTION pg_temp.err(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE query;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- Twins: the same rows written the same way (updates of a column no index reads: HOT on both,
-- so both files hold the same tuples at the same places).
CREATE TABLE twin_heap (id int PRIMARY KEY, n int, v text) USING heap;
CREATE TABLE twin_hot (id int PRIMARY KEY, n int, v text) USING hotheap;
INSERT INTO twin_heap SELECT g, 0, repeat('v', g % 50) FROM generate_series(1, 500) g;
INSERT INTO twin_hot SELECT g, 0, repeat('v', g % 50) FROM generate_series(1, 500) g;
UPDATE twin_heap SET n = n + 1 WHERE id % 7 = 0;
UPDATE twin_hot SET n = n + 1 WHERE id % 7 = 0;
DELETE FROM twin_heap WHERE id % 11 = 0;
DELETE FROM twin_hot WHERE id % 11 = 0;

-- Without the contrib extensions: a clear error naming the extension to install.
SELECT pg_temp.err($$SELECT * FROM hotplus_pgstattuple('twin_hot')$$);
SELECT pg_temp.err($$SELECT * FROM hotplus_pgstattuple_approx('twin_hot')$$);
SELECT pg_temp.err($$SELECT * FROM hotplus_pgrowlocks('twin_hot')$$);
SELECT pg_temp.err($$SELECT hotplus_heap_force_kill('twin_hot', ARRAY['(0,1)']::tid[])$$);
CREATE EXTENSION pgstattuple;
CREATE EXTENSION pgrowlocks;
CREATE EXTENSION pg_surgery;

-- The contrib functions themselves refuse the hotheap table.
SELECT pg_temp.err($$SELECT * FROM pgstattuple('twin_hot')$$);
SELECT pg_temp.err($$SELECT * FROM pgstattuple_approx('twin_hot')$$);
SELECT pg_temp.err($$SELECT * FROM verify_heapam('twin_hot')$$);
SELECT pg_temp.err($$SELECT * FROM pgrowlocks('twin_hot')$$);
SELECT pg_temp.err($$SELECT heap_force_kill('twin_hot', ARRAY['(0,1)']::tid[])$$);
SELECT pg_temp.err($$SELECT heap_force_freeze('twin_hot', ARRAY['(0,1)']::tid[])$$);

-- pgstattuple: the heap twin's counts, every column (free space differs between versions:
-- 15 and 18 prune differently; the twins agree on each).
SELECT table_len, tuple_count, tuple_len, dead_tuple_count, dead_tuple_len FROM pgstattuple('twin_heap');
SELECT table_len, tuple_count, tuple_len, dead_tuple_count, dead_tuple_len FROM hotplus_pgstattuple('twin_hot');
SELECT (SELECT p FROM pgstattuple('twin_heap') p) = (SELECT p FROM hotplus_pgstattuple('twin_hot') p) AS same;
-- pgstattuple_approx reads the visibility map: after the same VACUUM, the same estimate.
VACUUM twin_heap;
VACUUM twin_hot;
SELECT (SELECT p FROM pgstattuple_approx('twin_heap') p) = (SELECT p FROM hotplus_pgstattuple_approx('twin_hot') p) AS same,
       (SELECT approx_tuple_count FROM hotplus_pgstattuple_approx('twin_hot')) AS approx_tuple_count;
SELECT (SELECT p FROM pgstattuple('twin_heap') p) = (SELECT p FROM hotplus_pgstattuple('twin_hot') p) AS same_after_vacuum;
-- A regclass given by OID, in another schema, with a quoted name: the same.
CREATE SCHEMA "Other Schema";
CREATE TABLE "Other Schema"."Twin Hot" (id int PRIMARY KEY, n int, v text) USING hotheap;
INSERT INTO "Other Schema"."Twin Hot" SELECT * FROM twin_hot;
SELECT tuple_count, dead_tuple_count FROM hotplus_pgstattuple('"Other Schema"."Twin Hot"'::regclass::oid);

-- verify_heapam: nothing on either twin, with every argument (the wrapper passes them on).
SELECT count(*) FROM verify_heapam('twin_heap', check_toast => true);
SELECT count(*) FROM hotplus_verify_heapam('twin_hot', check_toast => true);
SELECT count(*) FROM hotplus_verify_heapam('twin_hot', on_error_stop => true, check_toast => false,
                                           skip => 'all-visible', startblock => 0, endblock => 0);
-- verify_heapam's own checks of its arguments, through the wrapper.
SELECT pg_temp.err($$SELECT * FROM hotplus_verify_heapam(NULL)$$);
SELECT pg_temp.err($$SELECT * FROM hotplus_verify_heapam('twin_hot', skip => 'some')$$);
SELECT pg_temp.err($$SELECT * FROM hotplus_verify_heapam('twin_hot', startblock => 1000)$$);

-- pgrowlocks: the rows this transaction locked, as on the heap twin.
BEGIN;
SELECT id FROM twin_heap WHERE id IN (2, 3) ORDER BY id FOR UPDATE;
SELECT id FROM twin_hot WHERE id IN (2, 3) ORDER BY id FOR UPDATE;
SELECT id FROM twin_heap WHERE id = 5 FOR SHARE;
SELECT id FROM twin_hot WHERE id = 5 FOR SHARE;
SELECT locked_row, locker = pg_current_xact_id()::xid AS mine, multi, modes, pids = ARRAY[pg_backend_pid()] AS my_pid
FROM hotplus_pgrowlocks('twin_hot') ORDER BY locked_row;
SELECT count(*) AS differences FROM (
  (SELECT locked_row, locker, multi, xids, modes, pids FROM pgrowlocks('twin_heap')
   EXCEPT SELECT locked_row, locker, multi, xids, modes, pids FROM hotplus_pgrowlocks('twin_hot'))
  UNION ALL
  (SELECT locked_row, locker, multi, xids, modes, pids FROM hotplus_pgrowlocks('twin_hot')
   EXCEPT SELECT locked_row, locker, multi, xids, modes, pids FROM pgrowlocks('twin_heap'))) d;
-- The name is resolved as pgrowlocks resolves it (search_path, quoting).
SELECT count(*) FROM hotplus_pgrowlocks('public.twin_hot');
SELECT count(*) FROM hotplus_pgrowlocks('"Other Schema"."Twin Hot"');
COMMIT;

-- pg_surgery: the same tuples killed and frozen, with the same effect on the page.
SELECT hotplus_heap_force_kill('twin_hot', ARRAY['(0,3)', '(0,4)']::tid[]);
SELECT heap_force_kill('twin_heap', ARRAY['(0,3)', '(0,4)']::tid[]);
SELECT hotplus_heap_force_freeze('twin_hot', ARRAY['(0,6)']::tid[]);
SELECT heap_force_freeze('twin_heap', ARRAY['(0,6)']::tid[]);
SELECT lp, lp_flags, t_xmin, t_xmax, t_infomask FROM heap_page_items(get_raw_page('twin_hot', 0)) WHERE lp IN (3, 4, 6)
EXCEPT
SELECT lp, lp_flags, t_xmin, t_xmax, t_infomask FROM heap_page_items(get_raw_page('twin_heap', 0)) WHERE lp IN (3, 4, 6);
SELECT lp, lp_flags, t_xmin FROM heap_page_items(get_raw_page('twin_hot', 0)) WHERE lp IN (3, 4, 6) ORDER BY lp;
SELECT count(*) AS differences FROM ((TABLE twin_heap EXCEPT TABLE twin_hot) UNION ALL (TABLE twin_hot EXCEPT TABLE twin_heap)) d;
SELECT (SELECT p FROM pgstattuple('twin_heap') p) = (SELECT p FROM hotplus_pgstattuple('twin_hot') p) AS same_after_surgery;
-- The killed rows are gone from the table but still in its primary key (what pg_surgery
-- leaves to the DBA): an index scan finds nothing at their TIDs.
SET enable_seqscan = off;
SELECT count(*) FROM twin_hot WHERE id IN (3, 4);
RESET enable_seqscan;

-- Real corruption of a hotheap page, found through the wrapper. VACUUM FULL writes the new
-- file outside shared buffers (no index: nothing reads it back), so the page read from disk
-- is the one modified here: the first tuple's t_hoff (byte 22 of its header) says its data
-- begins 8 bytes later than it does; the page checksum is recomputed (checksums may be on).
CREATE TABLE corrupt_hot (id int, v text) USING hotheap;
INSERT INTO corrupt_hot SELECT g, 'row ' || g FROM generate_series(1, 10) g;
VACUUM FULL corrupt_hot;
SELECT pg_relation_filepath('corrupt_hot') AS path \gset
SELECT pg_read_binary_file(:'path') AS file \gset
SELECT set_byte(:'file'::bytea, get_byte(:'file'::bytea, 24) + (get_byte(:'file'::bytea, 25) & 127) * 256 + 22,
                get_byte(:'file'::bytea, (get_byte(:'file'::bytea, 24) + (get_byte(:'file'::bytea, 25) & 127) * 256) + 22) + 8)
       AS page \gset
SELECT page_checksum(:'page'::bytea, 0)::int & 65535 AS checksum \gset
SELECT lo_from_bytea(0, set_byte(set_byte(:'page'::bytea, 8, :checksum & 255), 9, :checksum >> 8)) AS lo \gset
SELECT lo_export(:lo, :'path') AS exported;
SELECT lo_unlink(:lo) AS unlinked;
SELECT blkno, offnum, attnum, msg FROM hotplus_verify_heapam('corrupt_hot');
SELECT pg_temp.err($$SELECT * FROM verify_heapam('corrupt_hot')$$);
DROP TABLE corrupt_hot;

-- Bad input: not a hotheap table (heap, an index, a view, a sequence), no such relation.
SELECT pg_temp.err($$SELECT * FROM hotplus_pgstattuple('twin_heap')$$);
SELECT pg_temp.err($$SELECT * FROM hotplus_verify_heapam('twin_hot_pkey')$$);
CREATE VIEW twin_view AS SELECT * FROM twin_hot;
SELECT pg_temp.err($$SELECT * FROM hotplus_pgstattuple_approx('twin_view')$$);
CREATE SEQUENCE twin_seq;
SELECT pg_temp.err($$SELECT hotplus_heap_force_freeze('twin_seq', ARRAY['(0,1)']::tid[])$$);
SELECT pg_temp.err($$SELECT * FROM hotplus_pgstattuple(0)$$);
SELECT pg_temp.err($$SELECT * FROM hotplus_pgrowlocks('no_such_table')$$);
SELECT pg_temp.err($$SELECT * FROM hotplus_pgrowlocks('twin_heap')$$);
-- pg_surgery's own check of its TIDs, through the wrapper.
SELECT pg_temp.err($$SELECT hotplus_heap_force_kill('twin_hot', ARRAY[NULL]::tid[])$$);

-- Privileges: a role may call a wrapper exactly when it may call the contrib function, whose
-- own checks then run (pg_surgery: only the table's owner).
CREATE ROLE hotplus_contrib_user;
GRANT SELECT ON twin_hot TO hotplus_contrib_user;
-- has_function_privilege() on a wrapper says only that PUBLIC may call it; the contrib
-- function's privilege is what decides (doc/using.md says to ask about that one).
SELECT p.proname, has_function_privilege('hotplus_contrib_user', p.oid, 'EXECUTE')
FROM pg_proc p WHERE p.proname IN ('hotplus_verify_heapam', 'verify_heapam') ORDER BY 1;
SET ROLE hotplus_contrib_user;
SELECT pg_temp.err($$SELECT * FROM hotplus_verify_heapam('twin_hot')$$);
SELECT pg_temp.err($$SELECT * FROM hotplus_pgstattuple('twin_hot')$$);
SELECT pg_temp.err($$SELECT hotplus_heap_force_kill('twin_hot', ARRAY['(0,1)']::tid[])$$);
RESET ROLE;
GRANT EXECUTE ON FUNCTION verify_heapam(regclass, boolean, boolean, text, bigint, bigint) TO hotplus_contrib_user;
GRANT EXECUTE ON FUNCTION heap_force_kill(regclass, tid[]) TO hotplus_contrib_user;
GRANT pg_stat_scan_tables TO hotplus_contrib_user;
SELECT p.proname, has_function_privilege('hotplus_contrib_user', p.oid, 'EXECUTE')
FROM pg_proc p WHERE p.proname IN ('hotplus_verify_heapam', 'verify_heapam') ORDER BY 1;
SET ROLE hotplus_contrib_user;
SELECT pg_temp.err($$SELECT * FROM hotplus_verify_heapam('twin_hot')$$);
SELECT pg_temp.err($$SELECT * FROM hotplus_pgstattuple('twin_hot')$$);
SELECT pg_temp.err($$SELECT hotplus_heap_force_kill('twin_hot', ARRAY['(0,1)']::tid[])$$);
RESET ROLE;
REVOKE pg_stat_scan_tables FROM hotplus_contrib_user;
DROP OWNED BY hotplus_contrib_user;
DROP ROLE hotplus_contrib_user;

-- Relcache invalidations. Twice in one transaction with an ALTER TABLE between (the entry is
-- rebuilt between the calls), an error inside the call, then every call with caches discarded
-- at every opportunity where the build allows it (assert-enabled: the entry is rebuilt in the
-- middle of each call and the relcache callback presents it as heap again).
BEGIN;
SELECT tuple_count FROM hotplus_pgstattuple('twin_hot');
ALTER TABLE twin_hot ADD COLUMN extra int;
SELECT tuple_count FROM hotplus_pgstattuple('twin_hot');
SELECT count(*) FROM hotplus_verify_heapam('twin_hot');
ALTER TABLE twin_hot DROP COLUMN extra;
SELECT pg_temp.err($$SELECT * FROM pgstattuple('twin_hot')$$);
COMMIT;
SELECT pg_temp.err($$SELECT * FROM hotplus_verify_heapam('twin_hot', startblock => -1)$$);
SELECT pg_temp.err($$SELECT * FROM pgstattuple('twin_hot')$$);
DO $$ BEGIN PERFORM set_config('debug_discard_caches', '1', false); EXCEPTION WHEN OTHERS THEN NULL; END $$;
SELECT tuple_count FROM hotplus_pgstattuple('twin_hot');
SELECT approx_tuple_count FROM hotplus_pgstattuple_approx('twin_hot');
SELECT count(*) FROM hotplus_verify_heapam('twin_hot', check_toast => true);
SELECT count(*) FROM hotplus_pgrowlocks('twin_hot');
SELECT hotplus_heap_force_freeze('twin_hot', ARRAY['(0,8)']::tid[]);
SELECT pg_temp.err($$SELECT * FROM pgstattuple('twin_hot')$$);
DO $$ BEGIN PERFORM set_config('debug_discard_caches', '0', false); EXCEPTION WHEN OTHERS THEN NULL; END $$;
-- Afterwards the table is hotheap in the catalog, in the relcache (the contrib function still
-- refuses it) and in its access method (an update goes through hotheap's: counted below).
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'twin_hot'::regclass;
SELECT pg_temp.err($$SELECT * FROM pgstattuple_approx('twin_hot')$$);
SELECT updates AS updates_before FROM hotplus_stat_tables WHERE relname = 'twin_hot' \gset
UPDATE twin_hot SET n = n + 1 WHERE id <= 10;
SELECT updates - :updates_before AS hotheap_updates FROM hotplus_stat_tables WHERE relname = 'twin_hot';

DROP VIEW twin_view;
DROP SEQUENCE twin_seq;
DROP TABLE twin_heap, twin_hot;
DROP SCHEMA "Other Schema" CASCADE;
DROP EXTENSION pgstattuple;
DROP EXTENSION pgrowlocks;
DROP EXTENSION pg_surgery;
