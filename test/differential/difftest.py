#!/usr/bin/python3
# Design points: D1, D2, D3, D8, D8a, D11, D13
"""Randomized differential test: hotheap against a heap twin.

For each seed: a random table shape (columns with every TOAST storage; expression, partial,
unique, INCLUDE, hash, GIN, GiST, SP-GiST and BRIN indexes) is created twice, USING hotheap and
USING heap, and the same random statements (write-backs, same-length changes, predicate flips,
case changes, sums preserved, numeric scale changes, deletes, inserts, VACUUM) are applied to
both, and statements written like an ORM's: every column set, most written back unchanged
(v || '', a jsonb text round trip, the same value as a bound parameter) next to real
changes of index inputs in the same statement. Some seeds also leave a failed CREATE INDEX
CONCURRENTLY behind (an index that is not ready: heap never evaluates it). After each seed:
  - both tables hold identical rows;
  - no statement fails on one table only (hotplus.verify is on: a decision the independent
    verifier disagrees with fails the statement);
  - amcheck bt_index_check(index, true) passes on every btree index of the hotheap table;
  - every index of the hotheap table answers lookups of every key value the rows ever had
    (index scan, bitmap scan, and index-only scan where the planner can) exactly like a
    sequential scan does; a stale entry left by a wrong HOT decision shows up here, also
    the case amcheck cannot see (a row that left a partial index's predicate).

Usage: difftest.py [--seeds A-B | --soak MINUTES] [--updates N]
Connection from the usual PG* environment variables. Prints one line per seed, the seed of
any failure (replay it with --seeds S-S), and a final line "N passed, N failed".
"""
import argparse
import json
import random
import sys
import time

import psycopg2

SCAN_MODES = {
    "index": "SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off",
    "bitmap": "SET enable_seqscan = off; SET enable_indexscan = off; SET enable_bitmapscan = on",
    "indexonly": "SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexscan = on; SET enable_indexonlyscan = on",
    "seq": "SET enable_seqscan = on; SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off",
}
RESET = "RESET enable_seqscan; RESET enable_indexscan; RESET enable_bitmapscan; RESET enable_indexonlyscan"

# Index menu: (access method, definition, key expression, predicate). The key expression is
# the index's first key; lookups "key = value AND predicate" must be answerable by the index
# (None: a GIN index, checked by containment lookups instead).
INDEX_MENU = [
    ("btree", "((doc->>'k1'))", "doc->>'k1'", None),
    ("btree", "((doc->>'k2'))", "doc->>'k2'", None),
    ("btree", "(lower(t))", "lower(t)", None),
    ("btree", "(a) WHERE b > 0", "a", "b > 0"),
    ("btree", "((doc->>'k1')) WHERE a % 3 = 0", "doc->>'k1'", "a % 3 = 0"),
    ("btree", "((doc->'k1'))", "doc->'k1'", None),
    ("btree", "(a) WHERE (doc->>'k2') = 'x'", "a", "(doc->>'k2') = 'x'"),
    ("btree", "((doc->>'k3'), lower(doc->>'k2'))", "doc->>'k3'", None),
    ("btree", "((100 / a)) WHERE a <> 0", "100 / a", "a <> 0"),
    ("btree", "(a) INCLUDE (b)", "a", None),
    ("btree", "(a, b)", "a", None),
    ("btree", "(num)", "num", None),
    ("btree", "(md5(x))", "md5(x)", None),
    ("btree", "(t)", "t", None),
    ("unique", "(id, a)", "id", None),
    ("hash", "(num)", "num", None),
    ("hash", "(lower(t))", "lower(t)", None),
    ("hash", "(x)", "x", None),
    ("gin", "(arr)", None, None),
    ("gin", "(doc jsonb_path_ops)", None, None),
    ("gist", "(int4range(a, a + abs(b) + 1))", "int4range(a, a + abs(b) + 1)", None),
    ("spgist", "(t)", "t", None),
    ("brin", "(a)", "a", None),
]

STORAGES = ["EXTENDED", "EXTERNAL", "MAIN"]


def q(cur, sql, args=None):
    cur.execute(sql, args)
    return cur.fetchall() if cur.description else None


def lit(cur, value):
    return cur.mogrify("%s", (value,)).decode()


