#!/usr/bin/python3
# Design points: D14b
"""Every built-in function a shared detoast marker serves reads the whole value on heap, and
returns heap's datum.

The read path serves a toastable column's references from one detoasted copy per row
(src/read/shared_detoast.hpp), made by a marker in the function's argument. Two things must
hold for every function it serves, and neither can be read off the catalog, so this test asks
every one:
  - the function's result is heap's datum: a function that returns its argument hands the copy
    up to the nodes above, which must be what heap hands up there (the same bytes, header and
    compression), or pg_column_size(), the compression a table stores it with, and the memory
    of a Sort above would differ;
  - heap's call reads the whole value: a function that answers from the stored size or reads a
    slice (texteq of unequal lengths, octet_length, substr) would have the marker detoast what
    heap never does (read_references.hpp). Measured on the value stored out of line: the TOAST
    blocks heap's call reads (pg_statio_user_tables) are those of a whole read.

For every function of pg_proc that the read path treats as a built-in value reader (OID below
FirstGenbkiObjectId, not an aggregate or window function, not set-returning, not volatile,
1-4 arguments), and every argument position that can take a column of a table of toastable
columns (text, varchar, bpchar, bytea, jsonb, json, tsvector, numeric, int[], text[], jsonb[],
varbit, a composite type, int4range; polymorphic arguments resolved to the column's type), the
call is made on three rows (the value compressed in line, stored out of line, short) twice in a
subquery's output, with the other arguments from a table of sample constants, and above the
subquery each result's pg_column_size(), pg_column_compression() and text are read. The rows
must be equal with hotplus.read_path on and off; an error must be the same (SQLSTATE) on both
sides. With the read path on, the subquery's references must be markers where the rule says
(counted: the test fails if too few calls were served); for each call served, heap's call on
the out-of-line row must read as many TOAST blocks as a whole read of the value.

Usage: function_results.py [--only NAME]
Connection from the usual PG* environment variables. Prints one line per mismatch (indented),
a summary line starting with "#", and a final line "N passed, N failed" (one check per call).
"""
import argparse
import re
import sys

import psycopg2
import psycopg2.extensions

SCHEMA = "function_results"

# Column name -> SQL type. Each is a column of both tables.
COLUMNS = {
    "c_text": "text",
    "c_varchar": "varchar",
    "c_bpchar": "bpchar",
    "c_bytea": "bytea",
    "c_jsonb": "jsonb",
    "c_json": "json",
    "c_tsvector": "tsvector",
    "c_numeric": "numeric",
    "c_intarr": "int[]",
    "c_textarr": "text[]",
    "c_jsonbarr": "jsonb[]",
    "c_varbit": "varbit",
    "c_comp": f"{SCHEMA}.comp",
    "c_range": "int4range",
}

# The value of each column per row: 1 big and compressible, 2 the same (the second table
# stores it out of line, uncompressed), 3 short. $N is the row number.
BIG = {
    "c_text": "repeat('abc ' || $N, 3000)",
    "c_varchar": "repeat('xyz ' || $N, 3000)",
    "c_bpchar": "repeat('pq ' || $N, 3000)",
    "c_bytea": "convert_to(repeat('bin ' || $N, 3000), 'UTF8')",
    "c_jsonb": "(SELECT jsonb_object_agg('k' || g, repeat('v', 20)) FROM generate_series(1, 400) g)",
    "c_json": "(SELECT json_object_agg('k' || g, repeat('v', 20)) FROM generate_series(1, 400) g)",
    "c_tsvector": "(SELECT string_agg('w' || g || ':' || g, ' ')::tsvector FROM generate_series(1, 1500) g)",
    "c_numeric": "(repeat('12345', 1200) || '.5')::numeric",
    "c_intarr": "(SELECT array_agg(g % 10) FROM generate_series(1, 5000) g)",
    "c_textarr": "(SELECT array_agg('e' || (g % 10)) FROM generate_series(1, 3000) g)",
    "c_jsonbarr": "(SELECT array_agg(jsonb_build_object('a', g % 3)) FROM generate_series(1, 1000) g)",
    "c_varbit": "repeat('10', 20000)::varbit",
    "c_comp": f"ROW(repeat('f', 10000), $N)::{SCHEMA}.comp",
    "c_range": "int4range($N, 1000000)",
}
SMALL = {
    "c_text": "'ab'",
    "c_varchar": "'ab'",
    "c_bpchar": "'ab'",
    "c_bytea": "'\\x0102'::bytea",
    "c_jsonb": "'{\"a\": 1}'",
    "c_json": "'{\"a\": 1}'",
    "c_tsvector": "'a b'",
    "c_numeric": "1.5",
    "c_intarr": "'{1,2}'",
    "c_textarr": "'{a,b}'",
    "c_jsonbarr": "ARRAY['{\"a\": 1}'::jsonb]",
    "c_varbit": "'101'",
    "c_comp": f"ROW('s', 1)::{SCHEMA}.comp",
    "c_range": "int4range(1, 5)",
}

