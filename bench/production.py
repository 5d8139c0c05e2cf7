#!/usr/bin/python3
"""hotheap vs heap where users run it (issue 48, seed 002's gap): durable settings, tables
larger than shared_buffers, checkpoints and autovacuum during the runs, a streaming standby.

    bash bench/run.sh --production [--quick|--full]     (builds and installs hotplus first)
    /usr/bin/python3 bench/production.py --mode default --out bench/results/production-pg15

As root, with hotplus installed into the server of $PG_CONFIG (default: Debian's 15). The
script makes two throwaway clusters of that server under a temporary directory (unix sockets
only), a primary and a streaming standby made from it with pg_basebackup, runs every workload
against the primary and removes both. bench/README.md, "Production", says what it measures;
doc/performance.md shows the results.

Phases:
 1. load (non-durable settings: fsync off, wal_level minimal): per document kind a source table,
    the advice loop (a hotheap copy at PostgreSQL's default fillfactor, the workload run on it,
    hotplus_advise() asked after as many updates as a round makes, its fillfactor followed until
    it has none: the fillfactor every table of the kind gets), then the kind's four tables; the
    cost side's tables;
 2. restart with the durable settings, the standby made and started;
 3. the rounds: per kind, heap / hotheap / limit / ceiling20 interleaved (order_for: each in
    every position and after each other once over four rounds);
    each run after a CHECKPOINT and the standby caught up;
 4. the cost side: an indexed field changed (non-HOT on both: the same transactions on both),
    one-row statements (workload 6's shapes);
 5. where any rest goes: per kind, perf record -a over runs of hotheap and its ceiling;
 6. the steady state: heap, then hotheap, for --steady seconds each on the small kind;
 7. amcheck (bt_index_check with heapallindexed) of every hotheap index on the primary and on
    the standby; the report.
"""
import argparse
import csv
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import pgnode
import production_report
from bench import DOC_FIELDS, Bench, doc_expressions
from bench import order_for as alternated
from pgnode import children_cpu_ms, context_switches, free_ports, loadavg, log, run, sha256

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DBNAME = 'prod'
CLIENTS = 4

# Per mode: shared_buffers and rows per kind so that each table (with its TOAST table) is at
# least 8x shared_buffers (checked: meta "tables"); rounds and seconds per run; the cost side;
# the steady state's seconds per access method.
MODES = {
    'quick': dict(shared_buffers='16MB', rows={'small': 100_000, 'large': 100_000, 'toast': 25_000},
                  rounds=2, duration=20, cost_rounds=2, cost_duration=10,
                  oltp_rows=600_000, steady=120, profile=0),
    'default': dict(shared_buffers='128MB', rows={'small': 800_000, 'large': 800_000, 'toast': 180_000},
                    rounds=3, duration=60, cost_rounds=5, cost_duration=30,
                    oltp_rows=5_000_000, steady=600, profile=30),
    'full': dict(shared_buffers='128MB', rows={'small': 800_000, 'large': 800_000, 'toast': 180_000},
                 rounds=5, duration=60, cost_rounds=7, cost_duration=30,
                 oltp_rows=5_000_000, steady=1800, profile=30),
}

# Where users run: every setting not named here is PostgreSQL's default (autovacuum on,
# max_wal_size 1GB, wal_level replica, data checksums as initdb's default of the major).
DURABLE = {
    'fsync': 'on',
    'synchronous_commit': 'on',
    'full_page_writes': 'on',
    'checkpoint_timeout': '60s',
    'autovacuum': 'on',
    'jit': 'off',
    'max_parallel_workers_per_gather': '0',
}
# Loading the tables only: nothing of it is measured.
LOADING = {
    'fsync': 'off',
    'synchronous_commit': 'off',
    'full_page_writes': 'off',
    'wal_level': 'minimal',
    'max_wal_senders': '0',
    # on, as in the runs: the advice loop's workload meets autovacuum's ANALYZE, whose snapshot
    # holds back pruning (pages found full) as it will in production
    'autovacuum': 'on',
    'checkpoint_timeout': '30min',
    'max_wal_size': '16GB',
    'maintenance_work_mem': '512MB',
    'jit': 'off',
    'max_parallel_workers_per_gather': '0',
}
REPORTED = ['server_version', 'shared_buffers', 'fsync', 'synchronous_commit', 'full_page_writes',
            'wal_level', 'checkpoint_timeout', 'max_wal_size', 'autovacuum', 'data_checksums',
            'wal_compression', 'default_toast_compression', 'shared_preload_libraries', 'jit']

KINDS = {
    # (document expression in bench.py, storage of doc)
    'small': ('small', None),           # ~1 kB, 20 short fields: not compressed
    'large': ('large', None),           # ~6 kB: pglz-compressed in line
    'toast': ('large', 'EXTERNAL'),     # the same ~6 kB documents, stored out of line uncompressed
}
# variant -> (access method, what the 20 indexes besides the primary key read)
VARIANTS = {
    'heap': ('heap', 'doc'),
    'hotheap': ('hotheap', 'doc'),
    'limit': ('heap', None),            # heap with only its primary key
    'ceiling20': ('heap', 'id'),        # heap's HOT path with 20 expression indexes on id + k
}
UPDATE_COUNTER = ("\\set id random(1, :rows)\n"
                  "UPDATE {t} SET doc = jsonb_set(doc, '{{counter}}', to_jsonb((doc->>'counter')::int + 1)) "
                  "WHERE id = :id;\n")
