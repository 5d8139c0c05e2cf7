-- The statement scope's memory (src/update/statement_scope.cpp): constant per result
-- relation, whatever the row order. Not a decision test: it updates 12000 rows, too many for
-- the debug_discard_caches runs of the decision_* tests.
-- Design points: D12
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS hotplus;
RESET client_min_messages;
CREATE SCHEMA scope_memory;
SET search_path = scope_memory, public;

-- The statement's memory stays constant per result relation whatever the row order: an
-- UPDATE of a partitioned table whose rows alternate between two partitions (a nested loop
-- over a staging table) must not grow the statement's ExecutorState with every switch
-- (hotplus computes what the statement may change once per relation). The SET list samples
-- the statement's ExecutorState (the one under PortalContext) at rows 600 and 6000, on
-- hotheap and on a heap twin: hotheap's growth between the two must stay within heap's plus
-- 64 kB (before the fix: about 44 bytes per row, 393 kB here).
CREATE TABLE mem_log (am text, id int, bytes bigint);
CREATE FUNCTION sample_memory(am text, id int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
  IF id IN (600, 6000) THEN
    -- 18 names a context's parent by path, not by name (each branch is parsed when run)
    IF EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'pg_catalog.pg_backend_memory_contexts'::regclass
               AND attname = 'parent') THEN
      INSERT INTO scope_memory.mem_log
      SELECT am, id, total_bytes FROM pg_backend_memory_contexts
      WHERE name = 'ExecutorState' AND parent = 'PortalContext';
    ELSE
      INSERT INTO scope_memory.mem_log
      SELECT am, id, c.total_bytes FROM pg_backend_memory_contexts c
      JOIN pg_backend_memory_contexts p ON p.path[p.level] = c.path[c.level - 1]
      WHERE c.name = 'ExecutorState' AND p.name = 'PortalContext';
    END IF;
  END IF;
  RETURN id;
END $$;
CREATE TABLE staging AS SELECT g AS id, g % 2 AS side FROM generate_series(1, 6000) g;
ANALYZE staging;
DO $$
DECLARE am text;
BEGIN
  FOREACH am IN ARRAY ARRAY['hotheap', 'heap'] LOOP
    EXECUTE format('CREATE TABLE pm_%s (id int, side int, doc jsonb, PRIMARY KEY (id, side)) PARTITION BY LIST (side)', am);
    EXECUTE format('CREATE TABLE pm_%s_0 PARTITION OF pm_%1$s FOR VALUES IN (0) USING %1$s WITH (fillfactor = 50)', am);
    EXECUTE format('CREATE TABLE pm_%s_1 PARTITION OF pm_%1$s FOR VALUES IN (1) USING %1$s WITH (fillfactor = 50)', am);
    EXECUTE format('CREATE INDEX ON pm_%s ((doc->>''a''))', am);
    EXECUTE format('INSERT INTO pm_%s SELECT id, side, jsonb_build_object(''a'', id, ''b'', 0) FROM staging', am);
    EXECUTE format('ANALYZE pm_%s', am);
  END LOOP;
END $$;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF) UPDATE pm_hotheap p SET doc = jsonb_set(p.doc, '{b}', '1') FROM staging s WHERE p.id = s.id AND p.side = s.side;
UPDATE pm_hotheap p SET doc = jsonb_set(p.doc, '{b}', to_jsonb(sample_memory('hotheap', s.id)))
FROM staging s WHERE p.id = s.id AND p.side = s.side;
UPDATE pm_heap p SET doc = jsonb_set(p.doc, '{b}', to_jsonb(sample_memory('heap', s.id)))
FROM staging s WHERE p.id = s.id AND p.side = s.side;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
SELECT (SELECT max(bytes) - min(bytes) FROM mem_log WHERE am = 'hotheap')
       <= (SELECT max(bytes) - min(bytes) FROM mem_log WHERE am = 'heap') + 65536 AS constant_memory,
       (SELECT count(*) FROM mem_log) AS samples;
SELECT relname, updates, hot_by_expression + nonhot_page_full = updates AS hot_unless_page_full,
       hot_by_expression > updates / 2 AS mostly_hot
FROM hotplus_stat_tables WHERE relname LIKE 'pm_hotheap%' ORDER BY relname;

SELECT hotplus_stat_reset();
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA scope_memory CASCADE;
RESET client_min_messages;