# Constants for arguments that are not the column, by type name (format_type).
SAMPLES = {
    "smallint": "2::smallint", "integer": "2", "bigint": "2::bigint", "real": "1.5::real",
    "double precision": "1.5::float8", "numeric": "2.5", "boolean": "true",
    "text": "'b'::text", "character varying": "'b'::varchar", "character": "'b'::bpchar",
    "name": "'b'::name", '"char"': "'b'::\"char\"", "bytea": "'\\x01'::bytea",
    "jsonb": "'{\"a\": 1}'::jsonb", "json": "'{\"a\": 1}'::json", "text[]": "'{b}'::text[]",
    "integer[]": "'{1}'::int[]", "jsonb[]": "ARRAY['{}'::jsonb]", "tsvector": "'a'::tsvector",
    "tsquery": "'a'::tsquery", "regconfig": "'simple'::regconfig", "bit varying": "'1'::varbit",
    "int4range": "int4range(1, 3)", "unknown": "'b'::unknown", "cstring": "'b'::cstring",
}

POLY_ELEMENT = {"anyelement", "anynonarray", "anycompatible", "anycompatiblenonarray"}
POLY_ARRAY = {"anyarray", "anycompatiblearray"}
POLY_RANGE = {"anyrange", "anycompatiblerange"}


def q(conn, sql, args=None):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall() if cur.description else None


