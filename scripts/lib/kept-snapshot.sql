-- scripts/upgrade-check.sh: the objects of scripts/lib/kept-objects.sql as a user sees them:
-- the privileges on the statistics views and functions and on each object (ACLs, and whether
-- the monitoring role and a role without grants may read each view or run each function), and
-- the rows each object returns to the monitoring role (how many, and a digest of them). One
-- line each, sorted, so two snapshots compare as text.
SELECT kind || ' ' || what FROM (
  SELECT 'acl' AS kind, c.relname || ' ' || coalesce(c.relacl::text, '(default)') AS what
  FROM pg_class c
  WHERE (c.relname LIKE 'user\_%' AND c.relnamespace = 'public'::regnamespace) OR c.oid IN (SELECT v FROM stat_views)
  UNION ALL
  SELECT 'acl', p.oid::regprocedure || ' ' || coalesce(p.proacl::text, '(default)')
  FROM pg_proc p WHERE p.proname LIKE 'user\_%' AND p.pronamespace = 'public'::regnamespace
  UNION ALL
  SELECT 'privilege', v || ' hotplus_monitor ' || has_table_privilege('hotplus_monitor', v, 'SELECT')
         || ' hotplus_nobody ' || has_table_privilege('hotplus_nobody', v, 'SELECT')
  FROM stat_views
  UNION ALL
  -- The statistics functions by name (an upgrade may replace one by another of that name):
  -- their ACLs, who may run them, and no initial privileges (pg_init_privs: pg_dump dumps a
  -- DBA's REVOKE only where it differs from those).
  SELECT 'acl', p.proname || ' ' || coalesce(p.proacl::text, '(default)')
         || ' hotplus_monitor ' || has_function_privilege('hotplus_monitor', p.oid, 'EXECUTE')
         || ' hotplus_nobody ' || has_function_privilege('hotplus_nobody', p.oid, 'EXECUTE')
         || ' initial ' || coalesce((SELECT i.initprivs::text FROM pg_init_privs i
                                     WHERE i.classoid = 'pg_proc'::regclass AND i.objoid = p.oid), '(none)')
  FROM pg_proc p JOIN stat_functions f ON f.name = p.proname
  WHERE p.pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'hotplus')) s
ORDER BY 1;
SELECT q FROM (
  SELECT 0 AS o, 'SET ROLE hotplus_monitor' AS q
  UNION ALL
  SELECT 1, format('SELECT %L || count(*) || '' '' || md5(coalesce(string_agg(r::text, '','' ORDER BY r::text), '''')) FROM %s r',
                   'rows ' || f || ': ', f)
  FROM (SELECT 'user_' || name AS f FROM stat_views
        UNION ALL
        SELECT 'user_' || name || s || '()' FROM stat_views, unnest(ARRAY['_sql', '_plpgsql', '_atomic']) s) x
  UNION ALL
  SELECT 2, 'RESET ROLE') g
ORDER BY o, q \gexec