def big_text(rng, compressible):
    if compressible:
        return ("".join(rng.choice("abc") for _ in range(8))) * rng.choice([10, 150, 250])
    return "".join("%08x" % rng.getrandbits(32) for _ in range(rng.choice([4, 300, 400])))


class Seed:
    def __init__(self, conn, seed, updates):
        self.conn = conn
        self.seed = seed
        self.rng = random.Random(seed)
        self.updates = updates
        self.cur = conn.cursor()
        self.hot = "diff_hot_%d" % seed
        self.twin = "diff_heap_%d" % seed
        self.indexes = []  # (name, access method, key expression, predicate, key type)
        self.seen = {}  # index position -> set of key values (as SQL literals)
        # The documents' bulk is under "pad", after the indexed fields k1..k3 in jsonb's key
        # order (shorter keys first), so their values are compared from a prefix of a
        # compressed or out-of-line old document; every third seed names it "p", before them,
        # so the whole document is read (jsonb_parts.hpp, compare_parts_in_prefix). From the
        # seed, not the seed's generator: the other seeds' statements stay as they were.
        self.pad = "p" if seed % 3 == 0 else "pad"

    def both(self, sql):
        for table in (self.hot, self.twin):
            self.cur.execute(sql.replace("{t}", table))

    def create(self):
        rng = self.rng
        self.both("DROP TABLE IF EXISTS {t}")
        fill = rng.choice([30, 50, 70, 100])
        self.cur.execute(
            "CREATE TABLE %s (id int PRIMARY KEY, a int, b int, num numeric, t text, x text,"
            " doc jsonb, arr int[]) USING hotheap WITH (fillfactor = %d)" % (self.hot, fill))
        self.cur.execute(
            "CREATE TABLE %s (id int PRIMARY KEY, a int, b int, num numeric, t text, x text,"
            " doc jsonb, arr int[]) USING heap WITH (fillfactor = %d)" % (self.twin, fill))
        for col in ("t", "x", "doc"):
            self.both("ALTER TABLE {t} ALTER %s SET STORAGE %s" % (col, rng.choice(STORAGES)))
        rows = []
        for i in range(1, rng.choice([50, 200, 400]) + 1):
            rows.append((i, rng.randint(-20, 20), rng.randint(-20, 20),
                         "%d.%s" % (rng.randint(0, 9), "0" * rng.randint(0, 2)),
                         big_text(rng, True) if rng.random() < 0.3 else rng.choice(["Ab", "aB", "cd", "EF"]),
                         big_text(rng, rng.random() < 0.5),
                         '{"k1": %d, "k2": "%s", "k3": %d, "%s": "%s"}' % (
                             rng.randint(0, 9), rng.choice("xyz"), rng.randint(0, 99), self.pad,
                             "p" * rng.choice([1, 100, 3000])),
                         [rng.randint(0, 9) for _ in range(rng.randint(0, 3))]))
        for table in (self.hot, self.twin):
            self.cur.executemany(
                "INSERT INTO %s VALUES (%%s, %%s, %%s, %%s::numeric, %%s, %%s, %%s::jsonb, %%s)" % table, rows)
        for n, entry in enumerate(rng.sample(INDEX_MENU, rng.randint(2, 7))):
            kind, definition, key, predicate = entry
            method = "btree" if kind == "unique" else kind
            unique = "UNIQUE " if kind == "unique" else ""
            for table in (self.hot, self.twin):
                name = "%s_i%d" % (table, n)
                self.cur.execute("CREATE %sINDEX %s ON %s USING %s %s" % (unique, name, table, method, definition))
            key_type = None
            if key is not None:
                key_type = q(self.cur, "SELECT pg_typeof(%s)::text FROM %s WHERE %s LIMIT 1"
                             % (key, self.twin, predicate or "true"))
                key_type = key_type[0][0] if key_type else "text"
            self.indexes.append(("%s_i%d" % (self.hot, n), method, key, predicate, key_type))
            self.seen[n] = set()
        self.conn.commit()

    def remember_keys(self):
        for n, (_, _, key, predicate, _) in enumerate(self.indexes):
            if key is None:
                continue
            # Only where the predicate holds: the key may fail elsewhere (100 / a).
            for table in (self.hot, self.twin):
                for (value,) in q(self.cur, "SELECT DISTINCT (%s)::text FROM %s WHERE %s"
                                  % (key, table, predicate or "true")):
                    if value is not None:
                        self.seen[n].add(value)

    def random_statement(self):
        rng = self.rng
        m = rng.choice([2, 3, 5, 7])
        r = rng.randrange(m)
        where = "WHERE id %% %d = %d" % (m, r)
        sets = rng.choice([
            "t = t || ''",                                   # write-back of a maybe-toasted value
            "x = x || ''",
            "t = t || '', x = x || '', doc = doc || '{}'",
            "doc = doc || '{}'",
            "x = overlay(x placing 'Z' from 3 for 1)",      # same-length change
            "t = overlay(t placing upper(substr(t, 1, 1)) from 1 for 1)",  # case change
            "t = lower(t)",
            "t = upper(t)",
            "b = -b",                                        # predicate flips
            "a = a + 1, b = b - 1",                          # sums preserved
            "a = 0",                                         # guarded expression
            "a = CASE WHEN a = 0 THEN 1 ELSE a END",
            "num = num * 1.0",                               # scale change, same value
            "num = round(num, 0)",
            "doc = jsonb_set(doc, '{k3}', to_jsonb(id))",   # field no index covers
            "doc = jsonb_set(doc, '{k1}', to_jsonb((doc->>'k1')::numeric + 1))",
            "doc = jsonb_set(doc, '{k2}', '\"q\"')",
            "doc = jsonb_set(doc, '{k2}', to_jsonb(CASE WHEN id % 2 = 0 THEN 'x' ELSE 'y' END))",
            "doc = doc - 'k3'",
            "doc = jsonb_set(doc, '{k1}', to_jsonb((doc->>'k1')::numeric * 1.0))",
            "arr = arr || a",
            "arr = arr",
            "t = 'Ab'",
            # The raw size changes with the field (or the bulk alone): the old document is not
            # read in full to compare the column, and its fields come from a prefix.
            "doc = jsonb_set(doc, '{k2}', to_jsonb((doc->>'k2') || 'z'))",
            "doc = jsonb_set(doc, '{pad}', to_jsonb(left(coalesce(doc->>'pad', ''), -1)))",
            "doc = jsonb_set(jsonb_set(doc, '{pad}', to_jsonb(left(coalesce(doc->>'pad', ''), -1))),"
            " '{k1}', to_jsonb(coalesce((doc->>'k1')::numeric, 0) + 1))",
        ])
        return "UPDATE {t} SET %s %s" % (sets.replace("{pad}", "{%s}" % self.pad).replace("'pad'", "'%s'" % self.pad),
                                         where)

    # Per column: ways to write the value back unchanged, and real changes.
    ORM_WRITE_BACK = {
        "a": ["a", "a + 0"],
        "b": ["b"],
        "num": ["num", "num::text::numeric"],
        "t": ["t", "t || ''", "t::varchar::text"],
        "x": ["x", "x || ''"],
        "doc": ["doc", "doc || '{}'", "doc::text::jsonb"],
        "arr": ["arr", "arr || '{}'::int[]"],
    }
    ORM_CHANGE = {
        "a": ["a + 1", "0", "CASE WHEN a = 0 THEN 1 ELSE a END"],
        "b": ["-b", "b - 1"],
        "num": ["num * 1.0", "round(num, 0)", "num + 1"],
        "t": ["lower(t)", "upper(t)", "overlay(t placing upper(substr(t, 1, 1)) from 1 for 1)", "'Ab'"],
        "x": ["overlay(x placing 'Z' from 3 for 1)", "x || 'q'"],
        "doc": ["jsonb_set(doc, '{k3}', to_jsonb(id))",
                "jsonb_set(doc, '{k1}', to_jsonb((doc->>'k1')::numeric + 1))",
                "jsonb_set(doc, '{k2}', to_jsonb(CASE WHEN id % 2 = 0 THEN 'x' ELSE 'y' END))",
                "jsonb_set(doc, '{pad}', to_jsonb(repeat('r', 3000)))",
                "doc - 'k3'"],
        "arr": ["arr || a"],
    }

    def orm_statement(self):
        """Every column set, each written back unchanged or really changed."""
        rng = self.rng
        m = rng.choice([2, 3, 5])
        sets = []
        for col in ("a", "b", "num", "t", "x", "doc", "arr"):
            menu = self.ORM_CHANGE if rng.random() < 0.3 else self.ORM_WRITE_BACK
            sets.append("%s = %s" % (col, rng.choice(menu[col]).replace("{pad}", "{%s}" % self.pad)))
        return "UPDATE {t} SET %s WHERE id %% %d = %d" % (", ".join(sets), m, rng.randrange(m))

    def orm_rows(self):
        """An ORM's save: each row read, some attributes changed, every column sent back as a
        bound parameter (jsonb as text), one UPDATE per row."""
        rng = self.rng
        m = rng.choice([5, 7, 11])
        rows = q(self.cur, "SELECT id, a, b, num::text, t, x, doc::text, arr FROM %s WHERE id %% %d = %d"
                 " ORDER BY id LIMIT 6" % (self.hot, m, rng.randrange(m)))
        for id_, a, b, num, t, x, doc, arr in rows:
            if rng.random() < 0.3:
                a = (a or 0) + 1
            if rng.random() < 0.2:
                b = -(b or 0)
            if rng.random() < 0.2:
                num = num + "0" if "." in num else num + ".0"
            if rng.random() < 0.2:
                t = t.upper() if rng.random() < 0.5 else "Ab"
            if rng.random() < 0.2 and len(x) > 3:
                x = x[:2] + "Z" + x[3:]
            if rng.random() < 0.4:
                d = json.loads(doc)
                key = rng.choice(["k1", "k2", "k3", "pad"])
                value = {"k1": rng.randint(0, 9), "k2": rng.choice("xyz"), "k3": rng.randint(0, 99),
                         "pad": "p" * rng.choice([1, 100, 3000])}[key]
                d[self.pad if key == "pad" else key] = value
                doc = json.dumps(d)
            if rng.random() < 0.1:
                arr = (arr or []) + [rng.randint(0, 9)]
            for table in (self.hot, self.twin):
                self.cur.execute("UPDATE %s SET a = %%s, b = %%s, num = %%s::numeric, t = %%s, x = %%s,"
                                 " doc = %%s::jsonb, arr = %%s::int[] WHERE id = %%s" % table,
                                 (a, b, num, t, x, doc, arr, id_))

    def failed_concurrent_index(self):
        """CREATE INDEX CONCURRENTLY that fails during its build, leaving an index that is not
        ready (t::int fails on 'Ab'; the duplicates of k2 break uniqueness)."""
        definition = self.rng.choice(["((t::int))", "((doc->>'k2')) WHERE b <> 12345", "((length(x) / (a - a)))"])
        unique = "UNIQUE " if "k2" in definition else ""
        self.conn.commit()
        self.conn.autocommit = True
        for table in (self.hot, self.twin):
            try:
                self.cur.execute("CREATE %sINDEX CONCURRENTLY %s_failed ON %s %s" % (unique, table, table, definition))
                self.cur.execute("DROP INDEX %s_failed" % table)  # it did not fail after all
            except psycopg2.Error:
                pass
        self.conn.autocommit = False

    def run(self):
        rng = self.rng
        self.create()
        self.remember_keys()
        if rng.random() < 0.3:
            self.failed_concurrent_index()
        for step in range(self.updates):
            p = rng.random()
            if p < 0.65:
                sql = rng.choice([self.random_statement, self.orm_statement])()
            elif p < 0.80:
                self.orm_rows()
                sql = ""
            elif p < 0.87:
                sql = "DELETE FROM {t} WHERE id %% %d = %d" % (rng.choice([7, 11, 13]), rng.randrange(7))
            elif p < 0.94:
                off = 1000 * (step + 1)
                sql = ("INSERT INTO {t} SELECT id + %d, a, b, num, t, x, doc, arr FROM {t} WHERE id %% %d = 0"
                       " AND id < 1000" % (off, rng.choice([5, 9])))
            else:
                sql = None
            if sql == "":
                pass  # orm_rows() ran its own statements
            elif sql is None:
                self.conn.commit()
                self.conn.autocommit = True
                self.both("VACUUM {t}")
                self.conn.autocommit = False
            else:
                self.both(sql)
                if rng.random() < 0.3:
                    self.conn.commit()
            self.remember_keys()
        self.conn.commit()
        self.conn.autocommit = True
        self.both("VACUUM {t}")  # sets the visibility map for index-only scans
        self.conn.autocommit = False
        return self.check()

    def rows(self, table):
        return q(self.cur, "SELECT id, a, b, num::text, md5(t), md5(x), doc::text, arr::text FROM %s ORDER BY id" % table)

    def check(self):
        problems = []
        if self.rows(self.hot) != self.rows(self.twin):
            problems.append("table contents differ from the heap twin")
        for name, method, _, _, _ in self.indexes:
            if method == "btree":
                try:
                    q(self.cur, "SELECT bt_index_check(%s::regclass, true)", (name,))
                except psycopg2.Error as e:
                    self.conn.rollback()
                    problems.append("amcheck %s: %s" % (name, str(e).strip()))
        for n, (name, method, key, predicate, key_type) in enumerate(self.indexes):
            if key is None:
                problems += self.check_containment(name)
                continue
            for value in sorted(self.seen[n]):
                cond = "(%s) = %s::%s" % (key, lit(self.cur, value), key_type)
                if predicate:
                    cond += " AND " + predicate
                problems += self.compare_scans(name, "SELECT id, (%s)::text FROM %s WHERE %s ORDER BY 1, 2"
                                               % (key, self.hot, cond), cond)
                if len(problems) > 5:
                    return problems
        return problems

    def check_containment(self, name):
        problems = []
        for value in range(0, 10):
            for cond in ("arr @> ARRAY[%d]" % value, "doc @> '{\"k1\": %d}'" % value):
                problems += self.compare_scans(name, "SELECT id FROM %s WHERE %s ORDER BY 1" % (self.hot, cond), cond)
        return problems

    def compare_scans(self, index, sql, cond):
        results = {}
        for mode, settings in SCAN_MODES.items():
            self.cur.execute(settings)
            try:
                plan = "\n".join(r[0] for r in q(self.cur, "EXPLAIN (COSTS OFF) " + sql))
                results[mode] = (q(self.cur, sql), plan)
            except psycopg2.Error as e:
                self.conn.rollback()
                return ["%s: %s failed: %s" % (index, mode, str(e).strip())]
        self.cur.execute(RESET)
        problems = []
        expected = results["seq"][0]
        for mode in ("index", "bitmap", "indexonly"):
            rows, plan = results[mode]
            if "Seq Scan" in plan:
                continue  # the planner could not use an index this way
            if rows != expected:
                problems.append("%s: %s scan of [%s] returned %s, seq scan %s\n%s"
                                % (index, mode, cond, rows[:5], expected[:5], plan))
        return problems

    def drop(self):
        self.conn.rollback()
        self.both("DROP TABLE IF EXISTS {t}")
        self.conn.commit()


