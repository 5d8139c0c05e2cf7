-- TOAST on hotheap tables: external, compressed, compressed-and-external values, updates
-- that keep or replace them, slices, indexes on toasted columns, rewrites. The TOAST table
-- of a hotheap table is a plain heap table (hotheap's relation_toast_am).
-- Design points: none (heap operations on hotheap tables)
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA am_toast;
SET search_path = am_toast, public;
SET default_toast_compression = pglz;

-- incompressible text: md5 digests of consecutive numbers
CREATE FUNCTION noise(seed int, len int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT left(string_agg(md5((seed * 100000 + i)::text), '' ORDER BY i), len)
  FROM generate_series(0, len / 32) i
$$;

CREATE TABLE tt (
  id int PRIMARY KEY,
  small int,
  ext text,      -- STORAGE EXTERNAL: out of line, never compressed
  cmp text,      -- STORAGE EXTENDED (the default): compressed, out of line if still big
  b bytea
) USING hotheap WITH (autovacuum_enabled = off);
ALTER TABLE tt ALTER COLUMN ext SET STORAGE EXTERNAL;
ALTER TABLE tt ALTER COLUMN cmp SET COMPRESSION pglz;
CREATE INDEX tt_small ON tt (small);
CREATE INDEX tt_ext_md5 ON tt (md5(ext));
CREATE INDEX tt_cmp_hash ON tt USING hash (cmp);

-- the TOAST table exists, is a heap, and has its btree index
SELECT c.reltoastrelid <> 0 AS has_toast FROM pg_class c WHERE c.oid = 'tt'::regclass;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'tt'::regclass);
SELECT a.amname AS index_am, i.indisvalid
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'tt'::regclass);
SELECT attname, attstorage, attcompression FROM pg_attribute
WHERE attrelid = 'tt'::regclass AND attnum > 0 ORDER BY attnum;

-- 1: small values stay inline
-- 2: external (5000 bytes: 3 chunks), and highly compressible (inline once compressed)
-- 3: external (20000 bytes: 11 chunks), and incompressible (out of line, uncompressed)
-- 4: compressible, but still big once compressed (out of line and compressed)
INSERT INTO tt VALUES
  (1, 1, 'short', 'short', '\x01'),
  (2, 2, noise(2, 5000), repeat('abc', 10000), decode(repeat('00', 10000), 'hex')),
  (3, 3, noise(3, 20000), noise(30, 20000), decode(noise(300, 8000), 'hex')),
  (4, 4, repeat('e', 3000), repeat(noise(4, 3000), 20), NULL);
SELECT id, octet_length(ext) AS ext_len, pg_column_compression(ext) AS ext_comp,
       octet_length(cmp) AS cmp_len, pg_column_compression(cmp) AS cmp_comp,
       pg_column_size(cmp) < octet_length(cmp) AS cmp_smaller,
       octet_length(b) AS b_len
FROM tt ORDER BY id;
SELECT id, md5(ext) = md5(noise(id, CASE id WHEN 2 THEN 5000 ELSE 20000 END)) AS ext_ok
FROM tt WHERE id IN (2, 3) ORDER BY id;
SELECT md5(cmp) = md5(repeat(noise(4, 3000), 20)) AS cmp_ok FROM tt WHERE id = 4;
SELECT reltoastrelid::regclass AS toastrel FROM pg_class WHERE oid = 'tt'::regclass \gset
-- chunks of the out-of-line values: ext of 2 (3), ext of 3 (11), cmp of 3 (11),
-- b of 3 (3), ext of 4 (2), cmp of 4 (compressed, at least 2)
SELECT count(DISTINCT chunk_id) AS values, count(*) >= 32 AS enough_chunks FROM :toastrel;
-- slices of an external value read only the chunks they need
SELECT substr(ext, 4990, 20) = substr(noise(2, 5000), 4990, 20) AS slice_ok FROM tt WHERE id = 2;
SELECT substr(ext, 1995, 5) = substr(noise(3, 20000), 1995, 5) AS slice_ok FROM tt WHERE id = 3;

-- updates that do not touch the toasted columns share the out-of-line values
SELECT count(*) AS chunks_before FROM :toastrel \gset
UPDATE tt SET small = small + 10;
UPDATE tt SET ext = ext, cmp = cmp WHERE id = 3;
SELECT count(*) = :chunks_before AS same_chunks FROM :toastrel;
SELECT id, small, md5(ext) = md5(noise(id, CASE id WHEN 2 THEN 5000 ELSE 20000 END)) AS ext_ok
FROM tt WHERE id IN (2, 3) ORDER BY id;
-- updates of toasted columns replace the values
UPDATE tt SET ext = noise(22, 9000) WHERE id = 2;
UPDATE tt SET cmp = cmp || 'tail' WHERE id = 3;
UPDATE tt SET ext = 'now short', cmp = 'now short too' WHERE id = 4;
UPDATE tt SET ext = repeat('x', 4000), cmp = noise(11, 6000) WHERE id = 1;
SELECT id, small, octet_length(ext) AS ext_len, octet_length(cmp) AS cmp_len,
       pg_column_compression(cmp) AS cmp_comp, left(ext, 12) AS ext_start
