-- Statistics in backend mode: why updates were HOT or not, per table and per index.
-- Design points: D2, D8
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
SELECT hotplus_stat_mode();
SELECT hotplus_stat_reset();

CREATE TABLE st (id int PRIMARY KEY, doc jsonb, v text, n int, big text, plain int)
  USING hotheap WITH (fillfactor = 30);
ALTER TABLE st ALTER big SET STORAGE EXTERNAL;
INSERT INTO st SELECT g, jsonb_build_object('a', g, 'c', 'x'), 'abc', g,
  (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 100) i), 0
FROM generate_series(1, 200) g;
CREATE INDEX st_a ON st ((doc->>'a'));
CREATE INDEX st_n ON st (n) WHERE n < 0;
CREATE INDEX st_v ON st (lower(v));

UPDATE st SET plain = plain + 1 WHERE id <= 10;                       -- no compared column: skipped, stock HOT
UPDATE st SET n = n + 1 WHERE id <= 20;                               -- partial false/false
UPDATE st SET v = upper(v) WHERE id <= 30;                            -- lower() unchanged
UPDATE st SET doc = jsonb_set(doc, '{c}', '"y"') WHERE id <= 40;      -- unindexed field
UPDATE st SET doc = jsonb_set(doc, '{a}', '-1') WHERE id <= 5;        -- indexed field: st_a
UPDATE st SET n = -n WHERE id BETWEEN 6 AND 8;                        -- enters st_n
UPDATE st SET big = big || '' WHERE id <= 50;                         -- write-back, no index
SELECT relname, mode, updates, hot_stock, hot_by_expression, hot_by_partial, hot_by_image,
       toast_reused, nonhot_index_changed, nonhot_page_full, nonhot_other, checks_skipped,
       check_time_ms >= 0 AS timed
FROM hotplus_stat_tables WHERE relname = 'st';
SELECT indexrelname, relname, nonhot_first_changed FROM hotplus_stat_indexes ORDER BY 1;

-- Outcomes add up to the number of updates.
SELECT updates = hot_stock + hot_by_expression + hot_by_partial + hot_by_image
                 + nonhot_index_changed + nonhot_page_full + nonhot_page_full_unchecked
                 + nonhot_other AS adds_up
FROM hotplus_stat_tables WHERE relname = 'st';

-- A toasted indexed value written back: HOT by image, TOAST datum reused.
CREATE TABLE st_img (id int PRIMARY KEY, big text) USING hotheap WITH (fillfactor = 50);
ALTER TABLE st_img ALTER big SET STORAGE EXTERNAL;
INSERT INTO st_img SELECT g, (SELECT string_agg(md5((g * i)::text), '') FROM generate_series(1, 100) i)
FROM generate_series(1, 20) g;
CREATE INDEX st_img_big ON st_img (md5(big));
CREATE INDEX st_img_raw ON st_img (left(big, 10));
UPDATE st_img SET big = big || '';
SELECT relname, updates, hot_stock, hot_by_image, toast_reused FROM hotplus_stat_tables WHERE relname = 'st_img';

-- hotplus.verify (on in the test clusters) checked each of those updates: the reused datums
-- and the indexes. At a sample rate of 0 it checks none and counts them as left out.
SELECT relname, verified, verify_sampled_out FROM hotplus_stat_tables WHERE relname = 'st_img';
SET hotplus.verify_sample_rate = 0;
UPDATE st_img SET big = big || '' WHERE id <= 5;
RESET hotplus.verify_sample_rate;
SELECT relname, updates, verified, verify_sampled_out FROM hotplus_stat_tables WHERE relname = 'st_img';

-- nonhot_first_changed counts, per index, the non-HOT updates in which it was the first
-- index hotplus found changed: the decision stops there. Both lower(a) and lower(b) change
-- in the first 10 updates, only lower(b) in the next 10: lower(b) changed in 20, and is the
-- first found changed in 10 (a is the lower index, looked at first, and then first again as
-- the one that changed last, src/README.md D9a).
CREATE TABLE st_two (id int PRIMARY KEY, a text, b text) USING hotheap;
INSERT INTO st_two SELECT g, 'a' || g, 'b' || g FROM generate_series(1, 20) g;
CREATE INDEX st_two_a ON st_two (lower(a));
CREATE INDEX st_two_b ON st_two (lower(b));
UPDATE st_two SET a = a || 'x', b = b || 'y' WHERE id <= 10;
UPDATE st_two SET b = b || 'y' WHERE id > 10;
SELECT indexrelname, nonhot_first_changed FROM hotplus_stat_indexes WHERE relname = 'st_two' ORDER BY 1;
SELECT updates, nonhot_index_changed FROM hotplus_stat_tables WHERE relname = 'st_two';