# the cost side: an indexed field changed (f20, read by the last index): no update can be HOT
UPDATE_INDEXED = ("\\set id random(1, :rows)\n\\set r random(1, 1000000000)\n"
                  "UPDATE {t} SET doc = jsonb_set(doc, '{{f20}}', to_jsonb('r' || :r)) WHERE id = :id;\n")

RUN_FIELDS = ['phase', 'kind', 'case', 'variant', 'am', 'round', 'position', 'tps', 'txns', 'seconds',
              'upd', 'hot_upd', 'wal_bytes', 'wal_fpi', 'wal_records', 'checkpoints',
              'table_bytes_before', 'table_bytes_after', 'toast_bytes_before', 'toast_bytes_after',
              'index_bytes_before', 'index_bytes_after', 'autovacuum', 'autoanalyze',
              'others_autovacuum', 'others_autoanalyze',
              'lag_bytes_median', 'lag_bytes_max', 'lag_s_median', 'lag_s_max', 'catchup_s', 'av_wait_s',
              'cpu_ms', 'ctxt', 'loadavg1', 'started_at']
SAMPLE_FIELDS = ['phase', 'kind', 'case', 'variant', 'round', 't', 'tps', 'lag_bytes', 'lag_s',
                 'table_bytes', 'toast_bytes', 'index_bytes', 'autovacuum', 'wal_bytes', 'wal_fpi']


# A profile's symbols with fewer samples than this are kept as one row per shared object
# (production_report.SMALL_SYMBOLS): of a profile's ~6,000 symbols two thirds are that small,
# and kept one by one they made meta.json 2.7 MB. The shared objects' totals stay exact; such
# a symbol differs by under 10 samples, the report's differences by a hundred or more.
MIN_SYMBOL_SAMPLES = 10


def kept_samples(samples):
    """[dso, symbol, n] rows of a {(dso, symbol): n} profile, small symbols summed per dso."""
    rows, small = [], {}
    for (dso, sym), n in samples.items():
        if n >= MIN_SYMBOL_SAMPLES:
            rows.append([dso, sym, n])
        else:
            small[dso] = small.get(dso, 0) + n
    return rows + [[dso, production_report.SMALL_SYMBOLS, n] for dso, n in small.items()]


def order_for(round_no, variants):
    """Two variants alternate which runs first (bench.py's order). More follow a balanced Latin
    square (Williams' design, its rows in turn): over len(variants) rounds (twice that for an
    odd count) each runs once in every position and right after each other variant once. A
    run inherits the one before it (its dirty pages, its WAL for the standby to replay and
    restart from): bench.py's alternation put hotheap next to heap, the run that leaves the
    most, in every round, and the first kind's ceiling never (18's small documents at 0.92x
    their ceiling over 8 rounds, with 1.08x its CPU per transaction, stop 60)."""
    n = len(variants)
    if n <= 2:
        return alternated(round_no, variants)
    first, low, high = [0], 1, n - 1
    while len(first) < n:
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    rows = [[(i + k) % n for i in first] for k in range(n)]
    if n % 2:
        rows += [list(reversed(r)) for r in rows]
    return [variants[i] for i in rows[round_no % len(rows)]]


