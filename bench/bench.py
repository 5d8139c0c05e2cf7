#!/usr/bin/env python3
"""hotplus benchmark driver: heap vs hotheap, interleaved, on one throwaway cluster.

Run it through bench/run.sh, which installs dependencies, builds and installs hotplus and
starts the cluster (scripts/with-cluster.sh) whose PG* environment variables this script uses;
or directly in any throwaway cluster (scripts/with-cluster.sh), where it pins a private copy of
the installed library itself.
See bench/README.md for what each workload does and how the numbers are computed.
"""
import argparse
import csv
import datetime
import hashlib
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import psycopg2

import pgnode
from pgnode import children_cpu_ms, loadavg, log  # noqa: F401  (bench.log: other scripts')

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# ---------------------------------------------------------------------------------------
# Modes. Row counts of workload 1 follow the v43 mail (100k rows, 50k for hash, 500k for the
# controls) in --full; the default and --quick modes scale them down.
MODES = {
    'quick': dict(rounds=3, w1_rounds=3, w1_rows=5000, w1_hash_rows=2500, w1_control_rows=25000,
                  docs_rows=5000, duration=3, tpcb_scale=2, t0_rows=100000,
                  r_rounds=3, r_reps=3, r1_rows=1001, r2_rows=200000, r4_numeric_rows=100000, r7_short_rows=100000,
                  oltp_rounds=5, oltp_duration=3, w3_shapes='i20_last'),
    'default': dict(rounds=5, w1_rounds=7, w1_rows=20000, w1_hash_rows=10000, w1_control_rows=100000,
                    docs_rows=20000, duration=7, tpcb_scale=10, t0_rows=1000000,
                    r_rounds=5, r_reps=5, r1_rows=1001, r2_rows=1000000, r4_numeric_rows=100000, r7_short_rows=300000,
                    oltp_rounds=11, oltp_duration=5, w3_shapes='i20_last,i20_first'),
    'full': dict(rounds=5, w1_rounds=7, w1_rows=100000, w1_hash_rows=50000, w1_control_rows=500000,
                 docs_rows=100000, duration=30, tpcb_scale=50, t0_rows=10000000,
                 r_rounds=7, r_reps=7, r1_rows=1001, r2_rows=1000000, r4_numeric_rows=100000, r7_short_rows=300000,
                 oltp_rounds=21, oltp_duration=10, w3_shapes='all'),
}

DEFAULT_WORKLOADS = 'w1,w2,w3,w4,w5,w6'
READ_WORKLOADS = 'r1,r2,r2t,r2s,r3,r4,r5,r6,r7,r8'  # opt-in: --workloads r1,r2,...

CLIENTS = 2  # pgbench -c 2 -j 2 on this 2-core machine

from w1_cases import W1_CASES  # noqa: E402  (shared with report.py)

# Source data of workload 1, generated once and copied into every timed table.
#   c:     3000-byte text that pglz compresses (a 32-char md5 repeated), stored inline compressed
#   o2500: 2500-byte incompressible text (concatenated md5s), STORAGE EXTERNAL: out of line,
#          uncompressed; small enough for a btree item (max ~2704 bytes)
#   o3200: the same at 3200 bytes, for hash (v43's "3 kB values" under hash)
W1_SOURCES = {
    'c': ("left(repeat(md5(g::text), 94), 3000)", False),
    'o2500': ("(SELECT left(string_agg(md5(g::text || ':' || i), ''), 2500) "
              "FROM generate_series(1, 79) i)", True),
    'o3200': ("(SELECT left(string_agg(md5(g::text || ':' || i), ''), 3200) "
              "FROM generate_series(1, 101) i)", True),
}

DOC_FIELDS = 20
TPCB_TABLES = ['pgbench_accounts', 'pgbench_branches', 'pgbench_tellers', 'pgbench_history']

CSV_FIELDS = ['workload', 'case', 'variant', 'am', 'round', 'position', 'metric', 'value',
              'cpu_ms', 'ops', 'upd', 'hot_upd', 'wal_bytes', 'index_bytes_before', 'index_bytes_after',
              'toast_bytes_before', 'toast_bytes_after', 'table_bytes_before',
              'table_bytes_after', 'loadavg1', 'lib_sha256', 'started_at', 'runq_ms']


def doc_expressions(distinct=5000):
    """The JSONB documents of workloads 2 and 3, as SQL expressions of the row number g; each
    field takes up to `distinct` values (bench/production.py asks for more: fields of about one
    value per row, whose indexes do not deduplicate, as customer or order ids)."""
    fields = (f"(SELECT jsonb_object_agg('f' || k, 'v' || ((g::bigint * 7919 + k * 104729) % {distinct})) "
              f"FROM generate_series(1, {DOC_FIELDS}) k)")
    return {
        # ~1 kB: 20 short fields, a counter and a 640-character note; not compressed
        'small': f"{fields} || jsonb_build_object('counter', 0, 'note', "
                 "left(repeat(md5(g::text), 22), 640))",
        # ~6 kB: 20 short fields, a counter and 60 order items; pglz-compressed inline
        'large': f"{fields} || jsonb_build_object('counter', 0, 'items', (SELECT jsonb_agg("
                 "jsonb_build_object('sku', 'sku-' || ((g + i) % 50), 'qty', (g * i) % 17, "
                 "'price', ((g * 31 + i) % 1000) / 10.0, 'status', 'in stock')) "
                 "FROM generate_series(1, 60) i))",
    }


# Workload 3: an indexed field changed, so no update can be HOT on either table. Shapes: how
# many expression indexes (doc->>'f1') .. (doc->>'fN') the table has, created in order (the
# index list is in OID order), and whether the field the UPDATE changes is read by the first
# of them or the last. With one index, first and last are the same. Each shape has its own
# heap and hotheap tables, made identical and used by nothing else: a table that another
# workload updated first (workload 2 keeps hotheap's indexes a quarter of heap's size, all HOT)
# splits and deduplicates differently when this one starts inserting, which moves its WAL
# and time by several percent (doc/performance.md, "An indexed field changed").
W3_SHAPES = [(1, 'last'), (5, 'first'), (5, 'last'), (20, 'first'), (20, 'last')]


def w3_shape_key(n, position):
    """The shape's name in tables and reports: i20_last, i5_first, i1."""
    return f'i{n}' if n == 1 else f'i{n}_{position}'


def w3_parse_shapes(spec):
    """'i20_last,i1' -> [(20, 'last'), (1, 'last')]; 'all' -> every shape."""
    if spec == 'all':
        return list(W3_SHAPES)
    by_key = {w3_shape_key(n, p): (n, p) for n, p in W3_SHAPES}
    try:
        return [by_key[k] for k in spec.split(',') if k]
    except KeyError as e:
        raise SystemExit(f'unknown workload-3 shape {e}; known: {", ".join(by_key)}')


def w3_changed_field(n, position):
    """The field the UPDATE changes: the one read by the first or the last index."""
    return 'f1' if position == 'first' else f'f{n}'


def cpu_ns(pid):
    """CPU time a process has run so far (ns), from /proc/PID/schedstat."""
    with open(f'/proc/{pid}/schedstat') as f:
        return int(f.read().split()[0])


def cpu_wait_ns(pid):
    """(CPU time run, time spent runnable but waiting for a CPU) of a process so far (ns)."""
    with open(f'/proc/{pid}/schedstat') as f:
        run, wait = f.read().split()[:2]
    return int(run), int(wait)


def lib_path():
    """The library the benchmark runs: run.sh's private copy (BENCH_LIB), else the installed."""
    if os.environ.get('BENCH_LIB'):
        return os.environ['BENCH_LIB']
    libdir = subprocess.run([os.environ.get('PG_CONFIG', 'pg_config'), '--pkglibdir'],
                            capture_output=True, text=True, check=True).stdout.strip()
    return os.path.join(libdir, 'hotplus.so')


def lib_sha(path=None):
    """Short hash of the library file (recorded with every run)."""
    try:
        with open(path or lib_path(), 'rb') as f:
            return hashlib.sha256(f.read()).hexdigest()[:12]
    except OSError:
        return 'missing'


class DB:
    def __init__(self, dbname):
        self.dbname = dbname
        self.conn = psycopg2.connect(dbname=dbname)
        self.conn.autocommit = True
        self.cur = self.conn.cursor()
        self.pid = self.conn.get_backend_pid()

    def x(self, sql, args=None):
        self.cur.execute(sql, args)

    def q(self, sql, args=None):
        self.cur.execute(sql, args)
        return self.cur.fetchall()

    def v(self, sql, args=None):
        return self.q(sql, args)[0][0]

    def close(self):
        self.conn.close()


def ensure_database(name, extension=True):
    admin = DB('postgres')
    admin.x(f'DROP DATABASE IF EXISTS {name}')
    admin.x(f'CREATE DATABASE {name}')
    admin.close()
    db = DB(name)
    if extension:
        db.x('CREATE EXTENSION hotplus')
        if os.environ.get('BENCH_LIB'):
            # every C function of the extension (the table AM handler included) loads the
            # private copy from now on; new connections only, so reconnect
            db.x("UPDATE pg_catalog.pg_proc SET probin = %s WHERE probin = '$libdir/hotplus'",
                 (os.environ['BENCH_LIB'],))
            db.close()
            db = DB(name)
    return db


def order_for(round_no, variants):
    """Interleaving: the order of the variants alternates from one round to the next."""
    return list(variants) if round_no % 2 == 0 else list(reversed(variants))


def create_w3_table(execute, t, am, source, indexes):
    """One of workload 3's tables (also bench/wal_compare.py's, which must measure the same):
    `t` of access method `am`, fillfactor 80, the rows of `source` (id, doc), and `indexes`
    expression indexes on doc->>'f1'.. in that order (the order hotplus looks at them, that of
    RelationGetIndexList), vacuumed and analyzed. execute: a function running one statement."""
    execute(f'DROP TABLE IF EXISTS {t}')
    execute(f'CREATE TABLE {t} (id int PRIMARY KEY, doc jsonb NOT NULL) '
            f'USING {am} WITH (fillfactor = 80, autovacuum_enabled = false)')
    execute(f'INSERT INTO {t} SELECT id, doc FROM {source}')
    for k in range(1, indexes + 1):
        execute(f"CREATE INDEX {t}_f{k} ON {t} ((doc->>'f{k}'))")
    execute(f'VACUUM ANALYZE {t}')


