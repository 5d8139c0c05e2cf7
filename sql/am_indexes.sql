-- Every index access method on hotheap tables: btree (plain, unique, multicolumn,
-- covering, expression, partial, nondeterministic collation), hash, gist, spgist, gin,
-- brin. The same workload runs on a plain heap table; after it, index scans, bitmap scans
-- and index-only scans must return what a sequential scan returns, the hotheap table must
-- hold exactly what the heap table holds, and amcheck must find every row in every btree.
-- Design points: D2, D3
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA am_indexes;
SET search_path = am_indexes, public;

\i test/sql_helpers/am_check_scans.sql

\i test/sql_helpers/am_check_btrees.sql

CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);

CREATE TABLE ix (
  id int PRIMARY KEY,
  k int NOT NULL,          -- covering btree (k) INCLUDE (grp)
  grp int NOT NULL,        -- btree (grp, k)
  seq int NOT NULL,        -- unique btree (seq, grp)
  active bool NOT NULL,    -- predicate of the partial index
  m int,                   -- partial btree WHERE active
  h text,                  -- hash
  p point,                 -- gist
  r int4range,             -- gist
  q point,                 -- spgist (quad tree)
  s text,                  -- spgist (radix tree)
  tags text[],             -- gin
  ts int,                  -- brin
  body text,               -- btree on lower(body), gist on to_tsvector('simple', body)
  amount numeric,          -- btree; 1.0 and 1.00 are equal but print differently
  cs text COLLATE ci,      -- btree, case-insensitive; 'a' and 'A' are equal
  note text                -- in no index
) USING hotheap WITH (autovacuum_enabled = off);
-- the reference: a plain heap table that gets the same rows and the same changes
CREATE TABLE ix_ref (LIKE ix) USING heap WITH (autovacuum_enabled = off);

-- indexes created before the data
CREATE INDEX ix_k_incl ON ix (k) INCLUDE (grp);
CREATE INDEX ix_grp_k ON ix (grp, k);
CREATE INDEX ix_h ON ix USING hash (h);
CREATE INDEX ix_tags ON ix USING gin (tags);

CREATE PROCEDURE load(tab regclass) LANGUAGE plpgsql AS $p$
BEGIN
  EXECUTE format($q$
    INSERT INTO %s
    SELECT g, (g * 37) %% 1000, g %% 10, g, g %% 3 <> 0, g %% 250, 'h' || (g %% 97),
           point(g %% 50, g / 50), int4range(g, g + 10), point(g / 40, g %% 40),
           'str' || (g %% 300), ARRAY['t' || (g %% 7), 'u' || (g %% 11)], g,
           'Word' || (g %% 13) || ' other ' || g, (g %% 100) / 10.0, 'Cs' || (g %% 50),
           'note ' || g
    FROM generate_series(1, 2000) g $q$, tab);
END
$p$;

