#!/usr/bin/python3
# Design points: D14, D14b, D14c
"""Randomized differential test of hotplus's read path: every query with hotplus.read_path on
and off must return exactly the same rows.

For each seed, in its own schema (dropped when the seed passes):
  - a random table USING hotheap: 5-45 columns of int/bigint/smallint/bool/float8/numeric/text/
    varchar(n)/jsonb/bytea/int[]/date/timestamptz, some NOT NULL, every TOAST storage, rows with
    NULLs, small values and big ones (600-key jsonb documents, md5 text that does not compress,
    repeated text that does, big arrays, bytea, long numerics); sometimes a dropped column, a
    column added with a DEFAULT (atthasmissing) and rows inserted after it, UPDATEs; btree,
    expression and partial indexes; ANALYZE. A second hotheap table o (big jsonb documents in
    some rows, big text in others) and its heap twin oh (same rows) for joins and subqueries,
    and in some seeds a partitioned table (hotheap partitions, one with another column order),
    an inheritance tree, row-level security (queries run as a non-owner role), parallel query,
    forced JIT, forced generic plans;
  - ~50 random queries of many shapes (projections, repeated references to big columns,
    pg_column_size, whole-row and system columns, quals with subqueries, aggregates, DISTINCT,
    joins of every method, LATERAL, CTEs, window functions, UNION ALL, LIMIT, FOR UPDATE),
    with scan types forced at random; each runs with the read path on and off (fresh plans), and
    the rows (as text) must be equal: in order when the query orders totally, as multisets
    otherwise. About half of them are shapes of the shared detoast markers in nodes above the
    scan (D14b): two or more calls over one big toastable column (x.big->'a', x.big->>'k', md5(x.t), length(x.t),
    get_byte(x.b, 1), x.arr[1]...; some with COLLATE) in what a plan node evaluates on a
    scan's rows:
      - aggregate arguments without and with FILTER, with DISTINCT and ORDER BY inside,
        ordered-set aggregates, HAVING; grouped by expressions of the same column (or by other
        columns, or ROLLUP); hashed or sorted (enable_hashagg, enable_sort); over one table, a
        join, a UNION ALL of t, o and oh, a LIMIT or DISTINCT ON subquery, a window subquery,
        a CTE, and a LATERAL LIMIT subquery rescanned per outer row;
      - joins of t (or its partitioned / inheritance copy) with o (hotheap), oh (heap, always
        aliased hx) or itself: inner, left, right, full, EXISTS and NOT EXISTS; hash, merge
        (more often: its inner side is marked and restored) or nested loop forced with enable_*
        (memoize, material off at times), calls over both sides in the output list and in the
        join quals; sometimes FOR UPDATE OF t;
      - window functions partitioned by an expression of the column, with functions of it as
        arguments and in the window ORDER BY;
      - subqueries in the select list (correlated aggregates over o / oh, over a LIMIT or a
        hashed DISTINCT subquery rescanned with new parameters, over the same table, reading
        the outer row's column);
      - UNION / UNION ALL / INTERSECT / EXCEPT branches over t, o and oh, and expressions over
        a UNION ALL's column (a Result above the Append);
      - CTEs MATERIALIZED, NOT MATERIALIZED and neither (listed, aggregated, joined with o or
        oh, joined with themselves); LATERAL subqueries (reading the outer column, aggregating
        o per outer row, its first rows, jsonb_each_text of the column);
      - subquery scans (LIMIT, DISTINCT ON) read by their projection, their filter, a
        set-returning function above; ORDER BY, DISTINCT ON and GROUP BY expressions;
    sometimes with work_mem = 64kB (sorts, hashes and joins spilling below the node), a sample
    scan (TABLESAMPLE ... REPEATABLE) or a TID range scan below it, and with parallel query
    forced in a few queries of seeds without it. Expressions that raise an error on some rows
    ((big->>'n')::int, a jsonpath .double(), get_byte(b, 40), trim_array, 10 / arr[2], sqrt,
    ln, numeric::int, decode(t, 'hex')) appear where heap evaluates them only on rows where
    they do not fail: inside CASE, in a filtered aggregate, in a join's output list on the side
    its quals restrict, in a window's CASE, in a subquery scan with a filter (and rarely
    unguarded, where both modes fail). EXPLAIN (VERBOSE) with the read path on (and
    hotplus.read_path_show_markers) tells whether a HotheapRead node and markers were used
    (counted separately); with it off there must be neither, and neither may touch oh's
    columns;
  - about 12% of the queries (q_exact) are issue 31's shapes, where a call moved below the node
    would differ from heap's: two or more calls that may move (x.big->'k', x.big->>'k', #>, #>>,
    ?, @>, length, octet_length, md5: none can fail) over one big column of t (or its
    partitioned / inheritance copy) or of o, read from the table, from a subquery that is not
    pulled up (OFFSET 0, ORDER BY ... LIMIT), from a plain view or a security_barrier view of it;
    in aggregate arguments, FILTERs and projections, next to
      - calls that fail on some rows (jsonb_array_length of an object or a string, 'none'::int,
        100 / 0 from a field or a length, decode of non-hex text) guarded in every position
        PostgreSQL evaluates conditionally: CASE, COALESCE, AND, OR, a row comparison
        (ROW(jsonb_typeof(x), jsonb_array_length(x)) > ROW('array', 0)), the subscript of a NULL
        array, a FILTER; and, rarely, unguarded next to the Agg's own division by zero (and as a
        strict function's argument beside a NULL): the query fails in both modes, with heap's
        SQLSTATE (without parallel query, whose row order would decide);
      - whole rows of the subquery or view (s::text, to_jsonb(s) - 'v', s IS [NOT] NULL, in
        projections and aggregates), and SELECT ... FOR UPDATE OF x joined with such a subquery
        (whose rows are then copied whole);
      - storage-reporting functions of moved values (sum(pg_column_size(x.big->'k')),
        pg_column_size(max(x.big->>'k')), pg_column_compression(...), through NULLIF), in plain
        and sorted aggregates, grouped (the Agg evaluates each group's first row on its copy);
      - work_mem = 64kB: hash aggregates of many groups that spill, sorted aggregates above sorts
        that spill (some after a filter estimated to keep one row that keeps all), hash joins of
        the table (outer side, often a LEFT JOIN) with 4,000 rows estimated at 0.5% of them, that
        go to several batches at run time, with the calls in the join's output list or above it;
    plain, sorted and hashed aggregation, GROUP BY calls of the column. Besides rows on = off:
    the same query over the heap twins (oh and its views) must give the same rows or SQLSTATE;
    with work_mem = 64kB and without parallel query, EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) must
    show the same "Temp Written Blocks" at the top of the plan with the read path on and off, and
    on the heap twin when its plan has the same nodes, and the same memory in every Sort, Hash
    and hash aggregate (space used, peak memory, disk, batches) on and off; then UPDATE ... FROM (SELECT ... OFFSET 0)
    s ... RETURNING s (its whole row, calls over its column), rolled back, must return the same
    rows on and off, and on o as on oh;
  - prepared statements executed 7 times with parameters (prepared again after switching), and
    once planned with the read path on and executed with it off; two queries of the D14b shapes
    prepared with the read path on and executed with it on and off;
  - scrollable cursors (FETCH forward/BACKWARD/ABSOLUTE/RELATIVE, MOVE), half of them over a
    totally ordered query of the shapes above (through their markers), and UPDATE/DELETE
    WHERE CURRENT OF through plain and FOR UPDATE cursors on two identical copies of the table;
  - EvalPlanQual: session A updates rows (filter columns and big columns) and holds its locks;
    session B (read path on for one copy, off for the other) runs UPDATE/DELETE ... RETURNING or
    SELECT ... FOR UPDATE with a qual on those columns and blocks; A commits (or rolls back);
    B's result and the final table contents must match between the copies.
A query that fails the same way (SQLSTATE) in both modes is skipped (counted), as is a heap twin
failing with another SQLSTATE on a plan of other nodes (its rows come in another order); a failure
on one side only, different SQLSTATEs, a server crash, a HotheapRead node or a marker with
the read path off, or one evaluating the heap table's columns, a heap twin's other outcome or
different temporary blocks fail the seed.

Usage: readtest.py [--seeds A-B] [--verbose] [--avoid TAG,...] [--keep]
Connection from the usual PG* environment variables (the script creates the extension and a
role readtest_rls). Prints one line per seed ("seed N ok (Q queries, R through HotheapRead,
P with markers, S skipped, E of issue 31's shapes (H against heap twins, B
temporary-block checks, W spilling), T s)": W of the B checks wrote temporary blocks; or "seed N
FAILED (...)" with details indented by 4 spaces), a summary line starting with "#", and a final
line
"N passed, N failed"; the exit status is non-zero when a seed failed. Replay a seed with
--seeds S-S; --verbose adds each seed's configuration, phases, skipped and slow queries.
--avoid leaves out what triggers a known discrepancy, to look for others behind it:
  nullif_size  pg_column_size/pg_column_compression of a NULLIF or varchar length coercion
               result (the result is the shared detoasted copy instead of the stored datum);
  first_null   tables whose first column is fixed-width (selective deformation starting at a
               NULL first wanted column read the following columns at the wrong offset; fixed
               by commit 8f95e94);
  noproj       queries whose plan has a HotheapRead node without a projection (the node
               declares its result slot virtual, so the parent reads undeformed columns).
"""
import argparse
import json
import random
import re
import sys
import threading
import time

import psycopg2
import psycopg2.extensions

RLS_ROLE = "readtest_rls"

KIND_WEIGHTS = [("int", 4), ("bigint", 1), ("smallint", 1), ("bool", 2), ("float8", 1), ("numeric", 2),
                ("text", 4), ("varchar", 2), ("jsonb", 3), ("bytea", 1), ("intarr", 1), ("date", 1),
                ("tstz", 1)]
SQLTYPE = {"int": "int", "bigint": "bigint", "smallint": "smallint", "bool": "bool", "float8": "float8",
           "numeric": "numeric", "text": "text", "jsonb": "jsonb", "bytea": "bytea", "intarr": "int[]",
           "date": "date", "tstz": "timestamptz"}
TOASTABLE = {"numeric", "text", "varchar", "jsonb", "bytea", "intarr"}

# Projection templates by kind; $C is the qualified column. "!" marks a result that may be a
# big value (the query then reads only a few rows); "#tag" marks a shape --avoid can drop.
PROJ = {
    "int": ["$C", "$C + 1", "$C % 7", "abs($C)", "$C::text || 'x'", "$C IS NULL"],
    "bigint": ["$C", "$C - 1", "$C / 1000"],
    "smallint": ["$C", "$C + 1", "-$C"],
    "bool": ["$C", "NOT $C", "$C IS TRUE", "CASE WHEN $C THEN 'y' ELSE 'n' END"],
    "float8": ["$C", "$C * 2", "floor($C)", "round($C::numeric, 2)"],
    "numeric": ["$C", "$C + 1", "round($C, 1)", "trunc($C)", "md5($C::text)", "$C > 100",
                "pg_column_size($C)", "length($C::text)", "!NULLIF($C, 0)",
                "#nullif_size pg_column_size(NULLIF($C, 0))"],
    "text": ["length($C)", "substr($C, 3, 10)", "left($C, 5)", "md5($C)", "upper(left($C, 8))",
             "position('a1' in $C)", "split_part(left($C, 40), 'a', 2)", "$C LIKE '%cd%'",
             "reverse(left($C, 6))", "md5($C || '!')", "octet_length($C)", "pg_column_size($C)",
             "pg_column_compression($C)", "CASE WHEN length($C) > 100 THEN md5($C) ELSE $C END",
             "$C IS NULL", "left(COALESCE($C, 'none'), 20)", "md5(NULLIF($C, 's1'))",
             "length(GREATEST($C, 's5'))", "$C = 's3'", "!$C", "!$C", "!NULLIF($C, 's1')",
             "!COALESCE($C, 'none')", "!GREATEST($C, 's5')", "!CASE WHEN $C IS NOT NULL THEN $C END",
             "!$C || '!'", "#nullif_size pg_column_size(NULLIF($C, 'zz'))",
             "#nullif_size pg_column_compression(NULLIF($C, 'zz'))"],
    "jsonb": ["$C->'a'", "$C->>'b'", "$C->>'k'", "$C->'nested'", "$C #>> '{nested,x}'",
              "jsonb_typeof($C->'arr')", "$C ? 'f7'", "($C->>'a')::int + 1", "md5(($C - 'f1')::text)",
              "$C->'f3'", "$C->>'f599'", "pg_column_size($C)", "pg_column_compression($C)",
              "md5($C::text)", "$C @> '{\"b\": \"b3\"}'", "jsonb_array_length($C->'arr')",
              "($C->'arr')->1", "!$C", "!$C", "!$C - 'f1'", "!COALESCE($C, '{}')",
              "!CASE WHEN $C ? 'a' THEN $C END", "!NULLIF($C, '{}')",
              "#nullif_size pg_column_size(NULLIF($C, '{}'))"],
    "bytea": ["length($C)", "md5($C)", "substr($C, 1, 4)", "encode(substr($C, 2, 3), 'hex')",
              "get_byte($C, 0)", "pg_column_size($C)", "octet_length($C || '\\x00'::bytea)", "!$C",
              "#nullif_size pg_column_size(NULLIF($C, '\\x00'::bytea))"],
    "intarr": ["array_length($C, 1)", "$C[1]", "$C[2:3]", "cardinality($C)", "$C @> ARRAY[1]",
               "array_to_string($C[1:4], ',')", "md5($C::text)", "pg_column_size($C)", "3 = ANY($C)",
               "!$C", "!$C || 7", "#nullif_size pg_column_size(NULLIF($C, '{}'))"],
    "date": ["$C", "$C + 1", "extract(year from $C)", "to_char($C, 'YYYY-MM')"],
    "tstz": ["$C", "date_trunc('day', $C)", "$C + interval '1 hour'", "extract(epoch from $C)"],
}
# Extra repeated references that make a shared detoasted copy worthwhile.
BOOST = {
    "jsonb": ["$C->'a'", "$C->>'b'", "$C->>'k'", "$C->'nested'->>'x'", "$C->>'f2'", "$C ? 'b'"],
    "text": ["length($C)", "substr($C, 1, 5)", "md5($C)", "$C LIKE '%1%'", "left($C, 3)"],
    "bytea": ["length($C)", "md5($C)", "substr($C, 1, 2)"],
    "intarr": ["$C[1]", "cardinality($C)", "$C @> ARRAY[2]"],
    "numeric": ["$C + 1", "round($C)", "$C > 5"],
}
BOOST["varchar"] = BOOST["text"]
PROJ["varchar"] = PROJ["text"] + ["#nullif_size pg_column_size($C::varchar(20000))", "!$C::varchar(20000)"]

# The shapes of the read path above the scan (D14b): repeated references to one toastable
# column ($C) in the expressions a plan node evaluates on a scan's rows. REP: small results
# (select lists, aggregate arguments, join quals, sort and partition keys); KEY: few distinct
# values (GROUP BY, PARTITION BY); NUM: integer or numeric values (sum, avg, percentiles);
# COND: conditions (FILTER, bool_and, join quals); UNSAFE: (guard, expression) where the
# expression raises an error on some rows and never on rows where the guard holds, for
# conditional positions (CASE, a filtered aggregate, a join's output on its matches). The
# guards hold for o's columns too: in the jsonb documents of t and o, 'n' is not a number
# exactly where 'a' is null (t) or '0' (o).
REP = {
    "jsonb": ["$C->'a'", "$C->>'b'", "$C->>'k'", "$C->'nested'->>'x'", "$C #>> '{nested,x}'", "$C->>'f2'",
              "$C ? 'b'", "$C ? 'f5'", "$C @> '{\"b\": \"b3\"}'", "md5($C::text)", "jsonb_typeof($C->'arr')",
              "($C->'arr')->>1", "$C->>'n'", "length($C->>'f7')", "($C->>'a')::int", "$C->>'u'",
              "jsonb_path_query_first($C, '$.nested.x')", "md5($C->>'f9')", "$C->'k'",
              "($C->>'b') COLLATE \"C\""],
    "text": ["length($C)", "md5($C)", "substr($C, 3, 6)", "left($C, 4)", "$C LIKE '%1%'", "octet_length($C)",
             "position('ab' in $C)", "upper(left($C, 6))", "right($C, 3)", "$C > 's5'",
             "split_part(left($C, 30), 'a', 1)", "md5($C || 'x')", "$C ~ '^s[0-9]+$'",
             "lower(left($C COLLATE \"C\", 8))", "$C COLLATE \"C\" < 's5'"],
    "bytea": ["length($C)", "md5($C)", "substr($C, 1, 3)", "encode(substr($C, 2, 3), 'hex')", "get_byte($C, 1)",
              "octet_length($C)", "md5(substr($C, 3))"],
    "intarr": ["$C[1]", "cardinality($C)", "$C @> ARRAY[2]", "array_length($C, 1)", "$C[2:3]",
               "array_to_string($C[1:3], ',')", "3 = ANY($C)", "md5($C::text)"],
    "numeric": ["$C + 1", "round($C)", "$C > 5", "trunc($C, 1)", "md5($C::text)", "$C % 7", "scale($C)",
                "sign($C)"],
}
KEY = {
    "jsonb": ["$C->>'k'", "$C->>'b'", "$C->'nested'->>'x'", "$C ? 'f5'", "jsonb_typeof($C->'arr')",
              "($C->>'a')::int", "$C->>'n'"],
    "text": ["left($C, 2)", "length($C) % 10", "$C LIKE '%1%'", "substr($C, 1, 3)", "length($C) > 100"],
    "bytea": ["length($C) > 100", "get_byte($C, 0) % 5", "length($C) % 7"],
    "intarr": ["$C[1]", "cardinality($C) > 10", "$C @> ARRAY[2]"],
    "numeric": ["round($C) % 5", "$C > 100", "scale($C)"],
}
NUM = {
    "jsonb": ["length($C->>'k')", "($C->>'a')::int", "length($C::text) % 1000", "length($C->>'f3')",
              "jsonb_array_length($C->'arr')"],
    "text": ["length($C)", "octet_length($C)", "position('a' in $C)", "length(md5($C))"],
    "bytea": ["length($C)", "get_byte($C, 1)", "octet_length($C) % 100"],
    "intarr": ["cardinality($C)", "$C[1]", "array_length($C, 1) % 10"],
    "numeric": ["round($C) % 1000", "scale($C)", "trunc($C)"],
}
COND = {
    "jsonb": ["$C ? 'b'", "$C->>'k' < 'k5'", "$C @> '{\"b\": \"b3\"}'", "($C->>'a')::int > 4", "$C ? 'f9'",
              "$C->>'b' <> 'b1'"],
    "text": ["$C LIKE '%1%'", "length($C) > 100", "left($C, 1) = 's'", "md5($C) < '8'"],
    "bytea": ["length($C) > 20", "get_byte($C, 0) > 100", "md5($C) < '8'"],
    "intarr": ["$C @> ARRAY[2]", "cardinality($C) > 3", "$C[1] > 4"],
    "numeric": ["$C > 5", "round($C) % 2 = 0"],
}
UNSAFE = {
    "jsonb": [("$C->>'a' <> '0'", "($C->>'n')::int"),
              ("$C->>'a' <> '0'", "jsonb_path_query_first($C, '$.n.double()')::int")],
    "text": [("$C ~ '^s[0-9]+$'", "substr($C, 2, 3)::int"),
             ("$C ~ '^([0-9a-f][0-9a-f])+$'", "length(decode($C, 'hex'))")],
    "bytea": [("length($C) > 40", "get_byte($C, 40)")],
    "intarr": [("cardinality($C) >= 5", "cardinality(trim_array($C, 5))"), ("$C[2] <> 0", "10 / $C[2]")],
    "numeric": [("abs($C) < 1000000", "$C::int"), ("$C >= 0", "trunc(sqrt($C))"), ("$C > 0", "trunc(ln($C), 3)")],
}
# Calls that raise no error whatever the value: the only ones that may move below a join (it
# evaluates its output list and quals on its matches only).
SAFE = {
    "jsonb": ["$C->'a'", "$C->>'b'", "$C->>'k'", "$C #>> '{nested,x}'", "$C->>'f2'", "$C ? 'b'",
              "$C @> '{\"b\": \"b3\"}'", "$C->>'n'", "$C->'k'", "md5($C->>'f9')", "length($C->>'f7')"],
    "text": ["length($C)", "md5($C)", "octet_length($C)"],
}
# Issue 31's shapes (q_exact): a move must leave everything heap's, so the calls of these pools
# are placed where a call moved below the node would differ from heap's in one of the ways the
# issue found. By result type, calls that raise no error whatever the value (the only ones that
# may move): EX_TEXT (text), EX_VAR (text or jsonb: varlenas whose stored form functions such as
# pg_column_size() see), EX_INT, EX_BOOL; EX_KEY: few distinct values (GROUP BY). EX_FAIL:
# (guard, integer call) where the call raises an error on some rows, and only on rows where the
# guard is not true: in t's and o's documents 'n' is not a number exactly where 'a' is null (t) or
# '0' (o), 'b' is a string, every document is an object; texts shorter than 100 characters make
# the division fail.
EX_TEXT = {
    "jsonb": ["$C->>'k'", "$C->>'b'", "$C #>> '{nested,x}'", "$C->>'f3'", "md5($C->>'f9')", "$C->>'n'"],
    "text": ["md5($C)"],
}
EX_VAR = {
    "jsonb": EX_TEXT["jsonb"] + ["$C->'a'", "$C->'k'", "$C #> '{nested}'", "$C->'f2'", "$C->'b'"],
    "text": ["md5($C)"],
}
EX_INT = {
    "jsonb": ["length($C->>'f7')", "octet_length($C->>'k')", "length($C->>'b')"],
    "text": ["length($C)", "octet_length($C)"],
}
EX_BOOL = {
    "jsonb": ["$C ? 'b'", "$C ? 'f5'", "$C @> '{\"b\": \"b3\"}'", "$C->>'k' < 'k5'", "$C #>> '{nested,x}' = '2'"],
    "text": ["length($C) > 100", "md5($C) < '8'", "octet_length($C) % 3 = 0"],
}
EX_KEY = {
    "jsonb": ["$C->>'b'", "$C->>'k'", "$C #>> '{nested,x}'", "$C ? 'f5'"],
    "text": ["length($C) % 10", "length($C) > 100", "left(md5($C), 1)"],
}
EX_FAIL = {
    "jsonb": [("jsonb_typeof($C) = 'array'", "jsonb_array_length($C)"),
              ("$C->>'a' <> '0'", "($C->>'n')::int"),
              ("jsonb_typeof($C->'b') = 'array'", "jsonb_array_length($C->'b')"),
              ("($C->>'a')::int % 3 <> 0", "100 / (($C->>'a')::int % 3)")],
    "text": [("$C ~ '^s[0-9]+$'", "substr($C, 2, 3)::int"),
             ("length($C) >= 100", "100 / (length($C) / 100)"),
             ("$C ~ '^([0-9a-f][0-9a-f])+$'", "length(decode($C, 'hex'))")],
}
for _pool in (REP, KEY, NUM, COND, UNSAFE, SAFE, EX_TEXT, EX_VAR, EX_INT, EX_BOOL, EX_KEY, EX_FAIL):
    _pool["varchar"] = _pool["text"]


