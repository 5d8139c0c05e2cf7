#!/usr/bin/env python3
"""hotplus benchmark driver: heap vs hotheap, interleaved, on one throwaway cluster.

Run it through bench/run.sh, which installs dependencies, builds and installs hotplus and
starts the cluster (pg_virtualenv) whose PG* environment variables this script uses.
See bench/README.md for what each workload does and how the numbers are computed.
"""
import argparse
import csv
import datetime
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import psycopg2

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# ---------------------------------------------------------------------------------------
# Modes. Row counts of workload 1 follow the v43 mail (100k rows, 50k for hash, 500k for the
# controls) in --full; the default and --quick modes scale them down.
MODES = {
    'quick': dict(rounds=3, w1_rounds=3, w1_rows=5000, w1_hash_rows=2500, w1_control_rows=25000,
                  docs_rows=5000, duration=3, tpcb_scale=2, t0_rows=100000),
    'default': dict(rounds=5, w1_rounds=7, w1_rows=20000, w1_hash_rows=10000, w1_control_rows=100000,
                    docs_rows=20000, duration=7, tpcb_scale=10, t0_rows=1000000),
    'full': dict(rounds=5, w1_rounds=7, w1_rows=100000, w1_hash_rows=50000, w1_control_rows=500000,
                 docs_rows=100000, duration=30, tpcb_scale=50, t0_rows=10000000),
}

CLIENTS = 2  # pgbench -c 2 -j 2 on this 2-core machine

OVERLAY = "overlay(v placing 'x' from 1 for 1)"  # values are hex digits: 'x' always differs

# Workload 1: (key, label, data set, index method, SET clause, rows key, v43 %, target %)
W1_CASES = [
    ('same_len_c_btree', 'same-length change, compressed, btree', 'c', 'btree',
     'v = ' + OVERLAY, 'w1_rows', 5.3, 3.0),
    ('same_len_o_btree', 'same-length change, out of line, btree', 'o2500', 'btree',
     'v = ' + OVERLAY, 'w1_rows', 0.9, 3.0),
    ('same_len_o_hash', 'same-length change, out of line, hash', 'o3200', 'hash',
     'v = ' + OVERLAY, 'w1_hash_rows', 13.1, 5.0),
    ('diff_len_c_btree', 'different-length change, compressed, btree', 'c', 'btree',
     "v = v || 'x'", 'w1_rows', 0.6, 2.0),
    ('wb_c_btree', 'write back same value, compressed, btree', 'c', 'btree',
     "v = v || ''", 'w1_rows', -92.4, -80.0),
    ('wb_o_btree', 'write back same value, out of line, btree', 'o2500', 'btree',
     "v = v || ''", 'w1_rows', -43.0, -85.0),
    ('wb_c_spgist', 'write back same value, compressed, SP-GiST', 'c', 'spgist',
     "v = v || ''", 'w1_rows', -65.3, -70.0),
    ('wb_o_hash', 'write back same value, out of line, hash', 'o3200', 'hash',
     "v = v || ''", 'w1_hash_rows', -9.5, -50.0),
    ('ctl_unindexed', 'unindexed column changes (control)', 'ctl', None,
     'n = n + 1', 'w1_control_rows', -4.9, 2.0),
    ('ctl_short', 'short indexed value changes (control)', 'ctl', None,
     "s = s || 'x'", 'w1_control_rows', 0.2, 2.0),
]

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
              'table_bytes_after', 'loadavg1', 'lib_sha256', 'started_at']


def log(msg):
    print(f'[{time.strftime("%H:%M:%S")}] {msg}', file=sys.stderr, flush=True)


def cpu_ns(pid):
    """CPU time a process has run so far (ns), from /proc/PID/schedstat."""
    with open(f'/proc/{pid}/schedstat') as f:
        return int(f.read().split()[0])


def children_cpu_ms(pid):
    """CPU time of the exited, reaped children of a process (cutime + cstime), in ms."""
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[13]) + int(fields[14])) * 1000.0 / os.sysconf('SC_CLK_TCK')


def loadavg():
    """The machine's 1-minute load average: how much else wanted the CPUs."""
    with open('/proc/loadavg') as f:
        return f.read().split()[0]


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