class Production:
    def __init__(self, args):
        self.args = args
        self.p = dict(MODES[args.mode])
        for k in ('rounds', 'duration', 'steady', 'cost_rounds', 'cost_duration', 'profile'):
            if getattr(args, k, None) is not None:
                self.p[k] = getattr(args, k)
        self.kinds = args.kinds.split(',')
        self.bindir = run([os.environ.get('PG_CONFIG', '/usr/lib/postgresql/15/bin/pg_config'),
                           '--bindir']).strip()
        self.pkglibdir = run([os.environ.get('PG_CONFIG', '/usr/lib/postgresql/15/bin/pg_config'),
                              '--pkglibdir']).strip()
        self.tmp = tempfile.mkdtemp(prefix='hotplus-production-', dir=args.data_root)
        os.chmod(self.tmp, 0o755)
        self.sockdir = os.path.join(self.tmp, 'sock')
        os.makedirs(self.sockdir)
        self.meta = dict(mode=args.mode, params=self.p, kinds=self.kinds, clients=CLIENTS,
                         command='bench/production.py ' + ' '.join(sys.argv[1:]),
                         started=datetime.datetime.now().isoformat(timespec='seconds'),
                         load_start=loadavg(), durable=DURABLE, loading=LOADING, advice={}, tables={},
                         fillfactor={})
        self.nodes = []
        self.runs_f = self.samples_f = None

    # -- clusters ------------------------------------------------------------------------
    def start_primary(self):
        # The library is preloaded through a hard link to the installed file, and the
        # extension's functions point at the link (pg_proc.probin): a reinstall during the
        # hours of a run (make install and dpkg replace the file, a new inode) cannot change
        # the code measured. A link, not a copy: CREATE EXTENSION loads '$libdir/hotplus' to
        # check the C functions' symbols, and the server takes a file of the same inode for
        # the one already loaded (a copy would be a second library, whose _PG_init fails).
        libdir = os.path.join(self.tmp, 'lib')
        os.makedirs(libdir)
        self.lib = os.path.join(libdir, 'hotplus.so')
        os.link(os.path.join(self.pkglibdir, 'hotplus.so'), self.lib)
        self.meta['lib_sha256'] = sha256(self.lib)[:12]
        self.meta['lib_installed_sha256'] = sha256(os.path.join(self.pkglibdir, 'hotplus.so'))[:12]
        run(['chown', '-R', 'postgres:postgres', self.tmp])
        port, self.standby_port = free_ports(2)
        self.primary = pgnode.Node('primary', self.bindir, self.tmp, self.sockdir, port,
                                   dict(LOADING, shared_buffers=self.p['shared_buffers'],
                                        shared_preload_libraries=f"'{self.lib}'"), dbname=DBNAME)
        self.nodes = [self.primary]
        log(f'primary: initdb and start on port {port} ({self.primary.datadir})')
        self.primary.init_and_start()
        c = self.primary.connect('postgres')
        with c.cursor() as cur:
            cur.execute(f'CREATE DATABASE {DBNAME}')
        c.close()
        self.primary.x('CREATE EXTENSION hotplus')
        self.primary.x("UPDATE pg_catalog.pg_proc SET probin = %s WHERE probin = '$libdir/hotplus'", (self.lib,))
        self.primary.x('CREATE EXTENSION amcheck')
        self.major = int(self.primary.v('SHOW server_version_num')) // 10000

    def go_durable(self):
        """Restart with the durable settings, then the standby from a base backup."""
        p = self.primary
        p.x('CHECKPOINT')
        p.stop()
        p.configure(dict(DURABLE, wal_level='replica', max_wal_senders='10', max_wal_size='1GB',
                         maintenance_work_mem='64MB'), header='durable (bench/production.py)')
        p.start()
        if self.args.no_standby:
            self.standby = None
        else:
            p.x("SELECT pg_create_physical_replication_slot('standby')")
            sdir = os.path.join(self.tmp, 'standby')
            t0 = time.time()
            pgnode.as_postgres(f'{self.bindir}/pg_basebackup', '-D', sdir, '-X', 'stream', '-R', '-c', 'fast',
                               '-S', 'standby', '-h', p.sockdir, '-p', str(p.port), '-U', 'postgres')
            log(f'standby: base backup in {time.time() - t0:.0f} s')
            self.standby = pgnode.Node('standby', self.bindir, self.tmp, self.sockdir, self.standby_port,
                                       dict(p.settings), dbname=DBNAME)
            self.standby.configure({'cluster_name': "'standby'", 'hot_standby': 'on'},
                                   header='standby (bench/production.py)')
            self.standby.start()
            self.nodes.append(self.standby)
            self.wait_caught_up(timeout=600)
        if self.args.nice:
            self.meta['nice'] = pgnode.renice({n.postmaster_pid for n in self.nodes}, self.args.nice)
        self.meta['settings'] = {k: p.v(f'SHOW {k}') for k in REPORTED}
        self.meta['standby'] = self.standby is not None

    def wait_caught_up(self, timeout=900):
        """Until the standby has replayed everything the primary wrote so far."""
        if self.standby is None:
            return 0.0
        t0 = time.time()
        target = self.primary.v('SELECT pg_current_wal_lsn()')
        while True:
            done = self.primary.v("SELECT coalesce(bool_and(replay_lsn >= %s::pg_lsn), false) "
                                  "FROM pg_stat_replication", (target,))
            if done:
                return time.time() - t0
            if time.time() - t0 > timeout:
                raise RuntimeError(f'the standby did not catch up within {timeout} s')
            time.sleep(0.5)

    def stop_clusters(self):
        for n in reversed(self.nodes):
            n.stop()

    # -- tables --------------------------------------------------------------------------
    def table_facts(self, t):
        p = self.primary
        row = p.q("SELECT a.amname, pg_relation_size(c.oid), "
                  "coalesce(pg_relation_size(nullif(c.reltoastrelid, 0)), 0), pg_indexes_size(c.oid), "
                  "(SELECT count(*) FROM pg_index WHERE indrelid = c.oid), c.reloptions "
                  "FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = %s::regclass", (t,))[0]
        return dict(am=row[0], table_bytes=row[1], toast_bytes=row[2], index_bytes=row[3], indexes=row[4],
                    reloptions=row[5])

    def storage_facts(self, t):
        """How the documents are stored: compression (NULL: not compressed) and median stored size,
        and how many are out of line."""
        return [list(r) for r in self.primary.q(
            f"SELECT coalesce(pg_column_compression(doc), 'none'), count(*), "
            f"percentile_disc(0.5) WITHIN GROUP (ORDER BY pg_column_size(doc)), "
            f"count(*) FILTER (WHERE pg_column_size(doc) < 100 AND octet_length(doc::text) > 2000) "
            f"FROM {t} GROUP BY 1")]

    def create_table(self, t, am, indexes, source, fillfactor, storage):
        p = self.primary
        p.x(f'DROP TABLE IF EXISTS {t}')
        p.x(f'CREATE TABLE {t} (id int PRIMARY KEY, doc jsonb NOT NULL) USING {am} '
            f'WITH (fillfactor = {fillfactor})')
        if storage:
            p.x(f'ALTER TABLE {t} ALTER doc SET STORAGE {storage}')
        # With a storage of its own, each document is made anew (|| '{}'), else the source's
        # compressed datum, small enough to stay in line, would be copied as it is.
        doc = "doc || '{}'::jsonb" if storage else 'doc'
        p.x(f'INSERT INTO {t} SELECT id, {doc} FROM {source} ORDER BY id')
        # created in order, so (doc->>'f20') has the highest OID, as in bench.py
        for k in range(1, DOC_FIELDS + 1):
            if indexes == 'doc':
                p.x(f"CREATE INDEX {t}_f{k} ON {t} ((doc->>'f{k}'))")
            elif indexes == 'id':
                p.x(f'CREATE INDEX {t}_i{k} ON {t} ((id + {k}))')
        p.x(f'VACUUM (ANALYZE, FREEZE) {t}')

    def pgbench(self, script, rows, duration=None, transactions=None, seed=None, progress=None,
                clients=CLIENTS, on_progress=None):
        path = os.path.join(self.tmp, 'script.sql')
        with open(path, 'w') as f:
            f.write(script)
        cmd = [f'{self.bindir}/pgbench', '-n', '-M', 'prepared', '-c', str(clients), '-j', str(clients),
               '-D', f'rows={rows}', '-f', path]
        cmd += ['-t', str(transactions)] if transactions else ['-T', str(duration)]
        if seed is not None:
            cmd.append(f'--random-seed={seed}')
        if progress:
            cmd += ['-P', str(progress)]
        cmd += self.primary.libpq_args()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        errors = []
        for line in proc.stderr:  # pgbench writes little to stdout: its pipe cannot fill meanwhile
            m = re.match(r'progress: ([0-9.]+) s, ([0-9.]+) tps', line)
            if m and on_progress:
                on_progress(float(m.group(1)), float(m.group(2)))
            elif not m:
                errors.append(line)
        out = proc.stdout.read()
        if proc.wait() != 0:
            raise RuntimeError(f'pgbench failed ({proc.returncode}):\n{out}{"".join(errors)}')
        return pgnode.pgbench_result(out)

    def advise(self, kind, rows, source, storage):
        """The fillfactor a DBA following hotplus_advise() ends with, from PostgreSQL's default:
        the workload on a hotheap copy, the advice followed (ALTER TABLE, VACUUM FULL, reset),
        until it suggests nothing."""
        p = self.primary
        t = f'advice_{kind}'
        ff = 100
        self.create_table(t, 'hotheap', 'doc', source, ff, storage)
        steps = []
        for _ in range(4):
            p.x('SELECT public.hotplus_stat_reset()')
            # As many updates as a round of the durable runs makes (rows / 4): how much of the
            # table is touched for the first time decides how often pages are found full, and
            # the loading settings run several times faster than the durable ones.
            tps, txns = self.pgbench(UPDATE_COUNTER.format(t=t), rows, transactions=max(1000, rows // 4 // CLIENTS))
            deadline = time.time() + 15  # pgbench's backends flush their counts as they exit
            while p.v('SELECT coalesce(sum(updates), 0) FROM public.hotplus_stat_tables '
                      'WHERE relid = %s::regclass', (t,)) < txns and time.time() < deadline:
                time.sleep(0.3)
            counts = p.q('SELECT updates, hot_stock + hot_by_expression + hot_by_partial + hot_by_image, '
                         'nonhot_page_full, nonhot_page_full_unchecked FROM public.hotplus_stat_tables '
                         'WHERE relid = %s::regclass', (t,))[0]
            advice = p.q('SELECT suggested_fillfactor, advice FROM public.hotplus_advise() '
                         'WHERE relid = %s::regclass', (t,))[0]
            steps.append(dict(fillfactor=ff, updates=counts[0], hot=counts[1], page_full=counts[2],
                              page_full_unchecked=counts[3], tps=round(tps), suggested=advice[0],
                              advice=advice[1]))
            log(f'advice {kind}: fillfactor {ff}: {counts[1]}/{counts[0]} HOT, {counts[2]} page full: '
                f'suggests {advice[0]}')
            if advice[0] is None:
                break
            ff = advice[0]
            p.x(f'ALTER TABLE {t} SET (fillfactor = {ff})')
            p.x(f'VACUUM FULL {t}')
        p.x(f'DROP TABLE {t}')
        self.meta['advice'][kind] = steps
        return ff

    def load(self):
        p = self.primary
        # fields of (almost) one value per row: indexes as large as such keys make them (no
        # deduplication), where bench.py's 5000 values per field make them a fifth of that
        exprs = doc_expressions(distinct=10000019)
        for kind in self.kinds:
            expr_name, storage = KINDS[kind]
            rows = self.p['rows'][kind]
            t0 = time.time()
            p.x(f'DROP TABLE IF EXISTS src_{kind}')
            p.x(f'CREATE TABLE src_{kind} AS SELECT g AS id, {exprs[expr_name]} AS doc '
                f'FROM generate_series(1, {rows}) g')
            ff = self.advise(kind, rows, f'src_{kind}', storage) if not self.args.fillfactor \
                else self.args.fillfactor
            self.meta['fillfactor'][kind] = ff
            for variant, (am, indexes) in VARIANTS.items():
                t = f'{kind}_{variant}'
                self.create_table(t, am, indexes, f'src_{kind}', ff, storage)
                self.meta['tables'][t] = self.table_facts(t)
                self.meta['tables'][t]['storage'] = self.storage_facts(t)
            if kind == 'small':
                for am in ('heap', 'hotheap'):
                    t = f'cost_{am}'
                    self.create_table(t, am, 'doc', 'src_small', ff, None)
                    self.meta['tables'][t] = self.table_facts(t)
            p.x(f'DROP TABLE src_{kind}')
            log(f'{kind}: loaded in {time.time() - t0:.0f} s, fillfactor {ff}: '
                f'{self.meta["tables"][f"{kind}_heap"]}')
        if not self.args.no_cost:
            Bench.create_oltp_tables(p, self.p['oltp_rows'])   # ol_heap and ol_hotheap, workload 6's shape
            for am in ('heap', 'hotheap'):
                p.x(f'ALTER TABLE ol_{am} RESET (autovacuum_enabled)')
                self.meta['tables'][f'ol_{am}'] = self.table_facts(f'ol_{am}')
        p.x('VACUUM ANALYZE')
        sb = self.primary.v("SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'")
        self.meta['shared_buffers_bytes'] = sb
        for t, facts in self.meta['tables'].items():
            facts['x_shared_buffers'] = round((facts['table_bytes'] + facts['toast_bytes']) / sb, 1)
            facts['x_shared_buffers_with_indexes'] = round(
                (facts['table_bytes'] + facts['toast_bytes'] + facts['index_bytes']) / sb, 1)

    # -- one run -------------------------------------------------------------------------
    def snapshot(self, t):
        p = self.primary
        upd, hot, av, aa = p.q('SELECT n_tup_upd, n_tup_hot_upd, autovacuum_count, autoanalyze_count '
                               'FROM pg_stat_user_tables WHERE relid = %s::regclass', (t,))[0]
        facts = self.table_facts(t)
        wal_records, wal_fpi = p.q('SELECT wal_records, wal_fpi FROM pg_stat_wal')[0]
        av_all, aa_all = p.q('SELECT sum(autovacuum_count), sum(autoanalyze_count) FROM pg_stat_user_tables')[0]
        ckpt = p.v('SELECT num_timed + num_requested FROM pg_stat_checkpointer' if self.major >= 17 else
                   'SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter')
        lsn = p.v('SELECT pg_current_wal_insert_lsn()')
        return dict(upd=upd, hot=hot, autovacuum=av, autoanalyze=aa, av_all=av_all, aa_all=aa_all,
                    wal_records=wal_records,
                    wal_fpi=wal_fpi, ckpt=ckpt, lsn=lsn, **facts)

    def sampler(self, stop, t, label, series):
        """Every 5 s while a run lasts: replay lag, sizes, autovacuum runs, WAL."""
        c = self.primary.connect()
        cur = c.cursor()
        t0 = time.time()
        lsn0 = None
        while not stop.wait(5):
            try:
                cur.execute("SELECT pg_current_wal_lsn(), "
                            "(SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) FROM pg_stat_replication "
                            " LIMIT 1), (SELECT extract(epoch FROM replay_lag) FROM pg_stat_replication LIMIT 1), "
                            "pg_relation_size(c.oid), coalesce(pg_relation_size(nullif(c.reltoastrelid, 0)), 0), "
                            "pg_indexes_size(c.oid), s.autovacuum_count, w.wal_fpi "
                            "FROM pg_class c, pg_stat_user_tables s, pg_stat_wal w "
                            "WHERE c.oid = %s::regclass AND s.relid = c.oid", (t,))
                lsn, lag_b, lag_s, tb, tt, ib, av, fpi = cur.fetchone()
                if lsn0 is None:
                    lsn0 = lsn
                cur.execute('SELECT pg_wal_lsn_diff(%s, %s)', (lsn, lsn0))
                series.append(dict(label, t=round(time.time() - t0, 1), lag_bytes=lag_b,
                                   lag_s=lag_s, table_bytes=tb, toast_bytes=tt, index_bytes=ib,
                                   autovacuum=av, wal_bytes=int(cur.fetchone()[0]), wal_fpi=fpi))
            except Exception as e:  # a sample lost is reported, never fatal
                log(f'sampler: {e}')
        c.close()

    def reaped_cpu_ms(self, deadline):
        """children_cpu_ms() of the primary's postmaster once pgbench's backends are counted
        in it. A backend's CPU time is added when the postmaster reaps it, after it left
        pg_stat_activity; its table statistics may arrive before it exits (15 flushes them
        at commit), so a reading right after them can miss every backend of the run (stop
        59: 1 us per transaction in a one-round run)."""
        p = self.primary
        while time.time() < deadline and p.v(
                "SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE application_name = 'pgbench'"):
            time.sleep(0.1)
        cpu = children_cpu_ms(p.postmaster_pid)
        while time.time() < deadline:
            time.sleep(0.2)
            settled = children_cpu_ms(p.postmaster_pid)
            if settled == cpu:
                break
            cpu = settled
        return cpu

    def autovacuum_quiet(self, timeout=120):
        """Until no autovacuum worker runs (at most timeout seconds): a run does not start in
        the maintenance another table's run caused. Returns the seconds waited."""
        t0 = time.time()
        while time.time() - t0 < timeout and self.primary.v(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'"):
            time.sleep(1)
        return time.time() - t0

    def timed_run(self, t, script, rows, label, upd_per_txn=1, **kw):
        p = self.primary
        av_wait = self.autovacuum_quiet()
        p.x('CHECKPOINT')
        catchup = self.wait_caught_up()
        before = self.snapshot(t)
        cpu0 = children_cpu_ms(p.postmaster_pid)
        ctxt0 = context_switches()
        series, tps_series = [], []
        stop = threading.Event()
        th = threading.Thread(target=self.sampler, args=(stop, t, label, series), daemon=True)
        started = datetime.datetime.now().isoformat(timespec='seconds')
        t0 = time.time()
        th.start()
        tps, txns = self.pgbench(script, rows, progress=5, on_progress=lambda s, v: tps_series.append((s, v)),
                                 **kw)
        seconds = time.time() - t0
        stop.set()
        th.join()
        # pgbench's backends report their statistics when they exit, shortly after pgbench
        deadline = time.time() + 15
        while True:
            after = self.snapshot(t)
            if after['upd'] - before['upd'] >= txns * upd_per_txn or time.time() > deadline:
                break
            time.sleep(0.3)
        cpu = self.reaped_cpu_ms(deadline) - cpu0
        ctxt1 = context_switches()
        wal = int(p.v('SELECT pg_wal_lsn_diff(%s, %s)', (after['lsn'], before['lsn'])))
        # The ANALYZE this run made due, made now, outside every measurement: left to
        # autovacuum it would hold back pruning (its snapshot) in whichever run comes next, and
        # a table whose ANALYZE is slow (20 expression indexes over documents: heap's) would
        # cost the HOT updates of the table that follows it in the order.
        p.x(f'ANALYZE {t}')
        # the TPS series goes with the samples (the nearest sample at or after each report)
        for s, v in tps_series:
            series.append(dict(label, t=s, tps=v))
        lags_b = [x['lag_bytes'] for x in series if x.get('lag_bytes') is not None]
        lags_s = [x['lag_s'] for x in series if x.get('lag_s') is not None]
        res = dict(label, tps=f'{tps:.1f}', txns=txns, seconds=f'{seconds:.1f}',
                   upd=after['upd'] - before['upd'], hot_upd=after['hot'] - before['hot'],
                   wal_bytes=wal, wal_fpi=after['wal_fpi'] - before['wal_fpi'],
                   wal_records=after['wal_records'] - before['wal_records'],
                   checkpoints=after['ckpt'] - before['ckpt'],
                   table_bytes_before=before['table_bytes'], table_bytes_after=after['table_bytes'],
                   toast_bytes_before=before['toast_bytes'], toast_bytes_after=after['toast_bytes'],
                   index_bytes_before=before['index_bytes'], index_bytes_after=after['index_bytes'],
                   autovacuum=after['autovacuum'] - before['autovacuum'],
                   autoanalyze=after['autoanalyze'] - before['autoanalyze'],
                   others_autovacuum=(after['av_all'] - after['autovacuum']) - (before['av_all'] - before['autovacuum']),
                   others_autoanalyze=(after['aa_all'] - after['autoanalyze']) - (before['aa_all'] - before['autoanalyze']),
                   lag_bytes_median=statistics.median(lags_b) if lags_b else '',
                   lag_bytes_max=max(lags_b) if lags_b else '',
                   lag_s_median=f'{statistics.median(lags_s):.2f}' if lags_s else '',
                   lag_s_max=f'{max(lags_s):.2f}' if lags_s else '',
                   catchup_s=f'{catchup:.1f}', av_wait_s=f'{av_wait:.0f}', cpu_ms=f'{cpu:.0f}',
                   ctxt=ctxt1 - ctxt0,
                   loadavg1=loadavg(), started_at=started)
        self.runs_w.writerow({k: res.get(k, '') for k in RUN_FIELDS})
        self.runs_f.flush()
        for x in sorted(series, key=lambda x: x['t']):
            self.samples_w.writerow({k: x.get(k, '') for k in SAMPLE_FIELDS})
        self.samples_f.flush()
        log(f"{label['phase']} {label['kind']} {label['case']} r{label['round']} {label['variant']:9s} "
            f"{tps:8.1f} TPS  hot {res['hot_upd']}/{res['upd']}  wal {wal / max(txns, 1) / 1024:6.1f} kB/txn  "
            f"fpi {res['wal_fpi'] / max(txns, 1):5.2f}/txn  index +{(res['index_bytes_after'] - res['index_bytes_before']) >> 20} MB  "
            f"lag max {res['lag_bytes_max'] if lags_b else '-'} B  ckpt {res['checkpoints']}  "
            f"av {res['autovacuum']}/{res['autoanalyze']} (others {res['others_autovacuum']}/{res['others_autoanalyze']})")
        return res

    # -- phases --------------------------------------------------------------------------
    def main_rounds(self):
        for r in range(self.p['rounds']):
            for kind in self.kinds:
                rows = self.p['rows'][kind]
                for pos, variant in enumerate(order_for(r, list(VARIANTS))):
                    t = f'{kind}_{variant}'
                    label = dict(phase='main', kind=kind, case='counter', variant=variant,
                                 am=VARIANTS[variant][0], round=r + 1, position=pos + 1)
                    self.timed_run(t, UPDATE_COUNTER.format(t=t), rows, label, duration=self.p['duration'])

    def cost_side(self):
        rows = self.p['rows']['small']
        # the same transactions on both tables (count and seed), so their WAL compares: as
        # many per client as the slower table did in a short run, scaled to the run's length
        rates = [self.pgbench(UPDATE_INDEXED.format(t=f'cost_{am}'), rows, duration=5, seed=1)[0]
                 for am in ('heap', 'hotheap')]
        per_client = max(100, int(min(rates) * self.p['cost_duration'] / CLIENTS))
        self.meta['cost_transactions_per_client'] = per_client
        for r in range(self.p['cost_rounds']):
            for pos, am in enumerate(order_for(r, ['heap', 'hotheap'])):
                t = f'cost_{am}'
                label = dict(phase='cost', kind='small', case='indexed field changed', variant=am, am=am,
                             round=r + 1, position=pos + 1)
                self.timed_run(t, UPDATE_INDEXED.format(t=t), rows, label, transactions=per_client,
                               seed=1000 + r)
            for case, body in Bench.OLTP_SCRIPTS.items():
                for pos, am in enumerate(order_for(r, ['heap', 'hotheap'])):
                    t = f'ol_{am}'
                    label = dict(phase='cost', kind='oltp', case=case, variant=am, am=am, round=r + 1,
                                 position=pos + 1)
                    self.timed_run(t, body.format(t=t), self.p['oltp_rows'], label,
                                   upd_per_txn=body.count('UPDATE'), duration=self.p['cost_duration'])

    def profile_run(self, t, rows, seconds):
        """One run of the counter update on t with `perf record -a` (cpu-clock) over its middle
        `seconds`: the server's samples (comm postgres) by (shared object, symbol), and the
        transactions of the sampled seconds (pgbench's progress reports)."""
        p = self.primary
        p.x('CHECKPOINT')
        self.wait_caught_up()
        path = os.path.join(self.tmp, 'script.sql')
        with open(path, 'w') as f:
            f.write(UPDATE_COUNTER.format(t=t))
        cmd = [f'{self.bindir}/pgbench', '-n', '-M', 'prepared', '-c', str(CLIENTS), '-j', str(CLIENTS),
               '-D', f'rows={rows}', '-f', path, '-T', str(seconds + 4), '-P', '1'] + p.libpq_args()
        bench_proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        time.sleep(2)
        data = os.path.join(self.tmp, 'perf.data')
        run(['perf', 'record', '-q', '-a', '-o', data, '--', 'sleep', str(seconds)])
        out, _ = bench_proc.communicate()
        progress = [float(m.group(1)) for m in re.finditer(r'^progress: [\d.]+ s, ([\d.]+) tps', out, re.M)]
        txns = sum(progress[2:2 + seconds])
        report = run(['perf', 'report', '-i', data, '--no-children', '-g', 'none', '--sort', 'comm,dso,sym',
                      '-n', '--stdio'])
        samples = {}
        for line in report.splitlines():
            m = re.match(r'^\s*[\d.]+%\s+(\d+)\s+(\S+)\s+(\S+)\s+\[.\]\s+(.*)$', line)
            if m and m.group(2) == 'postgres':
                key = (m.group(3), m.group(4).strip())
                samples[key] = samples.get(key, 0) + int(m.group(1))
        os.unlink(data)
        return txns, samples

    def profile(self):
        """Where any rest between hotheap and its ceiling goes: per kind, two pairs of profiled
        runs (ceiling20 and hotheap, order alternating), samples per 1000 transactions."""
        seconds = self.p['profile']
        result = {}
        for kind in self.kinds:
            rows = self.p['rows'][kind]
            per = {'ceiling20': {}, 'hotheap': {}}
            txns_all = {'ceiling20': 0.0, 'hotheap': 0.0}
            for pair in range(2):
                for variant in order_for(pair, ['ceiling20', 'hotheap']):
                    txns, samples = self.profile_run(f'{kind}_{variant}', rows, seconds)
                    txns_all[variant] += txns
                    for key, n in samples.items():
                        per[variant][key] = per[variant].get(key, 0) + n
                    log(f'profile {kind} {variant}: {txns / seconds:.0f} TPS, {sum(samples.values())} samples')
            result[kind] = {v: dict(txns=txns_all[v], samples=kept_samples(per[v])) for v in per}
        self.meta['profile'] = dict(seconds=seconds, pairs=2, kinds=result)

    def steady(self):
        rows = self.p['rows']['small']
        for pos, variant in enumerate(['heap', 'hotheap']):
            t = f'small_{variant}'
            label = dict(phase='steady', kind='small', case='counter', variant=variant, am=variant, round=1,
                         position=pos + 1)
            self.timed_run(t, UPDATE_COUNTER.format(t=t), rows, label, duration=self.p['steady'])

    def amcheck(self):
        """bt_index_check(i, true) on every btree index of every hotheap table, on the primary and
        on the standby (what it replayed): any corruption fails the run after all are checked."""
        errors, checked = [], 0
        for node in self.nodes:
            idx = node.q("SELECT i.indexrelid::regclass::text FROM pg_index i "
                         "JOIN pg_class c ON c.oid = i.indrelid JOIN pg_am a ON a.oid = c.relam "
                         "JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am ia ON ia.oid = ic.relam "
                         "WHERE a.amname = 'hotheap' AND ia.amname = 'btree' ORDER BY 1")
            for (name,) in idx:
                try:
                    node.x('SELECT bt_index_check(%s::regclass, true)', (name,))
                    checked += 1
                except Exception as e:
                    errors.append(f'{node.name} {name}: {e}')
                    node.close()
        self.meta['amcheck'] = dict(checked=checked, errors=errors)
        log(f'amcheck: {checked} indexes checked, {len(errors)} errors')
        if errors:
            raise RuntimeError('amcheck: ' + '; '.join(errors))

    def main(self):
        t0 = time.time()
        out = self.args.out
        os.makedirs(out, exist_ok=True)
        self.start_primary()
        self.load()
        self.meta['load_seconds'] = round(time.time() - t0)
        self.go_durable()
        with open(os.path.join(out, 'runs.csv'), 'w', newline='') as self.runs_f, \
                open(os.path.join(out, 'samples.csv'), 'w', newline='') as self.samples_f:
            self.runs_w = csv.DictWriter(self.runs_f, fieldnames=RUN_FIELDS)
            self.runs_w.writeheader()
            self.samples_w = csv.DictWriter(self.samples_f, fieldnames=SAMPLE_FIELDS)
            self.samples_w.writeheader()
            self.main_rounds()
            if not self.args.no_cost:
                self.cost_side()
            if self.p['profile']:
                self.profile()
            if self.p['steady'] and 'small' in self.kinds:
                self.steady()
        self.amcheck()
        self.meta['load_end'] = loadavg()
        self.meta['seconds'] = round(time.time() - t0)
        self.meta['lib_sha256_end'] = sha256(self.lib)[:12]
        self.meta['commit'] = os.environ.get('BENCH_COMMIT') or subprocess.run(
            ['git', '-C', REPO, 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
        self.meta['dirty'] = os.environ.get('BENCH_DIRTY', '')
        with open(os.path.join(out, 'meta.json'), 'w') as f:
            json.dump(self.meta, f, indent=1, default=str)
        if self.args.no_report:
            log(f'wrote {out}/runs.csv, samples.csv, meta.json (the report: --report-only {out})')
            return
        production_report.render(out)
        log(f'wrote {out}/report.md')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--mode', choices=list(MODES), default='default')
    ap.add_argument('--out', default=None, help='results directory (default bench/results/production-pgNN)')
    ap.add_argument('--kinds', default=','.join(KINDS), help='document kinds (small,large,toast)')
    ap.add_argument('--rounds', type=int)
    ap.add_argument('--duration', type=int, help='seconds per run of the rounds')
    ap.add_argument('--steady', type=int, help='seconds of the steady-state run per access method (0: none)')
    ap.add_argument('--cost-rounds', type=int, dest='cost_rounds')
    ap.add_argument('--cost-duration', type=int, dest='cost_duration')
    ap.add_argument('--no-cost', action='store_true', help='skip the cost side')
    ap.add_argument('--profile', type=int, help='seconds of each profiled run (perf record -a) of hotheap and '
                    'its ceiling per kind (0: none)')
    ap.add_argument('--no-standby', action='store_true')
    ap.add_argument('--fillfactor', type=int, help='every table at this fillfactor (skips the advice loop)')
    ap.add_argument('--data-root', default='/var/tmp', help='where the data directories go')
    ap.add_argument('--nice', type=int, default=-10)
    ap.add_argument('--keep', action='store_true', help='keep the data directories and server logs')
    ap.add_argument('--report-only', metavar='DIR', help='render DIR/report.md from its CSVs and meta.json')
    ap.add_argument('--no-report', action='store_true',
                    help='write the CSVs and meta.json only (bench/run-19.sh renders the report outside its chroot)')
    args = ap.parse_args()
    if args.report_only:
        import production_report
        production_report.render(args.report_only)
        return
    if os.geteuid() != 0:
        raise SystemExit('bench/production.py: run as root (it starts the clusters as user postgres)')
    if args.out is None:
        major = run([os.environ.get('PG_CONFIG', '/usr/lib/postgresql/15/bin/pg_config'), '--version'])
        args.out = os.path.join(HERE, 'results', f'production-pg{re.search(r"([0-9]+)", major).group(1)}')
    pgnode.run_and_clean_up(Production(args), args.keep)

if __name__ == '__main__':
    main()