def h(g, k):
    return "rt_h(%s, %d)" % (g, k)


class Col:
    def __init__(self, name, kind, notnull=False, storage=None, nullpct=0, bigpct=0, bigstyle="random",
                 salt=0, card=1000, vlen=None):
        self.name, self.kind, self.notnull, self.storage = name, kind, notnull, storage
        self.nullpct, self.bigpct, self.bigstyle, self.salt, self.card, self.vlen = (
            nullpct, bigpct, bigstyle, salt, card, vlen)

    @property
    def sqltype(self):
        return "varchar(%d)" % self.vlen if self.kind == "varchar" else SQLTYPE[self.kind]

    def small(self, g):
        k, card = self.salt, self.card
        a, b = h(g, k), h(g, k + 1)
        return {
            "int": "(%s %% %d)" % (a, card),
            "bigint": "(%s::bigint * 1000 + %s)" % (a, g),
            "smallint": "(%s %% 30000)::smallint" % a,
            "bool": "(%s %% 3 = 0)" % a,
            "float8": "((%s %% 100000) / 8.0)::float8" % a,
            "numeric": "((%s %% 1000000)::numeric / 100)" % a,
            "text": "('s' || (abs(%s) %% %d))" % (a, card),
            "varchar": "left('s' || (abs(%s) %% %d), %d)" % (a, card, self.vlen or 10),
            "jsonb": ("jsonb_build_object('a', NULLIF(%s %% 10, 0), 'b', 'b' || (abs(%s) %% 7), 'k', 'k' || "
                      "(abs(%s) %% 20), 'nested', jsonb_build_object('x', abs(%s) %% 5), 'arr', "
                      "jsonb_build_array(1, %s %% 3, 'x'), 'n', CASE WHEN %s %% 10 = 0 THEN 'none' "
                      "ELSE (%s %% 100)::text END)" % (a, b, a, b, a, a, a)),
            "bytea": "decode(md5(%s::text || ':%d'), 'hex')" % (g, k),
            "intarr": "ARRAY[%s %% 10, %s %% 7, %s %% 5]" % (a, b, g),
            "date": "(date '2020-01-01' + (%s %% 1000))" % a,
            "tstz": "(timestamptz '2020-01-01 00:00:00+00' + (%s %% 100000) * interval '1 minute')" % a,
        }[self.kind]

    def big(self, g):
        k = self.salt
        a, b = h(g, k + 2), h(g, k + 3)
        rnd = self.bigstyle == "random"
        if self.kind in ("text", "varchar"):
            if rnd:
                v = ("(SELECT string_agg(md5(%s::text || ':%d:' || i), '') FROM generate_series(1, 100 + abs(%s) %% 220) i)"
                     % (g, k, b))
            else:
                v = "repeat('ab' || (abs(%s) %% 10) || 'cd', 300 + abs(%s) %% 2000)" % (a, b)
            return "left(%s, %d)" % (v, self.vlen) if self.kind == "varchar" else v
        if self.kind == "jsonb":
            val = "md5(%s::text || ':' || i)" % g if rnd else "repeat('xy', 20) || (i % 7)"
            return ("(%s || (SELECT jsonb_object_agg('f' || i, %s) FROM generate_series(1, 600) i))"
                    % (self.small(g), val))
        if self.kind == "bytea":
            if rnd:
                return ("decode((SELECT string_agg(md5(%s::text || ':%d:' || i), '') FROM generate_series(1, 50 + abs(%s) %% 200) i), 'hex')"
                        % (g, k, b))
            return "decode(repeat('00ff' || lpad(to_hex(abs(%s) %% 256), 2, '0'), 1000 + abs(%s) %% 2000), 'hex')" % (a, b)
        if self.kind == "intarr":
            if rnd:
                return "(SELECT array_agg(rt_h(%s, i)) FROM generate_series(1, 1000 + abs(%s) %% 2000) i)" % (g, b)
            return "array_fill(abs(%s) %% 10, ARRAY[1000 + abs(%s) %% 3000])" % (a, b)
        if self.kind == "numeric":
            return ("(repeat((1 + abs(%s) %% 9)::text, 600 + abs(%s) %% 900) || '.' || abs(%s))::numeric"
                    % (a, b, a))
        return self.small(g)

    def value(self, g):
        v = self.small(g)
        if self.bigpct:
            v = "CASE WHEN abs(%s) %% 100 < %d THEN %s ELSE %s END" % (h(g, self.salt + 4), self.bigpct, self.big(g), v)
        if self.nullpct and not self.notnull:
            v = "CASE WHEN abs(%s) %% 100 < %d THEN NULL ELSE %s END" % (h(g, self.salt + 5), self.nullpct, v)
        return v

    def default(self):
        return {"int": "42", "bigint": "-7", "smallint": "3", "bool": "true", "float8": "0.5",
                "numeric": "1.25", "text": "'dflt'", "varchar": "'dv'", "jsonb": "'{\"a\": 1, \"k\": \"k1\", \"b\": \"b1\"}'",
                "bytea": "'\\x0102'", "intarr": "'{1,2,3}'", "date": "'2021-06-01'",
                "tstz": "'2021-06-01 12:00:00+00'"}[self.kind]


def weighted(rng, pairs):
    return rng.choices([p[0] for p in pairs], [p[1] for p in pairs])[0]