# ---------------------------------------------------------------------------------------
class Bench:
    def __init__(self, args):
        self.args = args
        self.p = dict(MODES[args.mode])
        if args.rounds is not None:
            self.p['rounds'] = self.p['w1_rounds'] = args.rounds
        if args.duration is not None:
            self.p['duration'] = args.duration
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
        m['command'] = os.environ.get('BENCH_COMMAND', 'bash bench/run.sh')
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
    def pgbench(self, dbname, script=None, builtin=None, defines=None, duration=None, options=None):
        cmd = ['pgbench', '-n', '-M', 'prepared', '-c', str(CLIENTS), '-j', str(CLIENTS),
               '-T', str(duration or self.p['duration'])]
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
        tps = float(re.search(r'^tps = ([0-9.]+) \(without initial', res.stdout, re.M).group(1))
        txns = int(re.search(r'number of transactions actually processed: (\d+)',
                             res.stdout).group(1))
        failed = re.search(r'number of failed transactions: (\d+)', res.stdout)
        if failed and int(failed.group(1)):
            raise RuntimeError(f'pgbench: failed transactions\n{res.stdout}')
        return tps, txns

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
        fields = (f"(SELECT jsonb_object_agg('f' || k, 'v' || ((g * 7919 + k * 104729) % 5000)) "
                  f"FROM generate_series(1, {DOC_FIELDS}) k)")
        docs = {
            # ~1 kB: 20 short fields, a counter and a 640-character note; not compressed
            'small': f"{fields} || jsonb_build_object('counter', 0, 'note', "
                     "left(repeat(md5(g::text), 22), 640))",
            # ~6 kB: 20 short fields, a counter and 60 order items; pglz-compressed inline
            'large': f"{fields} || jsonb_build_object('counter', 0, 'items', (SELECT jsonb_agg("
                     "jsonb_build_object('sku', 'sku-' || ((g + i) % 50), 'qty', (g * i) % 17, "
                     "'price', ((g * 31 + i) % 1000) / 10.0, 'status', 'in stock')) "
                     "FROM generate_series(1, 60) i))",
        }
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

    def workload_docs(self, which):
        db = DB('bench')
        n = self.p['docs_rows']
        if which == 'w2':
            # verify: hotheap's table with hotplus.verify on (what the independent recheck of
            # every HOT decision hotplus adds costs)
            variants = ['heap', 'hotheap', 'limit', 'limit20', 'verify']
            body = ("UPDATE {t} SET doc = jsonb_set(doc, '{{counter}}', "
                    "to_jsonb((doc->>'counter')::int + 1)) WHERE id = :id;\n")
        else:
            variants = ['heap', 'hotheap']
            body = (f"\\set r random(1, 1000000000)\n"
                    f"UPDATE {{t}} SET doc = jsonb_set(doc, '{{{{f{DOC_FIELDS}}}}}', "
                    f"to_jsonb('r' || :r)) WHERE id = :id;\n")
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

    # -- workload 4: TPC-B-like --------------------------------------------------------
    def workload4(self):
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

    def renice(self, nice):
        """Gives the cluster (postmaster, its processes, every backend forked later) and this
        driver (so pgbench) a higher CPU priority than other work on a shared machine."""
        if nice == 0:
            return 0
        pids = [self.postmaster_pid, os.getpid()]
        for d in os.listdir('/proc'):
            if d.isdigit():
                try:
                    with open(f'/proc/{d}/stat') as f:
                        if int(f.read().rsplit(')', 1)[1].split()[1]) == self.postmaster_pid:
                            pids.append(int(d))
                except (OSError, ValueError, IndexError):
                    pass
        try:
            for pid in pids:
                os.setpriority(os.PRIO_PROCESS, pid, nice)
        except OSError as e:
            log(f'cannot renice ({e}); running at normal priority')
            return 0
        log(f'nice {nice} for the cluster ({len(pids) - 1} processes) and the driver')
        return nice

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
            elif w in ('w2', 'w3'):
                if 'docs_checks' not in self.meta:
                    self.docs_setup(DB('bench'))
                self.workload_docs(w)
            elif w == 'w4':
                self.workload4()
            elif w == 'w5':
                self.workload5()
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
    ap.add_argument('--duration', type=int, help='override the pgbench duration per run (s)')
    ap.add_argument('--workloads', default='w1,w2,w3,w4,w5',
                    help='comma-separated subset of w1..w5 (development only)')
    ap.add_argument('--w1-cases', help='comma-separated subset of workload 1 case keys')
    ap.add_argument('--nice', type=int, default=-10,
                    help='CPU priority of the cluster and pgbench (0: leave it alone)')
    ap.add_argument('--out', default=os.path.join(HERE, 'results'))
    ap.add_argument('--report-only', action='store_true',
                    help='re-render report.md and the charts from raw.csv and meta.json')
    args = ap.parse_args()
    sys.path.insert(0, HERE)
    if args.report_only:
        import report
        report.render(args.out)
        return
    bench = Bench(args)
    try:
        bench.run()
    finally:
        shutil.rmtree(bench.tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