CREATE PROCEDURE work(tab regclass) LANGUAGE plpgsql AS $p$
BEGIN
  EXECUTE format('UPDATE %s SET note = note || ''+'' WHERE id %% 5 = 0', tab);
  EXECUTE format('UPDATE %s SET k = k + 1000 WHERE id %% 7 = 0', tab);
  -- lower(body) and to_tsvector('simple', body) do not change:
  EXECUTE format('UPDATE %s SET body = upper(body) WHERE id %% 11 = 0', tab);
  -- to_tsvector('simple', body) does not change, lower(body) does:
  EXECUTE format('UPDATE %s SET body = replace(body, '' '', ''  '') WHERE id %% 29 = 0', tab);
  EXECUTE format('UPDATE %s SET body = body || '' extra'' WHERE id %% 13 = 0', tab);
  -- rows enter and leave the partial index
  EXECUTE format('UPDATE %s SET active = NOT active WHERE id %% 4 = 0', tab);
  EXECUTE format('UPDATE %s SET m = m + 1000 WHERE id %% 6 = 0', tab);
  EXECUTE format('UPDATE %s SET p = point(p[0] + 100, p[1]) WHERE id %% 9 = 0', tab);
  EXECUTE format('UPDATE %s SET r = int4range(lower(r), upper(r) + 5) WHERE id %% 15 = 0', tab);
  EXECUTE format('UPDATE %s SET q = point(q[0], q[1] + 0.5) WHERE id %% 8 = 0', tab);
  EXECUTE format('UPDATE %s SET s = s || ''x'' WHERE id %% 14 = 0', tab);
  EXECUTE format('UPDATE %s SET tags = tags || ''extra''::text WHERE id %% 10 = 0', tab);
  EXECUTE format('UPDATE %s SET ts = ts + 5000 WHERE id %% 17 = 0', tab);
  -- equal by the opclass, different images:
  EXECUTE format('UPDATE %s SET amount = round(amount, 2) WHERE id %% 3 = 0', tab);
  EXECUTE format('UPDATE %s SET cs = upper(cs) WHERE id %% 12 = 0', tab);
  EXECUTE format('UPDATE %s SET h = ''h'' || (id %% 89) WHERE id %% 19 = 0', tab);
  EXECUTE format('UPDATE %s SET grp = (grp + 1) %% 10 WHERE id %% 16 = 0', tab);
  EXECUTE format('UPDATE %s SET seq = seq + 5000 WHERE id %% 37 = 0', tab);
  -- no column changes at all
  EXECUTE format('UPDATE %s SET k = k, body = body WHERE id %% 2 = 0', tab);
  -- the same rows many times, several columns at once
  FOR i IN 1..5 LOOP
    EXECUTE format('UPDATE %s SET note = note || $1, k = k + 1, active = NOT active, tags = tags[1:2]
                    WHERE id BETWEEN 101 AND 140', tab) USING i;
    EXECUTE format('UPDATE %s SET note = note || ''.'' WHERE id BETWEEN 141 AND 180', tab);
  END LOOP;
  EXECUTE format('UPDATE %s SET id = id + 10000 WHERE id %% 31 = 0', tab);
  EXECUTE format('DELETE FROM %s WHERE id %% 23 = 0', tab);
  EXECUTE format($q$
    INSERT INTO %s
    SELECT g, g %% 1000, g %% 10, g, true, g %% 250, 'h' || (g %% 97), point(g %% 50, g / 50),
           int4range(g, g + 1), point(g / 40, g %% 40), 'str' || g, ARRAY['t' || (g %% 7)], g,
           'Word' || g, g / 7.0, 'cS' || (g %% 50), NULL
    FROM generate_series(2001, 2200) g $q$, tab);
END
$p$;

CALL load('ix');
CALL load('ix_ref');

-- indexes built on existing data
CREATE UNIQUE INDEX ix_seq_grp ON ix (seq, grp);
CREATE INDEX ix_m_active ON ix (m) WHERE active;
CREATE INDEX ix_p ON ix USING gist (p);
CREATE INDEX ix_r ON ix USING gist (r);
CREATE INDEX ix_q ON ix USING spgist (q);
CREATE INDEX ix_s ON ix USING spgist (s);
CREATE INDEX ix_ts ON ix USING brin (ts) WITH (pages_per_range = 2);
CREATE INDEX ix_lower_body ON ix (lower(body));
CREATE INDEX ix_body_tsv ON ix USING gist (to_tsvector('simple', body));
CREATE INDEX ix_amount ON ix (amount);
CREATE INDEX ix_cs ON ix (cs);

SELECT c.relname, a.amname, i.indisvalid, i.indisready
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = 'ix'::regclass ORDER BY 1;

CALL work('ix');
CALL work('ix_ref');

-- the hotheap table holds exactly what the heap table holds
SELECT (SELECT count(*) FROM ix) AS rows,
       (SELECT string_agg(x::text, E'\n' ORDER BY id) FROM ix x)
     = (SELECT string_agg(x::text, E'\n' ORDER BY id) FROM ix_ref x) AS same_as_heap;

SELECT * FROM am_check_btrees();

-- every index returns what a sequential scan returns
SELECT * FROM am_check_scans('SELECT id, k FROM ix WHERE id BETWEEN 100 AND 400');
SELECT * FROM am_check_scans('SELECT id, k, note FROM ix WHERE k BETWEEN 100 AND 300');
SELECT * FROM am_check_scans('SELECT id, k FROM ix WHERE k > 1900');
SELECT * FROM am_check_scans('SELECT id, grp, k FROM ix WHERE grp = 3 AND k < 500');
SELECT * FROM am_check_scans('SELECT id, seq FROM ix WHERE seq BETWEEN 500 AND 700');
SELECT * FROM am_check_scans('SELECT id, seq, grp FROM ix WHERE seq > 5000');
SELECT * FROM am_check_scans('SELECT id, m, active FROM ix WHERE active AND m BETWEEN 20 AND 60');
SELECT * FROM am_check_scans('SELECT id, m, active FROM ix WHERE active AND m > 1000');
SELECT * FROM am_check_scans('SELECT id, h FROM ix WHERE h = ''h5''');
SELECT * FROM am_check_scans('SELECT id, h FROM ix WHERE h = ''h7''');
SELECT * FROM am_check_scans('SELECT id, p FROM ix WHERE p <@ box ''((10,5),(20,15))''');
SELECT * FROM am_check_scans('SELECT id, p FROM ix WHERE p <@ box ''((100,0),(200,100))''');
SELECT * FROM am_check_scans('SELECT id, r FROM ix WHERE r && int4range(500, 520)');
SELECT * FROM am_check_scans('SELECT id, q FROM ix WHERE q <@ box ''((3,3),(6,10))''');
SELECT * FROM am_check_scans('SELECT id, s FROM ix WHERE s = ''str42''');
SELECT * FROM am_check_scans('SELECT id, s FROM ix WHERE s ^@ ''str10''');
SELECT * FROM am_check_scans('SELECT id, tags FROM ix WHERE tags @> ''{t3,u5}''', '{bitmap}');
SELECT * FROM am_check_scans('SELECT id, tags FROM ix WHERE tags @> ''{extra}''', '{bitmap}');
SELECT * FROM am_check_scans('SELECT id, ts FROM ix WHERE ts BETWEEN 1000 AND 1100', '{bitmap}');
SELECT * FROM am_check_scans('SELECT id, ts FROM ix WHERE ts > 5000', '{bitmap}');
SELECT * FROM am_check_scans('SELECT id, body FROM ix WHERE lower(body) = ''word5 other 5''');
SELECT * FROM am_check_scans('SELECT id, body FROM ix WHERE lower(body) LIKE ''word7 other 1%'' AND lower(body) >= ''word7'' AND lower(body) < ''word8''');
SELECT * FROM am_check_scans('SELECT id, body FROM ix WHERE to_tsvector(''simple'', body) @@ ''word0 & extra''::tsquery');
SELECT * FROM am_check_scans('SELECT id, body FROM ix WHERE to_tsvector(''simple'', body) @@ ''other & 440''::tsquery');
SELECT * FROM am_check_scans('SELECT id, amount FROM ix WHERE amount BETWEEN 1 AND 2');
SELECT * FROM am_check_scans('SELECT id, cs FROM ix WHERE cs = ''cs12''');

-- index-only scans once VACUUM has set the visibility map
VACUUM ix;
SELECT * FROM am_check_scans('SELECT id FROM ix WHERE id BETWEEN 100 AND 400', '{indexonly}');
SELECT * FROM am_check_scans('SELECT k, grp FROM ix WHERE k BETWEEN 100 AND 200', '{indexonly}');
SELECT * FROM am_check_scans('SELECT seq, grp FROM ix WHERE seq > 5000', '{indexonly}');
SELECT * FROM am_check_scans('SELECT m FROM ix WHERE active AND m < 100', '{indexonly}');
SELECT * FROM am_check_scans('SELECT p FROM ix WHERE p <@ box ''((100,0),(200,100))''', '{indexonly}');
SELECT * FROM am_check_scans('SELECT q FROM ix WHERE q <@ box ''((3,3),(6,10))''', '{indexonly}');
SELECT * FROM am_check_scans('SELECT s FROM ix WHERE s ^@ ''str10''', '{indexonly}');
SELECT * FROM am_check_scans('SELECT amount FROM ix WHERE amount BETWEEN 1 AND 2', '{indexonly}');
SELECT * FROM am_check_scans('SELECT cs FROM ix WHERE cs = ''cs12''', '{indexonly}');
-- the stored images: equal values, different text, as on the heap table
SELECT amount::text, count(*) FROM ix WHERE amount BETWEEN 1 AND 1.2 GROUP BY 1 ORDER BY 1;
SELECT cs::text COLLATE "C", count(*) FROM ix WHERE cs = 'cs12' GROUP BY 1 ORDER BY 1;

-- more changes after VACUUM, then everything again
UPDATE ix SET k = k + 1, amount = amount * 1.0, cs = lower(cs) WHERE id % 10 = 1;
UPDATE ix_ref SET k = k + 1, amount = amount * 1.0, cs = lower(cs) WHERE id % 10 = 1;
UPDATE ix SET active = NOT active, m = m + 1 WHERE id % 10 = 2;
UPDATE ix_ref SET active = NOT active, m = m + 1 WHERE id % 10 = 2;
SELECT (SELECT count(*) FROM ix) AS rows,
       (SELECT string_agg(x::text, E'\n' ORDER BY id) FROM ix x)
     = (SELECT string_agg(x::text, E'\n' ORDER BY id) FROM ix_ref x) AS same_as_heap;
SELECT * FROM am_check_btrees();
SELECT * FROM am_check_scans('SELECT id, k FROM ix WHERE k BETWEEN 100 AND 300', '{index,bitmap}');
SELECT * FROM am_check_scans('SELECT m FROM ix WHERE active AND m < 100', '{index,bitmap,indexonly}');
SELECT * FROM am_check_scans('SELECT amount FROM ix WHERE amount BETWEEN 1 AND 2', '{index,bitmap,indexonly}');
SELECT * FROM am_check_scans('SELECT cs FROM ix WHERE cs = ''cs12''', '{index,bitmap,indexonly}');

-- two EXPLAINs to show the planner really uses the indexes of a hotheap table
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM ix WHERE tags @> '{t3}';
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id, body FROM ix WHERE lower(body) = 'word5 other 5';
RESET enable_seqscan;
RESET enable_bitmapscan;

-- a unique index rejects duplicates made by UPDATE
UPDATE ix SET k = k + 1 WHERE id = 1;
UPDATE ix SET id = 2 WHERE id = 1;
SELECT id, k FROM ix WHERE id IN (1, 2) ORDER BY id;

DROP TABLE ix, ix_ref;
DROP PROCEDURE load(regclass);
DROP PROCEDURE work(regclass);
DROP FUNCTION am_check_scans(text, text[]);
DROP FUNCTION am_check_btrees();
DROP COLLATION ci;
DROP SCHEMA am_indexes;
