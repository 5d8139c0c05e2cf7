/* hotplus 1.4 -> 1.5: one section per change, each appended on its own. */
\echo Use "ALTER EXTENSION hotplus UPDATE TO '1.5'" to load this file. \quit

/* ---- Issue 49: statistics that behave like PostgreSQL's own ----------------------------- */
/* In shared mode a backend's counts reach shared memory at most once a second, within 10 s
   of the backend going idle, and when it exits (as PostgreSQL's cumulative statistics do);
   this moves the calling backend's pending counts there now (the views already do it for
   the reader's own counts). Harmless for anyone: a backend can only flush its own counts. */
CREATE FUNCTION @extschema@.hotplus_stat_flush()
RETURNS pg_catalog.void
AS 'MODULE_PATHNAME', 'hotplus_stat_flush'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.hotplus_stat_flush() IS
    'Moves this backend''s pending hotplus statistics into shared memory now (shared mode; a no-op in backend mode)';
