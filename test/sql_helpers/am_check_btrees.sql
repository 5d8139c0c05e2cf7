-- Helpers shared by the am_* regression tests (included with \i from the repository root,
-- where pg_regress runs psql). They are created in the including test's schema.

-- am_check_btrees(): bt_index_check(index, heapallindexed => true) on every btree index
-- of every hotheap table in the current schema (and this session's temporary schema).
CREATE FUNCTION am_check_btrees()
RETURNS TABLE (tab name, idx name, checked boolean)
LANGUAGE sql AS $f$
  SELECT t.relname, c.relname, bt_index_check(c.oid, true)::text = ''
  FROM pg_index i
  JOIN pg_class c ON c.oid = i.indexrelid
  JOIN pg_class t ON t.oid = i.indrelid
  JOIN pg_am ta ON ta.oid = t.relam
  JOIN pg_am ia ON ia.oid = c.relam
  WHERE ta.amname = 'hotheap' AND ia.amname = 'btree'
    AND t.relnamespace IN (current_schema()::regnamespace, pg_my_temp_schema())
  ORDER BY 1, 2
$f$;
