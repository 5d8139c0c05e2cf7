#!/usr/bin/python3
"""hotheap vs heap through a Citus coordinator (two workers), next to a single node.

The JSONB workload of bench.py's w2 ("small" documents: 20 short fields, a counter and a
640-character note; 20 expression indexes (doc->>'fK')), an UPDATE of the unindexed counter of
one random row by id, pgbench -M prepared -c 2 -j 2. Four throwaway PostgreSQL 15 clusters,
made and removed by this script (as root): a Citus coordinator and two workers (32 shards per
table), and one plain single node. Every round runs all four (citus heap, citus hotheap,
single heap, single hotheap), interleaved. See bench/README.md, section "Citus".

    /usr/bin/python3 bench/citus.py            # 5 rounds of 30 s (about 11 minutes)
    /usr/bin/python3 bench/citus.py --quick    # 2 rounds of 5 s, for trying it out

Results: bench/results/citus-pg15/results.csv (every run) and summary.md (--out DIR: elsewhere).
"""
import argparse
import csv
import datetime
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import psycopg2

import pgnode
from pgnode import free_ports, loadavg, log, run, sha256

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PGBIN = '/usr/lib/postgresql/15/bin'
PKGLIBDIR = '/usr/lib/postgresql/15/lib'
DBNAME = 'bench'

DOC_FIELDS = 20   # as bench.py
DOCS_ROWS = 20000  # bench.py's docs_rows in its standard (default) mode
CLIENTS = 2       # as bench.py: pgbench -c 2 -j 2

# bench/run.sh's server settings, on every node
SETTINGS = {
    'shared_buffers': '1GB',
    'max_wal_size': '4GB',
    'checkpoint_timeout': '30min',
    'synchronous_commit': 'off',
    'fsync': 'off',
    'full_page_writes': 'off',
    'jit': 'off',
}
REPORTED_SETTINGS = list(SETTINGS) + ['shared_preload_libraries', 'max_connections', 'autovacuum',
                                      'citus.node_conninfo', 'citus.shard_count', 'lc_collate']

# the variants of one round, in their base order; (setup, access method)
VARIANTS = [('citus', 'heap'), ('citus', 'hotheap'), ('single', 'heap'), ('single', 'hotheap')]

# bench.py's w2 script, with one change: bench.py's new counter value
# to_jsonb((doc->>'counter')::int + 1) is written ((doc->>'counter')::int + 1)::text::jsonb.
# to_jsonb(anyelement) is STABLE, and Citus refuses "STABLE functions used in UPDATE queries
# cannot be called with column references"; the casts are immutable and give the same jsonb
# number (checked on the single node before the runs). Every variant runs this same statement.
NEW_COUNTER = "((doc->>'counter')::int + 1)::text::jsonb"
BENCH_PY_COUNTER = "to_jsonb((doc->>'counter')::int + 1)"
SCRIPT = ("\\set id random(1, :rows)\n"
          "UPDATE {t} SET doc = jsonb_set(doc, '{{counter}}', " + NEW_COUNTER + ") WHERE id = :id;\n")

# bench.py's small documents (docs_setup)
FIELDS = (f"(SELECT jsonb_object_agg('f' || k, 'v' || ((g * 7919 + k * 104729) % 5000)) "
          f"FROM generate_series(1, {DOC_FIELDS}) k)")
SMALL_DOC = (f"{FIELDS} || jsonb_build_object('counter', 0, 'note', "
             "left(repeat(md5(g::text), 22), 640))")

CSV_FIELDS = ['setup', 'variant', 'round', 'position', 'tps', 'upd', 'hot_upd',
              'txns', 'loadavg1', 'started_at']


def table(am):
    return f'docs_small_{am}'


def shard_pattern(am):
    return f'^{table(am)}_[0-9]+$'