def setup(conn):
    q(conn, f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    q(conn, "CREATE EXTENSION IF NOT EXISTS hotplus")
    q(conn, f"CREATE SCHEMA {SCHEMA}")
    q(conn, f"CREATE TYPE {SCHEMA}.comp AS (f text, n int)")
    cols = ", ".join(f"{name} {typ}" for name, typ in COLUMNS.items())
    for table in ("inline_rows", "external_rows"):
        q(conn, f"CREATE TABLE {SCHEMA}.{table} (id int, {cols}) USING hotheap")
    for name in COLUMNS:
        q(conn, f"ALTER TABLE {SCHEMA}.external_rows ALTER {name} SET STORAGE EXTERNAL")
    for table in ("inline_rows", "external_rows"):
        for row in (1, 2, 3):
            values = ", ".join((SMALL if row == 3 else BIG)[name].replace("$N", str(row)) for name in COLUMNS)
            q(conn, f"INSERT INTO {SCHEMA}.{table} VALUES ({row}, {values})")
    # Every big value must be stored as the test says: compressed in line, or out of line.
    for table, expect in (("inline_rows", "compressed"), ("external_rows", "external")):
        for name in COLUMNS:
            size, raw = q(conn, f"SELECT pg_column_size({name}), octet_length({name}::text) "
                                f"FROM {SCHEMA}.{table} WHERE id = 1")[0]
            if expect == "compressed" and size * 2 > raw:
                print(f"# note: {table}.{name} is not compressed much ({size} of {raw} bytes)")
    # What type each column is, by name as format_type gives it, and its array/element types.
    rows = q(conn, """SELECT a.attname, format_type(a.atttypid, NULL), t.typelem, t.typarray,
                             format_type(nullif(t.typelem, 0), NULL), format_type(nullif(t.typarray, 0), NULL)
                      FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
                      WHERE a.attrelid = %s::regclass AND a.attnum > 1""", (f"{SCHEMA}.inline_rows",))
    return {r[0]: {"type": r[1], "element": r[4], "array": r[5]} for r in rows}


def functions(conn, only):
    """Candidate functions: (oid, name, argument type names, result type name)."""
    return q(conn, """
        SELECT p.oid, p.proname, array(SELECT format_type(t, NULL) FROM unnest(p.proargtypes::oid[]) t),
               format_type(p.prorettype, NULL)
        FROM pg_proc p JOIN pg_type r ON r.oid = p.prorettype
        WHERE p.oid < 10000 AND p.prokind = 'f' AND NOT p.proretset AND p.provolatile <> 'v'
          AND p.pronargs BETWEEN 1 AND 4 AND p.provariadic = 0
          AND (r.typlen = -1 OR r.typtype = 'p' OR r.typbyval)
          AND p.proname NOT IN ('pg_column_size', 'pg_column_compression', 'pg_column_toast_chunk_id')
          AND p.proname NOT LIKE '%%recv' AND p.proname NOT LIKE '%%send'
          AND p.proname NOT LIKE '%%\\_in' AND p.proname NOT LIKE '%%\\_out'
          -- (database|schema|table|query|cursor)_to_xml dump what their queries read,
          -- hotplus's statistics views included, which count the read path's own scans.
          AND p.proname !~ '_to_xml'
          AND (%s IS NULL OR p.proname = %s)
        ORDER BY p.oid""", (only, only))


def calls(columns, fn):
    """Every call of fn with one of the columns at one argument position: (column, SQL)."""
    oid, name, argtypes, rettype = fn
    for pos, argtype in enumerate(argtypes):
        for column, info in columns.items():
            if argtype in POLY_ELEMENT:
                element, array = info["type"], info["array"]
            elif argtype in POLY_ARRAY and info["element"] is not None:
                element, array = info["element"], info["type"]
            elif argtype in POLY_RANGE and info["type"] == "int4range":
                element, array = "integer", None
            elif argtype == info["type"] or (argtype == "record" and column == "c_comp"):
                element, array = None, None
            else:
                continue
            args = []
            for k, t in enumerate(argtypes):
                if k == pos:
                    args.append(column)
                    continue
                if t in POLY_ELEMENT:
                    t = element
                elif t in POLY_ARRAY:
                    t = array
                elif t in POLY_RANGE:
                    t = "int4range"
                # A constant where there is one (the column as a regular expression takes
                # seconds to compile), else the column again.
                if t in SAMPLES:
                    args.append(SAMPLES[t])
                elif t == info["type"] or (t == "record" and column == "c_comp"):
                    args.append(column)
                else:
                    args = None
                    break
            if args is not None:
                yield column, f"pg_catalog.{name}({', '.join(args)})"


# Expressions that may return the column's datum as they received it, with $C the column
# and $S a constant of its type.
EXPRESSIONS = ["NULLIF($C, $S)", "COALESCE($C, $S)", "GREATEST($C, $S)", "LEAST($S, $C)",
               "CASE WHEN id > 0 THEN $C ELSE $S END", "NULLIF(NULLIF($C, $S), $S)"]


def expression_calls(columns):
    for column, info in columns.items():
        sample = SAMPLES.get(info["type"])
        if sample is not None:
            for template in EXPRESSIONS:
                yield column, template.replace("$C", column).replace("$S", sample)


def run(conn, sql, read_path):
    q(conn, f"SET hotplus.read_path = {'on' if read_path else 'off'}")
    try:
        return ("rows", q(conn, sql))
    except psycopg2.Error as e:
        conn.rollback()
        return ("error", e.pgcode)


def toast_blocks(conn, sql):
    """The blocks of the out-of-line table's TOAST relation and its index that sql reads (hit or
    read), run with the read path off (heap's calls)."""
    def now():
        q(conn, "SELECT pg_stat_force_next_flush()")
        return q(conn, "SELECT coalesce(toast_blks_hit, 0) + coalesce(toast_blks_read, 0) + "
                       "coalesce(tidx_blks_hit, 0) + coalesce(tidx_blks_read, 0) FROM pg_statio_user_tables "
                       "WHERE relid = %s::regclass", (f"{SCHEMA}.external_rows",))[0][0]
    before = now()
    q(conn, "SET hotplus.read_path = off")
    try:
        # An aggregate that needs v's value: PostgreSQL 19 plans count(v) of a v that cannot
        # be NULL (`f(col) IS NULL`) as count(*), and evaluates no call at all.
        q(conn, f"SELECT max(v::text) FROM ({sql}) s")
    except psycopg2.Error:
        conn.rollback()
        return None
    return now() - before


def describe(result, other):
    """result, where it differs from other: the error, or the first differing row with the
    text shortened."""
    if result[0] == "error" or other[0] == "error":
        return str(result)[:300]
    for mine, theirs in zip(result[1], other[1]):
        if mine != theirs:
            return str(tuple(v[:60] + "..." if isinstance(v, str) and len(v) > 60 else v for v in mine))
    return f"{len(result[1])} rows"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=None, help="test only functions of this name")
    args = ap.parse_args()

    conn = psycopg2.connect("")
    conn.set_isolation_level(psycopg2.extensions.ISOLATION_LEVEL_AUTOCOMMIT)
    q(conn, "SET statement_timeout = '5s'")
    q(conn, "SET max_parallel_workers_per_gather = 0")
    q(conn, "SET jit = off")
    q(conn, "SET hotplus.read_path_everywhere = on")  # nodes on few-row scans too (read_plan.hpp)
    columns = setup(conn)

    passed = failed = errors_both = served = slow = partial = 0
    whole = {}  # column -> TOAST blocks of a whole read of the out-of-line value
    every_call = [(fn[1] + str(tuple(fn[2])), column, call)
                  for fn in functions(conn, args.only) for column, call in calls(columns, fn)]
    if args.only is None:
        every_call += [("expression", column, call) for column, call in expression_calls(columns)]
    for name, column, call in every_call:
        for table in ("inline_rows", "external_rows"):
            # More references to the column (the call twice, and num_nulls(), a built-in
            # function that takes any value and reads none: no marker there).
            inner = (f"SELECT id, {call} AS x, {call} AS y, num_nulls({column}, {column}) AS z "
                     f"FROM {SCHEMA}.{table} OFFSET 0")
            sql = (f"SELECT id, pg_column_size(x), pg_column_compression(x), x::text, "
                   f"pg_column_size(y), pg_column_compression(y), z FROM ({inner}) s ORDER BY id")
            on = run(conn, sql, True)
            off = run(conn, sql, False)
            if "57014" in (on[1], off[1]):  # statement_timeout: too slow to tell
                slow += 1
                continue
            if on == off:
                passed += 1
                if on[0] == "error":
                    errors_both += 1
                else:
                    q(conn, "SET hotplus.read_path = on")
                    q(conn, "SET hotplus.read_path_show_markers = on")
                    plan = "\n".join(r[0] for r in q(conn, f"EXPLAIN (VERBOSE, COSTS OFF) {sql}"))
                    q(conn, "RESET hotplus.read_path_show_markers")
                    marked = re.search(r"hotplus_shared_value\((\w+\.)?%s\b" % column, plan) is not None
                    served += marked
                    if marked and table == "external_rows":
                        if column not in whole:
                            whole[column] = toast_blocks(conn, f"SELECT md5({column}::text) AS v FROM {SCHEMA}.{table} WHERE id = 2")
                        read = toast_blocks(conn, f"SELECT {call} IS NULL AS v FROM {SCHEMA}.{table} WHERE id = 2")
                        if read is not None and read < whole[column]:
                            partial += 1
                            failed += 1
                            passed -= 1
                            print(f"    {name} on {table}.{column}: {call}")
                            print(f"      served by a marker, but heap's call reads {read} TOAST blocks of a "
                                  f"whole read's {whole[column]}")
                continue
            failed += 1
            print(f"    {name} on {table}.{column}: {call}")
            print(f"      read path on:  {describe(on, off)}")
            print(f"      read path off: {describe(off, on)}")
    if args.only is None and served < 500:
        print(f"    only {served} calls were served by a shared detoast marker (expected 500 or more)")
        failed += 1
    if failed == 0:
        q(conn, f"DROP SCHEMA {SCHEMA} CASCADE")
    print(f"# {passed + failed} calls, {errors_both} failing the same way on both sides, {served} served by a marker "
          f"({partial} of them reading less than the whole value on heap), {slow} too slow to compare (statement_timeout)")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