class Shape:
    """A table shape and the deterministic statements that build it (so copies are identical)."""

    def __init__(self, rng, avoid=()):
        self.rng = rng
        ncols = rng.randint(5, 45)
        cols = []
        salt = [10]

        def mk(kind, name=None):
            salt[0] += 10
            c = Col(name or "c%d_%s" % (len(cols) + 1, kind), kind, salt=salt[0])
            c.card = rng.choice([5, 20, 50, 1000])
            if kind == "varchar":
                c.vlen = rng.choice([8, 40, 300, 5000, 12000])
            c.nullpct = rng.choice([0, 0, 5, 20, 50])
            c.notnull = rng.random() < 0.15
            return c

        first_special = rng.random() < 0.3
        if "first_null" in avoid:
            # Column 1 variable-length: no column after it has a fixed offset (leaves out the
            # second discrepancy this test found: a NULL first wanted column at a fixed offset).
            first_special = True
        for i in range(ncols - 2):
            if i == 0 and first_special:
                kind = rng.choice(["text", "jsonb"])
            else:
                kind = weighted(rng, KIND_WEIGHTS)
            cols.append(mk(kind))
        if not any(c.kind == "jsonb" for c in cols) and rng.random() < 0.8:
            cols.insert(rng.randint(1 if first_special else 0, len(cols)), mk("jsonb"))
        if not any(c.kind == "text" for c in cols):
            cols.insert(rng.randint(1 if first_special else 0, len(cols)), mk("text"))
        key = mk("int", "k_int")
        key.card, key.notnull, key.nullpct = 50, False, 5
        cols.insert(rng.randint(1 if first_special else 0, len(cols)), key)
        idc = Col("id", "int", notnull=True, salt=0)
        cols.insert(rng.randint(1 if first_special else 0, len(cols)), idc)
        for i, c in enumerate(cols):
            if c.name not in ("id", "k_int"):
                c.name = "c%d_%s" % (i + 1, c.kind)
        # Big values in up to 3 toastable columns; storage for some toastable columns.
        toastable = [c for c in cols if c.kind in TOASTABLE]
        for c in rng.sample(toastable, min(len(toastable), rng.randint(1, 3))):
            if c.kind == "varchar" and c.vlen < 3000:
                continue
            c.bigpct = rng.choice([5, 10, 20, 30])
            c.bigstyle = rng.choice(["random", "repeat"])
        for c in toastable:
            if rng.random() < 0.5:
                c.storage = rng.choice(["EXTERNAL", "MAIN", "PLAIN", "EXTENDED"])
                if c.storage == "PLAIN":
                    c.bigpct = 0
        self.initial = list(cols)
        self.cols = list(cols)  # live columns after the build
        self.n = rng.randint(200, 2000)
        # At most ~60 big values per column (each query reading one detoasts them all).
        for c in cols:
            if c.bigpct:
                c.bigpct = max(2, min(c.bigpct, 6000 // self.n))
        # Later steps, each with a snapshot of the live columns.
        self.steps = []
        live = list(cols)
        if rng.random() < 0.5:
            droppable = [c for c in live if c.name not in ("id", "k_int")]
            if droppable:
                d = rng.choice(droppable)
                live = [c for c in live if c is not d]
                self.steps.append(("drop", d.name))
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 2)):
                salt[0] += 10
                kind = rng.choice(["int", "text", "jsonb", "numeric", "bool", "bytea", "intarr"])
                c = Col("a%d_%s" % (salt[0], kind), kind, salt=salt[0], nullpct=10, card=20)
                if kind in ("text", "jsonb") and rng.random() < 0.5:
                    c.bigpct, c.bigstyle = 15, rng.choice(["random", "repeat"])
                live = live + [c]
                self.steps.append(("add", c))
            self.steps.append(("insert", list(live), rng.randint(20, 200)))
        for _ in range(rng.randint(0, 3)):
            c = rng.choice([c for c in live if c.name != "id"])
            mod = rng.choice([3, 7, 13])
            self.steps.append(("update", c, mod, rng.randrange(mod)))
        if rng.random() < 0.3:
            self.steps.append(("delete", rng.choice([11, 17]), rng.randrange(11)))
        self.cols = live
        # Indexes (on live columns).
        self.indexes = ["UNIQUE (id)", "(k_int)"]
        js = [c for c in live if c.kind == "jsonb"]
        tx = [c for c in live if c.kind in ("text", "varchar")]
        bo = [c for c in live if c.kind == "bool"]
        sc = [c for c in live if c.kind in ("int", "bigint", "smallint", "date", "float8", "numeric") and c.name != "id"]
        if js and rng.random() < 0.8:
            self.indexes.append("((%s->>'k'))" % rng.choice(js).name)
        if tx and rng.random() < 0.5:
            self.indexes.append("(left(%s, 8))" % rng.choice(tx).name)
        if rng.random() < 0.6:
            pred = rng.choice(bo).name if bo and rng.random() < 0.5 else "id % 2 = 0"
            self.indexes.append("(k_int) WHERE %s" % pred)
        for c in rng.sample(sc, min(len(sc), rng.randint(0, 2))):
            self.indexes.append("(%s)" % c.name)

    def insert_sql(self, name, cols, lo, hi):
        names = ", ".join(c.name for c in cols)
        vals = ", ".join("g" if c.name == "id" else c.value("g") for c in cols)
        return "INSERT INTO %s (%s) SELECT %s FROM generate_series(%d, %d) g" % (name, names, vals, lo, hi)

    def build(self, name, n):
        out = []
        defs = ", ".join("%s %s%s" % (c.name, c.sqltype, " NOT NULL" if c.notnull else "") for c in self.initial)
        out.append("CREATE TABLE %s (%s) USING hotheap" % (name, defs))
        for c in self.initial:
            if c.storage:
                out.append("ALTER TABLE %s ALTER COLUMN %s SET STORAGE %s" % (name, c.name, c.storage))
        out.append(self.insert_sql(name, self.initial, 1, n))
        top = n
        for step in self.steps:
            if step[0] == "drop":
                out.append("ALTER TABLE %s DROP COLUMN %s" % (name, step[1]))
            elif step[0] == "add":
                c = step[1]
                out.append("ALTER TABLE %s ADD COLUMN %s %s DEFAULT %s" % (name, c.name, c.sqltype, c.default()))
            elif step[0] == "insert":
                m = max(5, step[2] * n // 2000)
                out.append(self.insert_sql(name, step[1], top + 1, top + m))
                top += m
            elif step[0] == "update":
                c, mod, r = step[1], step[2], step[3]
                if c.kind == "jsonb":
                    v = "%s || jsonb_build_object('k', 'k' || (id %% 5), 'u', id)" % c.name
                elif c.kind == "text" and c.bigpct:
                    v = "CASE WHEN id %% 2 = 0 THEN %s ELSE %s || 'u' END" % (c.big("(id * 7 + 3)"), c.name)
                else:
                    v = c.value("(id * 7 + 3)")
                out.append("UPDATE %s SET %s = %s WHERE id %% %d = %d" % (name, c.name, v, mod, r))
            elif step[0] == "delete":
                out.append("DELETE FROM %s WHERE id %% %d = %d" % (name, step[1], step[2]))
        for i, ix in enumerate(self.indexes):
            if ix.startswith("UNIQUE "):
                out.append("CREATE UNIQUE INDEX %s_i%d ON %s %s" % (name, i, name, ix[len("UNIQUE "):]))
            else:
                out.append("CREATE INDEX %s_i%d ON %s %s" % (name, i, name, ix))
        out.append("ANALYZE %s" % name)
        return out


class Crash(Exception):
    pass


MARKER = "hotplus_shared_value("


def heap_side_sharing(plan):
    """What of a JSON plan (made with hotplus.read_path_show_markers on) the read path evaluates
    over columns of oh (the heap table, always aliased hx): a HotheapRead node on it, or a shared
    detoast marker around one of its columns."""
    found = []

    def walk(node):
        kids = node.get("Plans", [])
        if node.get("Custom Plan Provider") == "HotheapRead" and node.get("Relation Name") == "oh":
            found.append("HotheapRead on oh")
        own = json.dumps({k: v for k, v in node.items() if k != "Plans"})
        found.extend("a marker in %s: %s" % (node["Node Type"], m) for m in re.findall(re.escape(MARKER) + r"hx\.\w+", own))
        for k in kids:
            walk(k)
    walk(plan)
    return "; ".join(found)


def plan_memory(plan):
    """The memory of a JSON plan's storing nodes (EXPLAIN ANALYZE), in preorder: they store
    exactly heap's rows, markers or not."""
    out = []
    for d, node in plan_walk(plan):
        mem = [(k, node[k]) for k in ("Sort Method", "Sort Space Used", "Sort Space Type", "Peak Memory Usage",
                                      "Disk Usage", "Hash Buckets", "Hash Batches", "HashAgg Batches") if k in node]
        if mem:
            out.append((d, node["Node Type"], mem))
    return out


def plan_walk(plan, depth=0):
    yield depth, plan
    for k in plan.get("Plans", []):
        yield from plan_walk(k, depth + 1)


def rowkey(row):
    return tuple((v is None, "" if v is None else v) for v in row)


def short(v, n=160):
    s = repr(v)
    return s if len(s) <= n else s[:n] + "...(%d chars)" % len(s)


def describe_diff(a, b, la="on", lb="off"):
    if isinstance(a, tuple) and a and a[0] == "ERROR" or isinstance(b, tuple) and b and b[0] == "ERROR":
        return "%s: %s\n%s: %s" % (la, short(a, 400), lb, short(b, 400))
    if len(a) != len(b):
        extra_a = [r for r in a if r not in b][:2]
        extra_b = [r for r in b if r not in a][:2]
        return "%s: %d rows, %s: %d rows; only %s: %s; only %s: %s" % (la, len(a), lb, len(b), la, short(extra_a, 600),
                                                                     lb, short(extra_b, 600))
    for i, (ra, rb) in enumerate(zip(a, b)):
        if ra != rb:
            cols = [j for j in range(min(len(ra), len(rb))) if ra[j] != rb[j]]
            return "row %d differs in column(s) %s: %s %s, %s %s" % (
                i, cols, la, short([ra[j] for j in cols], 400), lb, short([rb[j] for j in cols], 400))
    return "same?"


def outcome_diff(a, b, ordered, la, lb):
    """None when a and b (rows, or ("ERROR", sqlstate, message)) are the same rows (in the same order
    if ordered) or errors of the same SQLSTATE; else what differs."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        if isinstance(a, tuple) and isinstance(b, tuple) and a[1] == b[1]:
            return None
        return describe_diff(a, b, la, lb)
    if not ordered:
        a, b = sorted(a, key=rowkey), sorted(b, key=rowkey)
    return None if a == b else describe_diff(a, b, la, lb)


def plan_nodes(plan, depth=0):
    """A JSON plan's nodes in preorder: (depth, name, temporary blocks the node wrote itself; a node's
    buffer counts include its children's)."""
    kids = plan.get("Plans", [])
    own = plan.get("Temp Written Blocks", 0) - sum(k.get("Temp Written Blocks", 0) for k in kids)
    out = [(depth, plan.get("Custom Plan Provider") or plan["Node Type"], own)]
    for k in kids:
        out += plan_nodes(k, depth + 1)
    return out


def plan_shape(plan):
    """The node types of a plan without the read path's node (the same on the heap twin)."""
    return [n for _, n, _ in plan_nodes(plan) if n != "HotheapRead"]


def temp_detail(plan):
    return ", ".join("%s%s%s" % ("-" * d, n, " %d" % b if b else "") for d, n, b in plan_nodes(plan))


class Seed:
    def __init__(self, conns, seed, args):
        self.conn, self.conn_a, self.conn_b = conns
        self.seed = seed
        self.args = args
        self.avoid = set(args.avoid.split(",")) if args.avoid else set()
        self.rng = random.Random(seed)
        self.schema = "readtest_%d" % seed
        self.cur = self.conn.cursor()
        self.problems = []
        self.nqueries = self.nread = self.nmarked = self.nskipped = 0
        # q_exact's queries, their comparisons with the heap twins, of temporary blocks, and how
        # many of those wrote some.
        self.nexact = self.ntwin = self.ntemp = self.nspilled = 0
        self.skipped_msgs = []
        self.slow = []
        self.navoided = 0

    # -- plumbing ---------------------------------------------------------------------------
    def x(self, sql, cur=None):
        cur = cur or self.cur
        try:
            cur.execute(sql)
        except (psycopg2.OperationalError, psycopg2.InterfaceError) as e:
            if cur.connection.closed:
                raise Crash(str(e).strip())
            raise
        return cur.fetchall() if cur.description else None

    def fetch(self, sql, cur=None):
        """Rows, or ("ERROR", sqlstate, message)."""
        cur = cur or self.cur
        try:
            return self.x(sql, cur)
        except Crash:
            raise
        except psycopg2.Error as e:
            if cur.connection.closed:
                raise Crash(str(e).strip())
            if not cur.connection.autocommit:
                cur.connection.rollback()
            return ("ERROR", e.pgcode, (str(e).strip().splitlines() or [""])[0])

    def problem(self, what, sql, detail):
        self.problems.append("%s\n  query: %s\n  %s" % (what, sql if len(sql) < 3000 else sql[:3000] + "...",
                                                       detail.replace("\n", "\n  ")))

    def settings_sql(self, sets):
        return ["SET %s = %s" % (k, v) for k, v in sets]

    def reset_sql(self, sets):
        return ["RESET %s" % k for k, _ in sets]

    # -- setup ------------------------------------------------------------------------------
    def setup(self):
        t0 = time.time()
        rng = self.rng
        self.x("DROP SCHEMA IF EXISTS %s CASCADE" % self.schema)
        self.x("CREATE SCHEMA %s" % self.schema)
        self.x("SET search_path = %s, public" % self.schema)
        for c in (self.conn_a, self.conn_b):
            c.rollback()
            self.x("SET search_path = %s, public" % self.schema, c.cursor())
            c.commit()
        self.x("CREATE FUNCTION rt_h(g int, k int) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS "
               "$$ SELECT ('x' || substr(md5(g::text || ':' || k::text), 1, 8))::bit(32)::int $$")
        self.shape = Shape(rng, self.avoid)
        for s in self.shape.build("t", self.shape.n):
            self.x(s)
        self.nrows = int(self.x("SELECT count(*) FROM t")[0][0])
        self.cols = self.shape.cols
        # The second table.
        m = rng.randint(50, 300)
        self.x("CREATE TABLE o (id int NOT NULL, x int, p1 int, p2 int, p3 text, p4 int, p5 int, p6 bigint, "
               "y text, p7 int, big jsonb, z text) USING hotheap")
        if rng.random() < 0.5:
            self.x("ALTER TABLE o ALTER COLUMN big SET STORAGE %s" % rng.choice(["EXTERNAL", "MAIN"]))
        self.x("INSERT INTO o SELECT g, g %% 50, g, g %% 3, 'p' || g, g, g, g, "
               "CASE WHEN g %% 4 = 0 THEN repeat('y' || g, 2000) ELSE 'y' || (g %% 9) END, g, "
               "CASE WHEN g %% 7 = 3 THEN NULL ELSE jsonb_build_object('a', g %% 10, 'b', 'b' || (g %% 7), "
               "'k', 'k' || (g %% 20), 'n', CASE WHEN g %% 10 = 0 THEN 'none' ELSE g::text END) || CASE WHEN g %% 5 = 0 THEN (SELECT jsonb_object_agg('f' || i, md5(g::text || i)) "
               "FROM generate_series(1, 600) i) ELSE '{}' END END, 'z' || g FROM generate_series(1, %d) g" % m)
        self.x("CREATE UNIQUE INDEX o_id ON o (id)")
        self.x("CREATE INDEX o_x ON o (x)")
        self.x("ANALYZE o")
        # Its heap twin: joined with t, the read path never shares anything on its side.
        self.x("CREATE TABLE oh (LIKE o INCLUDING ALL) USING heap")
        self.x("INSERT INTO oh SELECT * FROM o")
        self.x("ANALYZE oh")
        # Views for q_exact's whole-row references, all of columns (id, k, v): a plain view is
        # pulled up (its whole row becomes a ROW() of the table's columns), a security_barrier
        # view stays a subquery whose SubqueryScan builds the whole row from its input row. Each
        # over o has a twin over oh. Over t, of its first column whose calls may move (one with
        # big values if any): chosen without the seed's generator, which stays the tables'.
        for name, tbl, opts, qual in (("ov", "o", "", "id % 2 = 0"), ("ohv", "oh", "", "id % 2 = 0"),
                                      ("osv", "o", " WITH (security_barrier)", "id % 3 <> 1"),
                                      ("ohsv", "oh", " WITH (security_barrier)", "id % 3 <> 1")):
            self.x("CREATE VIEW %s%s AS SELECT id, x AS k, big AS v FROM %s WHERE %s" % (name, opts, tbl, qual))
        tc = [c for c in self.cols if c.kind in SAFE]
        self.view_col = ([c for c in tc if c.bigpct] + tc + [None])[0]
        if self.view_col:
            self.x("CREATE VIEW tv AS SELECT id, k_int AS k, %s AS v FROM t WHERE id %% 2 = 0" % self.view_col.name)
            self.x("CREATE VIEW tsv WITH (security_barrier) AS SELECT id, k_int AS k, %s AS v FROM t WHERE id %% 3 <> 1"
                   % self.view_col.name)
        self.tables = [("t", self.cols)]
        colnames = ", ".join(c.name for c in self.cols)
        # A partitioned table with hotheap partitions (one with another column order).
        if rng.random() < 0.35:
            defs = ", ".join("%s %s%s" % (c.name, c.sqltype, " NOT NULL" if c.notnull else "") for c in self.cols)
            order = list(reversed(self.cols))
            if "first_null" in self.avoid:
                order = [self.cols[0]] + order[:-1]
            rdefs = ", ".join("%s %s%s" % (c.name, c.sqltype, " NOT NULL" if c.notnull else "") for c in order)
            a, b = self.nrows // 3, 2 * self.nrows // 3
            self.x("CREATE TABLE pt (%s) PARTITION BY RANGE (id)" % defs)
            self.x("CREATE TABLE pt_1 PARTITION OF pt FOR VALUES FROM (MINVALUE) TO (%d) USING hotheap" % a)
            self.x("CREATE TABLE pt_2 PARTITION OF pt FOR VALUES FROM (%d) TO (%d) USING hotheap" % (a, b))
            self.x("CREATE TABLE pt_3 (%s) USING hotheap" % rdefs)
            self.x("ALTER TABLE pt ATTACH PARTITION pt_3 FOR VALUES FROM (%d) TO (MAXVALUE)" % b)
            self.x("INSERT INTO pt (%s) SELECT %s FROM t" % (colnames, colnames))
            self.x("CREATE INDEX pt_id ON pt (id)")
            self.x("CREATE INDEX pt_k ON pt (k_int)")
            self.x("ANALYZE pt")
            self.tables.append(("pt", self.cols))
        # An inheritance tree.
        if rng.random() < 0.3:
            self.x("CREATE TABLE ih (LIKE t INCLUDING STORAGE) USING hotheap")
            self.x("CREATE TABLE ih_c (extra int) INHERITS (ih) USING hotheap")
            self.x("INSERT INTO ih (%s) SELECT %s FROM t WHERE id %% 3 <> 0" % (colnames, colnames))
            self.x("INSERT INTO ih_c (%s, extra) SELECT %s, id %% 11 FROM t WHERE id %% 3 = 0" % (colnames, colnames))
            self.x("CREATE INDEX ih_id ON ih (id)")
            self.x("CREATE INDEX ih_c_id ON ih_c (id)")
            self.x("ANALYZE ih")
            self.x("ANALYZE ih_c")
            self.tables.append(("ih", self.cols))
        # Row-level security on t, seen by a non-owner role.
        self.rls = rng.random() < 0.3
        if self.rls:
            js = [c for c in self.cols if c.kind == "jsonb"]
            pol = "k_int % 4 <> 1"
            if js:
                pol += " AND (%s->>'k') IS DISTINCT FROM 'k3'" % js[0].name
            self.x("ALTER TABLE t ENABLE ROW LEVEL SECURITY")
            self.x("CREATE POLICY p_sel ON t FOR SELECT USING (%s)" % pol)
            self.x("GRANT USAGE ON SCHEMA %s TO %s" % (self.schema, RLS_ROLE))
            self.x("GRANT SELECT ON ALL TABLES IN SCHEMA %s TO %s" % (self.schema, RLS_ROLE))
        # Session settings of the seed.
        self.session = []
        self.parallel = rng.random() < 0.3
        if self.parallel:
            self.session += [("max_parallel_workers_per_gather", "2"), ("parallel_setup_cost", "0"),
                             ("parallel_tuple_cost", "0"), ("min_parallel_table_scan_size", "0"),
                             ("min_parallel_index_scan_size", "0")]
        self.jit = rng.random() < 0.25
        if self.jit:
            # Every query compiled; inlined and optimized too for some (full_jit(): 0.2 s each).
            self.session += [("jit", "on"), ("jit_above_cost", "0"), ("jit_inline_above_cost", "-1"),
                             ("jit_optimize_above_cost", "-1")]
        else:
            # Not above the default cost thresholds either (forced scan types cost 1e10).
            self.session += [("jit", "off")]
        self.generic = rng.random() < 0.4
        if self.generic:
            self.session += [("plan_cache_mode", "force_generic_plan")]
        for s in self.settings_sql(self.session):
            self.x(s)
        self.build_time = time.time() - t0

    # -- expression generators -----------------------------------------------------------------
    def tmpl_ok(self, t):
        if t.startswith("#"):
            tag, t = t[1:].split(" ", 1)
            if tag in self.avoid:
                return None
        return t

    def proj(self, c, alias, allow_heavy=True):
        """(expression, heavy)"""
        for _ in range(20):
            t = self.tmpl_ok(self.rng.choice(PROJ[c.kind]))
            if t is None:
                continue
            heavy = t.startswith("!")
            if heavy:
                if not allow_heavy:
                    continue
                t = t[1:]
            return t.replace("$C", "%s.%s" % (alias, c.name)), heavy and c.bigpct > 0 or heavy and c.kind in TOASTABLE
        return "%s.%s IS NULL" % (alias, c.name), False

    def leaf_pred(self, c, alias):
        rng = self.rng
        C = "%s.%s" % (alias, c.name)
        r = rng.randrange(max(2, c.card))
        k = c.kind
        if rng.random() < 0.08 and not c.notnull:
            return "%s IS %sNULL" % (C, rng.choice(["", "NOT "]))
        if k in ("int",):
            opts = ["%s = %d" % (C, r), "%s > %d" % (C, r - c.card // 2), "%s IN (%d, %d, %d)" % (C, r, r + 1, r // 2),
                    "%s = ANY(ARRAY[%d, %d])" % (C, r, r + 3), "%s BETWEEN %d AND %d" % (C, -r, r),
                    "%s %% 3 = 1" % C, "%s <> %d" % (C, r)]
        elif k in ("bigint", "smallint"):
            opts = ["%s > %d" % (C, rng.randint(-20000, 20000)), "%s %% 5 = 0" % C]
        elif k == "bool":
            opts = [C, "NOT %s" % C, "%s IS NOT TRUE" % C]
        elif k == "float8":
            opts = ["%s > %d.5" % (C, rng.randint(-5000, 5000))]
        elif k == "numeric":
            opts = ["%s > %d" % (C, rng.randint(-5000, 5000)), "round(%s) <> %d" % (C, r), "%s < 0" % C]
        elif k in ("text", "varchar"):
            opts = ["%s = 's%d'" % (C, r), "%s > 's%d'" % (C, r), "%s LIKE 's1%%'" % C, "length(%s) > 100" % C,
                    "%s LIKE '%%ab%d%%'" % (C, r % 10), "left(%s, 2) = 'ab'" % C, "%s IN ('s1', 's2', 's%d')" % (C, r),
                    "%s < 'm'" % C, "%s LIKE '%%a%%'" % C]
        elif k == "jsonb":
            opts = ["%s->>'k' = 'k%d'" % (C, r % 20), "(%s->>'a')::int > %d" % (C, r % 10), "%s ? 'f5'" % C,
                    "%s @> '{\"b\": \"b3\"}'" % C, "%s->'nested'->>'x' = '2'" % C,
                    "%s->>'k' IN ('k1', 'k2', 'k%d')" % (C, r % 20), "%s->>'f10' IS NOT NULL" % C,
                    "%s->>'k' = ANY(ARRAY['k1', 'k4', 'k%d'])" % (C, r % 20), "%s->>'b' <> 'b%d'" % (C, r % 7)]
        elif k == "bytea":
            opts = ["length(%s) > 100" % C, "substr(%s, 1, 1) = '\\x00'::bytea" % C, "get_byte(%s, 0) > 100" % C]
        elif k == "intarr":
            opts = ["%s @> ARRAY[3]" % C, "3 = ANY(%s)" % C, "cardinality(%s) > 100" % C, "%s[1] = 2" % C,
                    "%s && ARRAY[1, 2]" % C]
        elif k == "date":
            opts = ["%s > date '2021-0%d-01'" % (C, rng.randint(1, 9))]
        else:
            opts = ["%s < timestamptz '2020-02-0%d 00:00:00+00'" % (C, rng.randint(1, 9))]
        return rng.choice(opts)

    def subq_pred(self, alias):
        rng = self.rng
        A = "%s.k_int" % alias
        return rng.choice([
            "EXISTS (SELECT 1 FROM o WHERE o.x = %s)" % A,
            "EXISTS (SELECT 1 FROM o WHERE o.x = %s AND o.big->>'a' = '%d')" % (A, rng.randrange(10)),
            "NOT EXISTS (SELECT 1 FROM o WHERE o.x = %s AND o.id %% 3 = 0)" % A,
            "%s IN (SELECT o.x FROM o WHERE o.id %% 4 = 1)" % A,
            "%s > (SELECT avg(o.x) FROM o)" % A,
            "%s.id %% 5 = (SELECT min(o.p2) FROM o WHERE o.x = %s)" % (alias, A),
        ])

    def pred(self, alias, cols, depth=0, allow_sub=True):
        rng = self.rng
        r = rng.random()
        if depth < 2 and r < 0.35:
            n = rng.randint(2, 3)
            parts = [self.pred(alias, cols, depth + 1, allow_sub) for _ in range(n)]
            return "(" + (" AND " if rng.random() < 0.6 else " OR ").join(parts) + ")"
        if depth < 2 and r < 0.4:
            return "NOT (%s)" % self.pred(alias, cols, depth + 1, allow_sub)
        if allow_sub and r < 0.47:
            return self.subq_pred(alias)
        return self.leaf_pred(rng.choice(cols), alias)

    def select_list(self, alias, cols, k=None, allow_heavy=True):
        """(list of expressions, heavy)"""
        rng = self.rng
        k = k or rng.randint(1, min(6, len(cols)))
        exprs, heavy = [], False
        for c in rng.sample(cols, k):
            e, hv = self.proj(c, alias, allow_heavy)
            exprs.append(e)
            heavy |= hv
        # Repeated references to one toastable column.
        if rng.random() < 0.55:
            tc = [c for c in cols if c.kind in BOOST]
            big = [c for c in tc if c.bigpct]
            if tc:
                c = rng.choice(big if big and rng.random() < 0.7 else tc)
                for t in rng.sample(BOOST[c.kind], min(len(BOOST[c.kind]), rng.randint(1, 3))):
                    exprs.append(t.replace("$C", "%s.%s" % (alias, c.name)))
                if allow_heavy and rng.random() < 0.3:
                    exprs.append("%s.%s" % (alias, c.name))
                    heavy = True
        r = rng.random()
        if r < 0.06:
            exprs.append("%s.ctid" % alias)
        elif r < 0.1:
            exprs.append("%s.xmin::text" % alias)
        elif r < 0.16:
            exprs.append("md5(%s::text)" % alias)
        elif r < 0.2:
            exprs.append("md5(row_to_json(%s)::text)" % alias)
        elif r < 0.22 and allow_heavy:
            exprs.append("%s.*::text" % alias)
            heavy = True
        elif r < 0.26:
            exprs.append("%s.tableoid::regclass::text" % alias)
        return exprs, heavy

    def thin(self, alias, heavy):
        """A qual that keeps a heavy query to a few dozen rows."""
        if not heavy:
            return None
        mod = max(1, self.nrows // 40)
        return "%s.id %% %d = %d" % (alias, mod, self.rng.randrange(mod))

    # -- queries -----------------------------------------------------------------------------------
    def full_jit(self):
        if self.jit and self.rng.random() < 0.15:
            return [("jit_inline_above_cost", "0"), ("jit_optimize_above_cost", "0")]
        return []

    def scan_sets(self):
        r = self.rng.random()
        if r < 0.35:
            return []
        if r < 0.55:
            return [("enable_indexscan", "off"), ("enable_bitmapscan", "off")]
        if r < 0.75:
            return [("enable_seqscan", "off"), ("enable_bitmapscan", "off")]
        if r < 0.9:
            return [("enable_seqscan", "off"), ("enable_indexscan", "off")]
        return [("enable_seqscan", "off")]

    def join_sets(self):
        return self.rng.choice([[], [("enable_hashjoin", "off"), ("enable_mergejoin", "off")],
                                [("enable_nestloop", "off"), ("enable_mergejoin", "off")],
                                [("enable_nestloop", "off"), ("enable_hashjoin", "off")]])

    def gen_query(self):
        """(sql, ordered, sets, role, extra checks): a query of issue 31's shapes (q_exact), of the
        other shapes of the read path above the scan, or of the general ones."""
        rng = self.rng
        r = rng.random()
        q = None
        if r < 0.12:
            q = self.gen_query2(shape="exact")
        elif r < 0.56:
            q = self.gen_query2()
        return q or self.gen_query1() + ({},)

    def gen_query1(self):
        """(sql, ordered, sets, role)"""
        rng = self.rng
        tname, cols = rng.choice(self.tables) if rng.random() < 0.4 else self.tables[0]
        a = "t"
        sets = self.scan_sets()
        role = self.rls and tname == "t" and rng.random() < 0.35
        shape = rng.choice(["plain", "plain", "plain", "star", "count", "agg", "distinct", "selfjoin", "join",
                            "lateral", "limit", "union", "cte", "window", "scalar", "orderexpr", "forupdate",
                            "in_sub"])
        where = self.pred(a, cols) if rng.random() < 0.85 else None

        def W(*extra):
            parts = [p for p in (where,) + extra if p]
            return (" WHERE " + " AND ".join(parts)) if parts else ""

        if shape in ("plain", "forupdate") or (shape == "forupdate" and role):
            exprs, heavy = self.select_list(a, cols)
            sql = "SELECT %s.id, %s FROM %s %s%s ORDER BY %s.id" % (a, ", ".join(exprs), tname, a,
                                                                  W(self.thin(a, heavy)), a)
            if shape == "forupdate" and not role and tname == "t":
                sql += rng.choice([" FOR UPDATE", " FOR SHARE", " FOR NO KEY UPDATE"])
            return sql, True, sets, role
        if shape == "star":
            return ("SELECT * FROM %s %s%s ORDER BY id" % (tname, a, W(self.thin(a, True))), True, sets, role)
        if shape == "count":
            return ("SELECT count(*) FROM %s %s%s" % (tname, a, W()), True, sets, role)
        if shape == "agg":
            g = rng.choice(["%s.k_int" % a, "%s.id %% 7" % a, self.proj(rng.choice(cols), a, False)[0]])
            aggs = ["count(*)"]
            for c in rng.sample(cols, min(len(cols), rng.randint(1, 3))):
                C = "%s.%s" % (a, c.name)
                if c.kind in ("int", "smallint", "bigint", "numeric"):
                    aggs.append("sum(%s)" % C)
                elif c.kind in ("text", "varchar"):
                    aggs.append(rng.choice(["max(%s)" % C, "md5(string_agg(%s, ',' ORDER BY %s.id))" % (C, a),
                                            "min(length(%s))" % C]))
                elif c.kind == "jsonb":
                    aggs.append(rng.choice(["md5(jsonb_agg(%s ORDER BY %s.id)::text)" % (C, a),
                                            "jsonb_agg(%s->'a' ORDER BY %s.id)" % (C, a),
                                            "string_agg(%s->>'k', ',' ORDER BY %s.id)" % (C, a)]))
                else:
                    aggs.append("count(%s)" % C)
            exprs, _ = self.select_list(a, cols, 1, allow_heavy=False)
            aggs.append("max(md5((%s)::text))" % exprs[0])
            sql = "SELECT %s AS g, %s FROM %s %s%s GROUP BY 1 ORDER BY 1" % (g, ", ".join(aggs), tname, a, W())
            if rng.random() < 0.3:
                sql = sql.replace(" ORDER BY 1", " HAVING count(*) > 1 ORDER BY 1")
            return sql, True, sets, role
        if shape == "distinct":
            exprs, _ = self.select_list(a, cols, rng.randint(1, 2), allow_heavy=False)
            return ("SELECT DISTINCT %s FROM %s %s%s" % (", ".join(exprs), tname, a, W()), False, sets, role)
        if shape == "selfjoin":
            ea, ha = self.select_list("a", cols, rng.randint(1, 3))
            eb, hb = self.select_list("b", cols, rng.randint(1, 3))
            on = rng.choice(["b.id = a.id + 1", "b.id = a.id", "b.k_int = a.k_int AND b.id BETWEEN a.id AND a.id + 2"])
            wa = self.pred("a", cols) if rng.random() < 0.7 else "true"
            wb = self.pred("b", cols, allow_sub=False) if rng.random() < 0.5 else "true"
            thin = self.thin("a", ha or hb) or "true"
            sql = ("SELECT a.id, b.id, %s FROM %s a JOIN %s b ON %s WHERE %s AND %s AND %s ORDER BY a.id, b.id"
                   % (", ".join(ea + eb), tname, tname, on, wa, wb, thin))
            return sql, True, sets + self.join_sets(), role
        if shape == "join":
            exprs, heavy = self.select_list(a, cols, rng.randint(1, 3))
            oexp = rng.sample(["o.y", "o.big->>'k'", "o.big->'a'", "length(o.y)", "md5(o.big::text)", "o.p3",
                               "o.big->>'f3'", "pg_column_size(o.big)"], rng.randint(1, 3))
            jt = rng.choice(["JOIN", "LEFT JOIN"])
            on = rng.choice(["o.x = %s.k_int" % a, "o.id = %s.id" % a, "o.x = %s.k_int AND o.big->>'b' = 'b2'" % a])
            sql = ("SELECT %s.id, o.id, %s, %s FROM %s %s %s o ON %s%s ORDER BY %s.id, o.id"
                   % (a, ", ".join(exprs), ", ".join(oexp), tname, a, jt, on, W(self.thin(a, heavy)), a))
            return sql, True, sets + self.join_sets(), role
        if shape == "lateral":
            exprs, heavy = self.select_list(a, cols, rng.randint(1, 3))
            lw = rng.choice(["o.x = %s.k_int" % a, "o.id BETWEEN %s.id AND %s.id + 2" % (a, a)])
            sql = ("SELECT %s.id, l.oid, l.ok, l.oa, %s FROM %s %s CROSS JOIN LATERAL (SELECT o.id AS oid, "
                   "o.big->>'k' AS ok, o.big->'a' AS oa FROM o WHERE %s AND o.big->>'b' IS NOT NULL "
                   "ORDER BY o.id LIMIT 2) l%s ORDER BY %s.id, l.oid"
                   % (a, ", ".join(exprs), tname, a, lw, W(self.thin(a, heavy)), a))
            return sql, True, sets + self.join_sets(), role
        if shape == "limit":
            exprs, heavy = self.select_list(a, cols)
            return ("SELECT %s.id, %s FROM %s %s%s ORDER BY %s.id LIMIT %d OFFSET %d"
                    % (a, ", ".join(exprs), tname, a, W(), a, rng.randint(1, 40), rng.randint(0, 30)), True,
                    sets, role)
        if shape == "union":
            e1, h1 = self.select_list(a, cols, 2)
            e2, h2 = self.select_list(a, cols, 2)
            w2 = self.pred(a, cols)
            return ("SELECT %s.id, (%s)::text, (%s)::text FROM %s %s%s UNION ALL SELECT %s.id, (%s)::text, (%s)::text "
                    "FROM %s %s WHERE %s%s"
                    % (a, e1[0], e1[1], tname, a, W(self.thin(a, h1)), a, e2[0], e2[1], tname, a, w2,
                       " AND " + self.thin(a, h2) if h2 else ""), False, sets, role)
        if shape == "cte":
            exprs, heavy = self.select_list(a, cols, rng.randint(1, 3))
            names = ["e%d" % i for i in range(len(exprs))]
            mat = rng.choice(["", "MATERIALIZED ", "NOT MATERIALIZED "])
            sql = ("WITH w AS %s(SELECT %s.id, %s FROM %s %s%s) SELECT w.*, o.y IS NULL FROM w LEFT JOIN o ON o.id = w.id"
                   " ORDER BY w.id" % (mat, a, ", ".join("%s AS %s" % (e, n) for e, n in zip(exprs, names)), tname, a,
                                       W(self.thin(a, heavy))))
            return sql, True, sets + self.join_sets(), role
        if shape == "window":
            exprs, heavy = self.select_list(a, cols, rng.randint(1, 2))
            c = rng.choice(cols)
            e, _ = self.proj(c, a, False)
            win = rng.choice(["row_number() OVER (PARTITION BY %s.k_int ORDER BY %s.id)" % (a, a),
                              "lag(md5((%s)::text)) OVER (ORDER BY %s.id)" % (e, a),
                              "count(*) OVER (PARTITION BY %s.k_int)" % a,
                              "first_value((%s)::text) OVER (PARTITION BY %s.k_int ORDER BY %s.id)" % (e, a, a)])
            return ("SELECT %s.id, %s, %s FROM %s %s%s ORDER BY %s.id" % (a, ", ".join(exprs), win, tname, a,
                                                                        W(self.thin(a, heavy)), a), True, sets, role)
        if shape == "scalar":
            exprs, heavy = self.select_list(a, cols, rng.randint(1, 3))
            sub = rng.choice(["(SELECT count(*) FROM o WHERE o.x = %s.k_int)" % a,
                              "(SELECT max(o.big->>'k') FROM o WHERE o.x = %s.k_int)" % a,
                              "(SELECT o.y FROM o WHERE o.id = %s.id)" % a,
                              "(SELECT max(length(b.%s::text)) FROM %s b WHERE b.id = %s.id + 1)"
                              % (rng.choice(cols).name, tname, a)])
            return ("SELECT %s.id, %s, %s FROM %s %s%s ORDER BY %s.id" % (a, ", ".join(exprs), sub, tname, a,
                                                                        W(self.thin(a, heavy)), a), True, sets, role)
        if shape == "orderexpr":
            exprs, heavy = self.select_list(a, cols)
            return ("SELECT %s.id, %s FROM %s %s%s ORDER BY %s DESC NULLS FIRST, %s.id"
                    % (a, ", ".join(exprs), tname, a, W(self.thin(a, heavy)), exprs[0], a), True, sets, role)
        # in_sub
        exprs, heavy = self.select_list(a, cols)
        return ("SELECT %s.id, %s FROM %s %s WHERE %s.id IN (SELECT b.id FROM %s b WHERE %s)%s ORDER BY %s.id"
                % (a, ", ".join(exprs), tname, a, a, tname, self.pred("b", cols),
                   " AND " + self.thin(a, heavy) if heavy else "", a), True, sets, role)

    # -- the read path above the scan (D14b) ----------------------------------------------------------
    # Queries that put repeated references to one toastable column in the expressions a plan node
    # evaluates on a hotheap scan's rows: aggregates, joins, windows, subqueries, set operations,
    # CTEs, LATERAL, sort and group keys. A column is given as an expression ("t.c5_jsonb",
    # "o.big", "w.v") and its kind.
    def big_col(self, cols, kinds=REP):
        """A toastable column for repeated references, preferably one with big values and of one
        of kinds, or None."""
        rng = self.rng
        tc = [c for c in cols if c.kind in REP]
        if rng.random() < 0.8 and any(c.kind in kinds for c in tc):
            tc = [c for c in tc if c.kind in kinds]
        if not tc:
            return None
        big = [c for c in tc if c.bigpct]
        return rng.choice(big if big and rng.random() < 0.75 else tc)

    def some(self, pool, C, kind, n):
        """n different expressions of pool[kind] over column C."""
        ts = pool[kind]
        return [t.replace("$C", C) for t in self.rng.sample(ts, min(n, len(ts)))]

    def join_refs(self, C, kind):
        """References to C in a join's output list: mostly calls that may move below the join."""
        rng = self.rng
        if kind not in SAFE:
            return self.some(REP, C, kind, rng.randint(1, 3))
        return self.some(SAFE, C, kind, rng.randint(1, 3)) + self.some(REP, C, kind, rng.randint(0, 1))

    def one(self, pool, C, kind):
        return self.rng.choice(pool[kind]).replace("$C", C)

    def unsafe(self, C, kind):
        """(guard, expression that raises an error on some rows where the guard is not true)."""
        g, e = self.rng.choice(UNSAFE[kind])
        return g.replace("$C", C), e.replace("$C", C)

    def where(self, alias, cols, p=0.75):
        rng = self.rng
        if rng.random() < 0.05:
            # A TID range scan below the node.
            return " WHERE %s.ctid < '(%d,0)'" % (alias, rng.randint(2, 60)) + (
                " AND " + self.pred(alias, cols) if rng.random() < p else "")
        return " WHERE " + self.pred(alias, cols) if rng.random() < p else ""

    def aggregate(self, C, kind, idk):
        """An aggregate over column C (idk: the input's unique key, for ORDER BY inside)."""
        rng = self.rng
        E = lambda: self.one(REP, C, kind)  # noqa: E731
        N = lambda: self.one(NUM, C, kind)  # noqa: E731
        B = lambda: self.one(COND, C, kind)  # noqa: E731
        r = rng.randrange(18)
        if r == 0:
            return "max((%s)::text)" % E()
        if r == 1:
            return "min((%s)::text)" % E()
        if r == 2:
            return "count(DISTINCT %s)" % E()
        if r == 3:
            return "sum(%s)" % N()
        if r == 4:
            return "avg(%s)" % N()
        if r == 5:
            return "md5(string_agg((%s)::text, ',' ORDER BY (%s)::text, %s))" % (E(), E(), idk)
        if r == 6:
            e = E()
            return "md5(string_agg(DISTINCT (%s)::text, ',' ORDER BY (%s)::text))" % (e, e)
        if r == 7:
            return "max((%s)::text) FILTER (WHERE %s)" % (E(), B())
        if r == 8:
            return "sum(%s) FILTER (WHERE %s)" % (N(), B())
        if r == 9:
            return "count(*) FILTER (WHERE %s)" % B()
        if r == 10:
            return "%s(%s)" % (rng.choice(["bool_and", "bool_or"]), B())
        if r == 11:
            return "md5(array_agg((%s)::text ORDER BY %s)::text)" % (E(), idk)
        if r == 12:
            return "mode() WITHIN GROUP (ORDER BY (%s)::text)" % E()
        if r == 13:
            return "percentile_disc(0.5) WITHIN GROUP (ORDER BY %s)" % N()
        if r == 14:
            return "count(DISTINCT %s) FILTER (WHERE %s)" % (E(), B())
        u = self.unsafe(C, kind)
        if u is None:
            return "max(%s) FILTER (WHERE %s)" % (N(), B())
        g, e = u
        forms = ["sum(%s) FILTER (WHERE %s)" % (e, g), "max(CASE WHEN %s THEN %s END)" % (g, e),
                 "sum(CASE WHEN %s THEN %s ELSE 0 END) FILTER (WHERE %s)" % (g, e, B()),
                 "count(DISTINCT %s) FILTER (WHERE %s AND %s)" % (e, g, B())]
        if rng.random() < 0.08:
            forms.append("sum(%s)" % e)  # fails on heap too where a row fails (skipped)
        return rng.choice(forms)

    def partner(self, tname, cols, a="t"):
        """A table to join with alias a: (from item, alias, [(column, kind)], join condition, whether
        the condition is merge/hash joinable). o is hotheap, oh (alias hx) heap, b the same table."""
        rng = self.rng
        p = rng.choice(["o", "o", "oh", "self"])
        if p == "self":
            c2 = self.big_col(cols)
            on, eq = rng.choice([("b.id = $A.id + 1", True), ("b.id = $A.id", True),
                                 ("b.k_int = $A.k_int AND b.id BETWEEN $A.id AND $A.id + 3", False)])
            return "%s b" % tname, "b", [("b.%s" % c2.name, c2.kind)], on.replace("$A", a), eq
        al = "o" if p == "o" else "hx"
        on = rng.choice(["$O.x = $A.k_int", "$O.id = $A.id", "$O.x = $A.k_int AND $O.id % 3 = $A.id % 3"])
        return "%s %s" % (p, al), al, [("%s.big" % al, "jsonb"), ("%s.y" % al, "text")], \
            on.replace("$A", a).replace("$O", al), True

    def cross_qual(self, A, ak, B, bk):
        """A join qual with references to columns of both sides."""
        rng = self.rng
        r = rng.randrange(4)
        if r == 0:
            return "(%s)::text IS DISTINCT FROM (%s)::text" % (self.one(REP, A, ak), self.one(REP, B, bk))
        if r == 1:
            return "length((%s)::text) + length((%s)::text) > %d" % (self.one(REP, A, ak), self.one(REP, B, bk),
                                                                    rng.randint(0, 12))
        if r == 2:
            return "(%s OR %s)" % (self.one(COND, A, ak), self.one(COND, B, bk))
        if ak == bk == "jsonb":
            return "%s->>'%s' <> %s->>'%s'" % (A, rng.choice("bk"), B, rng.choice("bk"))
        return "(%s) <> (%s)" % (self.one(NUM, A, ak), self.one(NUM, B, bk))

    def gen_query2(self, cursor=False, shape=None):
        """(sql, ordered, sets, role, extra checks) of a query of the read path above the scan (of
        the given shape), or None when the table has no toastable column. For a cursor: a totally
        ordered one, without a role. The extra checks are q_exact's (run_query)."""
        rng = self.rng
        tname, cols = rng.choice(self.tables) if rng.random() < 0.4 else self.tables[0]
        c = self.big_col(cols)
        if c is None:
            return None
        role = not cursor and self.rls and tname == "t" and rng.random() < 0.35
        forced = shape
        for _ in range(5):
            shape = forced or rng.choice(["agg", "agg", "agg", "join", "join", "join", "window", "window", "sublist",
                                          "sublist", "union", "cte", "lateral", "lateral", "subscan", "orderby",
                                          "exact"])
            if shape == "exact":
                sql, ordered, sets, extra = self.q_exact(tname, cols, cursor)
            else:
                (sql, ordered, sets), extra = getattr(self, "q_" + shape)(tname, cols, c), {}
            if rng.random() < 0.06:
                # A sample scan below the node (the same rows in both modes: REPEATABLE).
                sql = re.sub(r"FROM %s t(?=[ ,)]|$)" % tname, "FROM %s t TABLESAMPLE %s (%d) REPEATABLE (%d)" % (
                    tname, rng.choice(["BERNOULLI", "SYSTEM"]), rng.choice([30, 60, 90]), rng.randrange(100)), sql, count=1)
            if ordered or not cursor:
                role = role and "FOR UPDATE" not in sql  # the role may only read
                sets = self.scan_sets() + sets
                if rng.random() < 0.15 and ("work_mem", "'64kB'") not in sets:
                    # Sorts, hash tables and hash joins that spill to disk below the consumer.
                    sets.append(("work_mem", "'64kB'"))
                if extra.get("serial"):
                    # Which row comes first decides the error, or the temporary blocks are compared.
                    if self.parallel:
                        sets.append(("max_parallel_workers_per_gather", "0"))
                elif (not self.parallel and not cursor and rng.random() < 0.06 and
                      ("enable_material", "off") not in sets):
                    sets += [("max_parallel_workers_per_gather", "2"), ("parallel_setup_cost", "0"),
                             ("parallel_tuple_cost", "0"), ("min_parallel_table_scan_size", "0")]
                return sql, ordered, sets, role, extra
        return None

    def q_agg(self, tname, cols, c):
        """Aggregates (FILTER, DISTINCT, ORDER BY inside, ordered-set) over one column, grouped by
        expressions of it or of other columns; sometimes over a join."""
        rng = self.rng
        C, k = "t.%s" % c.name, c.kind
        sets = rng.choice([[], [("enable_hashagg", "off")], [("enable_hashagg", "off")], [("enable_sort", "off")]])
        src, idk = "%s t" % tname, "t.id"
        refs = [(C, k)]
        keys = ["t.k_int", "t.id % 7", self.one(KEY, C, k), self.one(KEY, C, k)]
        if rng.random() < 0.35:
            other, oa, orefs, on, _ = self.partner(tname, cols)
            oc = rng.choice(orefs)
            if rng.random() < 0.4:
                on += " AND " + self.cross_qual(C, k, oc[0], oc[1])
            src += " %s %s ON %s" % (rng.choice(["JOIN", "JOIN", "LEFT JOIN"]), other, on)
            idk = "t.id, %s.id" % oa
            refs = [(C, k), oc] if rng.random() < 0.6 else [oc]
            keys.append(self.one(KEY, oc[0], oc[1]))
            # (Not with enable_sort = off: a merge join's sorts then lose to a disabled nested loop
            # without Material, which with parallel query starts workers for every outer row.)
            sets = [kv for kv in sets if kv[0] != "enable_sort"] + self.join_sets()
        aggs = ["count(*)"] + [self.aggregate(*rng.choice(refs), idk=idk) for _ in range(rng.randint(2, 5))]
        where = self.where("t", cols, 0.6)
        if rng.random() < 0.12:
            return "SELECT %s FROM %s%s" % (", ".join(aggs), src, where), True, sets
        keys = rng.sample(keys, rng.choice([1, 1, 2]))
        pos = ", ".join(str(i + 1) for i in range(len(keys)))
        grouping = pos
        if len(keys) == 2 and rng.random() < 0.15:
            grouping = "ROLLUP (%s)" % pos
        elif rng.random() < 0.1:
            # grouping sets: hashed, sorted or mixed, the arguments of every set's aggregates
            grouping = rng.choice(["GROUPING SETS ((%s), ())" % pos, "CUBE (%s)" % pos])
        sql = "SELECT %s, %s FROM %s%s GROUP BY %s" % (", ".join(keys), ", ".join(aggs), src, where, grouping)
        if rng.random() < 0.25:
            sql += " HAVING " + rng.choice(["count(*) > 1", "%s IS NOT NULL" % self.aggregate(*refs[0], idk=idk)])
        sql += " ORDER BY " + (pos if rng.random() < 0.7 else "%d DESC, %s" % (len(keys) + 1, pos))
        return sql, grouping == pos, sets

    def q_join(self, tname, cols, c):
        """A join (hash, merge or nested loop) with repeated references on both sides in the output
        list and the quals; where a side's expression fails on rows the join does not match, only
        the matches evaluate it."""
        rng = self.rng
        c = self.big_col(cols, SAFE)
        C, k = "t.%s" % c.name, c.kind
        other, oa, orefs, on, eq = self.partner(tname, cols)
        OC, ok = rng.choice(orefs)
        jt = rng.choice(["JOIN", "JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "EXISTS", "NOT EXISTS"])
        if jt == "FULL JOIN" and not eq:
            jt = "JOIN"
        quals = [on]
        if jt != "FULL JOIN" and rng.random() < 0.5:
            quals.append(self.cross_qual(C, k, OC, ok))
        ta = self.join_refs(C, k)
        oe = self.join_refs(OC, ok)
        if jt in ("JOIN", "RIGHT JOIN") and rng.random() < 0.4:
            u = self.unsafe(C, k)
            if u:
                quals.append("(%s) = (%s.id > 0)" % (u[0], oa))
                ta.append(u[1])
        if jt in ("JOIN", "LEFT JOIN") and rng.random() < 0.4:
            u = self.unsafe(OC, ok)
            if u:
                quals.append("(%s) = (t.id > 0)" % u[0])
                oe.append(u[1])
        # (Not enable_material = off with parallel query: a nested loop would start workers for
        # every outer row.)
        # Merge joins more often: their inner side is marked and restored through the node.
        sets = (self.join_sets() if rng.random() < 0.7 else [("enable_nestloop", "off"), ("enable_hashjoin", "off")])
        sets = sets + rng.choice([[], [], [("enable_memoize", "off")]] +
                                 ([] if self.parallel else [[("enable_material", "off")]]))
        where = self.where("t", cols, 0.6)
        if jt.endswith("EXISTS"):
            w = (where + " AND " if where else " WHERE ") + "%s (SELECT 1 FROM %s WHERE %s)" % (
                jt, other, " AND ".join(quals))
            return "SELECT t.id, %s FROM %s t%s ORDER BY t.id" % (", ".join(ta), tname, w), True, sets
        lock = " FOR UPDATE OF t" if tname == "t" and jt in ("JOIN", "LEFT JOIN") and rng.random() < 0.1 else ""
        return ("SELECT t.id, %s.id, %s, %s FROM %s t %s %s ON %s%s ORDER BY t.id, %s.id%s"
                % (oa, ", ".join(ta), ", ".join(oe), tname, jt, other, " AND ".join(quals), where, oa, lock),
                True, sets)

    def q_window(self, tname, cols, c):
        """Window functions partitioned by an expression of the column, with functions of it as
        arguments; sometimes aggregated above."""
        rng = self.rng
        C, k = "t.%s" % c.name, c.kind
        where = self.where("t", cols, 0.6)
        if rng.random() < 0.25:
            V = "w.v"
            aggs = ["count(*)"] + [self.aggregate(V, k, "w.id") for _ in range(rng.randint(2, 3))]
            return ("SELECT w.g, %s FROM (SELECT t.id, t.k_int AS g, %s AS v, row_number() OVER (PARTITION BY t.k_int "
                    "ORDER BY %s, t.id) AS rn FROM %s t%s) w WHERE w.rn <= %d GROUP BY w.g ORDER BY w.g"
                    % (", ".join(aggs), C, self.one(KEY, C, k), tname, where, rng.randint(1, 6)), True, [])
        P = rng.choice(["t.k_int", "t.id % 4", self.one(KEY, C, k), self.one(KEY, C, k)])
        wins = []
        for _ in range(rng.randint(1, 3)):
            E, N, B = self.one(REP, C, k), self.one(NUM, C, k), self.one(COND, C, k)
            u = self.unsafe(C, k)
            forms = ["count(*) OVER (PARTITION BY %s)" % P,
                     "max((%s)::text) OVER (PARTITION BY %s)" % (E, P),
                     "sum(%s) OVER (PARTITION BY %s ORDER BY t.id)" % (N, P),
                     "first_value((%s)::text) OVER (PARTITION BY %s ORDER BY t.id)" % (E, P),
                     "lag((%s)::text, 1, 'none') OVER (ORDER BY t.id)" % E,
                     "lead(%s) OVER (PARTITION BY %s ORDER BY t.id)" % (N, P),
                     "rank() OVER (PARTITION BY %s ORDER BY (%s)::text)" % (P, E),
                     "row_number() OVER (PARTITION BY %s ORDER BY (%s)::text, t.id)" % (P, E),
                     "count(*) FILTER (WHERE %s) OVER (PARTITION BY %s)" % (B, P),
                     "md5(string_agg((%s)::text, ',') OVER (PARTITION BY %s ORDER BY t.id ROWS BETWEEN 1 PRECEDING "
                     "AND 1 FOLLOWING))" % (E, P),
                     "ntile(3) OVER (ORDER BY %s, t.id)" % N,
                     # frames over stored rows: the arguments evaluated on other rows than the
                     # current one, the same row again for the next output row
                     "max((%s)::text) OVER (ORDER BY t.id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)" % E,
                     "nth_value((%s)::text, 2) OVER (PARTITION BY %s ORDER BY t.id GROUPS BETWEEN 1 PRECEDING "
                     "AND 1 FOLLOWING)" % (E, P),
                     "last_value((%s)::text) OVER (ORDER BY t.id RANGE BETWEEN CURRENT ROW AND UNBOUNDED "
                     "FOLLOWING)" % E]
            if u:
                forms.append("sum(CASE WHEN %s THEN %s END) OVER (PARTITION BY %s)" % (u[0], u[1], P))
            wins.append(rng.choice(forms))
        return ("SELECT t.id, %s, %s FROM %s t%s ORDER BY t.id"
                % (", ".join(self.some(REP, C, k, rng.randint(1, 2))), ", ".join(wins), tname, where), True, [])

    def q_sublist(self, tname, cols, c):
        """Subqueries in the select list: over o or oh with repeated references to their columns,
        over the same table, or reading the outer row's column several times."""
        rng = self.rng
        C, k = "t.%s" % c.name, c.kind
        # Few outer rows: with parallel query, a subquery's plan may start workers per outer row.
        m = max(1, self.nrows // (30 if self.parallel else 120))
        tbl, al = rng.choice([("o", "o"), ("o", "o"), ("oh", "hx")])
        subs = ["(SELECT max(%s.big->>'b') || '/' || min(%s.big->>'k') FROM %s %s WHERE %s.x = t.k_int)"
                % (al, al, tbl, al, al),
                "(SELECT count(*) FROM %s %s WHERE %s.x = t.k_int AND %s.big->>'b' <> 'b%d' AND %s.big ? 'a')"
                % (tbl, al, al, al, rng.randrange(7), al),
                "(SELECT md5(string_agg(md5(%s.y) || length(%s.y), ',' ORDER BY %s.id)) FROM %s %s "
                "WHERE %s.x = t.k_int)"
                % (al, al, al, tbl, al, al),
                "ARRAY(SELECT (%s.big->>'k') || (%s.big->>'b') FROM %s %s WHERE %s.x = t.k_int ORDER BY %s.id LIMIT 3)"
                % (al, al, tbl, al, al, al),
                "(SELECT max((%s)::text) || min((%s)::text) FROM %s b WHERE b.id BETWEEN t.id - 2 AND t.id + 2)"
                % (self.one(REP, "b." + c.name, k), self.one(REP, "b." + c.name, k), tname),
                "(SELECT (%s)::text || (%s)::text)" % (self.one(REP, C, k), self.one(REP, C, k)),
                "EXISTS (SELECT 1 FROM %s %s WHERE %s.x = t.k_int AND length(%s.y) > 100 AND md5(%s.y) > '8')"
                % (tbl, al, al, al, al)]
        sets = []
        if rng.random() < 0.7:
            # An aggregate over a LIMIT or DISTINCT subquery, run again for every outer row with new
            # parameters: the node below the aggregate must pass them on (a hash aggregate keeps
            # its table otherwise).
            subs = [x for x in subs if rng.random() < 0.3]
            if rng.random() < 0.5:
                inner = "SELECT %s.big AS b, %s.y FROM %s %s WHERE %s.x = t.k_int ORDER BY %s.id LIMIT 4" % (
                    al, al, tbl, al, al, al)
            else:
                inner = "SELECT DISTINCT %s.big AS b, %s.y FROM %s %s WHERE %s.x = t.k_int" % (al, al, tbl, al, al)
                sets = rng.choice([[], [("enable_sort", "off")]])
            subs.append("(SELECT max(s.b->>'b') || '/' || min(s.b->>'k') || '/' || count(DISTINCT md5(s.y)) FROM "
                        "(%s) s)" % inner)
        if k == "jsonb":
            subs.append("(SELECT count(*) FROM %s %s WHERE %s.big->>'k' = %s->>'k' AND %s.big->>'b' = %s->>'b')"
                        % (tbl, al, al, C, al, C))
        u = self.unsafe(C, k)
        if u:
            subs.append("(SELECT CASE WHEN %s THEN %s END)" % u)
        sel = self.some(REP, C, k, rng.randint(1, 2)) + rng.sample(subs, min(len(subs), rng.randint(1, 3)))
        where = self.where("t", cols, 0.5)
        where = (where + " AND " if where else " WHERE ") + "t.id %% %d = %d" % (m, rng.randrange(m))
        return "SELECT t.id, %s FROM %s t%s ORDER BY t.id" % (", ".join(sel), tname, where), True, sets

    def q_union(self, tname, cols, c):
        """UNION / UNION ALL (INTERSECT, EXCEPT) branches with repeated references, over t, o and
        oh; or aggregates over a UNION ALL of one column of several tables."""
        rng = self.rng
        C, k = "t.%s" % c.name, c.kind
        if rng.random() < 0.35:
            V = "u.v"
            if k == "jsonb" or k in ("text", "varchar"):
                oc = "big" if k == "jsonb" else "y"
                vk = "jsonb" if k == "jsonb" else "text"
                others = ["SELECT %s.x, %s.id + 100000, %s.%s FROM %s %s" % (al, al, al, oc, tb, al)
                          for tb, al in rng.choice([[("o", "o")], [("o", "o")], [("oh", "hx")],
                                                    [("o", "o"), ("oh", "hx")]])]
            else:
                vk = k
                others = ["SELECT t.k_int, t.id + 100000, %s FROM %s t WHERE t.id %% 3 = 0" % (C, tname)]
            branches = ["SELECT t.k_int AS g, t.id AS id, %s AS v FROM %s t%s" % (C, tname, self.where("t", cols, 0.5))]
            aggs = ["count(*)"] + [self.aggregate(V, vk, "u.id") for _ in range(rng.randint(2, 4))]
            return ("SELECT u.g, %s FROM (%s) u GROUP BY u.g ORDER BY u.g"
                    % (", ".join(aggs), " UNION ALL ".join(branches + others)), True,
                    rng.choice([[], [("enable_hashagg", "off")]]))
        if rng.random() < 0.25 and (k == "jsonb" or k in ("text", "varchar")):
            # Expressions over a UNION ALL's column: a Result projects above the Append.
            tb, al = rng.choice([("o", "o"), ("o", "o"), ("oh", "hx")])
            oc, vk = ("big", "jsonb") if k == "jsonb" else ("y", "text")
            sel = self.some(REP, "u.v", vk, rng.randint(2, 4))
            return ("SELECT u.id, %s FROM (SELECT t.id, %s AS v FROM %s t%s UNION ALL "
                    "SELECT %s.id + 100000, %s.%s FROM %s %s) u ORDER BY u.id"
                    % (", ".join(sel), C, tname, self.where("t", cols, 0.5), al, al, oc, tb, al), True, [])
        branches = []
        for i in range(rng.randint(2, 3)):
            r = rng.randrange(4) if i else 0
            if r == 0:
                e1, e2 = self.some(REP, C, k, 2)
                w = self.pred("t", cols) if rng.random() < 0.6 else "t.id %% 2 = %d" % (i % 2)
                branches.append("SELECT t.id, (%s)::text, (%s)::text FROM %s t WHERE %s" % (e1, e2, tname, w))
            elif r == 1:
                e1, e2 = self.some(REP, C, k, 2)
                branches.append("SELECT t.k_int + 300000, max((%s)::text), min((%s)::text) FROM %s t GROUP BY t.k_int"
                                % (e1, e2, tname))
            else:
                tb, al = ("o", "o") if r == 2 else ("oh", "hx")
                oc, okind = rng.choice([("%s.big" % al, "jsonb"), ("%s.y" % al, "text")])
                e1, e2 = self.some(REP, oc, okind, 2)
                branches.append("SELECT %s.id + 100000, (%s)::text, (%s)::text FROM %s %s WHERE %s.id %% 2 = %d"
                                % (al, e1, e2, tb, al, al, i % 2))
        ops = [rng.choice(["UNION ALL", "UNION ALL", "UNION"]) for _ in branches[1:]]
        if len(branches) == 2 and rng.random() < 0.2:
            ops = [rng.choice(["INTERSECT", "EXCEPT", "EXCEPT ALL"])]
        sql = branches[0]
        for op, b in zip(ops, branches[1:]):
            sql += " %s %s" % (op, b)
        return sql + " ORDER BY 1, 2, 3", True, []

    def q_cte(self, tname, cols, c):
        """A CTE (MATERIALIZED, NOT MATERIALIZED or the default) handing up the column, read several
        times outside (listed, aggregated, joined with o or oh, joined with itself)."""
        rng = self.rng
        C, k = "t.%s" % c.name, c.kind
        mat = rng.choice(["MATERIALIZED ", "NOT MATERIALIZED ", ""])
        body = "SELECT t.id, t.k_int, %s AS v, %s AS e1 FROM %s t%s" % (C, self.one(REP, C, k), tname,
                                                                       self.where("t", cols, 0.6))
        head = "WITH w AS %s(%s) " % (mat, body)
        form = rng.choice(["list", "agg", "join", "self"])
        if form == "list":
            sel = self.some(REP, "w.v", k, rng.randint(2, 3))
            return head + "SELECT w.id, w.e1, %s FROM w ORDER BY w.id" % ", ".join(sel), True, []
        if form == "agg":
            aggs = ["count(*)"] + [self.aggregate("w.v", k, "w.id") for _ in range(rng.randint(2, 4))]
            return (head + "SELECT w.k_int, %s FROM w GROUP BY 1 ORDER BY 1" % ", ".join(aggs), True,
                    rng.choice([[], [("enable_hashagg", "off")]]))
        if form == "join":
            tb, al = rng.choice([("o", "o"), ("oh", "hx")])
            oc, okind = rng.choice([("%s.big" % al, "jsonb"), ("%s.y" % al, "text")])
            sel = self.some(REP, "w.v", k, rng.randint(1, 3)) + self.some(REP, oc, okind, rng.randint(1, 3))
            return (head + "SELECT w.id, %s.id, %s FROM w JOIN %s %s ON %s.x = w.k_int ORDER BY w.id, %s.id"
                    % (al, ", ".join(sel), tb, al, al, al), True, self.join_sets())
        sel = self.some(REP, "a.v", k, rng.randint(1, 2)) + self.some(REP, "b.v", k, rng.randint(1, 2))
        return (head + "SELECT a.id, b.id, %s FROM w a JOIN w b ON b.id = a.id + 1 ORDER BY a.id" % ", ".join(sel),
                True, self.join_sets())

    def q_lateral(self, tname, cols, c):
        """LATERAL subqueries: reading the outer row's column several times, aggregating o or oh
        per outer row, the first rows of o or oh, or a set-returning function of the column."""
        rng = self.rng
        C, k = "t.%s" % c.name, c.kind
        where = self.where("t", cols, 0.6)
        tb, al = rng.choice([("o", "o"), ("oh", "hx")])
        r = rng.choice([0, 1, 2, 3, 4, 4] + ([5] if k == "jsonb" else []))
        outer = self.some(REP, C, k, rng.randint(0, 2))
        sel = "".join(", " + e for e in outer)
        if r == 4:
            tb, al = rng.choice([("o", "o"), ("o", "o"), ("oh", "hx")])
            # Aggregates over a LIMIT subquery, for every outer row with new parameters.
            oc, okind = rng.choice([("s.b", "jsonb"), ("s.y", "text")])
            aggs = ["count(*) AS c"] + ["%s AS a%d" % (self.aggregate(oc, okind, "s.id"), i)
                                        for i in range(rng.randint(2, 3))]
            return ("SELECT t.id%s, l.* FROM %s t CROSS JOIN LATERAL (SELECT %s FROM (SELECT %s.id, %s.big AS b, %s.y "
                    "FROM %s %s WHERE %s.x = t.k_int ORDER BY %s.id LIMIT %d) s) l%s ORDER BY t.id"
                    % (sel, tname, ", ".join(aggs), al, al, al, tb, al, al, al, rng.randint(1, 5), where), True,
                    self.join_sets())
        if r == 0:
            inner = ["%s AS l%d" % (e, i) for i, e in enumerate(self.some(REP, C, k, rng.randint(2, 3)))]
            u = self.unsafe(C, k)
            if u and rng.random() < 0.5:
                inner.append("CASE WHEN %s THEN %s END AS lu" % u)
            return ("SELECT t.id%s, l.* FROM %s t CROSS JOIN LATERAL (SELECT %s) l%s ORDER BY t.id"
                    % (sel, tname, ", ".join(inner), where), True, [])
        if r == 1:
            extra = " AND %s->>'k' <> %s->>'k'" % (al + ".big", C) if k == "jsonb" and rng.random() < 0.5 else ""
            return ("SELECT t.id%s, l.* FROM %s t LEFT JOIN LATERAL (SELECT count(*) AS c, max(%s.big->>'b') AS m1, "
                    "min(%s.big->>'k') AS m2, max(md5(%s.y)) AS m3 FROM %s %s WHERE %s.x = t.k_int%s) l ON true%s "
                    "ORDER BY t.id" % (sel, tname, al, al, al, tb, al, al, extra, where), True, self.join_sets())
        if r == 2:
            oc, okind = rng.choice([("%s.big" % al, "jsonb"), ("%s.y" % al, "text")])
            inner = ", ".join("%s AS l%d" % (e, i) for i, e in enumerate(self.some(REP, oc, okind, rng.randint(2, 3))))
            return ("SELECT t.id%s, l.* FROM %s t, LATERAL (SELECT %s.id AS oid, %s FROM %s %s WHERE %s.x = t.k_int "
                    "ORDER BY %s.id LIMIT 2) l%s ORDER BY t.id, l.oid" % (sel, tname, al, inner, tb, al, al, al, where),
                    True, self.join_sets())
        if r == 3:
            u = self.unsafe(C, k)
            inner = ", ".join("%s AS l%d" % (e, i) for i, e in enumerate(self.some(REP, C, k, 2)))
            if u:
                inner += ", CASE WHEN %s THEN %s END AS lu" % u
            return ("SELECT t.id%s, l.* FROM %s t LEFT JOIN LATERAL (SELECT %s FROM %s %s WHERE %s.id = t.id) l "
                    "ON true%s ORDER BY t.id" % (sel, tname, inner, tb, al, al, where), True, self.join_sets())
        return ("SELECT t.id%s, l.key, l.value FROM %s t, LATERAL jsonb_each_text(%s) l WHERE l.key IN ('a', 'b', 'k', "
                "'n', 'f3')%s ORDER BY t.id, l.key" % (sel, tname, C, where.replace(" WHERE ", " AND ", 1)), True, [])

    def q_subscan(self, tname, cols, c):
        """A subquery that cannot be pulled up (LIMIT, DISTINCT ON) handing up the column, read
        several times by its scan's projection, filter or aggregates above."""
        rng = self.rng
        C, k = "t.%s" % c.name, c.kind
        if rng.random() < 0.3:
            inner = "SELECT DISTINCT ON (t.k_int) t.id, t.k_int, %s AS v FROM %s t%s ORDER BY t.k_int, t.id" % (
                C, tname, self.where("t", cols, 0.5))
        else:
            inner = "SELECT t.id, t.k_int, %s AS v FROM %s t%s ORDER BY t.id%s LIMIT %d OFFSET %d" % (
                C, tname, self.where("t", cols, 0.5), rng.choice(["", " DESC"]), rng.randint(5, 300),
                rng.randint(0, 20))
        if rng.random() < 0.3:
            aggs = ["count(*)"] + [self.aggregate("s.v", k, "s.id") for _ in range(rng.randint(2, 4))]
            return "SELECT s.k_int, %s FROM (%s) s GROUP BY 1 ORDER BY 1" % (", ".join(aggs), inner), True, \
                rng.choice([[], [("enable_hashagg", "off")]])
        sel = self.some(REP, "s.v", k, rng.randint(2, 4))
        where = ""
        r = rng.random()
        u = self.unsafe("s.v", k)
        if r < 0.35 and u:
            where = " WHERE " + u[0]
            sel.append(u[1])
        elif r < 0.6:
            where = " WHERE " + self.one(COND, "s.v", k)
        srf = {"jsonb": "jsonb_array_elements_text(s.v->'arr')", "intarr": "unnest(s.v[1:2])",
               "text": "regexp_split_to_table(left(s.v, 12), 'a')"}.get("text" if k == "varchar" else k)
        if srf and rng.random() < 0.2:
            # A set-returning function: ProjectSet above the subquery scan.
            return "SELECT s.id, %s, %s FROM (%s) s%s" % (srf, ", ".join(sel), inner, where), False, []
        return "SELECT s.id, %s FROM (%s) s%s ORDER BY s.id" % (", ".join(sel), inner, where), True, []

    def q_orderby(self, tname, cols, c):
        """ORDER BY, DISTINCT ON and GROUP BY expressions of the column, with more of it listed."""
        rng = self.rng
        C, k = "t.%s" % c.name, c.kind
        where = self.where("t", cols, 0.7)
        r = rng.randrange(3)
        if r == 0:
            e = self.some(REP, C, k, rng.randint(1, 3))
            keys = self.some(REP, C, k, rng.randint(1, 2))
            return ("SELECT t.id, %s FROM %s t%s ORDER BY %s, t.id"
                    % (", ".join(e), tname, where, ", ".join("%s%s" % (x, rng.choice(["", " DESC", " NULLS FIRST"]))
                                                              for x in keys)), True, [])
        if r == 1:
            key = self.one(KEY, C, k)
            return ("SELECT DISTINCT ON (%s) %s, t.id, %s FROM %s t%s ORDER BY %s, t.id"
                    % (key, key, ", ".join(self.some(REP, C, k, rng.randint(1, 3))), tname, where, key), True, [])
        keys = self.some(KEY, C, k, 2)
        return ("SELECT %s FROM %s t%s GROUP BY 1, 2 ORDER BY 1, 2" % (", ".join(keys), tname, where), True,
                rng.choice([[], [("enable_hashagg", "off")]]))

    # -- exactly heap's (issue 31) -------------------------------------------------------------------
    # A call moved below the node that evaluates it must leave everything as heap has it: the rows
    # it runs on (a call PostgreSQL evaluates only conditionally would raise errors heap never
    # raises), which error a row raises first, whole rows (they would show the columns the node
    # adds), the stored form of the values (pg_column_size of a value in a tuple the Agg copies),
    # what storing nodes store (temporary blocks of spills and batches). q_exact puts two or more
    # calls that may move next to each of these observers, over t or over o; the names of o and its
    # views are written @o@, @ov@ and @osv@, which the query's heap twin replaces with oh's.
    def ex_source(self, tname, cols, form=None):
        """Where a q_exact query reads its column: a dict of the from item (frm), the column (C) and
        its kind, the row's id and key, the alias of its whole row (row; None for a table, whose
        whole row holds every big column), a condition for the query's WHERE or None; and tbl,
        col, keycol, twin: the table, its column and key column, whether it has a heap twin. From
        the table itself, a subquery that is not pulled up (OFFSET 0, or LIMIT), a view or a
        security_barrier view of (id, k, v)."""
        rng = self.rng
        tc = [c for c in cols if c.kind in SAFE]
        form = form or rng.choice(["table", "table", "sub", "sub", "limit", "view", "sbview"])
        views = form in ("view", "sbview")
        if not tc or rng.random() < 0.4:
            tbl, keycol, twin = "@o@", "x", True
            col, kind = ("big", "jsonb") if views or rng.random() < 0.75 else ("y", "text")
            inner = rng.choice(["x.id %% 3 <> %d" % rng.randrange(3), "x.x > %d" % rng.randrange(40),
                                "x.big->>'b' <> 'b%d'" % rng.randrange(7), "x.p2 = 1", "x.big ? 'f5'"]) \
                if rng.random() < 0.5 else None
            names = ("@ov@", "@osv@")
        else:
            big = [c for c in tc if c.bigpct]
            c = rng.choice(big if big and rng.random() < 0.8 else tc)
            tbl, keycol, twin, col, kind = tname, "k_int", False, c.name, c.kind
            inner = self.pred("x", cols) if rng.random() < 0.5 else None
            names = ("tv", "tsv")
            if views and self.view_col is None:
                form, views = "sub", False
            elif views:
                col, kind = self.view_col.name, self.view_col.kind
        src = {"tbl": tbl, "col": col, "kind": kind, "keycol": keycol, "twin": twin}
        if form == "table":
            src.update(frm="%s x" % tbl, C="x." + col, id="x.id", key="x." + keycol, row=None, where=inner)
            return src
        if views:
            frm = "%s s" % names[form == "sbview"]
        else:
            tail = " OFFSET 0" if form == "sub" else " ORDER BY x.id LIMIT %d" % rng.randint(20, 400)
            frm = "(SELECT x.id, x.%s AS k, x.%s AS v FROM %s x%s%s) s" % (keycol, col, tbl,
                                                                       " WHERE " + inner if inner else "", tail)
        outer = rng.choice(["s.k IS NOT NULL", self.one(EX_BOOL, "s.v", kind)]) if rng.random() < 0.25 else None
        src.update(frm=frm, C="s.v", id="s.id", key="s.k", row="s", where=outer)
        return src

    def ex_moved(self, C, kind, n, agg, idk=None):
        """n calls over C that may move below the node (none can fail), or aggregates of them:
        mostly unconditional, some in a FILTER, some behind CASE or COALESCE (which heap evaluates
        on some rows only: nothing gained by moving them)."""
        rng = self.rng
        T = lambda: self.one(EX_TEXT, C, kind)  # noqa: E731
        V = lambda: self.one(EX_VAR, C, kind)  # noqa: E731
        N = lambda: self.one(EX_INT, C, kind)  # noqa: E731
        B = lambda: self.one(EX_BOOL, C, kind)  # noqa: E731
        out = []
        for _ in range(n):
            if not agg:
                out.append(rng.choice([T, V, N, B])())
                continue
            out.append(rng.choice([
                lambda: "max(%s)" % T(), lambda: "min((%s)::text)" % V(), lambda: "sum(%s)" % N(),
                lambda: "count(*) FILTER (WHERE %s)" % B(), lambda: "bool_or(%s)" % B(),
                lambda: "max((%s)::text) FILTER (WHERE %s)" % (V(), B()),
                lambda: "md5(string_agg(%s, ',' ORDER BY %s))" % (T(), idk), lambda: "count(DISTINCT %s)" % T(),
                lambda: "max(CASE WHEN %s THEN %s END)" % (B(), T()), lambda: "max(COALESCE(%s, %s))" % (T(), T())])())
        return out

    def ex_fail(self, C, kind):
        g, e = self.rng.choice(EX_FAIL[kind])
        return g.replace("$C", C), e.replace("$C", C)

    def ex_guarded(self, C, kind, agg=False, boolean=False):
        """A call that raises an error on some rows, in a position where PostgreSQL evaluates it
        only on rows where it does not: behind CASE, COALESCE, AND, OR, a row comparison, the
        subscript of a NULL array, or a FILTER (agg: an aggregate of it; else an integer, or a
        condition). Moved below the node, it would run on every row."""
        rng = self.rng
        g, e = self.ex_fail(C, kind)
        ints = ["CASE WHEN %s THEN %s END" % (g, e), "CASE WHEN %s THEN %s ELSE -1 END" % (g, e),
                # The second argument only where the first is NULL.
                "COALESCE(NULLIF((%s) IS TRUE, true)::int, %s)" % (g, e),
                # A subscript of a NULL array is not evaluated.
                "(CASE WHEN %s THEN ARRAY[1, 2, 3] END)[(%s) %% 3 + 1]" % (g, e)]
        bools = ["((%s) IS TRUE AND (%s) > 0)" % (g, e), "((%s) IS NOT TRUE OR (%s) > 0)" % (g, e),
                 # A row comparison stops at the first pair of columns that differ.
                 "ROW((%s) IS NOT TRUE, %s) > ROW(false, 0)" % (g, e)]
        if kind == "jsonb":
            bools.append("ROW(jsonb_typeof(%s), jsonb_array_length(%s)) > ROW('array', 0)" % (C, C))
        I = lambda: rng.choice(ints + ["(%s)::int" % rng.choice(bools)])  # noqa: E731
        Bo = lambda: rng.choice(bools + ["(%s) > 0" % rng.choice(ints)])  # noqa: E731
        if not agg:
            return Bo() if boolean else I()
        return rng.choice([
            lambda: "sum(%s)" % I(), lambda: "max(%s)" % I(), lambda: "count(*) FILTER (WHERE %s)" % Bo(),
            lambda: "bool_or(%s)" % Bo(), lambda: "sum(%s) FILTER (WHERE %s)" % (e, g),
            lambda: "max(%s) FILTER (WHERE %s)" % (I(), self.one(EX_BOOL, C, kind)),
            lambda: "count(*) FILTER (WHERE %s AND %s)" % (self.one(EX_BOOL, C, kind), Bo())])()

    def ex_sizes(self, C, kind, agg, n):
        """n storage-reporting calls over calls that may move: a moved value's stored form, also in
        the tuple an Agg makes of each group's first row, must be heap's."""
        rng = self.rng
        T = lambda: self.one(EX_TEXT, C, kind)  # noqa: E731
        V = lambda: self.one(EX_VAR, C, kind)  # noqa: E731
        if agg:
            forms = [lambda: "sum(pg_column_size(%s))" % V(), lambda: "sum(pg_column_size(%s))" % V(),
                     lambda: "max(pg_column_size(%s))" % V(), lambda: "min(pg_column_size(%s))" % V(),
                     lambda: "pg_column_size(max(%s))" % T(), lambda: "pg_column_size(min(%s))" % T(),
                     lambda: "max(pg_column_compression(%s))" % V(), lambda: "pg_column_compression(max(%s))" % T(),
                     lambda: "sum(pg_column_size(NULLIF(%s, 'k1')))" % T()]
        else:
            forms = [lambda: "pg_column_size(%s)" % V(), lambda: "pg_column_compression(%s)" % V(),
                     lambda: "pg_column_size(NULLIF(%s, 'k1'))" % T()]
        return [rng.choice(forms)() for _ in range(n)]

    def ex_wholerow(self, row, agg):
        """A reference to the whole row of a subquery or view: it must hold its columns only."""
        if agg:
            forms = ["count(*) FILTER (WHERE %s IS NOT NULL)", "count(*) FILTER (WHERE %s IS NULL)",
                     "sum(length(%s::text))", "max(md5(%s::text))", "max(md5((to_jsonb(%s) - 'v')::text))",
                     "bool_and(%s IS NOT NULL)"]
        else:
            forms = ["md5(%s::text)", "length(%s::text)", "%s IS NOT NULL", "%s IS NULL", "to_jsonb(%s) - 'v'",
                     "md5(row_to_json(%s)::text)"]
        return self.rng.choice(forms) % row

    def ex_errors(self, src, agg):
        """Calls that raise errors unguarded (the query fails in both modes): the error raised is
        heap's, a division by zero of the node's own (22012) or the call's, whichever heap meets
        first."""
        rng = self.rng
        out = ["1 / (%s - %s)" % (src["id"], src["id"])] if rng.random() < 0.7 else []
        out.append(self.ex_fail(src["C"], src["kind"])[1])
        if rng.random() < 0.2:
            # A strict function evaluates all its arguments, also beside a NULL one.
            out.append("int4pl(CASE WHEN %s %% 2 = 0 THEN 1 END, %s)" % (src["id"],
                                                                         self.ex_fail(src["C"], src["kind"])[1]))
        return ["sum(%s)" % e for e in out] if agg else out

    def q_exact(self, tname, cols, cursor=False):
        """(sql, ordered, sets, extra) of issue 31's shapes: aggregates (plain, sorted, hashed,
        grouped) and subquery projections mixing calls that may move with failing calls guarded in
        each conditional position, unguarded failing calls, storage-reporting functions and whole
        rows of subqueries and views; spilling hash aggregates and sorts and multi-batch hash joins
        with work_mem = 64kB, some after misestimated filters; row-locking SELECTs whose subquery
        rows are copied whole. extra: twin (the same query over the heap twins), temp (compare the
        temporary blocks written), serial (without parallel query: which row comes first decides
        the error, and the blocks are compared)."""
        rng = self.rng
        form = rng.choice(["agg", "agg", "agg", "proj", "proj", "size", "size", "spill", "spill"] +
                          ([] if cursor else ["lock"]))
        src = self.ex_source(tname, cols, "table" if form == "lock" else None)
        C, k, idk = src["C"], src["kind"], src["id"]
        conds = [src["where"]] if src["where"] else []
        sets, serial, temp = [], False, False
        if form == "lock":
            # FOR UPDATE copies the subquery's rows whole (EvalPlanQual would re-check with them).
            inner = "(SELECT y.id, y.%s AS k, y.%s AS v FROM %s y OFFSET 0) s" % (src["keycol"], src["col"], src["tbl"])
            items = self.ex_moved("s.v", k, rng.randint(2, 3), False) + [self.ex_wholerow("s", False)
                                                                          for _ in range(rng.randint(1, 2))]
            sql = "SELECT x.id, %s FROM %s x JOIN %s ON s.id = x.id%s ORDER BY x.id FOR UPDATE OF x" % (
                ", ".join(items), src["tbl"], inner, "".join(" WHERE " + c for c in conds))
        elif form == "proj":
            items = self.ex_moved(C, k, rng.randint(2, 4), False)
            items += [self.ex_guarded(C, k, boolean=rng.random() < 0.4) for _ in range(rng.randint(0, 2))]
            if rng.random() < 0.3:
                items += self.ex_sizes(C, k, False, rng.randint(1, 2))
            if src["row"] and rng.random() < 0.5:
                items.append(self.ex_wholerow(src["row"], False))
            if rng.random() < 0.08:
                serial = True
                items += self.ex_errors(src, False)
            rng.shuffle(items)
            sql = "SELECT %s, %s FROM %s%s ORDER BY %s" % (idk, ", ".join(items), src["frm"],
                                                           " WHERE " + " AND ".join(conds) if conds else "", idk)
        elif form in ("agg", "size"):
            if form == "agg":
                aggs = self.ex_moved(C, k, rng.randint(2, 4), True, idk)
                aggs += [self.ex_guarded(C, k, agg=True) for _ in range(rng.randint(1, 2))]
                if rng.random() < 0.3:
                    aggs += self.ex_sizes(C, k, True, rng.randint(1, 2))
                if src["row"] and rng.random() < 0.5:
                    aggs.append(self.ex_wholerow(src["row"], True))
                if rng.random() < 0.15:
                    serial = True
                    aggs += self.ex_errors(src, True)
                sets = rng.choice([[], [("enable_hashagg", "off")], [("enable_hashagg", "off")],
                                   [("enable_sort", "off")]])
                keys = rng.sample([src["key"], "%s %% 5" % idk, self.one(EX_KEY, C, k)], rng.choice([1, 1, 2])) \
                    if rng.random() < 0.7 else []
            else:
                # Sorted groups: the Agg evaluates the first row of each group on its copy.
                aggs = self.ex_sizes(C, k, True, rng.randint(2, 4)) + self.ex_moved(C, k, rng.randint(0, 2), True, idk)
                sets = [("enable_hashagg", "off")] if rng.random() < 0.75 else []
                keys = ([rng.choice([src["key"], "%s %% 10" % idk, self.one(EX_KEY, C, k)])]
                        if rng.random() < 0.75 else [])
            rng.shuffle(aggs)
            aggs = ["count(*)"] + aggs
            where = " WHERE " + " AND ".join(conds) if conds else ""
            if keys:
                pos = ", ".join(str(i + 1) for i in range(len(keys)))
                sql = "SELECT %s, %s FROM %s%s GROUP BY %s ORDER BY %s" % (", ".join(keys), ", ".join(aggs), src["frm"],
                                                                           where, pos, pos)
            else:
                sql = "SELECT %s FROM %s%s" % (", ".join(aggs), src["frm"], where)
        else:
            # Spills and batches: what the sort, the hash table and the batch files hold must be
            # heap's (their temporary blocks are compared).
            sets, serial, temp = [("work_mem", "'64kB'")], True, True
            T = lambda: "(%s)::text" % self.one(rng.choice([EX_VAR, EX_INT]), C, k)  # noqa: E731
            N = self.one(EX_INT, C, k)
            r = rng.randrange(4)
            if r < 2 and rng.random() < 0.5:
                # A filter that keeps every row, estimated to keep one (x = x would be made
                # x IS NOT NULL): the planner expects few groups, or a sort in memory.
                conds.append("%s + 0 = %s" % (idk, idk))
            where = " WHERE " + " AND ".join(conds) if conds else ""
            if r == 0:
                # A hash aggregate with many groups, spilling its input rows.
                sets.append(("enable_sort", "off"))
                sql = ("SELECT count(*), max(m1), min(m2), sum(m3) FROM (SELECT %s AS g, max(%s) AS m1, min(%s) AS m2, "
                       "sum(%s) AS m3 FROM %s%s GROUP BY 1) q" % (rng.choice([idk, "%s %% 500" % idk]), T(), T(), N,
                                                                  src["frm"], where))
            elif r == 1:
                # A sorted aggregate above a sort that spills.
                sets.append(("enable_hashagg", "off"))
                sql = "SELECT %s, count(*), max(%s), min(%s), sum(%s) FROM %s%s GROUP BY 1 ORDER BY 1" % (
                    rng.choice(["%s %% 97" % idk, src["key"], self.one(EX_KEY, C, k)]), T(), T(), N, src["frm"], where)
            else:
                # A hash join whose inner side, estimated at 0.5% of its 4,000 rows (g + 0 = g), has
                # all of them: it goes to several batches at run time and writes the rows of its
                # outer side, the table's, to batch files (a LEFT JOIN is estimated to keep every
                # one of them), with calls over them in its output list or in the aggregate above.
                sets += [("enable_mergejoin", "off"), ("enable_nestloop", "off")]
                z = "(SELECT g, repeat('z', 60) || g AS pad FROM generate_series(1, 4000) g WHERE g + 0 = g) z"
                jt = rng.choice(["JOIN", "LEFT JOIN", "LEFT JOIN"])
                on = "z.g = %s" % idk
                if rng.random() < 0.3:
                    on += " AND %s IS DISTINCT FROM z.pad" % T()
                calls = [T() for _ in range(rng.randint(2, 4))] + [N]
                if r == 2:
                    sql = "SELECT count(*), %s, sum(length(z.pad)) FROM %s %s %s ON %s%s" % (
                        ", ".join("max(%s)" % e for e in calls), src["frm"], jt, z, on, where)
                else:
                    sql = "SELECT %s, %s, length(z.pad) FROM %s %s %s ON %s%s ORDER BY %s" % (
                        idk, ", ".join(calls), src["frm"], jt, z, on, where, idk)
        extra = {"serial": serial, "temp": temp}
        if src["twin"]:
            extra["twin"] = sql.replace("@o@", "oh").replace("@ov@", "ohv").replace("@osv@", "ohsv")
        sql = sql.replace("@o@", "o").replace("@ov@", "ov").replace("@osv@", "osv")
        return sql, True, sets, extra

    def with_sets(self, sets, role, fn):
        pre = self.settings_sql(sets)
        if role:
            pre.append("SET ROLE %s" % RLS_ROLE)
        for s in pre:
            self.x(s)
        try:
            return fn()
        finally:
            if role:
                self.x("RESET ROLE")
            for s in self.reset_sql(sets):
                self.x(s)
            for s in self.settings_sql([kv for kv in self.session if kv[0] in dict(sets)]):
                self.x(s)

    def explain_uses(self, sql, sets, role, what):
        """Whether the read path's plan has a HotheapRead node (and in self.last_marked, whether it
        has shared detoast markers, shown by hotplus.read_path_show_markers); checks the plan
        without it has neither, and that nothing is evaluated through the read path on the side
        of the heap table oh (always aliased hx)."""
        heap_side = " oh hx" in sql

        def run():
            self.x("SET hotplus.read_path_show_markers = on")
            self.x("SET hotplus.read_path = on")
            on = self.fetch("EXPLAIN (VERBOSE, COSTS OFF) " + sql)
            js = self.fetch("EXPLAIN (VERBOSE, COSTS OFF, FORMAT JSON) " + sql) if heap_side else None
            self.x("SET hotplus.read_path = off")
            off = self.fetch("EXPLAIN (VERBOSE, COSTS OFF) " + sql)
            self.x("RESET hotplus.read_path_show_markers")
            return on, off, js
        on, off, js = self.with_sets(sets, role, run)
        self.last_plan = [r[0] for r in on] if isinstance(on, list) else []
        if isinstance(off, list):
            found = [n for n, text in (("a HotheapRead node", "HotheapRead"), ("a marker", MARKER))
                     if any(text in r[0] for r in off)]
            if found:
                self.problem("%s: %s in a plan made with hotplus.read_path = off" % (what, " and ".join(found)),
                             sql, "\n".join(r[0] for r in off))
        if isinstance(js, list):
            bad = heap_side_sharing(json.loads(js[0][0])[0]["Plan"])
            if bad:
                self.problem("%s: the read path evaluates the heap table's columns (%s)" % (what, bad), sql,
                             "\n".join(self.last_plan))
        self.last_marked = any(MARKER in line for line in self.last_plan)
        return any("HotheapRead" in line for line in self.last_plan)

    def avoided_plan(self, lines):
        """The tag of a known discrepancy the plan shows, when --avoid names it (noproj: a HotheapRead
        node without a projection, which hands its scan's row up as if it were a virtual slot)."""
        if "noproj" not in self.avoid:
            return None
        for i, line in enumerate(lines):
            if "Custom Scan (HotheapRead)" not in line:
                continue
            outs = [l.strip() for l in lines[i + 1:] if l.strip().startswith("Output:")][:2]
            child = next((l for l in lines[i + 1:] if "->" in l), "")
            if len(outs) == 2 and outs[0] == outs[1] and child:
                self.navoided += 1
                return "noproj"
        return None

    def compare(self, what, sql, on, off, ordered):
        self.nqueries += 1
        if isinstance(on, tuple) or isinstance(off, tuple):
            if isinstance(on, tuple) and isinstance(off, tuple) and on[1] == off[1]:
                self.nskipped += 1
                self.skipped_msgs.append("%s [%s]: %s" % (on[2], on[1], sql[:300]))
                return False
            self.problem("%s: error on one side" % what, sql, describe_diff(on, off))
            return False
        if not ordered:
            on, off = sorted(on, key=rowkey), sorted(off, key=rowkey)
        if on != off:
            self.problem("%s: results differ (read path on vs off)" % what, sql, describe_diff(on, off))
            return False
        return True

    def run_query(self, sql, ordered, sets, role, extra=None):
        t0 = time.time()
        used = self.explain_uses(sql, sets, role, "query")
        marked = self.last_marked
        if self.avoided_plan(self.last_plan):
            return

        def run():
            res = {}
            for mode in self.rng.sample(["on", "off"], 2):
                self.x("SET hotplus.read_path = %s" % mode)
                res[mode] = self.fetch(sql)
            return res
        res = self.with_sets(sets, role, run)
        self.nread += used
        self.nmarked += marked
        desc = "query%s%s" % (" [%s]" % ", ".join("%s=%s" % kv for kv in sets) if sets else "",
                              " as %s" % RLS_ROLE if role else "")
        known = len(self.problems)
        self.compare(desc, sql, res["on"], res["off"], ordered)
        if extra and len(self.problems) == known:
            self.exact_checks(desc, sql, ordered, sets, role, extra, res)
        if time.time() - t0 > 1.5:
            self.slow.append("%.1fs %s: %s" % (time.time() - t0, desc, sql[:400]))

    def exact_checks(self, desc, sql, ordered, sets, role, extra, res):
        """q_exact's checks besides the rows: the heap twin's outcome (rows or SQLSTATE) is the
        hotheap table's, and the read path on writes as many temporary blocks as off (and as the
        heap twin with the same plan): sorts, hash tables and batch files hold heap's rows.
        Temporary blocks are compared without parallel query only (the workers' share varies)."""
        self.nexact += 1
        twin = extra.get("twin")
        if twin:
            def run_twin():
                self.x("SET hotplus.read_path = on")
                return self.fetch(twin)
            heap = self.with_sets(sets, role, run_twin)
            self.ntwin += 1
            d = outcome_diff(res["off"], heap, ordered, "hotheap (read path off)", "heap twin")
            if d and isinstance(heap, tuple) and isinstance(res["off"], tuple):
                # Both fail, with different errors: the first row that fails decides, and the heap
                # twin (another table, of another size) may have been planned to read its rows in
                # another order. Not a difference when the plans differ.
                def plans():
                    self.x("SET hotplus.read_path = off")
                    return [self.fetch("EXPLAIN (COSTS OFF, FORMAT JSON) " + q) for q in (sql, twin)]
                p = self.with_sets(sets, role, plans)
                shapes = [plan_shape(json.loads(r[0][0])[0]["Plan"]) for r in p if isinstance(r, list)]
                if len(shapes) == 2 and shapes[0] != shapes[1]:
                    self.nskipped += 1
                    self.skipped_msgs.append("heap twin on another plan: %s [%s] vs %s [%s]: %s" % (
                        heap[2], heap[1], res["off"][2], res["off"][1], twin[:300]))
                    d = None
            if d:
                self.problem("%s: the heap twin's outcome differs" % desc, twin, d)
                return
        parallel = dict(self.session + sets).get("max_parallel_workers_per_gather", "0") != "0"
        if not (extra.get("temp") or ("work_mem", "'64kB'") in sets) or parallel or isinstance(res["off"], tuple):
            return
        explain = "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON, COSTS OFF, TIMING OFF) "

        def run():
            out = {}
            for mode in ("on", "off"):
                self.x("SET hotplus.read_path = %s" % mode)
                out[mode] = self.fetch(explain + sql)
            if twin:
                out["heap"] = self.fetch(explain + twin)
            return out
        out = self.with_sets(sets, role, run)
        bad = [m for m, r in out.items() if isinstance(r, tuple)]
        if bad:
            self.problem("%s: EXPLAIN ANALYZE failed (%s) where the query did not" % (desc, ", ".join(bad)), sql,
                         "\n".join("%s: %s" % (m, short(out[m], 400)) for m in bad))
            return
        plans = {m: json.loads(r[0][0])[0]["Plan"] for m, r in out.items()}
        blocks = {m: p.get("Temp Written Blocks", 0) for m, p in plans.items()}
        self.ntemp += 1
        # Sorts, hash tables and hash aggregates hold heap's rows: the same memory, markers or not.
        if plan_shape(plans["on"]) == plan_shape(plans["off"]) and plan_memory(plans["on"]) != plan_memory(plans["off"]):
            self.problem("%s: the storing nodes' memory differs (read path on vs off)" % desc, sql,
                         "on: %s\noff: %s" % (plan_memory(plans["on"]), plan_memory(plans["off"])))
        self.nspilled += blocks["off"] > 0
        if blocks["on"] != blocks["off"]:
            self.problem("%s: temporary blocks written differ (read path on %d, off %d)" % (desc, blocks["on"],
                                                                                          blocks["off"]), sql,
                         "nodes (blocks written by each):\non: %s\noff: %s" % (temp_detail(plans["on"]),
                                                                                temp_detail(plans["off"])))
        elif "heap" in plans and plan_shape(plans["heap"]) == plan_shape(plans["off"]) and \
                blocks["heap"] != blocks["off"]:
            self.problem("%s: temporary blocks written differ from the heap twin's (hotheap %d, heap %d)"
                         % (desc, blocks["off"], blocks["heap"]), twin,
                         "nodes (blocks written by each):\nhotheap: %s\nheap: %s" % (temp_detail(plans["off"]),
                                                                                      temp_detail(plans["heap"])))

    # -- prepared statements -------------------------------------------------------------------------
    def prepared(self):
        rng = self.rng
        tname, cols = rng.choice(self.tables)
        a = "t"
        ptypes, conds, gens = [], [], []
        ints = [c for c in cols if c.kind == "int" and c.name != "id"]
        js = [c for c in cols if c.kind == "jsonb"]
        tx = [c for c in cols if c.kind in ("text", "varchar")]
        c = rng.choice(ints)
        ptypes.append("int")
        conds.append("%s.%s > $%d" % (a, c.name, len(ptypes)))
        gens.append(lambda c=c: str(rng.randrange(-c.card // 2, c.card)))
        if js and rng.random() < 0.8:
            j = rng.choice(js)
            ptypes.append("text")
            conds.append("(%s.%s->>'k' = $%d OR %s.%s->>'b' = $%d)" % (a, j.name, len(ptypes), a, j.name, len(ptypes)))
            gens.append(lambda: "'%s%d'" % (rng.choice("kb"), rng.randrange(20)))
        if tx and rng.random() < 0.6:
            t = rng.choice(tx)
            ptypes.append("text")
            conds.append("%s.%s >= $%d" % (a, t.name, len(ptypes)))
            gens.append(lambda: "'s%d'" % rng.randrange(30))
        if rng.random() < 0.5:
            ptypes.append("int[]")
            conds.append("%s.k_int = ANY($%d)" % (a, len(ptypes)))
            gens.append(lambda: "ARRAY[%d, %d, %d]" % (rng.randrange(50), rng.randrange(50), rng.randrange(50)))
        exprs, heavy = self.select_list(a, cols)
        if heavy:
            conds.append(self.thin(a, heavy))
        joiner = " AND " if rng.random() < 0.7 else " OR "
        body = "SELECT %s.id, %s FROM %s %s WHERE %s ORDER BY %s.id" % (a, ", ".join(exprs), tname, a,
                                                                        "(" + joiner.join(conds[:len(ptypes)]) + ")" +
                                                                        "".join(" AND " + x for x in conds[len(ptypes):]), a)
        params = ["(%s)" % ", ".join(g() for g in gens) for _ in range(7)]
        self.last_prepared = body + " -- " + " ".join(params)
        sets = self.scan_sets()
        name = "rt_prep"

        def ex():
            self.x("SET hotplus.read_path = on")
            self.x("DEALLOCATE ALL")
            self.x("PREPARE %s(%s) AS %s" % (name, ", ".join(ptypes), body))
            r = self.fetch("EXPLAIN (VERBOSE, COSTS OFF) EXECUTE %s%s" % (name, params[0]))
            self.x("DEALLOCATE ALL")
            return [x[0] for x in r] if isinstance(r, list) else []
        plan = self.with_sets(sets, False, ex)
        if self.avoided_plan(plan):
            return

        def run_mode(mode, switch_after=None):
            out = []
            self.x("SET hotplus.read_path = %s" % mode)
            self.x("DEALLOCATE ALL")
            self.x("PREPARE %s(%s) AS %s" % (name, ", ".join(ptypes), body))
            for i, p in enumerate(params):
                if switch_after is not None and i == switch_after:
                    self.x("SET hotplus.read_path = off")
                out.append(self.fetch("EXECUTE %s%s" % (name, p)))
            if mode == "on" and switch_after is None:
                # The plan the later executions used (generic after five custom ones).
                self.x("SET hotplus.read_path_show_markers = on")
                r = self.fetch("EXPLAIN (VERBOSE, COSTS OFF) EXECUTE %s%s" % (name, params[-1]))
                self.x("RESET hotplus.read_path_show_markers")
                out.append((isinstance(r, list) and any("HotheapRead" in x[0] for x in r),
                            isinstance(r, list) and any(MARKER in x[0] for x in r)))
            self.x("DEALLOCATE ALL")
            return out

        def run():
            return run_mode("on"), run_mode("off"), run_mode("on", rng.randint(1, 6))
        on, off, mixed = self.with_sets(sets, False, run)
        used, marked = on.pop()
        self.nread += used
        self.nmarked += marked
        ok = True
        for i, p in enumerate(params):
            sql = "PREPARE %s(%s) AS %s; EXECUTE %s%s (execution %d)" % (name, ", ".join(ptypes), body, name, p, i + 1)
            if ok:
                ok = self.compare("prepared statement", sql, on[i], off[i], True)
                self.nqueries -= 1
        for i, p in enumerate(params):
            sql = "PREPARE (read path on, switched off before some executions) ...; EXECUTE %s%s (%d)\n  %s" % (
                name, p, i + 1, body)
            if ok:
                ok = self.compare("prepared statement planned on, executed off", sql, mixed[i], off[i], True)
                self.nqueries -= 1
        self.nqueries += 1

    def planned_on(self):
        """A query of the D14b shapes prepared with the read path on, executed with it on and then
        off (the plan keeps its nodes, which then evaluate the expressions as they are), against
        the query planned with it off."""
        q = self.gen_query2()
        if q is None:
            return
        sql, ordered, sets, role = q[:4]

        def run():
            self.x("SET hotplus.read_path = on")
            self.x("DEALLOCATE ALL")
            p = self.fetch("PREPARE rt_on AS " + sql)
            if isinstance(p, tuple):
                return p, p, p, []
            self.x("SET hotplus.read_path_show_markers = on")
            plan = self.fetch("EXPLAIN (VERBOSE, COSTS OFF) EXECUTE rt_on")
            self.x("RESET hotplus.read_path_show_markers")
            on = self.fetch("EXECUTE rt_on")
            self.x("SET hotplus.read_path = off")
            on_off = self.fetch("EXECUTE rt_on")
            off = self.fetch(sql)
            self.x("DEALLOCATE ALL")
            return on, on_off, off, [r[0] for r in plan] if isinstance(plan, list) else []
        on, on_off, off, plan = self.with_sets(sets, role, run)
        if self.avoided_plan(plan):
            return
        self.nread += any("HotheapRead" in line for line in plan)
        self.nmarked += any(MARKER in line for line in plan)
        desc = "PREPARE rt_on AS ...; EXECUTE rt_on (read path on)"
        if self.compare(desc, sql, on, off, ordered):
            self.nqueries -= 1
            self.compare("PREPARE rt_on AS ... (read path on); EXECUTE rt_on with the read path off", sql, on_off, off,
                         ordered)

    # -- cursors -----------------------------------------------------------------------------------------
    def scroll_cursor(self):
        rng = self.rng
        # Half of them over a query of the read path above the scan (an aggregate, a join, a
        # window...), moving backward through its markers too.
        q2 = self.gen_query2(cursor=True) if rng.random() < 0.5 else None
        if q2:
            q, sets = q2[0], q2[2]
        else:
            tname, cols = rng.choice(self.tables)
            a = "t"
            exprs, heavy = self.select_list(a, cols, allow_heavy=rng.random() < 0.3)
            where = [self.pred(a, cols, allow_sub=rng.random() < 0.3)] if rng.random() < 0.8 else []
            if heavy:
                where.append(self.thin(a, heavy))
            order = rng.choice(["", "", " ORDER BY %s.id" % a, " ORDER BY %s.id DESC" % a])
            q = "SELECT %s.id, %s FROM %s %s%s%s" % (a, ", ".join(exprs), tname, a,
                                                  " WHERE " + " AND ".join(where) if where else "", order)
            sets = self.scan_sets()
        scroll = rng.random() < 0.85
        hold = rng.random() < 0.15
        ops = []
        for _ in range(rng.randint(4, 12)):
            n = rng.randint(1, 8)
            if scroll:
                ops.append(rng.choice(["FETCH %d FROM c" % n, "FETCH BACKWARD %d FROM c" % n,
                                       "FETCH ABSOLUTE %d FROM c" % rng.randint(-5, 30),
                                       "FETCH RELATIVE %d FROM c" % rng.randint(-4, 6), "MOVE %d IN c" % n,
                                       "MOVE BACKWARD %d IN c" % n, "FETCH PRIOR FROM c", "FETCH FIRST FROM c",
                                       "FETCH LAST FROM c", "FETCH NEXT FROM c", "MOVE ABSOLUTE %d IN c" % n,
                                       "FETCH FORWARD ALL FROM c", "FETCH BACKWARD ALL FROM c"]))
            else:
                ops.append(rng.choice(["FETCH %d FROM c" % n, "MOVE %d IN c" % n, "FETCH NEXT FROM c"]))
        decl = "DECLARE c %sCURSOR %sFOR %s" % ("SCROLL " if scroll else "NO SCROLL ", "WITH HOLD " if hold else "", q)
        used = self.explain_uses(q, sets, False, "cursor")
        marked = self.last_marked
        if self.avoided_plan(self.last_plan):
            return

        def run():
            res = {}
            for mode in ("on", "off"):
                self.x("SET hotplus.read_path = %s" % mode)
                out = []
                self.x("BEGIN")
                try:
                    r = self.fetch(decl)
                    if isinstance(r, tuple):
                        out.append(r)
                    else:
                        if hold:
                            self.x("COMMIT")
                        for op in ops:
                            r = self.fetch(op)
                            out.append(r if r is not None else self.cur.statusmessage)
                            if isinstance(r, tuple):
                                break
                finally:
                    self.end_transaction()
                    if hold:
                        self.fetch("CLOSE c")
                res[mode] = out
            return res
        res = self.with_sets(sets, False, run)
        self.nread += used
        self.nmarked += marked
        self.nqueries += 1
        on, off = res["on"], res["off"]
        if len(on) != len(off):
            self.problem("scroll cursor: different number of steps", decl, "on %s\noff %s" % (short(on), short(off)))
            return
        for i, (x, y) in enumerate(zip(on, off)):
            if x != y:
                if isinstance(x, tuple) and isinstance(y, tuple) and x[1] == y[1]:
                    self.nskipped += 1
                    self.skipped_msgs.append("%s [%s]: %s" % (x[2], x[1], decl[:300]))
                    return
                self.problem("cursor: step %d (%s) differs" % (i, ops[i - 1] if i else "DECLARE"), decl + "; " + "; ".join(ops),
                             describe_diff(x, y) if isinstance(x, list) and isinstance(y, list) else
                             "on %s\noff %s" % (short(x), short(y)))
                return

    def copies(self, base, n):
        for suffix in ("on", "off"):
            for s in self.shape.build("%s_%s" % (base, suffix), n):
                self.x(s)

    def table_rows(self, name):
        return self.x("SELECT id, %s::text FROM %s %s ORDER BY id" % ("r", name, "r"))

    def update_set(self, alias, cols):
        rng = self.rng
        sets = []
        idc = "%s.id" % alias if alias else "id"
        for c in rng.sample([c for c in cols if c.name != "id"], rng.randint(1, 3)):
            C = "%s.%s" % (alias, c.name) if alias else c.name
            if c.kind == "int":
                sets.append("%s = %s + 1" % (c.name, C))
            elif c.kind in ("text", "varchar"):
                sets.append("%s = %s" % (c.name, rng.choice(["left(%s || 'u', %d)" % (C, c.vlen or 100000),
                                                             c.big(idc) if c.bigpct else "'u' || %s" % idc])))
            elif c.kind == "jsonb":
                sets.append("%s = %s || jsonb_build_object('k', 'k%d', 'u', true)" % (c.name, C, rng.randrange(20)))
            elif c.kind == "bool":
                sets.append("%s = NOT %s" % (c.name, C))
            elif c.kind == "numeric":
                sets.append("%s = %s * 2" % (c.name, C))
            else:
                sets.append("%s = %s" % (c.name, C))
        return ", ".join(sets)

    def end_transaction(self):
        if self.conn.get_transaction_status() != psycopg2.extensions.TRANSACTION_STATUS_IDLE:
            self.fetch("ROLLBACK")

    def current_of(self):
        """UPDATE/DELETE WHERE CURRENT OF on two identical copies, one read with the read path on.
        What is done to a row depends on its id only (the copies' physical order may differ)."""
        rng = self.rng
        n = min(self.shape.n, 150)
        self.copies("w", n)
        cols = self.shape.cols
        a = "t"
        exprs, _ = self.select_list(a, cols, allow_heavy=False)
        exprs = [e for e in exprs if "tableoid" not in e and "ctid" not in e and "xmin" not in e]
        where = self.pred(a, cols, allow_sub=False) if rng.random() < 0.8 else "true"
        forupd = rng.random() < 0.5
        m_upd, m_del = rng.choice([2, 3, 4]), rng.choice([5, 7])
        r_upd, r_del = rng.randrange(m_upd), rng.randrange(m_del)
        upd = self.update_set(None, cols)
        # The build's UPDATEs and DELETEs place row versions by the free space that pruning
        # left, and pruning depends on the moment's xmin horizon (an autovacuum's snapshot):
        # the copies' physical orders are usually equal, not always (a CI run, seed 12).
        same_order = self.x("SELECT id FROM w_on ORDER BY ctid") == self.x("SELECT id FROM w_off ORDER BY ctid")
        res = {}
        for mode in ("on", "off"):
            tbl = "w_%s" % mode
            q = "SELECT %s.id, %s FROM %s %s WHERE %s%s" % (a, ", ".join(exprs), tbl, a, where,
                                                           " FOR UPDATE" if forupd else "")
            if mode == "on":
                self.nread += self.explain_uses(q, [], False, "WHERE CURRENT OF cursor")
                self.nmarked += self.last_marked
            self.x("SET hotplus.read_path = %s" % mode)
            out = []
            self.x("BEGIN")
            try:
                r = self.fetch("DECLARE c CURSOR FOR " + q)
                if isinstance(r, tuple):
                    out.append((r,))
                else:
                    for _ in range(n + 1):
                        r = self.fetch("FETCH 1 FROM c")
                        if isinstance(r, tuple) or not r:
                            out.append((r,))
                            break
                        rid = int(r[0][0])
                        if rid % m_del == r_del:
                            r2 = self.fetch("DELETE FROM %s WHERE CURRENT OF c RETURNING id" % tbl)
                        elif rid % m_upd == r_upd:
                            r2 = self.fetch("UPDATE %s SET %s WHERE CURRENT OF c" % (tbl, upd))
                            r2 = r2 if isinstance(r2, tuple) else self.cur.statusmessage
                        else:
                            r2 = None
                        out.append((r, r2))
                        if isinstance(r2, tuple):
                            break
                self.fetch("COMMIT")
            finally:
                self.end_transaction()
            res[mode] = (sorted(out, key=repr), self.table_rows(tbl))
        self.nqueries += 1
        desc = ("DECLARE c CURSOR FOR %s; FETCH 1 FROM c; DELETE FROM w_on/w_off WHERE CURRENT OF c (id %% %d = %d), "
                "UPDATE w_on/w_off SET %s WHERE CURRENT OF c (id %% %d = %d)"
                % (q.replace("w_off", "w_on/w_off"), m_del, r_del, upd, m_upd, r_upd))
        (o1, t1), (o2, t2) = res["on"], res["off"]
        if o1 != o2 and not same_order and self.errored(o1) and self.errored(o2):
            # An error ends each run (and rolls its transaction back) at the first failing row
            # in that copy's order: compare the rows both runs fetched, each with what was done.
            f1, f2 = self.fetched_by_id(o1), self.fetched_by_id(o2)
            o1 = [f1[k] for k in sorted(f1.keys() & f2.keys())]
            o2 = [f2[k] for k in sorted(f1.keys() & f2.keys())]
        if o1 != o2:
            d1 = [x for x in o1 if x not in o2][:2]
            d2 = [x for x in o2 if x not in o1][:2]
            self.problem("WHERE CURRENT OF: rows fetched or statement results differ", desc,
                         "only on %s\nonly off %s" % (short(d1, 800), short(d2, 800)))
        elif t1 != t2:
            self.problem("WHERE CURRENT OF: final tables differ", desc, describe_diff(t1, t2))
        self.x("DROP TABLE w_on, w_off")

    @staticmethod
    def errored(out):
        """Whether a WHERE CURRENT OF run (current_of) ended on an error."""
        return any(isinstance(e[0], tuple) or (len(e) > 1 and isinstance(e[1], tuple)) for e in out)

    @staticmethod
    def fetched_by_id(out):
        """A WHERE CURRENT OF run's fetched rows (current_of), by id, each with what was done."""
        return {e[0][0][0]: e for e in out if isinstance(e[0], list) and e[0]}

    def returning_whole_row(self):
        """UPDATE ... FROM (a subquery) s ... RETURNING s, with calls over s's column in its quals,
        rolled back: the whole row of s (returned, and copied for EvalPlanQual) holds the
        subquery's columns only, with the read path on as off, and on o as on its heap twin oh."""
        rng = self.rng
        tc = [c for c in self.cols if c.kind in SAFE]
        if tc and rng.random() < 0.4:
            c = rng.choice([c for c in tc if c.bigpct] or tc)
            tbl, col, kind, keycol, upd = "t", c.name, c.kind, "k_int", "k_int = u.k_int"
            m = max(1, self.nrows // 40)
            few = " AND u.id %% %d = %d" % (m, rng.randrange(m))
        else:
            tbl, keycol, few = "@o@", "x", ""
            col, kind = ("big", "jsonb") if rng.random() < 0.7 else ("y", "text")
            upd = rng.choice(["p1 = u.p1 + 1", "p3 = u.p3 || 'u'"])
        conds = ["(%s) IS NOT NULL" % self.one(EX_VAR, "s.v", kind), "(%s) IS NOT NULL" % self.one(EX_INT, "s.v", kind)]
        ret = (["u.id"] + [self.ex_wholerow("s", False) for _ in range(rng.randint(1, 3))] +
               self.ex_moved("s.v", kind, rng.randint(1, 2), False))
        sql = ("UPDATE %s u SET %s FROM (SELECT x.id, x.%s AS k, x.%s AS v FROM %s x OFFSET 0) s WHERE s.id = u.id AND "
               "%s%s RETURNING %s" % (tbl, upd, keycol, col, tbl, " AND ".join(conds), few, ", ".join(ret)))
        hot = sql.replace("@o@", "o")
        runs = [("on", "on", hot), ("off", "off", hot)]
        if tbl == "@o@":
            runs.append(("heap", "on", sql.replace("@o@", "oh")))
        self.nread += self.explain_uses(hot, [], False, "UPDATE ... RETURNING")
        self.nmarked += self.last_marked
        res = {}
        for label, mode, q in runs:
            self.x("SET hotplus.read_path = %s" % mode)
            self.x("BEGIN")
            try:
                res[label] = self.fetch(q)
            finally:
                self.end_transaction()
        desc = "UPDATE ... RETURNING (rolled back)"
        self.nexact += 1
        if self.compare(desc, hot, res["on"], res["off"], False) and "heap" in res:
            self.ntwin += 1
            d = outcome_diff(res["off"], res["heap"], False, "hotheap (read path off)", "heap twin")
            if d:
                self.problem("%s: the heap twin's outcome differs" % desc, runs[2][2], d)

    # -- EvalPlanQual --------------------------------------------------------------------------------------
    def epq(self):
        rng = self.rng
        n = min(self.shape.n, 120)
        self.copies("e", n)
        cols = self.shape.cols
        upd_a = self.update_set("t", cols)
        mod = rng.choice([2, 3, 4])
        where_a = "t.id %% %d = %d" % (mod, rng.randrange(mod))
        if rng.random() < 0.3:
            where_a += " AND " + self.pred("t", cols, allow_sub=False)
        kind = rng.choice(["update", "update", "delete", "select"])
        pb = self.pred("t", cols, allow_sub=False)
        if rng.random() < 0.5:
            pb = "(%s OR %s)" % (pb, self.pred("t", cols, allow_sub=False))
        exprs, _ = self.select_list("t", cols, allow_heavy=False)
        exprs = [e for e in exprs if "ctid" not in e and "xmin" not in e and "tableoid" not in e]
        ret = "t.id, " + ", ".join(exprs)
        commit = rng.random() < 0.8
        join = rng.random() < 0.25

        def stmt_b(tbl):
            if kind == "update":
                s = "UPDATE %s t SET %s%s WHERE %s%s RETURNING %s" % (
                    tbl, self.update_set_b, " FROM o" if join else "", pb, " AND o.id = t.id" if join else "", ret)
            elif kind == "delete":
                s = "DELETE FROM %s t%s WHERE %s%s RETURNING %s" % (tbl, " USING o" if join else "", pb,
                                                                   " AND o.id = t.id" if join else "", ret)
            else:
                s = "SELECT %s FROM %s t WHERE %s ORDER BY t.id %s" % (ret, tbl, pb, rng_lock)
            return s
        self.update_set_b = self.update_set("t", cols)
        rng_lock = rng.choice(["FOR UPDATE", "FOR NO KEY UPDATE", "FOR SHARE"])
        res = {}
        cur_a, cur_b = self.conn_a.cursor(), self.conn_b.cursor()
        pid_b = int(self.x("SELECT pg_backend_pid()", cur_b)[0][0])
        for mode in ("on", "off"):
            tbl = "e_%s" % mode
            sb = stmt_b(tbl)
            self.x("SET hotplus.read_path = %s" % mode, cur_b)
            if mode == "on":
                self.x("SET hotplus.read_path = on")
                self.nread += self.explain_uses(sb, [], False, "EvalPlanQual statement")
                self.nmarked += self.last_marked
            self.conn_b.commit()
            box = {}

            def b_run():
                try:
                    box["rows"] = self.fetch(sb, cur_b)
                    box["count"] = cur_b.rowcount
                    if not isinstance(box["rows"], tuple):
                        self.conn_b.commit()
                except Exception as e:  # noqa: BLE001 (reported below)
                    box["exc"] = e
            ra = self.fetch("UPDATE %s t SET %s WHERE %s" % (tbl, upd_a, where_a), cur_a)
            th = threading.Thread(target=b_run)
            th.start()
            waited = False
            deadline = time.time() + 3
            while time.time() < deadline and th.is_alive():
                w = self.x("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %d" % pid_b)
                if w and w[0][0] == "Lock":
                    waited = True
                    break
                time.sleep(0.02)
            if commit:
                self.conn_a.commit()
            else:
                self.conn_a.rollback()
            th.join(60)
            if th.is_alive():
                raise Crash("session B did not finish")
            if "exc" in box:
                if isinstance(box["exc"], Crash):
                    raise box["exc"]
                raise box["exc"]
            rows = box["rows"]
            if isinstance(rows, list):
                rows = sorted(rows, key=rowkey)
            res[mode] = (ra if isinstance(ra, tuple) else None, rows, box["count"], waited, self.table_rows(tbl))
        self.nqueries += 1
        desc = "A: UPDATE t SET %s WHERE %s; B: %s; A %s" % (upd_a, where_a, stmt_b("t"),
                                                            "COMMIT" if commit else "ROLLBACK")
        on, off = res["on"], res["off"]
        if isinstance(on[1], tuple) and isinstance(off[1], tuple) and on[1][1] == off[1][1]:
            self.nskipped += 1
            self.skipped_msgs.append("%s [%s]: %s" % (on[1][2], on[1][1], desc[:300]))
        elif on[0] != off[0]:
            self.problem("EvalPlanQual: session A differs", desc, "on %s\noff %s" % (short(on[0]), short(off[0])))
        elif on[1] != off[1] or on[2] != off[2]:
            self.problem("EvalPlanQual: session B's result differs (B waited: on %s, off %s)" % (on[3], off[3]), desc,
                         describe_diff(on[1], off[1]) if isinstance(on[1], list) and isinstance(off[1], list)
                         else "on %s\noff %s" % (short(on[1]), short(off[1])))
        elif on[4] != off[4]:
            self.problem("EvalPlanQual: final tables differ", desc, describe_diff(on[4], off[4]))
        self.epq_waits = getattr(self, "epq_waits", 0) + (1 if on[3] else 0)
        self.x("DROP TABLE e_on, e_off")

    # -- the seed -----------------------------------------------------------------------------------------
    def run(self):
        self.phases = []
        t0 = time.time()

        def phase(name):
            nonlocal t0
            self.phases.append("%s %.1fs" % (name, time.time() - t0))
            t0 = time.time()
        self.setup()
        phase("setup")
        nq = self.rng.randint(40, 55)
        for i in range(nq):
            sql, ordered, sets, role, extra = self.gen_query()
            self.run_query(sql, ordered, sets + self.full_jit(), role, extra)
        phase("queries")
        for _ in range(self.rng.randint(2, 3)):
            t1 = time.time()
            self.prepared()
            if time.time() - t1 > 1.5:
                self.slow.append("%.1fs prepared statement: %s" % (time.time() - t1, self.last_prepared[:600]))
        for _ in range(2):
            self.planned_on()
        phase("prepared")
        for _ in range(self.rng.randint(2, 4)):
            self.scroll_cursor()
        phase("cursors")
        for _ in range(2):
            self.current_of()
        phase("current_of")
        for _ in range(2):
            self.returning_whole_row()
        phase("returning")
        for _ in range(2):
            self.epq()
        phase("epq")
        for s in self.reset_sql(self.session):
            self.x(s)
        self.x("RESET hotplus.read_path")
        self.x("SELECT 1")
        return self.problems

    def drop(self):
        try:
            self.x("RESET ALL")
            self.x("DROP SCHEMA IF EXISTS %s CASCADE" % self.schema)
        except psycopg2.Error:
            pass


def all_text(conn):
    """Every value comes back as PostgreSQL's text output."""
    with conn.cursor() as cur:
        cur.execute("SELECT oid FROM pg_type")
        oids = tuple(r[0] for r in cur.fetchall())
    psycopg2.extensions.register_type(psycopg2.extensions.new_type(oids, "RT_TEXT", lambda v, c: v), conn)


def connect(wait=0, autocommit=True):
    deadline = time.time() + wait
    while True:
        try:
            conn = psycopg2.connect("")
            break
        except psycopg2.OperationalError:
            if time.time() > deadline:
                raise
            time.sleep(1)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("SET statement_timeout = '120s'")
        cur.execute("SET TimeZone = 'UTC'")
        cur.execute("SET client_min_messages = warning")
        # every query gets the nodes it can have, not only those the cost model finds repaid
        # on these small tables (core/read_plan.hpp)
        cur.execute("SET hotplus.read_path_everywhere = on")
    all_text(conn)
    conn.autocommit = autocommit
    return conn


def prepare_database():
    conn = connect(wait=30)
    with conn.cursor() as cur:
        cur.execute("CREATE EXTENSION IF NOT EXISTS hotplus")
        cur.execute("DO $$ BEGIN CREATE ROLE %s; EXCEPTION WHEN duplicate_object THEN NULL; END $$" % RLS_ROLE)
        # The settings for tests are superuser-only (SUSET): the queries run as the row-level
        # security role ask EXPLAIN to show the markers, as the superuser's do.
        cur.execute("GRANT SET ON PARAMETER hotplus.read_path_show_markers TO %s" % RLS_ROLE)
    conn.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="1-20")
    ap.add_argument("--verbose", action="store_true", help="print the skipped queries' errors")
    ap.add_argument("--avoid", default="", help="comma-separated tags of known discrepancies to leave out "
                    "(nullif_size, first_null, noproj)")
    ap.add_argument("--keep", action="store_true", help="keep the schemas of failing seeds")
    args = ap.parse_args()
    lo, hi = (int(v) for v in args.seeds.split("-"))

    prepare_database()
    conns = (connect(), connect(autocommit=False), connect(autocommit=False))
    passed = failed = 0
    total_q = total_read = total_marked = total_skip = seeds_read = seeds_marked = 0
    total_exact = total_twin = total_temp = total_spilled = 0
    for seed in range(lo, hi + 1):
        t0 = time.time()
        s = Seed(conns, seed, args)
        crashed = False
        try:
            problems = s.run()
        except Crash as e:
            problems = s.problems + ["the connection was lost (server crash?): %s" % e]
            crashed = True
        except psycopg2.Error as e:
            problems = s.problems + ["error: %s" % str(e).strip()]
            if any(c.closed for c in conns):
                crashed = True
        if not crashed:
            try:
                conns[0].cursor().execute("SELECT 1")
            except psycopg2.Error as e:
                problems = problems + ["the server is not answering after the seed: %s" % str(e).strip()]
                crashed = True
        if crashed:
            for c in conns:
                try:
                    c.close()
                except psycopg2.Error:
                    pass
            time.sleep(2)
            conns = (connect(wait=60), connect(wait=60, autocommit=False), connect(wait=60, autocommit=False))
        else:
            for c in conns[1:]:
                c.rollback()
        total_q += s.nqueries
        total_read += s.nread
        total_marked += s.nmarked
        total_skip += s.nskipped
        total_exact += s.nexact
        total_twin += s.ntwin
        total_temp += s.ntemp
        total_spilled += s.nspilled
        seeds_read += s.nread > 0
        seeds_marked += s.nmarked > 0
        info = ("%d queries, %d through HotheapRead, %d with markers, %d skipped, %d of issue 31's shapes "
                "(%d against heap twins, %d temporary-block checks, %d spilling), %.1fs" % (
                    s.nqueries, s.nread, s.nmarked, s.nskipped, s.nexact, s.ntwin, s.ntemp, s.nspilled,
                    time.time() - t0))
        if s.navoided:
            info += ", %d left out (--avoid)" % s.navoided
        if problems:
            failed += 1
            print("seed %d FAILED (%s; replay: --seeds %d-%d)" % (seed, info, seed, seed))
            for p in problems[:8]:
                print("    " + p.replace("\n", "\n    "))
            if len(problems) > 8:
                print("    ... and %d more problems" % (len(problems) - 8))
            if not args.keep and not crashed:
                s.cur = conns[0].cursor()
                s.drop()
        else:
            passed += 1
            print("seed %d ok (%s)" % (seed, info))
            s.drop()
        if args.verbose:
            if hasattr(s, "shape"):
                print("    config: %d columns, %d rows, tables %s, rls %s, parallel %s, jit %s, generic %s, build %.1fs"
                      % (len(s.shape.cols), s.nrows, [t for t, _ in s.tables], s.rls, s.parallel, s.jit, s.generic,
                         s.build_time))
                print("    phases: " + ", ".join(getattr(s, "phases", [])) +
                      "; EvalPlanQual scenarios where B waited for A: %d" % getattr(s, "epq_waits", 0))
            for m in s.skipped_msgs:
                print("    skipped: " + m)
            for m in s.slow:
                print("    slow: " + m)
        sys.stdout.flush()
    print("# %d queries, %d through HotheapRead (%.0f%%), %d with markers (%.0f%%), %d skipped (%.1f%%); "
          "%d of %d seeds used HotheapRead, %d used markers; %d of issue 31's shapes, %d against heap twins, "
          "%d temporary-block checks (%d spilling)"
          % (total_q, total_read, 100.0 * total_read / max(1, total_q), total_marked,
             100.0 * total_marked / max(1, total_q), total_skip, 100.0 * total_skip / max(1, total_q), seeds_read,
             passed + failed, seeds_marked, total_exact, total_twin, total_temp, total_spilled))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