FROM tt ORDER BY id;
SELECT md5(ext) = md5(noise(22, 9000)) AS ext_ok FROM tt WHERE id = 2;
SELECT md5(cmp) = md5(noise(30, 20000) || 'tail') AS cmp_ok FROM tt WHERE id = 3;
-- a rolled back update leaves the old values
BEGIN;
UPDATE tt SET ext = noise(99, 7000), cmp = noise(98, 7000) WHERE id = 3;
UPDATE tt SET ext = noise(97, 7000) WHERE id = 3;
ROLLBACK;
SELECT md5(ext) = md5(noise(3, 20000)) AS ext_ok FROM tt WHERE id = 3;

-- many rows with toasted values, indexes on toasted columns
INSERT INTO tt SELECT g, g % 10, noise(g, 2500 + g), CASE WHEN g % 2 = 0 THEN repeat(g::text, 2000) ELSE noise(-g, 3000) END
FROM generate_series(10, 200) g;
UPDATE tt SET small = small + 1 WHERE id % 3 = 0;
UPDATE tt SET ext = noise(g, 100), small = -1 FROM generate_series(10, 200, 7) g WHERE tt.id = g;
DELETE FROM tt WHERE id % 11 = 0;
SELECT count(*), sum(small), sum(octet_length(ext)), sum(octet_length(cmp)) FROM tt;
SELECT count(*) FROM tt WHERE id >= 10 AND md5(ext) <> md5(CASE WHEN (id - 10) % 7 = 0 THEN noise(id, 100) ELSE noise(id, 2500 + id) END);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT id, small FROM tt WHERE md5(ext) = md5(noise(151, 2651));
SELECT id, small FROM tt WHERE cmp = repeat('120', 2000);
SELECT id FROM tt WHERE md5(ext) = md5(noise(24, 100));
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) FROM tt WHERE cmp = repeat('120', 2000);
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = 'tt'::regclass AND a.amname = 'btree' ORDER BY 1;
-- the TOAST table is a heap, so amcheck's heap checks and the TOAST index check work on it
SELECT count(*) AS corruption FROM verify_heapam(:'toastrel');
SELECT bt_index_check(indexrelid, true) FROM pg_index WHERE indrelid = :'toastrel'::regclass;

-- VACUUM, VACUUM FULL and CLUSTER keep the TOAST table a heap and the values intact
SELECT md5(string_agg(id || ':' || md5(ext) || ':' || md5(coalesce(cmp, '')) || ':' || md5(coalesce(b, '')), ',' ORDER BY id)) AS digest
FROM tt \gset
VACUUM tt;
VACUUM FULL tt;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'tt'::regclass);
SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = 'tt'::regclass;
CLUSTER tt USING tt_small;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'tt'::regclass);
SELECT md5(string_agg(id || ':' || md5(ext) || ':' || md5(coalesce(cmp, '')) || ':' || md5(coalesce(b, '')), ',' ORDER BY id)) = :'digest' AS same_values
FROM tt;
SELECT c.relname, bt_index_check(c.oid, true)
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
WHERE i.indrelid = 'tt'::regclass AND a.amname = 'btree' ORDER BY 1;
SELECT reltoastrelid::regclass AS toastrel FROM pg_class WHERE oid = 'tt'::regclass \gset
SELECT count(*) AS corruption FROM verify_heapam(:'toastrel');

-- TRUNCATE gives the table new storage; the TOAST table stays a heap
TRUNCATE tt;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'tt'::regclass);
INSERT INTO tt VALUES (1, 1, noise(1, 4000), noise(2, 4000));
SELECT id, md5(ext) = md5(noise(1, 4000)) AND md5(cmp) = md5(noise(2, 4000)) AS ok FROM tt;

-- a TOAST table created later, by ALTER TABLE ADD COLUMN, is a heap too
CREATE TABLE nt (a int, b int) USING hotheap;
SELECT reltoastrelid = 0 AS no_toast FROM pg_class WHERE oid = 'nt'::regclass;
INSERT INTO nt SELECT g, g FROM generate_series(1, 10) g;
ALTER TABLE nt ADD COLUMN c text;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'nt'::regclass);
UPDATE nt SET c = noise(a, 3000 + a);
SELECT count(*) FROM nt WHERE md5(c) = md5(noise(a, 3000 + a));
-- STORAGE MAIN keeps a compressible value inline; PLAIN forbids compression
CREATE TABLE st (a int, m text, p text) USING hotheap;
ALTER TABLE st ALTER COLUMN m SET STORAGE MAIN, ALTER COLUMN p SET STORAGE PLAIN;
INSERT INTO st VALUES (1, repeat('m', 50000), repeat('p', 1000));
UPDATE st SET m = m || 'x', a = 2;
SELECT a, octet_length(m), pg_column_compression(m), octet_length(p), pg_column_compression(p) FROM st;
INSERT INTO st VALUES (3, 'x', repeat('p', 9000));
SELECT count(*) FROM st;

DROP TABLE tt, nt, st;
DROP FUNCTION noise(int, int);
DROP SCHEMA am_toast;