def order_for(round_no, variants):
    """bench.py's order_for (the order reversed every other round), applied to the base order
    rotated by two every two rounds: over four rounds every variant runs in every position,
    and within each setup heap and hotheap alternate which runs first."""
    n = len(variants)
    k = (2 * (round_no // 2)) % n
    base = list(variants[k:]) + list(variants[:k])
    return base if round_no % 2 == 0 else list(reversed(base))


class Node(pgnode.Node):
    """A node of this benchmark: run.sh's settings, hotplus (and Citus) preloaded."""

    def __init__(self, name, tmp, sockdir, port, preload, citus):
        settings = dict(SETTINGS, shared_preload_libraries=f"'{preload}'")
        if citus:
            settings['citus.node_conninfo'] = "'sslmode=disable'"
            settings['citus.enable_statistics_collection'] = 'off'  # no phoning home
        super().__init__(name, PGBIN, tmp, sockdir, port, settings, dbname=DBNAME)
        self.preload, self.citus = preload, citus

    def connect(self, dbname=None):
        conn = super().connect(dbname)
        if self.citus and (dbname or self.dbname) == DBNAME:
            with conn.cursor() as cur:
                try:
                    # shards are hidden from pg_class (so pg_stat_user_tables) otherwise
                    cur.execute('SET citus.override_table_visibility = off')
                except psycopg2.Error:
                    pass  # before CREATE EXTENSION citus in this database: nothing hidden
        return conn


class CitusBench:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix='hotplus-citus-')
        self.nodes = []
        self.rows = []
        self.notes = {}
        self.failed = False

    # -- clusters ----------------------------------------------------------------------------
    def start_clusters(self):
        installed = os.path.join(PKGLIBDIR, 'hotplus.so')
        if not os.path.exists(os.path.join(PKGLIBDIR, 'citus.so')):
            raise SystemExit(f'{PKGLIBDIR}/citus.so missing: run '
                             f'bash scripts/build-citus.sh {PGBIN}/pg_config from the repo root')
        # Preloaded: the postmaster maps the file once at start and every backend inherits it;
        # a backend calling the extension's functions ('$libdir/hotplus') finds the library
        # loaded by its path name and never opens the file again (dfmgr.c), so a reinstall by
        # someone else during the run does not change the code under test. The file's hash is
        # taken at the start (what runs) and the end (a reinstall is reported).
        # (bench.py's private copy cannot be used here: preloaded by another path, the
        # extension's '$libdir/hotplus' would load a second copy, whose _PG_init fails with
        # "attempt to redefine parameter".)
        self.notes['lib_sha256'] = sha256(installed)
        hotplus = 'hotplus'
        sockdir = os.path.join(self.tmp, 'sock')
        os.makedirs(sockdir)
        self.sockdir = sockdir
        run(['chown', '-R', 'postgres:postgres', self.tmp])
        os.chmod(self.tmp, 0o755)
        ports = free_ports(4)
        self.coord = Node('coordinator', self.tmp, sockdir, ports[0], f'citus,{hotplus}', True)
        self.workers = [Node(f'worker{i + 1}', self.tmp, sockdir, ports[i + 1], f'citus,{hotplus}', True)
                        for i in range(2)]
        self.single = Node('single', self.tmp, sockdir, ports[3], hotplus, False)
        self.nodes = [self.coord, *self.workers, self.single]
        for n in self.nodes:
            log(f'{n.name}: initdb and start on port {n.port} ({n.datadir})')
            n.init_and_start()
        for n in self.nodes:
            c = n.connect('postgres')
            with c.cursor() as cur:
                cur.execute(f'CREATE DATABASE {DBNAME}')
            c.close()
            if n.citus:
                n.x('CREATE EXTENSION citus')
            n.x('CREATE EXTENSION hotplus')
        self.coord.x('SELECT citus_set_coordinator_host(%s, %s)', (sockdir, self.coord.port))
        for w in self.workers:
            self.coord.x('SELECT citus_add_node(%s, %s)', (sockdir, w.port))
        nodes = self.coord.q('SELECT nodeid, groupid, nodename, nodeport, isactive, shouldhaveshards '
                             'FROM pg_dist_node ORDER BY nodeid')
        log(f'pg_dist_node: {nodes}')
        self.notes['pg_dist_node'] = nodes
        if self.args.nice:
            self.renice(self.args.nice)

    def renice(self, nice):
        """As bench.py: the clusters' processes (and backends forked later) and this driver
        (so pgbench) get a higher CPU priority than other work on the shared machine."""
        self.notes['nice'] = pgnode.renice({n.postmaster_pid for n in self.nodes}, nice)

    def stop_clusters(self):
        for n in self.nodes:
            n.stop()

    # -- tables ------------------------------------------------------------------------------
    def create_tables(self):
        for node, distributed in ((self.coord, True), (self.single, False)):
            for am in ('heap', 'hotheap'):
                t = table(am)
                node.x(f'CREATE TABLE {t} (id int PRIMARY KEY, doc jsonb NOT NULL) USING {am} '
                       f'WITH (fillfactor = 80, autovacuum_enabled = false)')
                if distributed:
                    node.x("SELECT create_distributed_table(%s, 'id')", (t,))
                if am == 'heap':
                    node.x(f'INSERT INTO {t} SELECT g, {SMALL_DOC} '
                           f'FROM generate_series(1, {DOCS_ROWS}) g')
                else:
                    node.x(f'INSERT INTO {t} SELECT * FROM {table("heap")}')
                # in order, as bench.py: (doc->>'f20') has the highest OID
                for k in range(1, DOC_FIELDS + 1):
                    node.x(f"CREATE INDEX {t}_f{k} ON {t} ((doc->>'f{k}'))")
                node.x(f'VACUUM ANALYZE {t}')
                log(f'{node.name}: {t} loaded, {node.v(f"SELECT count(*) FROM {t}")} rows')

    def check_tables(self):
        """Access methods, shard counts, indexes, identical contents."""
        checks = {}
        for node in (self.coord, self.single):
            for am in ('heap', 'hotheap'):
                t = table(am)
                got_am = node.v('SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam '
                                'WHERE c.oid = %s::regclass', (t,))
                # an order-independent checksum that Citus pushes down to the shards
                rows, md5 = node.q(f"SELECT count(*), sum(('x' || left(md5(id || doc::text), 15))"
                                   f"::bit(60)::bigint) FROM {t}")[0]
                checks[(node.name, t)] = dict(am=got_am, rows=rows, md5=md5)
                if got_am != am or rows != DOCS_ROWS:
                    raise RuntimeError(f'{node.name}: {t} has access method {got_am}, {rows} rows')
        diff = self.single.v(f"SELECT count(*) FROM {table('heap')} WHERE jsonb_set(doc, '{{counter}}', "
                             f"{NEW_COUNTER}) IS DISTINCT FROM jsonb_set(doc, '{{counter}}', "
                             f"{BENCH_PY_COUNTER}) OR jsonb_set(jsonb_set(doc, '{{counter}}', '41'), "
                             f"'{{counter}}', {NEW_COUNTER}) IS DISTINCT FROM jsonb_set(jsonb_set(doc, "
                             f"'{{counter}}', '41'), '{{counter}}', {BENCH_PY_COUNTER})")
        if diff:
            raise RuntimeError(f'the new counter expression differs from bench.py\'s on {diff} rows')
        md5s = {c['md5'] for c in checks.values()}
        if len(md5s) != 1:
            raise RuntimeError(f'the four tables differ: {checks}')
        ct = self.coord.q("SELECT table_name::text, citus_table_type, distribution_column, shard_count, "
                          "access_method FROM citus_tables ORDER BY 1")
        log(f'citus_tables: {ct}')
        self.notes['citus_tables'] = ct
        shards = {}
        for w in self.workers:
            for am in ('heap', 'hotheap'):
                for relam, n, nidx, size in w.q(
                        "SELECT a.amname, count(*), min((SELECT count(*) FROM pg_index i "
                        "WHERE i.indrelid = c.oid)), sum(pg_total_relation_size(c.oid)) "
                        "FROM pg_class c JOIN pg_am a ON a.oid = c.relam "
                        "WHERE c.relkind = 'r' AND c.relname ~ %s GROUP BY 1",
                        (shard_pattern(am),)):
                    shards[(w.name, am, relam)] = dict(shards=n, min_indexes=nidx, bytes=int(size))
                    if relam != am or nidx != DOC_FIELDS + 1:
                        raise RuntimeError(f'{w.name}: shards of {table(am)} use {relam} '
                                           f'({n} shards, at least {nidx} indexes)')
        for am in ('heap', 'hotheap'):
            total = sum(v['shards'] for (w, a, r), v in shards.items() if a == am)
            if total != 32:
                raise RuntimeError(f'{table(am)}: {total} shards on the workers, expected 32')
        log(f'shards on the workers: {shards}')
        self.notes['shards'] = shards
        self.notes['table_checks'] = checks

    # -- runs --------------------------------------------------------------------------------
    def stats(self, setup, am):
        """(n_tup_upd, n_tup_hot_upd) of the table: on the single node, or summed over the shards
        on both workers."""
        if setup == 'single':
            nodes, where, arg = [self.single], 'relname = %s', table(am)
        else:
            nodes, where, arg = self.workers, 'relname ~ %s', shard_pattern(am)
        upd = hot = 0
        for n in nodes:
            u, h = n.q(f'SELECT coalesce(sum(n_tup_upd), 0), coalesce(sum(n_tup_hot_upd), 0) '
                       f'FROM pg_stat_user_tables WHERE {where}', (arg,))[0]
            upd += int(u)
            hot += int(h)
        return upd, hot

    def pgbench(self, node, am, duration):
        path = os.path.join(self.tmp, f'w2_{am}.sql')
        with open(path, 'w') as f:
            f.write(SCRIPT.format(t=table(am)))
        cmd = [f'{PGBIN}/pgbench', '-n', '-M', 'prepared', '-c', str(CLIENTS), '-j', str(CLIENTS),
               '-T', str(duration), '-D', f'rows={DOCS_ROWS}', '-f', path,
               '-h', node.sockdir, '-p', str(node.port), '-U', 'postgres', DBNAME]
        out = run(cmd)
        return pgnode.pgbench_result(out)

    def timed_run(self, setup, am, duration):
        """VACUUM + CHECKPOINT on every node, then one pgbench run with the HOT counts."""
        for n in self.nodes:
            n.x('VACUUM')
        for n in self.nodes:
            n.x('CHECKPOINT')
        time.sleep(0.5)
        upd0, hot0 = self.stats(setup, am)
        target = self.coord if setup == 'citus' else self.single
        started = datetime.datetime.now().isoformat(timespec='seconds')
        tps, txns = self.pgbench(target, am, duration)
        # the backends (the coordinator's, and so the workers' behind them) report their
        # statistics when they exit, shortly after pgbench
        deadline = time.time() + 15
        while True:
            upd1, hot1 = self.stats(setup, am)
            if upd1 - upd0 >= txns or time.time() > deadline:
                break
            time.sleep(0.2)
        return dict(tps=f'{tps:.2f}', upd=upd1 - upd0, hot_upd=hot1 - hot0, txns=txns,
                    loadavg1=loadavg(), started_at=started)

    def rounds(self):
        out = self.args.out
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, 'results.csv'), 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
            w.writeheader()
            for r in range(self.args.rounds):
                for pos, (setup, am) in enumerate(order_for(r, VARIANTS)):
                    res = self.timed_run(setup, am, self.args.duration)
                    row = dict(setup=setup, variant=am, round=r + 1, position=pos + 1, **res)
                    self.rows.append(row)
                    w.writerow(row)
                    f.flush()
                    log(f'round {r + 1} pos {pos + 1} {setup:6s} {am:8s} {float(res["tps"]):9.1f} TPS '
                        f'hot {res["hot_upd"]}/{res["upd"]} (txns {res["txns"]}, load {res["loadavg1"]})')

    # -- after the runs ----------------------------------------------------------------------
    def hot_totals(self):
        tot = {}
        for setup in ('citus', 'single'):
            for am in ('heap', 'hotheap'):
                upd, hot = self.stats(setup, am)
                tot[(setup, am)] = (upd, hot)
                share = hot / upd if upd else float('nan')
                log(f'HOT share {setup} {am}: {hot}/{upd} = {100 * share:.1f}%')
        self.notes['hot_totals'] = tot
        problems = []
        for (setup, am), (upd, hot) in tot.items():
            share = hot / upd if upd else None
            if share is None:
                problems.append(f'{setup} {am}: no updates counted')
            elif am == 'hotheap' and share < 0.99:
                problems.append(f'{setup} {am}: HOT share {100 * share:.1f}%, expected ~100%')
            elif am == 'heap' and share > 0.01:
                problems.append(f'{setup} {am}: HOT share {100 * share:.1f}%, expected ~0%')
        self.notes['hot_problems'] = problems
        for p in problems:
            log(f'HOT CHECK: {p}')

    def amcheck(self):
        """bt_index_check(i, true) on every btree index of every shard (and of the single
        node's tables); any error fails the run after all are checked."""
        errors = []
        counts = {}
        # Citus refuses CREATE EXTENSION on a worker ("operation is not allowed on this node"):
        # made on the coordinator, it is propagated to the workers
        self.coord.x('CREATE EXTENSION IF NOT EXISTS amcheck')
        self.single.x('CREATE EXTENSION IF NOT EXISTS amcheck')
        for n in [*self.workers, self.single]:
            if not n.v("SELECT count(*) FROM pg_extension WHERE extname = 'amcheck'"):
                raise RuntimeError(f'{n.name}: no amcheck extension')
            idx = n.q("SELECT i.indexrelid::regclass::text, i.indexrelid FROM pg_index i "
                      "JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am a ON a.oid = ic.relam "
                      "JOIN pg_class t ON t.oid = i.indrelid "
                      "WHERE a.amname = 'btree' AND t.relname ~ %s ORDER BY 1",
                      # on the workers the shards, not the (empty) shell tables Citus keeps there
                      ('^docs_small_(heap|hotheap)$' if n is self.single else
                       '^docs_small_(heap|hotheap)_[0-9]+$',))
            counts[n.name] = len(idx)
            for name, oid in idx:
                try:
                    n.x('SELECT bt_index_check(%s::regclass, true)', (oid,))
                except psycopg2.Error as e:
                    errors.append(f'{n.name}: {name}: {str(e).strip()}')
        self.notes['amcheck'] = dict(indexes=counts, errors=errors)
        log(f'amcheck: {counts} btree indexes checked, {len(errors)} errors')
        if errors:
            raise RuntimeError('amcheck failed:\n' + '\n'.join(errors))
        if counts.get('single') != 2 * (DOC_FIELDS + 1) or \
                sum(counts[w.name] for w in self.workers) != 64 * (DOC_FIELDS + 1):
            raise RuntimeError(f'amcheck: unexpected number of indexes {counts}')

    def collect_meta(self):
        m = self.notes
        m['date'] = datetime.datetime.now().astimezone().isoformat(timespec='seconds')
        m['nproc'] = os.cpu_count()
        m['server_version'] = self.coord.v('SELECT version()')
        m['citus_version'] = self.coord.v('SELECT citus_version()')
        m['extversions'] = {n.name: n.q("SELECT extname, extversion FROM pg_extension "
                                        "WHERE extname IN ('citus', 'hotplus') ORDER BY 1")
                            for n in self.nodes}
        m['settings'] = {}
        for n in self.nodes:
            m['settings'][n.name] = dict(n.q(
                "SELECT name, setting || coalesce(' ' || unit, '') FROM pg_settings "
                "WHERE name = ANY(%s) ORDER BY name", (REPORTED_SETTINGS,)))
        git = lambda *a: subprocess.run(['git', '-C', REPO, *a], capture_output=True,
                                        text=True).stdout.strip()
        m['commit'] = git('rev-parse', '--short', 'HEAD')
        m['dirty'] = [l for l in git('status', '--porcelain', '--untracked-files=all', '--', 'src',
                                     'Makefile', 'hotplus.control', 'hotplus--1.0.sql',
                                     'hotplus--1.0--1.1.sql', 'hotplus--1.1--1.2.sql').splitlines()
                      if l.strip()]
        with open('/proc/cpuinfo') as f:
            m['cpu'] = next((l.split(':', 1)[1].strip() for l in f if l.startswith('model name')),
                            'unknown')

    # -- summary -----------------------------------------------------------------------------
    def summary(self, total_seconds):
        m = self.notes
        rows = self.rows
        tps = {}
        for r in rows:
            tps.setdefault((r['setup'], r['variant']), {})[r['round']] = float(r['tps'])
        med = {k: statistics.median(v.values()) for k, v in tps.items()}
        L = []
        L.append('# hotheap vs heap through a Citus coordinator, next to a single node')
        L.append('')
        L.append(f'`{m["command"]}`, {m["date"]}, {total_seconds // 60} min {total_seconds % 60} s. '
                 f'{self.args.rounds} rounds of {self.args.duration} s per run; every round runs all '
                 f'four variants, order rotated per round. Each run: pgbench `-n -M prepared -c 2 '
                 f'-j 2 -T {self.args.duration}`, bench.py\'s w2 (UPDATE of the unindexed `counter` '
                 f'of one random row by id) on the small JSONB documents ({DOCS_ROWS} rows, 20 '
                 f'expression indexes `(doc->>\'fK\')`, fillfactor 80, autovacuum off), after '
                 f'VACUUM + CHECKPOINT on every node. citus: distributed by id, '
                 f'{m["citus_tables"][0][3]} shards on two workers, pgbench against the coordinator; '
                 f'single: the same tables on one plain node.')
        L.append('')
        L.append(f'The statement: `{SCRIPT.format(t="docs_small_<am>").splitlines()[1]}`. bench.py '
                 f'writes the new counter as `{BENCH_PY_COUNTER}`; Citus refuses that '
                 f'(`ERROR: STABLE functions used in UPDATE queries cannot be called with column '
                 f'references`: to_jsonb(anyelement) is STABLE), so every variant here, the single '
                 f'node\'s included, uses the immutable casts, which give the same document (checked '
                 f'on every row before the runs).')
        L.append('')
        L.append('## TPS')
        L.append('')
        L.append('| setup | heap median TPS | hotheap median TPS | hotheap / heap (ratio of medians) '
                 '| median of per-round ratios | per-round ratios |')
        L.append('|---|---:|---:|---:|---:|---|')
        for setup in ('citus', 'single'):
            h, hh = tps[(setup, 'heap')], tps[(setup, 'hotheap')]
            pr = [hh[r] / h[r] for r in sorted(h) if r in hh]
            L.append(f'| {setup} | {med[(setup, "heap")]:.0f} | {med[(setup, "hotheap")]:.0f} | '
                     f'{med[(setup, "hotheap")] / med[(setup, "heap")]:.2f}x | '
                     f'{statistics.median(pr):.2f}x | {", ".join(f"{x:.2f}" for x in pr)} |')
        L.append('')
        L.append(f'citus / single (ratio of medians): heap '
                 f'{med[("citus", "heap")] / med[("single", "heap")]:.2f}x, hotheap '
                 f'{med[("citus", "hotheap")] / med[("single", "hotheap")]:.2f}x.')
        L.append('')
        L.append('Every run (TPS; position in the round in parentheses):')
        L.append('')
        L.append('| round | ' + ' | '.join(f'{s} {a}' for s, a in VARIANTS) + ' | load (1 min) |')
        L.append('|---:|' + '---:|' * len(VARIANTS) + '---|')
        for rnd in sorted({r['round'] for r in rows}):
            cells, loads = [], []
            for s, a in VARIANTS:
                r = next(x for x in rows if x['round'] == rnd and x['setup'] == s and x['variant'] == a)
                cells.append(f'{float(r["tps"]):.0f} ({r["position"]})')
                loads.append(r['loadavg1'])
            L.append(f'| {rnd} | ' + ' | '.join(cells) + f' | {", ".join(loads)} |')
        L.append('')
        L.append('## HOT updates')
        L.append('')
        L.append('`n_tup_hot_upd` / `n_tup_upd` after all runs: citus summed over the shard tables on '
                 'both workers (`pg_stat_user_tables` on each worker, shards made visible with '
                 '`citus.override_table_visibility = off`), single of its table.')
        L.append('')
        L.append('| setup | variant | updates | HOT updates | HOT share |')
        L.append('|---|---|---:|---:|---:|')
        for (setup, am), (upd, hot) in m['hot_totals'].items():
            L.append(f'| {setup} | {am} | {upd} | {hot} | {100 * hot / upd if upd else float("nan"):.1f}% |')
        L.append('')
        if m['hot_problems']:
            L.append('**HOT check failed**: ' + '; '.join(m['hot_problems']))
        else:
            L.append('HOT check: hotheap >= 99% HOT and heap <= 1% HOT in both setups.')
        L.append('')
        L.append('## Checks')
        L.append('')
        L.append('- Shards on the workers (table, access method: shards, least indexes per shard): ' +
                 '; '.join(f'{w} {table(am)} {relam}: {v["shards"]} shards, {v["min_indexes"]} indexes'
                           for (w, am, relam), v in sorted(m['shards'].items())) + '.')
        L.append(f'- `citus_tables`: {m["citus_tables"]}.')
        L.append('- The four tables had the same contents after the load (row count and a sum of md5s of the rows).')
        a = m['amcheck']
        L.append(f'- amcheck `bt_index_check(i, true)` at the end, every btree index of every shard '
                 f'(and of the single node\'s tables): {a["indexes"]}, {len(a["errors"])} errors.')
        L.append('')
        L.append('## Machine and software')
        L.append('')
        loads = [float(r['loadavg1']) for r in rows]
        L.append(f'- nproc {m["nproc"]} ({m["cpu"]}); 1-minute load average: {m["load_start"]} at the '
                 f'start, {min(loads):.2f}..{max(loads):.2f} at the ends of the runs, {m["load_end"]} at '
                 f'the end. The machine is shared: other test suites ran on it at the same time.')
        L.append(f'- {m["server_version"]}')
        L.append(f'- {m["citus_version"]}')
        L.append(f'- extensions per node: {m["extversions"]}')
        same = m['lib_installed_sha256_end'] == m['lib_sha256']
        L.append(f'- hotplus.so sha256 {m["lib_sha256"]} (the installed file, preloaded; '
                 + ('the same at the end of the run)' if same else
                    f'**replaced during the run**: {m["lib_installed_sha256_end"]} at the end; the '
                    f'servers kept the library they mapped at start)'))
        L.append(f'- tree: commit {m["commit"]}' +
                 (f', uncommitted build inputs: {"; ".join(m["dirty"])}' if m['dirty'] else '') +
                 ' (the library is the installed one, built from whatever tree installed it)')
        L.append(f'- nice {m.get("nice", 0)} for the clusters and pgbench')
        L.append('- Settings (the same on every node, reported by each): ' + ', '.join(
            f'{k}={v}' for k, v in m['settings']['coordinator'].items()
            if not k.startswith('citus') and k != 'shared_preload_libraries') +
                 f'; citus nodes: shared_preload_libraries={m["settings"]["coordinator"]["shared_preload_libraries"]}, '
                 f'citus.node_conninfo={m["settings"]["coordinator"].get("citus.node_conninfo")}; '
                 f'single: shared_preload_libraries={m["settings"]["single"]["shared_preload_libraries"]}.')
        L.append('')
        with open(os.path.join(self.args.out, 'summary.md'), 'w') as f:
            f.write('\n'.join(L))
        return med

    def check_settings_equal(self):
        s = self.notes['settings']
        for n in self.nodes:
            for k in SETTINGS:
                if s[n.name].get(k) != s['coordinator'].get(k):
                    raise RuntimeError(f'{n.name}: {k} = {s[n.name].get(k)}, coordinator '
                                       f'{s["coordinator"].get(k)}')

    def main(self):
        t0 = time.time()
        self.notes['command'] = 'bench/citus.py' + (' ' + ' '.join(sys.argv[1:]) if sys.argv[1:] else '')
        self.notes['load_start'] = loadavg()
        self.start_clusters()
        self.collect_meta()
        self.check_settings_equal()
        self.create_tables()
        self.check_tables()
        self.rounds()
        self.hot_totals()
        self.amcheck()
        self.notes['load_end'] = loadavg()
        self.notes['lib_installed_sha256_end'] = sha256(os.path.join(PKGLIBDIR, 'hotplus.so'))
        if self.notes['lib_installed_sha256_end'] != self.notes['lib_sha256']:
            log('hotplus.so was reinstalled during the run: see summary.md')
        med = self.summary(round(time.time() - t0))
        for setup in ('citus', 'single'):
            log(f'{setup}: heap {med[(setup, "heap")]:.0f} TPS, hotheap {med[(setup, "hotheap")]:.0f} '
                f'TPS, ratio {med[(setup, "hotheap")] / med[(setup, "heap")]:.2f}x')
        log(f'wrote {self.args.out}/results.csv and summary.md')
        if self.notes['hot_problems']:
            raise RuntimeError('HOT check failed: ' + '; '.join(self.notes['hot_problems']))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--rounds', type=int, default=None, help='rounds (default 5; --quick: 2)')
    ap.add_argument('--duration', type=int, default=None,
                    help='seconds per pgbench run (default 30; --quick: 5)')
    ap.add_argument('--quick', action='store_true', help='2 rounds of 5 s, for trying it out')
    ap.add_argument('--out', default=os.path.join(HERE, 'results', 'citus-pg15'))
    ap.add_argument('--nice', type=int, default=-10,
                    help='CPU priority of the clusters and pgbench, as bench.py (0: leave it alone)')
    ap.add_argument('--keep', action='store_true',
                    help='keep the temporary directory (data directories, server logs)')
    args = ap.parse_args()
    if args.rounds is None:
        args.rounds = 2 if args.quick else 5
    if args.duration is None:
        args.duration = 5 if args.quick else 30
    if os.geteuid() != 0:
        raise SystemExit('bench/citus.py: run as root (it starts the clusters as user postgres)')
    # a SIGTERM (or SIGHUP) ends the run through the finally below, like ^C
    pgnode.run_and_clean_up(CitusBench(args), args.keep)

if __name__ == '__main__':
    main()