def connect(wait=0):
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
        cur.execute("CREATE EXTENSION IF NOT EXISTS hotplus")
        cur.execute("CREATE EXTENSION IF NOT EXISTS amcheck")
        # Every decision hotplus adds is rechecked independently (superuser only).
        cur.execute("SET hotplus.verify = on")
    conn.autocommit = False
    return conn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="1-20")
    ap.add_argument("--soak", type=float, default=0, help="minutes of random seeds")
    ap.add_argument("--updates", type=int, default=25)
    ap.add_argument("--keep", action="store_true", help="keep the tables of failing seeds")
    args = ap.parse_args()

    conn = connect()

    if args.soak > 0:
        deadline = time.time() + args.soak * 60
        seeds = iter(lambda: random.SystemRandom().randrange(1, 2**31), None)
    else:
        lo, hi = (int(v) for v in args.seeds.split("-"))
        deadline = None
        seeds = iter(range(lo, hi + 1))

    passed = failed = 0
    for seed in seeds:
        if deadline and time.time() > deadline:
            break
        s = Seed(conn, seed, args.updates)
        try:
            problems = s.run()
        except psycopg2.Error as e:
            problems = ["error: %s" % str(e).strip()]
            if conn.closed:
                # The server crashed: report the seed, then go on once it has recovered.
                problems.append("the connection was lost (server crash?)")
                conn = connect(wait=60)
                s = Seed(conn, seed, args.updates)
            else:
                conn.rollback()
        if problems:
            failed += 1
            print("seed %d FAILED (replay: --seeds %d-%d)" % (seed, seed, seed))
            for p in problems[:10]:
                print("    " + p.replace("\n", "\n    "))
            if not args.keep:
                s.drop()
        else:
            passed += 1
            print("seed %d ok (%d indexes)" % (seed, len(s.indexes)))
            s.drop()
        sys.stdout.flush()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