# ---------------------------------------------------------------------------------------
class Bench:
    def __init__(self, args):
        self.args = args
        self.p = dict(MODES[args.mode])
        if args.rounds is not None:
            self.p['rounds'] = self.p['w1_rounds'] = self.p['r_rounds'] = self.p['oltp_rounds'] = args.rounds
        if args.duration is not None:
            self.p['duration'] = self.p['oltp_duration'] = args.duration
        self.out = args.out
        os.makedirs(self.out, exist_ok=True)
        self.rows = []
        self.meta = {}
        self.tmp = tempfile.mkdtemp(prefix='hotplus-bench-')
        self.csv_path = os.path.join(self.out, 'raw.csv')
        self.csv_file = open(self.csv_path, 'w', newline='')
        self.csv = csv.DictWriter(self.csv_file, fieldnames=CSV_FIELDS)
        self.csv.writeheader()

    def record(self, **kw):
        kw.setdefault('lib_sha256', lib_sha())
        kw.setdefault('loadavg1', loadavg())
        kw.setdefault('started_at', datetime.datetime.now().isoformat(timespec='seconds'))
        row = {k: kw.get(k, '') for k in CSV_FIELDS}
        self.rows.append(row)
        self.csv.writerow(row)
        self.csv_file.flush()

    # -- metadata ----------------------------------------------------------------------
    def collect_meta(self, db):
        m = self.meta
        m['mode'] = self.args.mode
        m['params'] = self.p
        m['command'] = os.environ.get('BENCH_COMMAND') or ' '.join(
            ['bench/bench.py'] + sys.argv[1:])
        m['date'] = datetime.datetime.now().astimezone().isoformat(timespec='seconds')
        git = lambda *a: subprocess.run(['git', '-C', REPO, *a], capture_output=True,
                                        text=True).stdout.strip()
        if os.environ.get('BENCH_COMMIT'):  # recorded by run.sh when it built the library
            m['commit'] = os.environ['BENCH_COMMIT']
            m['dirty'] = [l for l in os.environ.get('BENCH_DIRTY', '').split(';') if l.strip()]
        else:
            m['commit'] = git('rev-parse', '--short', 'HEAD')
            m['dirty'] = [l for l in git('status', '--porcelain', '--untracked-files=all',
                                         '--', 'src', 'Makefile', 'hotplus--1.0.sql',
                                         'hotplus.control').splitlines() if l.strip()]
        m['library'] = lib_path()
        m['library_private'] = bool(os.environ.get('BENCH_LIB'))
        m['library_source'] = os.environ.get('BENCH_LIB_SOURCE', 'run.sh build')
        m['server_version'] = db.v('SELECT version()')
        m['settings'] = {name: setting for name, setting in db.q(
            "SELECT name, setting || coalesce(' ' || unit, '') FROM pg_settings WHERE name IN "
            "('shared_buffers','max_wal_size','checkpoint_timeout','synchronous_commit','fsync',"
            "'full_page_writes','wal_level','autovacuum','autovacuum_naptime','default_toast_compression',"
            "'jit','max_connections','wal_buffers','work_mem','maintenance_work_mem','data_directory',"
            "'huge_pages') ORDER BY name")}
        m['nproc'] = os.cpu_count()
        m['lib_sha256_start'] = lib_sha()
        try:
            m['cpu'] = [l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo')
                        if l.startswith('model name')][0]
        except Exception:
            m['cpu'] = 'unknown'

    # -- workload 1 --------------------------------------------------------------------
    def w1_sources(self, db):
        need = {}
        for key, _, data, _, _, rows_key, _, _ in self.selected_w1():
            src = 'c' if data == 'ctl' else data
            need[src] = max(need.get(src, 0), self.p[rows_key])
        for src, n in need.items():
            expr, external = W1_SOURCES[src]
            log(f'w1: generating source {src} ({n} rows)')
            db.x(f'DROP TABLE IF EXISTS src_{src}')
            db.x(f'CREATE TABLE src_{src} (id int PRIMARY KEY, v text)')
            if external:
                db.x(f'ALTER TABLE src_{src} ALTER COLUMN v SET STORAGE EXTERNAL')
            db.x(f'INSERT INTO src_{src} SELECT g, {expr} FROM generate_series(1, {int(n)}) g')
            db.x(f'VACUUM ANALYZE src_{src}')

    def selected_w1(self):
        only = self.args.w1_cases
        return [c for c in W1_CASES if not only or c[0] in only.split(',')]

    def w1_build(self, db, table, am, data, index, rows):
        db.x(f'DROP TABLE IF EXISTS {table}')
        cols = 'id int PRIMARY KEY, v text' + (', s text, n int' if data == 'ctl' else '')
        db.x(f'CREATE TABLE {table} ({cols}) USING {am} '
             'WITH (fillfactor = 50, autovacuum_enabled = false)')
        if data.startswith('o'):
            db.x(f'ALTER TABLE {table} ALTER COLUMN v SET STORAGE EXTERNAL')
        if data == 'ctl':
            db.x(f"INSERT INTO {table} SELECT id, v, 'k' || id, 0 FROM src_c WHERE id <= %s",
                 (rows,))
            db.x(f'CREATE INDEX {table}_s ON {table} (s)')
        else:
            db.x(f'INSERT INTO {table} SELECT id, v FROM src_{data} WHERE id <= %s', (rows,))
            db.x(f'CREATE INDEX {table}_v ON {table} USING {index} (v)')
        db.x(f'VACUUM ANALYZE {table}')

    def sizes(self, db, table):
        return db.q(
            "SELECT pg_relation_size(c.oid), pg_indexes_size(c.oid), "
            "coalesce(pg_relation_size(nullif(c.reltoastrelid, 0)), 0) "
            "FROM pg_class c WHERE c.oid = %s::regclass", (table,))[0]

    def w1_check(self, db, table, data):
        """What the values look like as stored: compression method, stored size."""
        return [list(r) for r in db.q(
            f"SELECT coalesce(pg_column_compression(v), 'none'), count(*), "
            f"round(avg(pg_column_size(v))), round(avg(octet_length(v))) "
            f"FROM {table} GROUP BY 1 ORDER BY 1")]

    def workload1(self):
        db = DB('bench')
        self.w1_sources(db)
        checks = {}
        for r in range(self.p['w1_rounds']):
            for ci, (key, label, data, index, setc, rows_key, _, _) in enumerate(self.selected_w1()):
                rows = self.p[rows_key]
                for pos, am in enumerate(order_for(r, ['heap', 'hotheap'])):
                    table = f'w1_{key}_{am}'
                    self.w1_build(db, table, am, data, index, rows)
                    if (key, am) not in checks:
                        checks[(key, am)] = dict(values=self.w1_check(db, table, data))
                    tb0, ix0, tt0 = self.sizes(db, table)
                    oid = db.v('SELECT %s::regclass::oid', (table,))
                    lib = lib_sha()
                    started = datetime.datetime.now().isoformat(timespec='seconds')
                    db.x('CHECKPOINT')
                    load = loadavg()
                    lsn0 = db.v('SELECT pg_current_wal_insert_lsn()')
                    db.x('BEGIN')
                    c0 = cpu_ns(db.pid)
                    t0 = time.perf_counter()
                    db.x(f'UPDATE {table} SET {setc}')
                    t1 = time.perf_counter()
                    c1 = cpu_ns(db.pid)
                    updated = db.cur.rowcount
                    upd, hot = db.q('SELECT pg_stat_get_xact_tuples_updated(%s), '
                                    'pg_stat_get_xact_tuples_hot_updated(%s)', (oid, oid))[0]
                    db.x('COMMIT')
                    wal = db.v('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), %s)', (lsn0,))
                    tb1, ix1, tt1 = self.sizes(db, table)
                    if 'after' not in checks[(key, am)]:
                        checks[(key, am)]['after'] = self.w1_check(db, table, data)
                    ms = (t1 - t0) * 1000
                    self.record(workload='w1', case=key, variant=am, am=am, round=r + 1,
                                position=pos + 1, metric='ms', value=f'{ms:.3f}',
                                cpu_ms=f'{(c1 - c0) / 1e6:.3f}', ops=updated,
                                upd=upd, hot_upd=hot, wal_bytes=int(wal),
                                index_bytes_before=ix0, index_bytes_after=ix1,
                                toast_bytes_before=tt0, toast_bytes_after=tt1,
                                table_bytes_before=tb0, table_bytes_after=tb1,
                                lib_sha256=lib, started_at=started, loadavg1=load)
                    log(f'w1 round {r + 1} {key:18s} {am:8s} {ms:9.1f} ms (cpu {(c1 - c0) / 1e6:7.1f}) '
                        f'hot {hot}/{upd}  '
                        f'wal {wal / max(updated, 1):.0f} B/row')
                    db.x(f'DROP TABLE {table}')
        self.meta['w1_checks'] = {f'{k}|{am}': v for (k, am), v in checks.items()}
        db.close()

    # -- pgbench helpers ---------------------------------------------------------------
    def pgbench(self, dbname, script=None, builtin=None, defines=None, duration=None, options=None,
                clients=CLIENTS, protocol='prepared', transactions=None, seed=None):
        """transactions: per client (-t) instead of a duration; seed: --random-seed."""
        cmd = ['pgbench', '-n', '-M', protocol, '-c', str(clients), '-j', str(clients)]
        cmd += ['-t', str(transactions)] if transactions else ['-T', str(duration or self.p['duration'])]
        if seed is not None:
            cmd.append(f'--random-seed={seed}')
        for k, v in (defines or {}).items():
            cmd += ['-D', f'{k}={v}']
        if script is not None:
            path = os.path.join(self.tmp, 'script.sql')
            with open(path, 'w') as f:
                f.write(script)
            cmd += ['-f', path]
        else:
            cmd += ['-b', builtin]
        cmd.append(dbname)
        env = dict(os.environ, PGOPTIONS=options) if options else None
        res = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if res.returncode != 0:
            raise RuntimeError(f'pgbench failed ({res.returncode}): {res.stderr}\n{res.stdout}')
        return pgnode.pgbench_result(res.stdout)

    def table_stats(self, db, tables):
        rows = db.q("SELECT coalesce(sum(n_tup_upd), 0), coalesce(sum(n_tup_hot_upd), 0) "
                    "FROM pg_stat_user_tables WHERE relname = ANY(%s)", (tables,))
        upd, hot = rows[0]
        ix, tb, tt = db.q(
            "SELECT coalesce(sum(pg_indexes_size(c.oid)), 0), coalesce(sum(pg_relation_size(c.oid)), 0), "
            "coalesce(sum(pg_relation_size(nullif(c.reltoastrelid, 0))), 0) "
            "FROM pg_class c WHERE c.relname = ANY(%s) AND c.relkind = 'r'", (tables,))[0]
        return int(upd), int(hot), int(ix), int(tb), int(tt)

    def timed_pgbench(self, db, dbname, tables, expected_upd_per_txn, **kw):
        """VACUUM + CHECKPOINT, then one pgbench run with stats, WAL and size deltas."""
        for t in tables:
            db.x(f'VACUUM {t}')
        db.x('CHECKPOINT')
        time.sleep(0.5)
        upd0, hot0, ix0, tb0, tt0 = self.table_stats(db, tables)
        lsn0 = db.v('SELECT pg_current_wal_insert_lsn()')
        lib = lib_sha()
        started = datetime.datetime.now().isoformat(timespec='seconds')
        cpu0 = children_cpu_ms(self.postmaster_pid)
        tps, txns = self.pgbench(dbname, **kw)
        wal = int(db.v('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), %s)', (lsn0,)))
        # pgbench's backends report their statistics when they exit, shortly after pgbench.
        deadline = time.time() + 10
        while True:
            upd1, hot1, ix1, tb1, tt1 = self.table_stats(db, tables)
            gone = db.v("SELECT count(*) = 0 FROM pg_stat_activity "
                        "WHERE application_name = 'pgbench'")
            if (gone and upd1 - upd0 >= txns * expected_upd_per_txn) or time.time() > deadline:
                break
            time.sleep(0.2)
        load = loadavg()  # the 1-minute average at the end covers the run
        time.sleep(0.2)  # the postmaster reaps the exited backends
        cpu = children_cpu_ms(self.postmaster_pid) - cpu0
        return dict(value=f'{tps:.2f}', cpu_ms=f'{cpu:.0f}', ops=txns, upd=upd1 - upd0, hot_upd=hot1 - hot0,
                    wal_bytes=wal, index_bytes_before=ix0, index_bytes_after=ix1,
                    toast_bytes_before=tt0, toast_bytes_after=tt1, table_bytes_before=tb0,
                    table_bytes_after=tb1, lib_sha256=lib, started_at=started, loadavg1=load)

    # -- workloads 2 and 3: JSONB documents ---------------------------------------------
    def docs_setup(self, db):
        n = self.p['docs_rows']
        docs = doc_expressions()
        checks = {}
        for size, expr in docs.items():
            for variant, am in (('heap', 'heap'), ('hotheap', 'hotheap'), ('limit', 'heap'),
                                ('limit20', 'heap')):
                t = f'docs_{size}_{variant}'
                db.x(f'DROP TABLE IF EXISTS {t}')
                # limit20 (a diagnostic): heap with 20 btree indexes on int columns that the
                # UPDATE does not touch, so it is HOT and has as many indexes as hotheap's table
                extra = ''.join(f', c{k} int' for k in range(1, DOC_FIELDS + 1)) \
                    if variant == 'limit20' else ''
                db.x(f'CREATE TABLE {t} (id int PRIMARY KEY, doc jsonb NOT NULL{extra}) '
                     f'USING {am} WITH (fillfactor = 80, autovacuum_enabled = false)')
                if variant == 'heap':
                    db.x(f'INSERT INTO {t} SELECT g, {expr} FROM generate_series(1, {int(n)}) g')
                elif variant == 'limit20':
                    vals = ''.join(f', (id * {k}) % 1000' for k in range(1, DOC_FIELDS + 1))
                    db.x(f'INSERT INTO {t} SELECT id, doc{vals} FROM docs_{size}_heap')
                else:
                    db.x(f'INSERT INTO {t} SELECT * FROM docs_{size}_heap')
                if variant in ('heap', 'hotheap'):
                    # created in order, so (doc->>'f20') has the highest OID: the last index
                    # hotplus looks at (RelationGetIndexList order)
                    for k in range(1, DOC_FIELDS + 1):
                        db.x(f"CREATE INDEX {t}_f{k} ON {t} ((doc->>'f{k}'))")
                elif variant == 'limit20':
                    for k in range(1, DOC_FIELDS + 1):
                        db.x(f'CREATE INDEX {t}_c{k} ON {t} (c{k})')
                db.x(f'VACUUM ANALYZE {t}')
                checks[t] = dict(
                    am=db.v('SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam '
                            'WHERE c.oid = %s::regclass', (t,)),
                    indexes=db.v('SELECT count(*) FROM pg_index WHERE indrelid = %s::regclass', (t,)),
                    values=[list(r) for r in db.q(
                        f"SELECT coalesce(pg_column_compression(doc), 'none'), count(*), "
                        f"round(avg(pg_column_size(doc))), "
                        f"round(avg(pg_column_size(doc || '{{}}'::jsonb))) FROM {t} GROUP BY 1")],
                    table_bytes=db.v('SELECT pg_relation_size(%s::regclass)', (t,)),
                    toast_bytes=db.v("SELECT coalesce(pg_relation_size(nullif(reltoastrelid, 0)), 0) "
                                     "FROM pg_class WHERE oid = %s::regclass", (t,)),
                    index_bytes=db.v('SELECT pg_indexes_size(%s::regclass)', (t,)))
                log(f'docs: {t} {checks[t]}')
        self.meta['docs_checks'] = checks

    def w3_setup(self, db, shapes):
        """Workload 3's tables: per document size and shape (W3_SHAPES), a heap and a hotheap
        table with the same rows and the shape's expression indexes, created in order, used by
        no other workload (so both start from the same state)."""
        n = self.p['docs_rows']
        checks = {}
        for size, expr in doc_expressions().items():
            db.x('DROP TABLE IF EXISTS w3_src')
            db.x(f'CREATE TABLE w3_src AS SELECT g AS id, {expr} AS doc FROM generate_series(1, {int(n)}) g')
            for nidx, position in shapes:
                for am in ('heap', 'hotheap'):
                    t = f'w3_{size}_{w3_shape_key(nidx, position)}_{am}'
                    create_w3_table(db.x, t, am, 'w3_src', nidx)
                    checks[t] = dict(
                        am=db.v('SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam '
                                'WHERE c.oid = %s::regclass', (t,)),
                        indexes=db.v('SELECT count(*) FROM pg_index WHERE indrelid = %s::regclass', (t,)),
                        index_bytes=db.v('SELECT pg_indexes_size(%s::regclass)', (t,)))
            db.x('DROP TABLE w3_src')
        log(f'w3: {len(checks)} tables')
        self.meta['w3_checks'] = checks

    def workload_w3(self):
        """Workload 3: an indexed field changed (non-HOT on both), per shape and size."""
        db = DB('bench')
        shapes = w3_parse_shapes(self.args.w3_shapes or self.p['w3_shapes'])
        self.meta['w3_shapes'] = [w3_shape_key(n, p) for n, p in shapes]
        self.w3_setup(db, shapes)

        def script(t, field):
            return ('\\set id random(1, :rows)\n\\set r random(1, 1000000000)\n'
                    f"UPDATE {t} SET doc = jsonb_set(doc, '{{{field}}}', to_jsonb('r' || :r)) WHERE id = :id;\n")
        # The two runs of a round make the same updates (the same transactions per client and
        # random seed), so that their tables stay alike and their WAL per transaction compares.
        # How many: what the slower of the two did in a short run (the same on both), scaled to
        # the mode's duration.
        per_client = {}
        for size in ('small', 'large'):
            for nidx, position in shapes:
                key = w3_shape_key(nidx, position)
                tps = [self.pgbench('bench', script=script(f'w3_{size}_{key}_{am}', w3_changed_field(nidx, position)),
                                    defines={'rows': self.p['docs_rows']}, transactions=200, seed=1)[0]
                       for am in ('heap', 'hotheap')]
                per_client[size, key] = max(200, int(min(tps) * self.p['duration'] / CLIENTS))
        self.meta['w3_transactions_per_client'] = {f'{s} {k}': v for (s, k), v in per_client.items()}
        log(f'w3: transactions per client and run {self.meta["w3_transactions_per_client"]}')
        for r in range(self.p['rounds']):
            for size in ('small', 'large'):
                for nidx, position in shapes:
                    key = w3_shape_key(nidx, position)
                    field = w3_changed_field(nidx, position)
                    for pos, variant in enumerate(order_for(r, ['heap', 'hotheap'])):
                        t = f'w3_{size}_{key}_{variant}'
                        res = self.timed_pgbench(db, 'bench', [t], 1, script=script(t, field),
                                                 defines={'rows': self.p['docs_rows']},
                                                 transactions=per_client[size, key], seed=1000 + r)
                        case = f'{size} {key}'
                        self.record(workload='w3', case=case, variant=variant, am=variant, round=r + 1,
                                    position=pos + 1, metric='tps', **res)
                        log(f'w3 round {r + 1} {case:15s} {variant:8s} {float(res["value"]):9.0f} TPS '
                            f'hot {res["hot_upd"]}/{res["upd"]} wal {res["wal_bytes"] / max(res["ops"], 1):.0f} B/txn')
        db.close()

    def workload_docs(self, which):
        db = DB('bench')
        n = self.p['docs_rows']
        # verify: hotheap's table with hotplus.verify on (what the independent recheck of
        # every HOT decision hotplus adds costs)
        variants = ['heap', 'hotheap', 'limit', 'limit20', 'verify']
        body = ("UPDATE {t} SET doc = jsonb_set(doc, '{{counter}}', "
                "to_jsonb((doc->>'counter')::int + 1)) WHERE id = :id;\n")
        for r in range(self.p['rounds']):
            for size in ('small', 'large'):
                for pos, variant in enumerate(order_for(r, variants)):
                    t = f'docs_{size}_{"hotheap" if variant == "verify" else variant}'
                    script = '\\set id random(1, :rows)\n' + body.format(t=t)
                    res = self.timed_pgbench(db, 'bench', [t], 1, script=script,
                                             defines={'rows': n},
                                             options='-c hotplus.verify=on' if variant == 'verify' else None)
                    am = 'hotheap' if variant in ('hotheap', 'verify') else 'heap'
                    self.record(workload=which, case=size, variant=variant, am=am, round=r + 1,
                                position=pos + 1, metric='tps', **res)
                    log(f'{which} round {r + 1} {size:5s} {variant:8s} {float(res["value"]):9.0f} TPS '
                        f'hot {res["hot_upd"]}/{res["upd"]} wal {res["wal_bytes"] / max(res["ops"], 1):.0f} B/txn')
        db.close()

    # -- workload 6: the OLTP shape of a third-party benchmark, where nothing can gain ------
    # A table like sysbench's: id primary key, k indexed, c char(120), pad char(60); one-row
    # prepared statements (an unindexed update, an indexed one, a point select) and a
    # 10-statement transaction of them; 1 and 2 clients. hotheap decides exactly as heap here
    # (c and pad are toastable, so every update of c is compared and checked; k is an index
    # key, so its update is settled by StoredColumnBlockers): what remains is the cost of
    # checking. Many short paired rounds, TPS and server CPU per transaction.
    OLTP_ROWS = 20000
    OLTP_SCRIPTS = {
        'update c': "\\set id random(1, :rows)\nUPDATE {t} SET c = md5(:id::text) || repeat('c', 88) WHERE id = :id;\n",
        'update k': '\\set id random(1, :rows)\nUPDATE {t} SET k = k + 1 WHERE id = :id;\n',
        'select c': '\\set id random(1, :rows)\nSELECT c FROM {t} WHERE id = :id;\n',
        'mix of 10': ('\\set a random(1, :rows)\n\\set b random(1, :rows)\n\\set c random(1, :rows)\n'
                      '\\set d random(1, :rows)\nBEGIN;\n'
                      'SELECT c FROM {t} WHERE id = :a;\nSELECT c FROM {t} WHERE id = :b;\n'
                      'SELECT c FROM {t} WHERE id = :c;\nSELECT c FROM {t} WHERE id = :d;\n'
                      "UPDATE {t} SET c = md5(:a::text) || repeat('c', 88) WHERE id = :a;\n"
                      "UPDATE {t} SET c = md5(:b::text) || repeat('d', 88) WHERE id = :b;\n"
                      "UPDATE {t} SET c = md5(:c::text) || repeat('e', 88) WHERE id = :c;\n"
                      "UPDATE {t} SET c = md5(:d::text) || repeat('f', 88) WHERE id = :d;\n"
                      'UPDATE {t} SET k = k + 1 WHERE id = :a;\nUPDATE {t} SET k = k + 1 WHERE id = :c;\n'
                      'COMMIT;\n'),
    }

    @classmethod
    def create_oltp_tables(cls, db, rows=None):
        """Workload 6's tables, ol_heap and ol_hotheap (bench/production.py uses them too), of
        OLTP_ROWS rows unless told otherwise."""
        for am in ('heap', 'hotheap'):
            t = f'ol_{am}'
            db.x(f'DROP TABLE IF EXISTS {t}')
            db.x(f'CREATE TABLE {t} (id int PRIMARY KEY, k int NOT NULL, c char(120), pad char(60)) '
                 f'USING {am} WITH (autovacuum_enabled = false)')
            db.x(f"INSERT INTO {t} SELECT g, g % 1000, md5(g::text) || repeat('x', 88), repeat('p', 60) "
                 f'FROM generate_series(1, {rows or cls.OLTP_ROWS}) g')
            db.x(f'CREATE INDEX {t}_k ON {t} (k)')
            db.x(f'VACUUM ANALYZE {t}')

    def oltp_setup(self, db):
        if 'oltp' in self.meta:
            return
        self.create_oltp_tables(db)
        self.meta['oltp'] = dict(rows=self.OLTP_ROWS, scripts=self.OLTP_SCRIPTS)

    def workload_w6(self):
        db = DB('bench')
        self.oltp_setup(db)
        only = self.args.w6_cases.split(',') if self.args.w6_cases else list(self.OLTP_SCRIPTS)
        unknown = set(only) - set(self.OLTP_SCRIPTS)
        if unknown:
            raise SystemExit(f'--w6-cases: no such statement {sorted(unknown)}')
        for r in range(self.p['oltp_rounds']):
            for case, body in self.OLTP_SCRIPTS.items():
                if case not in only:
                    continue
                for clients in (1, 2):
                    for pos, am in enumerate(order_for(r, ['heap', 'hotheap'])):
                        t = f'ol_{am}'
                        res = self.timed_pgbench(db, 'bench', [t], 0, script=body.format(t=t),
                                                 defines={'rows': self.OLTP_ROWS},
                                                 duration=self.p['oltp_duration'], clients=clients)
                        self.record(workload='w6', case=f'{case}, {clients} client{"s" if clients > 1 else ""}',
                                    variant=am, am=am, round=r + 1, position=pos + 1, metric='tps', **res)
                        log(f'w6 round {r + 1} {case:10s} {clients} {am:8s} {float(res["value"]):9.0f} TPS '
                            f'cpu {float(res["cpu_ms"]) * 1000 / max(res["ops"], 1):.1f} us/txn')
            # The tables keep growing dead versions: vacuum between rounds so both stay alike.
            db.x('VACUUM ol_heap')
            db.x('VACUUM ol_hotheap')
        db.close()

    # -- workload 8: what ORMs send ------------------------------------------------------
    # A model's table (Django/SQLAlchemy style): indexed email and status, a compressed text
    # (bio, ~3 kB of prose-like text) and small unindexed fields. Each transaction loads one
    # row by key (all columns, as Model.objects.get / session.get do), then writes it:
    # - save(): Django's full-row UPDATE, every column sent back (bio too), the counter and
    #   updated_at changed: heap re-toasts bio and is HOT; hotheap reuses bio's stored datum;
    # - update_fields: save(update_fields=['counter']): one unindexed column, HOT on both;
    #   nothing for hotplus to gain, its cost on the commonest write;
    # - changed columns: SQLAlchemy's UPDATE of the attributes that changed, here the indexed
    #   status and updated_at: non-HOT on both, nothing to gain.
    # pgbench -M extended: parameters bound per statement, planned per execution, as
    # psycopg 3 and most drivers send them; the values the SELECT returned go back as
    # parameters (\gset), as an ORM sends what it loaded.
    ORM_ROWS = 20000
    ORM_LOAD = ('\\set id random(1, :rows)\n'
                'SELECT name, email, status, bio, counter FROM {t} WHERE id = :id \\gset\n')
    ORM_SCRIPTS = {
        'save()': ORM_LOAD + '\\set c :counter + 1\n'
                  'UPDATE {t} SET name = :name, email = :email, status = :status, bio = :bio, '
                  'counter = :c, updated_at = now() WHERE id = :id;\n',
        'update_fields': ORM_LOAD + '\\set c :counter + 1\n'
                         'UPDATE {t} SET counter = :c WHERE id = :id;\n',
        'changed columns': ORM_LOAD + '\\set s random(1, 5)\n'
                           "UPDATE {t} SET status = 's' || :s, updated_at = now() WHERE id = :id;\n",
    }

    def orm_setup(self, db):
        if 'orm' in self.meta:
            return
        n = self.ORM_ROWS
        for am in ('heap', 'hotheap'):
            t = f'orm_{am}'
            db.x(f'DROP TABLE IF EXISTS {t}')
            db.x(f'CREATE TABLE {t} (id int PRIMARY KEY, name varchar(100) NOT NULL, '
                 f'email varchar(200) NOT NULL, status text NOT NULL, bio text, counter int NOT NULL, '
                 f'updated_at timestamptz NOT NULL) USING {am} WITH (autovacuum_enabled = false)')
            db.x(f"INSERT INTO {t} SELECT g, 'user ' || g, 'user' || g || '@example.com', 's' || g % 5, "
                 f"(SELECT string_agg('word' || ((g * i) % 97) || ' ' || md5((g % 7 + i)::text), ' ') "
                 f"FROM generate_series(1, 60) i), 0, now() FROM generate_series(1, {n}) g")
            db.x(f'CREATE UNIQUE INDEX {t}_email ON {t} (email)')
            db.x(f'CREATE INDEX {t}_status ON {t} (status)')
            db.x(f'VACUUM ANALYZE {t}')
        self.meta['orm'] = dict(rows=n, scripts=self.ORM_SCRIPTS, bio=[list(r) for r in db.q(
            "SELECT coalesce(pg_column_compression(bio), 'none'), count(*), round(avg(pg_column_size(bio))), "
            "round(avg(octet_length(bio))) FROM orm_heap GROUP BY 1")])

    def workload_w8(self):
        db = DB('bench')
        self.orm_setup(db)
        for r in range(self.p['oltp_rounds']):
            for case, body in self.ORM_SCRIPTS.items():
                for pos, am in enumerate(order_for(r, ['heap', 'hotheap'])):
                    t = f'orm_{am}'
                    res = self.timed_pgbench(db, 'bench', [t], 1, script=body.format(t=t),
                                             defines={'rows': self.ORM_ROWS},
                                             duration=self.p['oltp_duration'], clients=1, protocol='extended')
                    self.record(workload='w8', case=case, variant=am, am=am, round=r + 1, position=pos + 1,
                                metric='tps', **res)
                    log(f'w8 round {r + 1} {case:15s} {am:8s} {float(res["value"]):9.0f} TPS '
                        f'cpu {float(res["cpu_ms"]) * 1000 / max(res["ops"], 1):.1f} us/txn '
                        f'hot {res["hot_upd"]}/{res["upd"]}')
            db.x('VACUUM orm_heap')
            db.x('VACUUM orm_hotheap')
        db.close()

    # -- workload 9: sysbench itself ------------------------------------------------------
    # Debian's sysbench with its own OLTP Lua scripts, unmodified: `prepare` builds sbtest1
    # (id serial primary key, k int indexed, c char(120), pad char(60)) in one database per
    # access method (default_table_access_method set on the hotheap one), then paired rounds
    # of each script, 2 threads, the access methods back to back in alternating order; server
    # CPU per transaction from the backends' reaped CPU time, as for pgbench. Nothing in these
    # scripts can gain from hotplus.
    SYSBENCH_ROWS = 20000
    SYSBENCH_TESTS = ('oltp_update_non_index', 'oltp_update_index', 'oltp_read_write', 'oltp_point_select')

    def sysbench(self, test, dbname, command, duration=None, threads=2):
        cmd = ['sysbench', test, '--db-driver=pgsql', f"--pgsql-host={os.environ.get('PGHOST', 'localhost')}",
               f"--pgsql-port={os.environ.get('PGPORT', '5432')}", f"--pgsql-user={os.environ.get('PGUSER', 'postgres')}",
               f'--pgsql-db={dbname}', '--tables=1', f'--table-size={self.SYSBENCH_ROWS}', f'--threads={threads}',
               '--rand-seed=0']
        if duration:
            cmd += [f'--time={duration}', '--events=0']
        res = subprocess.run(cmd + [command], capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError(f'sysbench {test} {command} failed ({res.returncode}): {res.stderr}\n{res.stdout}')
        return res.stdout

    def sysbench_setup(self):
        if 'sysbench' in self.meta:
            return
        checks = {}
        for am in ('heap', 'hotheap'):
            name = f'sb_{am}'
            db = ensure_database(name)
            db.x(f'ALTER DATABASE {name} SET default_table_access_method = {am}')
            db.close()
            self.sysbench('oltp_common', name, 'prepare')
            db = DB(name)
            # as every other workload's tables: no autovacuum starting at random during a run
            db.x('ALTER TABLE sbtest1 SET (autovacuum_enabled = false)')
            db.x('VACUUM ANALYZE sbtest1')
            checks[name] = db.v("SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam "
                                "WHERE c.relname = 'sbtest1'")
            db.close()
        version = subprocess.run(['sysbench', '--version'], capture_output=True, text=True).stdout.strip()
        self.meta['sysbench'] = dict(rows=self.SYSBENCH_ROWS, tests=self.SYSBENCH_TESTS, version=version,
                                     access_methods=checks)

    def workload_w9(self):
        self.sysbench_setup()
        dbs = {am: DB(f'sb_{am}') for am in ('heap', 'hotheap')}
        for r in range(self.p['oltp_rounds']):
            for test in self.SYSBENCH_TESTS:
                for pos, am in enumerate(order_for(r, ['heap', 'hotheap'])):
                    db = dbs[am]
                    db.x('VACUUM sbtest1')  # as timed_pgbench: each run starts from a vacuumed table
                    db.x('CHECKPOINT')
                    time.sleep(0.5)
                    upd0, hot0, ix0, tb0, tt0 = self.table_stats(db, ['sbtest1'])
                    lsn0 = db.v('SELECT pg_current_wal_insert_lsn()')
                    started = datetime.datetime.now().isoformat(timespec='seconds')
                    cpu0 = children_cpu_ms(self.postmaster_pid)
                    out = self.sysbench(test, f'sb_{am}', 'run', duration=self.p['oltp_duration'])
                    m = re.search(r'transactions:\s+(\d+)\s+\(([0-9.]+) per sec', out)
                    txns, tps = int(m.group(1)), float(m.group(2))
                    time.sleep(0.7)  # the backends report their statistics and are reaped
                    cpu = children_cpu_ms(self.postmaster_pid) - cpu0
                    upd1, hot1, ix1, tb1, tt1 = self.table_stats(db, ['sbtest1'])
                    wal = int(db.v('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), %s)', (lsn0,)))
                    self.record(workload='w9', case=test, variant=am, am=am, round=r + 1, position=pos + 1,
                                metric='tps', value=f'{tps:.2f}', cpu_ms=f'{cpu:.0f}', ops=txns,
                                upd=upd1 - upd0, hot_upd=hot1 - hot0, wal_bytes=wal, index_bytes_before=ix0,
                                index_bytes_after=ix1, table_bytes_before=tb0, table_bytes_after=tb1,
                                toast_bytes_before=tt0, toast_bytes_after=tt1, lib_sha256=lib_sha(),
                                started_at=started, loadavg1=loadavg())
                    log(f'w9 round {r + 1} {test:22s} {am:8s} {tps:9.0f} TPS '
                        f'cpu {cpu * 1000 / max(txns, 1):.1f} us/txn hot {hot1 - hot0}/{upd1 - upd0}')
        for db in dbs.values():
            db.close()

    # -- workload 4: TPC-B-like --------------------------------------------------------
    def tpcb_setup(self):
        """pgbench -i into tpcb_heap and tpcb_hotheap (once per invocation: w4 and r4 share it)."""
        if 'tpcb_checks' in self.meta:
            return
        scale = self.p['tpcb_scale']
        checks = {}
        for am in ('heap', 'hotheap'):
            name = f'tpcb_{am}'
            db = ensure_database(name)
            db.close()
            env = dict(os.environ)
            env['PGOPTIONS'] = f'-c default_table_access_method={am}'
            log(f'w4: pgbench -i -s {scale} {name} (default_table_access_method={am})')
            subprocess.run(['pgbench', '-i', '-q', '-s', str(scale), name], env=env, check=True,
                           capture_output=True, text=True)
            db = DB(name)
            for t in TPCB_TABLES:
                db.x(f'ALTER TABLE {t} SET (autovacuum_enabled = false)')
            db.x('VACUUM ANALYZE')
            checks[name] = [list(r) for r in db.q(
                "SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam "
                "WHERE c.relname = ANY(%s) ORDER BY 1", (TPCB_TABLES,))]
            db.close()
        self.meta['tpcb_checks'] = checks

    def workload4(self):
        self.tpcb_setup()
        scale = self.p['tpcb_scale']
        dbs = {am: DB(f'tpcb_{am}') for am in ('heap', 'hotheap')}
        for r in range(self.p['rounds']):
            for pos, am in enumerate(order_for(r, ['heap', 'hotheap'])):
                db = dbs[am]
                db.x('TRUNCATE pgbench_history')
                res = self.timed_pgbench(db, f'tpcb_{am}', TPCB_TABLES[:3], 3, builtin='tpcb-like')
                self.record(workload='w4', case=f'scale {scale}', variant=am, am=am, round=r + 1,
                            position=pos + 1, metric='tps', **res)
                log(f'w4 round {r + 1} {am:8s} {float(res["value"]):9.0f} TPS '
                    f'hot {res["hot_upd"]}/{res["upd"]}')
        for db in dbs.values():
            db.close()

    # -- workload 5: HOT vs non-HOT on heap --------------------------------------------
    def workload5(self):
        db = DB('bench')
        n = self.p['t0_rows']
        log(f'w5: t0 with {n} rows')
        db.x('DROP TABLE IF EXISTS t0')
        db.x('CREATE TABLE t0 (id int PRIMARY KEY, n1 int, n2 int) '
             'WITH (fillfactor = 90, autovacuum_enabled = false)')
        db.x('CREATE INDEX t0_id_n1 ON t0 (id, n1)')
        db.x('INSERT INTO t0 SELECT g, 0, 0 FROM generate_series(1, %s) g', (n,))
        db.x('VACUUM ANALYZE t0')
        scripts = {
            'nonhot': '\\set id random(1, :rows)\nUPDATE t0 SET n1 = random() * 100 WHERE id = :id;\n',
            'hot': '\\set id random(1, :rows)\nUPDATE t0 SET n2 = random() * 100 WHERE id = :id;\n',
        }
        for r in range(self.p['rounds']):
            for pos, variant in enumerate(order_for(r, ['nonhot', 'hot'])):
                res = self.timed_pgbench(db, 'bench', ['t0'], 1, script=scripts[variant],
                                         defines={'rows': n})
                self.record(workload='w5', case=f'{n} rows', variant=variant, am='heap',
                            round=r + 1, position=pos + 1, metric='tps', **res)
                log(f'w5 round {r + 1} {variant:8s} {float(res["value"]):9.0f} TPS '
                    f'hot {res["hot_upd"]}/{res["upd"]}')
        db.close()

    # -- read workloads r1..r5: the read path (HotheapRead) ----------------------------
    # Single statements (r1, r2, r2t, r4a, r4b) are timed from the client around
    # cursor.execute(), which returns once libpq holds the whole result (psycopg2 converts
    # the rows to Python objects only at fetch, which is not timed), r_reps times per variant
    # and round; the round's value is the median of those, the backend's CPU time per
    # statement (/proc/PID/schedstat) the cross-check. Not EXPLAIN ANALYZE's "Execution
    # Time": its per-node instrumentation costs something per row a node returns, and
    # hotheap's plan has one node more per scan (HotheapRead above the scan, whose filter moves
    # into it, so the scan returns every row), a bias against hotheap (not measured here) where
    # the "nothing to gain" targets allow 2%.
    # EXPLAIN ANALYZE is run once per variant in the setup, for the plan and the JIT facts.

    # 2 cores: no parallel noise. The planner switches some cases set are reset each time.
    R_SESSION = ['SET max_parallel_workers_per_gather = 0', 'RESET enable_hashjoin', 'RESET enable_mergejoin',
                 'RESET enable_nestloop', 'RESET enable_hashagg', 'RESET work_mem']

    # The twins are filled and vacuumed with synchronous commits: with the cluster's
    # synchronous_commit = off, VACUUM right after an INSERT ... SELECT copy left every page of
    # the copy (the hotheap twin) not all-visible (relallvisible 0, heap copies alike), so its
    # scans checked each row's visibility and the original's did not: 1.2x on R2's 41 columns,
    # read path or not (2026-12-05, bench/results/read-detoast-pg15).
    R_SETUP_COMMIT = 'SET synchronous_commit = on'
    R_SAMPLE_MS = 50   # read_statements: the least statement time per variant and round ...
    R_MAX_REPS = 250   # ... in at most this many repetitions

    def r_settings(self, db, jit='off', read_path='on', extra=()):
        for s in self.R_SESSION:
            db.x(s)
        if jit == 'on':
            db.x('SET jit = on')
            db.x('SET jit_above_cost = 0')
        else:
            db.x('SET jit = off')
        db.x(f'SET hotplus.read_path = {read_path}')
        for s in extra:
            db.x(s)

    def r_table_check(self, db, t, col=None):
        c = dict(am=db.v('SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam '
                         'WHERE c.oid = %s::regclass', (t,)),
                 rows=db.v(f'SELECT count(*) FROM {t}'),
                 table_bytes=db.v('SELECT pg_relation_size(%s::regclass)', (t,)),
                 toast_bytes=db.v("SELECT coalesce(pg_relation_size(nullif(reltoastrelid, 0)), 0) "
                                  "FROM pg_class WHERE oid = %s::regclass", (t,)),
                 # Pages VACUUM marked all-visible, of all: a twin with fewer makes its scans
                 # check each row's visibility, which the other's skip.
                 all_visible=db.v("SELECT relallvisible || ' of ' || relpages FROM pg_class "
                                  "WHERE oid = %s::regclass", (t,)))
        if col:
            c['values'] = [list(r) for r in db.q(
                f"SELECT coalesce(pg_column_compression({col}), 'none'), count(*), "
                f"round(avg(pg_column_size({col}))), round(avg(octet_length({col}::text))) "
                f"FROM {t} GROUP BY 1")]
        return c

    def r_setup_b(self, db):
        """R1 / R3 / R5: seed 004's table, 1001 rows of one ~26 kB toasted jsonb, plus an id."""
        if 'r_b' in self.meta:
            return
        n = self.p['r1_rows']
        log(f'r: building rb_heap / rb_hotheap ({n} rows of a 600-key jsonb)')
        db.x(self.R_SETUP_COMMIT)
        for am in ('heap', 'hotheap'):
            t = f'rb_{am}'
            db.x(f'DROP TABLE IF EXISTS {t}')
            db.x(f'CREATE TABLE {t} (id int PRIMARY KEY, big jsonb) USING {am} '
                 'WITH (autovacuum_enabled = false)')
        db.x("INSERT INTO rb_heap SELECT 1, jsonb_object_agg(x::text, random()::text || "
             "random()::text || random()::text) FROM generate_series(1, 600) f(x)")
        db.x('INSERT INTO rb_heap SELECT i, (SELECT big FROM rb_heap WHERE id = 1) '
             'FROM generate_series(2, %s) i', (n,))
        db.x('INSERT INTO rb_hotheap SELECT * FROM rb_heap ORDER BY id')
        checks = {}
        for am in ('heap', 'hotheap'):
            db.x(f'VACUUM ANALYZE rb_{am}')
            checks[f'rb_{am}'] = self.r_table_check(db, f'rb_{am}', 'big')
        db.x('RESET synchronous_commit')
        self.meta['r_b'] = checks
        log(f'r: {checks}')

    def r_twins(self, db, base, columns, rows_sql, args=None):
        """{base}_heap and {base}_hotheap with `columns`, the heap one filled by rows_sql (a
        SELECT), the hotheap one copied from it, both vacuumed and analyzed; their checks."""
        db.x(self.R_SETUP_COMMIT)
        for am in ('heap', 'hotheap'):
            db.x(f'DROP TABLE IF EXISTS {base}_{am}')
            db.x(f'CREATE TABLE {base}_{am} ({columns}) USING {am} WITH (autovacuum_enabled = false)')
        db.x(f'INSERT INTO {base}_heap {rows_sql}', args)
        db.x(f'INSERT INTO {base}_hotheap SELECT * FROM {base}_heap')
        checks = {}
        for am in ('heap', 'hotheap'):
            db.x(f'VACUUM ANALYZE {base}_{am}')
            checks[f'{base}_{am}'] = self.r_table_check(db, f'{base}_{am}')
        db.x('RESET synchronous_commit')
        return checks

    def r_setup_s(self, db):
        """R7: short jsonb documents stored in line (five fields, ~100 bytes)."""
        if 'r_s' in self.meta:
            return
        self.meta['r_s'] = self.r_twins(
            db, 'rs', 'id int, doc jsonb',
            "SELECT g, jsonb_build_object('1', md5(g::text), '2', g, '3', 'x', '4', g * 2, '5', 'abc') "
            "FROM generate_series(1, %s) g", (self.p['r7_short_rows'],))

    def r_setup_w(self, db):
        """R7 X9, R8: 44 columns (id, 42 ints, a jsonb document), the document short and in line
        except in every fiftieth row, where it is a 600-key document stored out of line: the
        table's TOAST relation has blocks, the rows read by key are short (issue 40)."""
        if 'r_w' in self.meta:
            return
        cols = ', '.join(f'c{k} int' for k in range(1, 43))
        vals = ', '.join(f'g + {k}' for k in range(1, 43))
        self.meta['r_w'] = self.r_twins(
            db, 'rw', f'id int PRIMARY KEY, {cols}, doc jsonb',
            f"SELECT g, {vals}, CASE WHEN g %% 50 = 0 THEN "
            "(SELECT jsonb_object_agg(k::text, md5((g * k)::text)) FROM generate_series(1, 600) k) "
            "ELSE jsonb_build_object('1', md5(g::text), '2', g, 'a', 'x', 'b', g * 2) END "
            "FROM generate_series(1, %s) g", (self.p['r7_short_rows'],))
        log(f"r: {self.meta['r_w']}")

    def r_setup_t(self, db):
        """R2 / R4a: seed 003's table, 41 int NOT NULL columns; R2t: a text column first."""
        if 'r_t' in self.meta:
            return
        n = self.p['r2_rows']
        checks = {}
        # col_k = 1 + (g + 7k) % 1000: never 0, so `colK = 0` qualifies no row
        shapes = {
            'r2': ['col%d int NOT NULL' % k for k in range(1, 42)],
            'r2t': ['txt text NOT NULL'] + ['col%d int NOT NULL' % k for k in range(1, 41)],
        }
        values = {
            'r2': ', '.join(f'1 + (g + {7 * k}) % 1000' for k in range(1, 42)),
            'r2t': "'row ' || g, " + ', '.join(f'1 + (g + {7 * k}) % 1000' for k in range(1, 41)),
        }
        db.x(self.R_SETUP_COMMIT)
        for shape, cols in shapes.items():
            log(f'r: building {shape}_heap / {shape}_hotheap ({n} rows)')
            for am in ('heap', 'hotheap'):
                t = f'{shape}_{am}'
                db.x(f'DROP TABLE IF EXISTS {t}')
                db.x(f'CREATE TABLE {t} ({", ".join(cols)}) USING {am} '
                     'WITH (autovacuum_enabled = false)')
            db.x(f'INSERT INTO {shape}_heap SELECT {values[shape]} FROM generate_series(1, {int(n)}) g')
            db.x(f'INSERT INTO {shape}_hotheap SELECT * FROM {shape}_heap')
            for am in ('heap', 'hotheap'):
                db.x(f'VACUUM ANALYZE {shape}_{am}')
                checks[f'{shape}_{am}'] = self.r_table_check(db, f'{shape}_{am}')
        db.x('RESET synchronous_commit')
        self.meta['r_t'] = checks
        log(f'r: {checks}')

    def r_setup_n(self, db):
        """R4b: seed 004's numeric table."""
        if 'r_n' in self.meta:
            return
        self.meta['r_n'] = self.r_twins(db, 'rn', 'a numeric', 'SELECT g FROM generate_series(1, %s) g',
                                        (self.p['r4_numeric_rows'],))

    @staticmethod
    def plan_shape(node):
        """'Custom Scan (HotheapRead) > Seq Scan' for an EXPLAIN (FORMAT JSON) plan."""
        name = node['Node Type']
        if node.get('Custom Plan Provider'):
            name += f" ({node['Custom Plan Provider']})"
        kids = [Bench.plan_shape(k) for k in node.get('Plans', [])]
        return name + (' > ' + ', '.join(kids) if kids else '')

    def r_setup_j(self, db):
        """R6: a 1000-row table to join with seed 004's table (rj, heap: only b's side matters),
        and a TPC-H-like pair of tables with toasted text (ro orders with a ~3 kB compressible
        comment, rl lines with a ~2.5 kB one), on heap and on hotheap."""
        if 'r_j' in self.meta:
            return
        log('r: building rj, ro_*, rl_* (joins and a TPC-H-like set)')
        for t, n in (('rj', 1000), ('rj10', 10000)):
            db.x(f'DROP TABLE IF EXISTS {t}')
            db.x(f'CREATE TABLE {t} (id int PRIMARY KEY, x int) WITH (autovacuum_enabled = false)')
            db.x(f'INSERT INTO {t} SELECT g, g % 10 FROM generate_series(1, {n}) g')
        for am in ('heap', 'hotheap'):
            for t in (f'rl_{am}', f'ro_{am}'):
                db.x(f'DROP TABLE IF EXISTS {t}')
            db.x(f'CREATE TABLE ro_{am} (o_id int PRIMARY KEY, o_cust int, o_status text, o_comment text) '
                 f'USING {am} WITH (autovacuum_enabled = false)')
            db.x(f'CREATE TABLE rl_{am} (l_order int, l_line int, l_part int, l_qty int, l_note text, '
                 f'PRIMARY KEY (l_order, l_line)) USING {am} WITH (autovacuum_enabled = false)')
        db.x("INSERT INTO ro_heap SELECT g, g % 200, (ARRAY['open', 'shipped', 'closed'])[g % 3 + 1], "
             "repeat('order ' || g || ' note ' || md5(g::text) || ' ', 60) FROM generate_series(1, 5000) g")
        db.x("INSERT INTO rl_heap SELECT o, l, (o * l) % 500, l * 3, "
             "repeat('line ' || o || '/' || l || ' ' || md5((o * l)::text) || ' ', 50) "
             "FROM generate_series(1, 5000) o, generate_series(1, 4) l")
        db.x('INSERT INTO ro_hotheap SELECT * FROM ro_heap')
        db.x('INSERT INTO rl_hotheap SELECT * FROM rl_heap')
        checks = {}
        for t in ('rj', 'rj10', 'ro_heap', 'ro_hotheap', 'rl_heap', 'rl_hotheap'):
            db.x(f'VACUUM ANALYZE {t}')
            checks[t] = self.r_table_check(db, t)
        self.meta['r_j'] = checks
        log(f'r: {checks}')

    def r_groups(self, which):
        """The single-statement comparisons of a read workload: (case, sql, [(variant, table,
        read_path)], jit, require_read_node, alt_sql for the checksum[, settings])."""
        five = "SELECT big->'1', big->'2', big->'3', big->'5', big->'10' FROM {t}"
        one = "SELECT big->'1' FROM {t}"
        three = [('heap', 'heap', 'on'), ('hotheap', 'hotheap', 'on'), ('off', 'hotheap', 'off')]
        two = [('heap', 'heap', 'on'), ('hotheap', 'hotheap', 'on')]
        g = []
        if which == 'r1':
            for jit in ('off', 'on'):
                g.append((f'five fields, jit {jit}', five, 'rb', three, jit, True, None))
                # the planner may leave a single-field read alone (nothing to share): no check
                g.append((f'one field, jit {jit}', one, 'rb', two, jit, False, None))
        elif which == 'r2':
            for jit in ('off', 'on'):
                g.append((f'col41, jit {jit}', 'SELECT col41 FROM {t} WHERE col41 = 0', 'r2', three,
                          jit, True, 'SELECT col41 FROM {t} WHERE col41 = 1'))
                g.append((f'col1, jit {jit}', 'SELECT col1 FROM {t} WHERE col1 = 0', 'r2', two,
                          jit, False, 'SELECT col1 FROM {t} WHERE col1 = 1'))
        elif which == 'r2t':
            for jit in ('off', 'on'):
                g.append((f'col40 after text, jit {jit}', 'SELECT col40 FROM {t} WHERE col40 = 0',
                          'r2t', two, jit, False, 'SELECT col40 FROM {t} WHERE col40 = 1'))
        elif which == 'r2s':
            # Seed 003's graph: col41, then col41 and col40, ... up to all 41 columns selected, a
            # filter no row passes (the seed's query); the read path must never be slower.
            counts = range(1, 42) if self.args.mode != 'quick' else (1, 2, 4, 8, 12, 16, 20, 24, 30, 41)
            for k in counts:
                cols = ', '.join(f'col{41 - j}' for j in range(k))
                g.append((f'{k} of 41 columns, jit off', f'SELECT {cols} FROM {{t}} WHERE col41 = 0', 'r2', two, 'off',
                          False, f'SELECT {cols} FROM {{t}} WHERE col41 = 1'))
        elif which == 'r4':
            cols = ', '.join(f'col{k}' for k in range(1, 42))
            g.append(('a: all 41 columns, jit off', f'SELECT {cols} FROM {{t}} WHERE col41 = 0', 'r2',
                      two, 'off', False, f'SELECT {cols} FROM {{t}} WHERE col41 = 1'))
            g.append(('b: numeric SELECT *, jit off', 'SELECT * FROM {t} WHERE a > 0', 'rn', two,
                      'off', False, None))
        elif which == 'r6':
            # The shared detoast markers in every node (D14b): seed 004's table under
            # aggregates, joins, groupings and windows; the goals of issue 40 (A1, J1, G1, W3).
            hash_only = ['SET enable_mergejoin = off', 'SET enable_nestloop = off']
            nl_only = ['SET enable_hashjoin = off', 'SET enable_mergejoin = off']
            merge_only = ['SET enable_hashjoin = off', 'SET enable_nestloop = off']
            fields = "x.big->'1', x.big->'2', x.big->'3', x.big->'5', x.big->'10'"
            for jit in ('off', 'on'):
                g.append((f'A1 five max(big->>k), jit {jit}', "SELECT max(big->>'1'), max(big->>'2'), "
                          "max(big->>'3'), max(big->>'5'), max(big->>'10') FROM {t}", 'rb', three, jit, True, None))
                g.append((f'A1b five FILTER/sum fields, jit {jit}', "SELECT count(*) FILTER (WHERE big->>'1' > '0.5'), "
                          "count(*) FILTER (WHERE big->>'2' > '0.5'), sum(length(big->>'3')), "
                          "sum(length(big->>'5')), count(*) FILTER (WHERE big ? '10') FROM {t}", 'rb', three, jit,
                          True, None))
                g.append((f'J1 hash join, b outer, jit {jit}', f'SELECT {fields}, y.x FROM {{t}} x JOIN rj y ON x.id = y.id',
                          'rb', three, jit, True, None, hash_only))
                g.append((f'J1 nested loop, b outer, jit {jit}',
                          f'SELECT {fields}, y.x FROM {{t}} x JOIN rj y ON y.id = x.id % 1000 + 1', 'rb', three, jit,
                          True, None, nl_only))
                g.append((f'J1 nested loop, b inner, jit {jit}',
                          f'SELECT {fields}, y.x FROM rj y JOIN {{t}} x ON x.id = y.id + 1', 'rb', three, jit, True,
                          None, nl_only))
                g.append((f'J1 merge join, jit {jit}', f'SELECT {fields}, y.x FROM {{t}} x JOIN rj y ON x.id = y.id',
                          'rb', three, jit, True, None, merge_only))
                g.append((f'G1 GROUP BY big->>1 hashed, jit {jit}', "SELECT big->>'1', max(big->>'2'), min(big->>'3') "
                          "FROM {t} GROUP BY 1", 'rb', three, jit, True, None))
                g.append((f'G1 GROUP BY big->>g sorted, jit {jit}', "SELECT big->>'g', min(big->>'4'), max(big->>'8') "
                          "FROM {t} GROUP BY 1", 'rb', three, jit, True, None, ['SET enable_hashagg = off']))
                g.append((f'G1 grouping sets, jit {jit}', "SELECT big->>'1', max(big->>'2'), min(big->>'3') FROM {t} "
                          "GROUP BY GROUPING SETS ((big->>'1'), ())", 'rb', three, jit, True, None))
                g.append((f'W3 three window functions over fields, jit {jit}', "SELECT id, count(big->>'1') OVER w, "
                          "max(big->>'2') OVER w, min(big->>'3') OVER w FROM {t} WINDOW w AS (ORDER BY id)", 'rb',
                          three, jit, True, None))
                # One reference per node (the partition key below the sort, the argument above):
                # nothing to share; reported.
                g.append((f'W1 window over big->>1 by big->>2, jit {jit}', "SELECT id, first_value(big->>'1') OVER "
                          "(PARTITION BY big->>'2' ORDER BY id) FROM {t}", 'rb', two, jit, False, None))
            # b hashed on the inner side of a hash join: the join's output list reads the hashed
            # rows' stored values, one copy per joined row.
            g.append(('J1 hash join, b inner (hashed), jit off', f'SELECT {fields}, y.x FROM rj10 y JOIN {{t}} x ON x.id = y.id % 1000 + 1',
                      'rb', two, 'off', True, None, hash_only))
            # A TPC-H-like set over two tables with toasted text: joins, groupings, sorts.
            tpch = [
                ('T1 orders x lines, per customer', "SELECT o.o_cust, count(*), max(md5(l.l_note)), "
                 "max(length(l.l_note)), max(md5(o.o_comment)) FROM ro_{am} o JOIN rl_{am} l ON l.l_order = o.o_id "
                 "GROUP BY o.o_cust"),
                ('T2 top orders by note length', "SELECT o.o_id, length(o.o_comment), md5(o.o_comment), "
                 "left(o.o_comment, 20) FROM ro_{am} o ORDER BY length(o.o_comment) DESC, o.o_id LIMIT 50"),
                ('T3 lines of open orders', "SELECT l.l_part, count(*), sum(length(l.l_note)), max(md5(l.l_note)) "
                 "FROM rl_{am} l JOIN ro_{am} o ON o.o_id = l.l_order WHERE o.o_status = 'open' GROUP BY l.l_part "
                 "ORDER BY 2 DESC, 1 LIMIT 20"),
                ('T4 notes sorted', "SELECT l_order, l_line, md5(l_note), length(l_note) FROM rl_{am} "
                 "ORDER BY md5(l_note) LIMIT 100"),
            ]
            for case, sql in tpch:
                g.append((case + ', jit off', sql, 'r', [('heap', 'heap', 'on'),
                          ('hotheap', 'hotheap', 'on')], 'off', False, None, ['SET work_mem = \'1MB\'']))
        elif which == 'r7':
            # Where heap computes a call on some rows only, or nothing can be saved (issue 31):
            # hotheap must cost what heap costs. The shapes the old rule made 33x-76x slower
            # (a filtered aggregate, a CASE branch, joins whose keys never match, a filter
            # above a subquery's projection misestimated by the planner, a COALESCE fallback
            # never taken), and aggregates over short in-line documents.
            hash_only = ['SET enable_mergejoin = off', 'SET enable_nestloop = off']
            merge_only = ['SET enable_hashjoin = off', 'SET enable_nestloop = off']
            k5 = 'id % 200 = 5'
            shapes = [
                ('X1 three FILTERed max(big->>k)', f"SELECT max(big->>'1') FILTER (WHERE {k5}), max(big->>'2') "
                 f"FILTER (WHERE {k5}), max(big->>'3') FILTER (WHERE {k5}) FROM {{t}}", 'rb', ()),
                ('X2 CASE in aggregate arguments', f"SELECT max(CASE WHEN {k5} THEN big->>'1' END), "
                 f"max(CASE WHEN {k5} THEN big->>'2' END) FROM {{t}}", 'rb', ()),
                ('X3 hash semi join, keys never match', "SELECT x.big->>'1', x.big->>'2' FROM {t} x WHERE EXISTS "
                 "(SELECT 1 FROM rj y WHERE y.id = x.id + 100000)", 'rb', hash_only),
                ('X4 merge join, keys never match', "SELECT x.big->>'1', x.big->>'2', y.x FROM {t} x JOIN rj y "
                 "ON y.id = x.id + 100000", 'rb', merge_only),
                ('X5 misestimated filter above a subquery', "SELECT s.big->>'1', s.big->>'2' FROM (SELECT id, big "
                 "FROM {t} OFFSET 0) s WHERE md5(s.id::text) = 'x'", 'rb', ()),
                ('X6 COALESCE fallback never taken', "SELECT max(COALESCE(id::text, big->>'1')), "
                 "max(COALESCE(id::text, big->>'2')) FROM {t}", 'rb', ()),
                ('X7 short in-line documents, two fields', "SELECT count(doc->>'1'), count(doc->>'2') FROM {t}",
                 'rs', ()),
                ('X8 short in-line documents, five fields', "SELECT max(doc->>'1'), max(doc->>'2'), "
                 "max(doc->>'3'), max(doc->>'4'), max(doc->>'5') FROM {t}", 'rs', ()),
                # issue 40: the short rows of a table whose TOAST relation has blocks (2% of its
                # documents out of line), the long ones filtered out
                ('X9 short rows beside out-of-line ones, two fields', "SELECT max(doc->>'1'), max(doc->>'2') "
                 "FROM {t} WHERE id % 50 <> 0", 'rw', ()),
            ]
            for case, sql, base, extra in shapes:
                g.append((f'{case}, jit off', sql, base, [('heap', 'heap', 'on'), ('hotheap', 'hotheap', 'on')],
                          'off', False, None, list(extra)))
        return g

    @staticmethod
    def r_sql(sql, base, am):
        """A group's statement for one table access method: {t} is the base table name with the
        access method appended (rb_heap); {am} alone names the access method."""
        return sql.replace('{am}', am).format(t=f'{base}_{am}')

    @staticmethod
    def plan_memory(top):
        """Memory (kB) of the plan's storing nodes (Sort, Hash, HashAggregate...), summed by
        kind, and the temp blocks the whole plan wrote."""
        acc = {'temp written blocks': top.get('Temp Written Blocks', 0)}
        stack = [top]
        while stack:
            node = stack.pop()
            kind = node['Node Type']
            for field, label in (('Sort Space Used', f"{kind} {node.get('Sort Space Type', '')}".strip()),
                                 ('Peak Memory Usage', f'{kind} peak'), ('Disk Usage', f'{kind} disk')):
                if field in node:
                    acc[label] = acc.get(label, 0) + node[field]
            stack += node.get('Plans', [])
        return acc

    def r_check(self, db, which, groups):
        """Plans (HotheapRead where it must be, nowhere else) and equal results, else abort."""
        checks = {}
        for case, sql, base, variants, jit, require, alt, *more in groups:
            extra = more[0] if more else ()
            sums = {}
            memory = {}
            for variant, am, read_path in variants:
                q = self.r_sql(sql, base, am)
                self.r_settings(db, jit, read_path, extra)
                plan = db.v(f'EXPLAIN (ANALYZE, TIMING OFF, BUFFERS, FORMAT JSON) {q}')[0]
                shape = self.plan_shape(plan['Plan'])
                db.x('SET hotplus.read_path_show_markers = on')
                marked = 'hotplus_shared_value(' in json.dumps(db.v(f'EXPLAIN (VERBOSE, FORMAT JSON) {q}'))
                db.x('RESET hotplus.read_path_show_markers')
                has = 'HotheapRead' in shape or marked
                memory[variant] = self.plan_memory(plan['Plan'])
                should = am == 'hotheap' and read_path == 'on'
                if has and not should:
                    raise SystemExit(f'{which} {case} {variant}: unexpected HotheapRead or markers in {shape}')
                if require and should and not has:
                    raise SystemExit(f'{which} {case} {variant}: neither HotheapRead nor markers in the plan: {shape}')
                sums[variant] = []
                for s in (q, self.r_sql(alt, base, am) if alt else None):
                    if s:
                        rows = sorted(repr(r) for r in db.q(s))
                        sums[variant].append((len(rows), hashlib.md5('\n'.join(rows).encode()).hexdigest()))
                checks[f'{case} | {variant}'] = dict(
                    sql=q, plan=shape, read_node='HotheapRead' in shape, markers=marked, settings=list(extra),
                    jit_functions=plan.get('JIT', {}).get('Functions', 0),
                    execution_ms=plan.get('Execution Time'), rows=sums[variant], memory=memory[variant])
            first = next(iter(sums.values()))
            for variant, s in sums.items():
                if s != first:
                    raise SystemExit(f'{which} {case}: results differ between variants: {sums}')
            # R7's shapes can gain nothing: hotheap must run heap's plan, node for node.
            plans = {v: checks[f'{case} | {v}']['plan'] for v, _, _ in variants}
            if which == 'r7' and len(set(plans.values())) != 1:
                raise SystemExit(f'{which} {case}: hotheap does not run heap\'s plan: {plans}')
            # Sort, Hash and HashAggregate memory and temp files: hotheap's never above heap's.
            if 'heap' in memory and 'hotheap' in memory:
                more_memory = {k: (memory['heap'].get(k, 0), v) for k, v in memory['hotheap'].items()
                               if v > memory['heap'].get(k, 0)}
                checks[f'{case} | memory'] = dict(heap=memory['heap'], hotheap=memory['hotheap'],
                                                  hotheap_more=more_memory)
                if more_memory:
                    log(f'{which} check {case}: MORE MEMORY on hotheap than on heap: {more_memory}')
            log(f'{which} check {case}: results equal ({first}); plans ' +
                '; '.join(f"{v}: {checks[f'{case} | {v}']['plan']}" for v, _, _ in variants))
        self.r_settings(db)
        self.meta.setdefault('r_checks', {})[which] = checks

    def time_statement(self, db, sql, reps):
        """Medians over reps of wall ms, backend CPU ms and the backend's run-queue wait ms
        (runnable, waiting for a CPU: other load on the machine), and the rows returned."""
        ms, cpu, runq, n = [], [], [], 0
        for _ in range(reps):
            c0, w0 = cpu_wait_ns(db.pid)
            t0 = time.perf_counter()
            db.cur.execute(sql)
            t1 = time.perf_counter()
            c1, w1 = cpu_wait_ns(db.pid)
            n = db.cur.rowcount
            ms.append((t1 - t0) * 1000)
            cpu.append((c1 - c0) / 1e6)
            runq.append((w1 - w0) / 1e6)
        return statistics.median(ms), statistics.median(cpu), statistics.median(runq), n

    def read_statements(self, which):
        db = DB('bench')
        if which in ('r1',):
            self.r_setup_b(db)
        if which in ('r2', 'r2t', 'r2s', 'r4'):
            self.r_setup_t(db)
        if which in ('r6', 'r7'):
            self.r_setup_b(db)
            self.r_setup_j(db)
        if which == 'r7':
            self.r_setup_s(db)
            self.r_setup_w(db)
        if which == 'r4':
            self.r_setup_n(db)
        groups = self.r_groups(which)
        self.r_check(db, which, groups)
        reps = self.p['r_reps']
        # A case's repetitions per variant and round, the same for every variant: r_reps, or
        # more for a short statement, so that each round's median is taken over at least
        # R_SAMPLE_MS of statements. A 0.2 ms statement repeated 5 times gave rounds from
        # 0.16 to 0.37 ms for one variant (19rc1, X6; bench/results-40-r7-pg19-lseek at commit
        # bc9fe77): noise of the machine's speed, not of the statement, against a target of 1.05x.
        case_reps = {}
        db.x('CHECKPOINT')
        for r in range(self.p['r_rounds']):
            for case, sql, base, variants, jit, _, _, *more in groups:
                for pos, (variant, am, read_path) in enumerate(order_for(r, variants)):
                    self.r_settings(db, jit, read_path, more[0] if more else ())
                    q = self.r_sql(sql, base, am)
                    t0 = time.perf_counter()
                    db.cur.execute(q)  # untimed: the first execution after switching settings
                    if case not in case_reps:
                        first_ms = (time.perf_counter() - t0) * 1000
                        case_reps[case] = max(reps, min(self.R_MAX_REPS, math.ceil(self.R_SAMPLE_MS / max(first_ms, 1e-3))))
                        log(f'{which} {case}: {case_reps[case]} repetitions per variant and round')
                    load = loadavg()
                    started = datetime.datetime.now().isoformat(timespec='seconds')
                    ms, cpu, runq, n = self.time_statement(db, q, case_reps[case])
                    self.record(workload=which, case=case, variant=variant, am=am, round=r + 1,
                                position=pos + 1, metric='ms', value=f'{ms:.3f}',
                                cpu_ms=f'{cpu:.3f}', runq_ms=f'{runq:.3f}', ops=n, loadavg1=load,
                                started_at=started)
                    log(f'{which} round {r + 1} {case:28s} {variant:8s} {ms:9.2f} ms (cpu {cpu:8.2f}, '
                        f'run queue {runq:6.2f}) rows {n}')
        self.r_settings(db)
        db.close()

    def workload_r3(self):
        """pgbench -M prepared, 2 clients: one R1 row by primary key, five fields."""
        db = DB('bench')
        self.r_setup_b(db)
        n = self.p['r1_rows']
        variants = [('heap', 'heap', None), ('hotheap', 'hotheap', None),
                    ('off', 'hotheap', '-c hotplus.read_path=off')]
        body = ("\\set id random(1, :rows)\n"
                "SELECT big->'1', big->'2', big->'3', big->'5', big->'10' FROM {t} WHERE id = :id;\n")
        checks = {}
        for variant, am, options in variants:
            self.r_settings(db, 'off', 'off' if options else 'on')
            db.x(f"PREPARE r3p (int) AS SELECT big->'1', big->'2', big->'3', big->'5', big->'10' "
                 f"FROM rb_{am} WHERE id = $1")
            plan = db.v('EXPLAIN (FORMAT JSON) EXECUTE r3p(7)')[0]
            db.x('DEALLOCATE r3p')
            checks[variant] = self.plan_shape(plan['Plan'])
        self.r_settings(db)
        self.meta.setdefault('r_checks', {})['r3'] = checks
        log(f'r3 plans: {checks}')
        for r in range(self.p['rounds']):
            for pos, (variant, am, options) in enumerate(order_for(r, variants)):
                t = f'rb_{am}'
                res = self.timed_pgbench(db, 'bench', [t], 0, script=body.format(t=t),
                                         defines={'rows': n}, options=options)
                self.record(workload='r3', case='pk fetch, 5 fields', variant=variant, am=am,
                            round=r + 1, position=pos + 1, metric='tps', **res)
                log(f'r3 round {r + 1} {variant:8s} {float(res["value"]):9.0f} TPS')
        db.close()

    def workload_r8(self):
        """pgbench -M prepared, 2 clients: issue 40's one-row statements on rw (44 columns, the
        TOAST relation has blocks), where the read path can gain nothing: a short row by key with
        two fields of its document, the next row by key (LIMIT 1 of an index scan estimated at
        the whole table), the first row passing a filter (LIMIT 1 of a sequential scan)."""
        db = DB('bench')
        self.r_setup_w(db)
        n = self.p['r7_short_rows']
        shapes = [
            ('X10 one short row by key, two fields',
             "\\set r random(0, :rows / 50 - 1)\n\\set id :r * 50 + random(1, 49)\n"
             "SELECT c41, c42, doc->>'a', doc->>'b' FROM {t} WHERE id = :id;\n"),
            ('X11 next row by key, LIMIT 1',
             "\\set id random(1, :rows - 1)\nSELECT c41, c42 FROM {t} WHERE id > :id ORDER BY id LIMIT 1;\n"),
            ('X12 first row of a filter, LIMIT 1',
             "\\set x random(1, 1000)\nSELECT c41, c42 FROM {t} WHERE c1 + :x > 0 LIMIT 1;\n"),
        ]
        variants = [('heap', 'heap'), ('hotheap', 'hotheap')]
        checks = {}
        for case, body in shapes:
            for variant, am in variants:
                self.r_settings(db)
                first = body.replace('\\set', '--').split('\n')[-2].rstrip(';')
                q = first.replace('{t}', f'rw_{am}').replace(':id', '101').replace(':x', '7')
                plan = db.v(f'EXPLAIN (FORMAT JSON) {q}')[0]
                checks[f'{case} | {variant}'] = self.plan_shape(plan['Plan'])
        self.meta.setdefault('r_checks', {})['r8'] = checks
        log(f'r8 plans: {checks}')
        for r in range(self.p['rounds']):
            for case, body in shapes:
                for pos, (variant, am) in enumerate(order_for(r, variants)):
                    t = f'rw_{am}'
                    res = self.timed_pgbench(db, 'bench', [t], 0, script=body.format(t=t), defines={'rows': n})
                    self.record(workload='r8', case=case, variant=variant, am=am, round=r + 1,
                                position=pos + 1, metric='tps', **res)
                    log(f'r8 round {r + 1} {case:40s} {variant:8s} {float(res["value"]):9.0f} TPS')
        db.close()

    def workload_r4c(self):
        """pgbench -S (built-in select-only) on TPC-B tables made with each access method."""
        self.tpcb_setup()
        scale = self.p['tpcb_scale']
        dbs = {am: DB(f'tpcb_{am}') for am in ('heap', 'hotheap')}
        plans = {}
        for am, db in dbs.items():
            db.x('PREPARE r4c (int) AS SELECT abalance FROM pgbench_accounts WHERE aid = $1')
            plans[am] = self.plan_shape(db.v('EXPLAIN (FORMAT JSON) EXECUTE r4c(1)')[0]['Plan'])
            db.x('DEALLOCATE r4c')
        self.meta.setdefault('r_checks', {})['r4c'] = plans
        log(f'r4c plans of the select-only statement: {plans}')
        for r in range(self.p['rounds']):
            for pos, am in enumerate(order_for(r, ['heap', 'hotheap'])):
                res = self.timed_pgbench(dbs[am], f'tpcb_{am}', TPCB_TABLES[:3], 0,
                                         builtin='select-only')
                self.record(workload='r4', case=f'c: pgbench -S, scale {scale}', variant=am, am=am,
                            round=r + 1, position=pos + 1, metric='tps', **res)
                log(f'r4c round {r + 1} {am:8s} {float(res["value"]):9.0f} TPS')
        for db in dbs.values():
            db.close()

    def workload_r5(self):
        """Sort memory and temp files of `SELECT big, big->'1' FROM b ORDER BY big->'2'`."""
        db = DB('bench')
        self.r_setup_b(db)
        found = {}
        for r in range(self.p['r_rounds']):
            for wm in ('4MB', '256MB'):
                for pos, am in enumerate(order_for(r, ['heap', 'hotheap'])):
                    self.r_settings(db, 'off', 'on', [f'SET work_mem = {repr(wm)}'])
                    q = f"SELECT big, big->'1' FROM rb_{am} ORDER BY big->'2'"
                    plan = db.v(f'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {q}')[0]
                    top = plan['Plan']
                    sort = top if top['Node Type'] == 'Sort' else None
                    stack = [top]
                    while sort is None and stack:
                        node = stack.pop()
                        if node['Node Type'] == 'Sort':
                            sort = node
                        stack += node.get('Plans', [])
                    if sort is None:
                        raise SystemExit(f'r5: no Sort node in {self.plan_shape(top)}')
                    case = f'work_mem {wm}'
                    found[f'{case} | {am}'] = dict(plan=self.plan_shape(top),
                                                   sort_method=sort.get('Sort Method'),
                                                   space_type=sort.get('Sort Space Type'))
                    vals = {'sort_space_kb': sort.get('Sort Space Used', 0),
                            'sort_on_disk': 1 if sort.get('Sort Space Type') == 'Disk' else 0,
                            'temp_written_blocks': top.get('Temp Written Blocks', 0),
                            'exec_ms': plan.get('Execution Time')}
                    for metric, v in vals.items():
                        self.record(workload='r5', case=case, variant=am, am=am, round=r + 1,
                                    position=pos + 1, metric=metric, value=v, ops=top.get('Actual Rows'))
                    log(f"r5 round {r + 1} {case} {am:8s} sort {sort.get('Sort Method')} "
                        f"{sort.get('Sort Space Used')} kB {sort.get('Sort Space Type')} temp "
                        f"written {top.get('Temp Written Blocks', 0)} blocks, {plan.get('Execution Time'):.1f} ms")
        self.r_settings(db, extra=['RESET work_mem'])
        self.meta.setdefault('r_checks', {})['r5'] = found
        db.close()

    def renice(self, nice):
        """Gives the cluster (postmaster, its processes, every backend forked later) and this
        driver (so pgbench) a higher CPU priority than other work on a shared machine."""
        return pgnode.renice({self.postmaster_pid}, nice) if nice else 0

    # -- driver ------------------------------------------------------------------------
    def run(self):
        t_start = time.time()
        workloads = self.args.workloads.split(',')
        db = ensure_database('bench')
        self.collect_meta(db)
        with open(os.path.join(db.v('SHOW data_directory'), 'postmaster.pid')) as f:
            self.postmaster_pid = int(f.readline())
        db.close()
        self.meta['nice'] = self.renice(self.args.nice)
        log(f"mode {self.args.mode}: {self.p}; commit {self.meta['commit']}")
        timings = {}
        for w in workloads:
            t0 = time.time()
            if w == 'w1':
                self.workload1()
            elif w == 'w2':
                self.docs_setup(DB('bench'))
                self.workload_docs(w)
            elif w == 'w3':
                self.workload_w3()
            elif w == 'w4':
                self.workload4()
            elif w == 'w6':
                self.workload_w6()
            elif w == 'w8':
                self.workload_w8()
            elif w == 'w9':
                self.workload_w9()
            elif w == 'w5':
                self.workload5()
            elif w in ('r1', 'r2', 'r2t', 'r2s'):
                self.read_statements(w)
            elif w == 'r3':
                self.workload_r3()
            elif w == 'r4':
                self.read_statements('r4')
                self.workload_r4c()
            elif w == 'r5':
                self.workload_r5()
            elif w in ('r6', 'r7'):
                self.read_statements(w)
            elif w == 'r8':
                self.workload_r8()
            else:
                raise SystemExit(f'unknown workload {w}')
            timings[w] = round(time.time() - t0)
            log(f'{w} done in {timings[w]} s')
        self.meta['workloads'] = workloads
        self.meta['phase_seconds'] = timings
        self.meta['total_seconds'] = round(time.time() - t_start)
        self.meta['lib_sha256_end'] = lib_sha()
        self.csv_file.close()
        with open(os.path.join(self.out, 'meta.json'), 'w') as f:
            json.dump(self.meta, f, indent=1, sort_keys=True, default=str)
        import report
        report.render(self.out)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--mode', choices=MODES, default='default')
    ap.add_argument('--rounds', type=int, help='override the number of rounds')
    ap.add_argument('--duration', type=int, help='override the pgbench (and sysbench) duration per run (s), one-row workloads included')
    ap.add_argument('--workloads', default=DEFAULT_WORKLOADS,
                    help=f'comma-separated list of w1..w5 (default {DEFAULT_WORKLOADS}) and the '
                         f'opt-in read-path workloads {READ_WORKLOADS}')
    ap.add_argument('--w1-cases', help='comma-separated subset of workload 1 case keys')
    ap.add_argument('--w3-shapes', help="workload 3's shapes (W3_SHAPES: i1, i5_first, i5_last, "
                                        "i20_first, i20_last, or all); default: the mode's")
    ap.add_argument('--w6-cases', help="comma-separated subset of workload 6's statements "
                                       "('update c,update k,select c,mix of 10')")
    ap.add_argument('--nice', type=int, default=-10,
                    help='CPU priority of the cluster and pgbench (0: leave it alone)')
    ap.add_argument('--out', default=os.path.join(HERE, 'results', 'latest'),
                    help='results directory (default bench/results/latest, not tracked)')
    ap.add_argument('--no-pin', dest='pin', action='store_false',
                    help='without run.sh (no BENCH_LIB): use the installed library in place '
                         'instead of a private copy of it')
    ap.add_argument('--report-only', action='store_true',
                    help='re-render report.md and the charts from raw.csv and meta.json')
    args = ap.parse_args()
    sys.path.insert(0, HERE)
    if args.report_only:
        import report
        report.render(args.out)
        return
    pinned = None
    if not os.environ.get('BENCH_LIB') and args.pin:
        # A direct run (not through run.sh): pin a private copy of the installed library, as
        # run.sh does with the one it builds, so that a reinstall by someone else mid-run
        # cannot change the code under test. The server must be able to read it.
        pinned = tempfile.mkdtemp(prefix='hotplus-bench-lib.')
        shutil.copy(lib_path(), os.path.join(pinned, 'hotplus.so'))
        os.chmod(pinned, 0o755)
        os.chmod(os.path.join(pinned, 'hotplus.so'), 0o644)
        os.environ['BENCH_LIB'] = os.path.join(pinned, 'hotplus.so')
        os.environ['BENCH_LIB_SOURCE'] = 'copy of the installed library'
    bench = Bench(args)
    try:
        bench.run()
    finally:
        shutil.rmtree(bench.tmp, ignore_errors=True)
        if pinned:
            shutil.rmtree(pinned, ignore_errors=True)


if __name__ == '__main__':
    main()
