SELECT relname AS table,
       n_tup_upd AS updates,
       n_tup_hot_upd AS hot_updates,
       round(100.0 * n_tup_hot_upd / nullif(n_tup_upd, 0), 1) AS hot_pct,
       pg_size_pretty(pg_indexes_size(relid)) AS index_size
FROM pg_stat_user_tables
WHERE relname IN ('docs_heap', 'docs_hotheap')
ORDER BY relname;
