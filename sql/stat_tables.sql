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
SELECT indexrelname, relname, blocked_hot FROM hotplus_stat_indexes ORDER BY 1;

-- Outcomes add up to the number of updates.
SELECT updates = hot_stock + hot_by_expression + hot_by_partial + hot_by_image
                 + nonhot_index_changed + nonhot_page_full + nonhot_other AS adds_up
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