-- hotplus_advise() judges a hotheap table on hotplus's counters alone, the same epoch as
-- hotplus_stat_tables (after a reset: only what came since), and says what it rests on.
SELECT hotplus_stat_reset();
UPDATE st_two SET a = upper(a);
SELECT updates, hot_share, suggested_fillfactor, advice FROM hotplus_advise() WHERE relid = 'st_two'::regclass;
-- A fillfactor only on enough evidence: 20 updates that found no room suggest nothing; 1,000
-- do. (lower(v) keeps its value, but on a full page only an evaluation tells: every such
-- update is decided in full here, so the counts are exact; stat_page_full tests the sample.)
SET hotplus.page_full_sample_every = 1;
CREATE TABLE st_full (id int PRIMARY KEY, v text, pad text) USING hotheap;
INSERT INTO st_full SELECT g, 'v', repeat('x', 120) FROM generate_series(1, 1000) g;
CREATE INDEX st_full_v ON st_full (lower(v));
UPDATE st_full SET v = upper(v), pad = pad || 'y' WHERE id <= 20;
SELECT updates, nonhot_page_full FROM hotplus_stat_tables WHERE relname = 'st_full';
SELECT suggested_fillfactor FROM hotplus_advise() WHERE relid = 'st_full'::regclass;
UPDATE st_full SET v = lower(v), pad = pad || 'y';
SELECT updates, nonhot_page_full > 100 AS many_page_full FROM hotplus_stat_tables WHERE relname = 'st_full';
SELECT suggested_fillfactor, advice FROM hotplus_advise() WHERE relid = 'st_full'::regclass;
RESET hotplus.page_full_sample_every;
DROP TABLE st_two, st_full;

-- hotplus.enabled = off: heap decides, nothing is checked.
SET hotplus.enabled = off;
UPDATE st SET doc = jsonb_set(doc, '{c}', '"z"') WHERE id <= 10;
RESET hotplus.enabled;
SELECT nonhot_other, checks_skipped FROM hotplus_stat_tables WHERE relname = 'st';

-- A dropped table's counts go when the DROP commits (and its indexes' with them); a DROP
-- rolled back, or undone by ROLLBACK TO SAVEPOINT, keeps them.
SELECT relname FROM hotplus_stat_tables ORDER BY 1;
BEGIN;
DROP TABLE st_img;
ROLLBACK;
BEGIN;
SAVEPOINT s;
DROP TABLE st_img;
ROLLBACK TO SAVEPOINT s;
COMMIT;
SELECT relname FROM hotplus_stat_tables ORDER BY 1;
SELECT count(*) FROM hotplus_stat_indexes WHERE relname = 'st';
BEGIN;
SAVEPOINT s;
DROP TABLE st;
RELEASE SAVEPOINT s;
COMMIT;
SELECT relname FROM hotplus_stat_tables ORDER BY 1;
SELECT count(*) FROM hotplus_stat_indexes;
-- hotplus_stat_info(): in backend mode, this backend's tables, the bound, nothing untracked.
SELECT mode, max_tracked_tables, tracked_tables, untracked_updates FROM hotplus_stat_info();
-- Backend mode is bounded too (at hotplus.max_tracked_tables' default): 1005 tables
-- updated in one session (one table was counted before): the last six only count as
-- untracked; dropping the tables frees their entries.
DO $$
BEGIN
  FOR i IN 1 .. 1005 LOOP
    EXECUTE format('CREATE TEMP TABLE bound_%s (v int) USING hotheap', i);
    EXECUTE format('INSERT INTO bound_%s VALUES (1)', i);
    EXECUTE format('UPDATE bound_%s SET v = 2', i);
  END LOOP;
END $$;
SELECT max_tracked_tables, tracked_tables, untracked_updates FROM hotplus_stat_info();
DO $$
BEGIN
  FOR i IN 1 .. 1005 LOOP
    EXECUTE format('DROP TABLE bound_%s', i);
  END LOOP;
END $$;
SELECT tracked_tables FROM hotplus_stat_info();

SELECT hotplus_stat_reset();
SELECT count(*) FROM hotplus_stat_tables;
SELECT count(*) FROM hotplus_stat_indexes;
SELECT hotplus_stat_reset(false);
DROP TABLE st_img;
