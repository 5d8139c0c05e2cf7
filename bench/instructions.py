#!/usr/bin/env python3
"""Instructions per update, heap vs hotheap, counted by Valgrind (callgrind): a measure of
hotplus's cost that the machine's speed cannot move.

Timing on a shared machine is noisy (bench/README.md "Method"): rounds of one workload-1 case
were seen to fall into two modes 1.5x apart in CPU time, with both access methods slow or fast
together. Instruction counts do not depend on the CPU's speed or on the neighbours, so a small
difference (the controls' +2% targets) can be resolved in one run. They do not see cache
misses or lock waits: they complement the timed suite, they do not replace it.

Method: a throwaway cluster is set up with psql, then stopped; every measurement is one
single-user backend (`postgres --single`) run under callgrind, and its total instruction count.
Each measurement is made twice, on an identical fresh table, with n and 2n units of work
(rows of one UPDATE for workload 1; single-row UPDATEs, each its own transaction, for the
JSONB workload); the difference divided by n is the cost of one unit, with every fixed cost of
a session (start, catalog caches, loading the library, the shutdown checkpoint's fixed part)
cancelled out. What does not cancel (pages first touched, the checkpoint's per-page part)
shrinks with n: with 200 single-row UPDATEs or more, repeated runs agree within 0.1%; with
20 they did not (+15%).

    PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config /usr/bin/python3 bench/instructions.py
    ... --w1-cases ctl_unindexed,ctl_short --docs small --out /tmp/instr.md

A private copy of the installed hotplus.so is measured (`make install` for that server first),
or of the one --lib names. As root, the server runs as postgres.
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (the workloads' definitions, shared with the timed suite)
from index_growth import TRACK_COLUMNS, TRACK_INDEXES, TRACK_VALUES  # noqa: E402  (its `track` table)

# noread: hotheap's table with hotplus.read_path off (heap's plan; what the read path's node costs)
DOC_VARIANTS = ['heap', 'hotheap', 'noread', 'limit', 'limit20', 'verify']
DOC_UPDATE = ("UPDATE {t} SET doc = jsonb_set(doc, '{{counter}}', "
              "to_jsonb((doc->>'counter')::int + 1)) WHERE id = $1")


def as_owner(cmd):
    return (['runuser', '-u', 'postgres', '--'] + cmd) if os.geteuid() == 0 else cmd


def rdtscp_offsets(binary):
    """File offsets of the RDTSCP instructions in an ELF executable (objdump, readelf)."""
    dis = subprocess.run(['objdump', '-d', '--no-show-raw-insn', binary], capture_output=True,
                         text=True, check=True).stdout
    vaddrs = [int(m.group(1), 16) for m in re.finditer(r'^\s*([0-9a-f]+):\s+rdtscp\b', dis, re.M)]
    segments = []
    for line in subprocess.run(['readelf', '-lW', binary], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        f = line.split()
        if f and f[0] == 'LOAD':
            segments.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))  # offset, vaddr, filesz
    return [off + v - va for v in vaddrs for off, va, size in segments if va <= v < va + size]


def valgrind_runnable_backend(bindir, pg_config, workdir):
    """The postgres executable to run under Valgrind, and a note for the report. PostgreSQL 19
    calibrates its TSC clock at startup with RDTSCP, whatever timing_clock_source says;
    Valgrind's CPU claims the instruction but cannot run it on a host that lacks it (a virtual
    machine's CPU often does), and the backend dies with SIGILL. On such a host the backend
    measured is a private copy in which each RDTSCP (0f 01 f9) is replaced by RDTSC; NOP
    (0f 31 90): the same counter in EDX:EAX, ECX (the processor id) left as it was. Nothing
    else changes, and the clock is not read on the measured path."""
    postgres = os.path.join(bindir, 'postgres')
    if ' rdtscp ' in open('/proc/cpuinfo').read().replace('\n', ' ') + ' ':
        return postgres, None
    offsets = rdtscp_offsets(postgres)
    if not offsets:
        return postgres, None
    # The copy must find the installation's other directories by its own path, as PostgreSQL
    # computes them relative to the executable: mirror the layout under workdir.
    root = os.path.join(workdir, 'install')
    copy = root + postgres
    os.makedirs(os.path.dirname(copy), exist_ok=True)
    for opt in ('--sharedir', '--pkglibdir', '--libdir', '--localedir'):
        target = subprocess.check_output([pg_config, opt], text=True).strip()
        if os.path.isdir(target) and not os.path.lexists(root + target):
            os.makedirs(os.path.dirname(root + target), exist_ok=True)
            os.symlink(target, root + target)
    shutil.copy(postgres, copy)
    replace_rdtscp(copy, offsets)
    os.chmod(workdir, 0o755)
    return copy, (f'the backend measured is a private copy of `{postgres}` with its {len(offsets)} RDTSCP '
                  'instructions replaced by RDTSC, and so is hotplus.so (this host lacks RDTSCP, which '
                  'Valgrind then cannot run; PostgreSQL 19 executes it at startup, and its '
                  '`INSTR_TIME_SET_CURRENT` in hotplus\'s sampled check time)')


def replace_rdtscp(path, offsets=None):
    """Replaces each RDTSCP of the ELF file at path by RDTSC; NOP, in place."""
    offsets = rdtscp_offsets(path) if offsets is None else offsets
    data = bytearray(open(path, 'rb').read())
    for off in offsets:
        if data[off:off + 3] != b'\x0f\x01\xf9':
            raise SystemExit(f'{path}: no RDTSCP at file offset {off:#x}')
        data[off:off + 3] = b'\x0f\x31\x90'
    with open(path, 'wb') as f:
        f.write(data)


class Cluster:
    def __init__(self, pg_config):
        self.bindir = subprocess.check_output([pg_config, '--bindir'], text=True).strip()
        self.pkglibdir = subprocess.check_output([pg_config, '--pkglibdir'], text=True).strip()
        self.version = subprocess.check_output([pg_config, '--version'], text=True).strip()
        self.dir = tempfile.mkdtemp(prefix='hotplus-instr.')
        os.chmod(self.dir, 0o755)
        if os.geteuid() == 0:
            shutil.chown(self.dir, 'postgres')
        self.backend, self.backend_note = valgrind_runnable_backend(self.bindir, pg_config, self.dir)
        self.data = os.path.join(self.dir, 'data')
        subprocess.run(as_owner([f'{self.bindir}/initdb', '-D', self.data, '-U', 'postgres',
                                 '-A', 'trust', '--no-sync']),
                       check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(self.data, 'postgresql.conf'), 'a') as f:
            f.write(f"unix_socket_directories = '{self.dir}'\nlisten_addresses = ''\n"
                    "fsync = off\nautovacuum = off\n")

    def start(self):
        subprocess.run(as_owner([f'{self.bindir}/pg_ctl', '-D', self.data, '-w', '-l',
                                 os.path.join(self.dir, 'server.log'), 'start']),
                       check=True, stdout=subprocess.DEVNULL)

    def stop(self, check=True):
        subprocess.run(as_owner([f'{self.bindir}/pg_ctl', '-D', self.data, '-w', '-m', 'fast',
                                 'stop']), check=check, stdout=subprocess.DEVNULL,
                       stderr=None if check else subprocess.DEVNULL)

    def sql(self, text):
        subprocess.run([f'{self.bindir}/psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', self.dir,
                        '-U', 'postgres', '-d', 'postgres'], input=text, text=True, check=True,
                       stdout=subprocess.DEVNULL)

    def instructions(self, statements, settings=(), keep=None, events=False):
        """Total instructions of a single-user backend that runs the statements (one per line,
        each its own transaction). keep: a path to keep the callgrind profile at. events: with
        callgrind's cache simulation, a dict of every event's total (Ir, D1mr, DLmr...)."""
        out = os.path.join(self.dir, 'callgrind.out')
        # Line numbers only in kept profiles (callgrind_annotate shows the lines' costs).
        cmd = ['valgrind', '--tool=callgrind', f'--callgrind-out-file={out}',
               f'--dump-line={"yes" if keep else "no"}',
               '--compress-strings=no', '--quiet'] + (['--cache-sim=yes'] if events else []) + [
               self.backend, '--single', '-D', self.data, '-c', 'fsync=off']
        for s in settings:
            cmd += ['-c', s]
        cmd.append('postgres')
        run = subprocess.run(as_owner(cmd), input='\n'.join(statements) + '\n', text=True,
                             capture_output=True)
        if run.returncode != 0 or 'ERROR' in run.stdout or 'ERROR' in run.stderr:
            raise SystemExit(f'single-user run failed:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}')
        names = None
        with open(out) as f:
            for line in f:
                if line.startswith('events:'):
                    names = line.split()[1:]
                m = re.match(r'(summary|totals): (\d+(?: \d+)*)', line)
                if m:
                    if keep:
                        shutil.move(out, keep)
                    else:
                        os.unlink(out)
                    totals = [int(x) for x in m.group(2).split()]
                    return dict(zip(names or ['Ir'], totals)) if events else totals[0]
        raise SystemExit('no instruction total in the callgrind output')

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def w1_tables(cluster, cases, rows):
    """Two identical tables per case and access method, with rows and 2 * rows rows."""
    sql = []
    sources = {}
    for key, _, data, _, _, _, _, _ in cases:
        src = 'c' if data == 'ctl' else data
        sources[src] = bench.W1_SOURCES[src]
    for src, (expr, external) in sources.items():
        sql.append(f'CREATE TABLE src_{src} (id int PRIMARY KEY, v text);')
        if external:
            sql.append(f'ALTER TABLE src_{src} ALTER COLUMN v SET STORAGE EXTERNAL;')
        sql.append(f'INSERT INTO src_{src} SELECT g, {expr} FROM generate_series(1, {2 * rows}) g;')
    for key, _, data, index, _, _, _, _ in cases:
        for am in ('heap', 'hotheap'):
            for scale in (1, 2):
                t = f'{key}_{am}_{scale}'
                cols = 'id int PRIMARY KEY, v text' + (', s text, n int' if data == 'ctl' else '')
                sql.append(f'CREATE TABLE {t} ({cols}) USING {am} WITH (fillfactor = 50);')
                if data.startswith('o'):
                    sql.append(f'ALTER TABLE {t} ALTER COLUMN v SET STORAGE EXTERNAL;')
                if data == 'ctl':
                    sql.append(f"INSERT INTO {t} SELECT id, v, 'k' || id, 0 FROM src_c "
                               f"WHERE id <= {scale * rows};")
                    sql.append(f'CREATE INDEX ON {t} (s);')
                else:
                    sql.append(f'INSERT INTO {t} SELECT id, v FROM src_{data} WHERE id <= {scale * rows};')
                    sql.append(f'CREATE INDEX ON {t} USING {index} (v);')
    cluster.sql('\n'.join(sql))


def docs_tables(cluster, sizes, rows, variants=DOC_VARIANTS):
    """Per size and variant (bench.py's W2 tables), two identical copies."""
    sql = []
    exprs = bench.doc_expressions()
    n = bench.DOC_FIELDS
    for size in sizes:
        sql.append(f'CREATE TABLE IF NOT EXISTS docs_src_{size}_{rows} AS SELECT g AS id, {exprs[size]} AS doc '
                   f'FROM generate_series(1, {rows}) g;')
        for variant in variants:
            am = 'heap' if variant in ('heap', 'limit', 'limit20') else 'hotheap'
            for scale in (1, 2):
                t = f'docs_{size}_{variant}_{scale}'
                extra = ''.join(f', c{k} int' for k in range(1, n + 1)) if variant == 'limit20' else ''
                vals = ''.join(f', (id * {k}) % 1000' for k in range(1, n + 1)) if variant == 'limit20' else ''
                sql.append(f'CREATE TABLE {t} (id int PRIMARY KEY, doc jsonb NOT NULL{extra}) '
                           f'USING {am} WITH (fillfactor = 80);')
                sql.append(f'INSERT INTO {t} SELECT id, doc{vals} FROM docs_src_{size}_{rows};')
                for k in range(1, n + 1):
                    if variant not in ('limit', 'limit20'):
                        sql.append(f"CREATE INDEX ON {t} ((doc->>'f{k}'));")
                    elif variant == 'limit20':
                        sql.append(f'CREATE INDEX ON {t} (c{k});')
    cluster.sql('\n'.join(sql))


def changed_value(row, field, kind):
    """Workload 3's new value of a field of a row (each row is updated once per session):
    of the old value's length (bench.doc_expressions: 'v' and a number), as the timed
    workload's random values are once a row has been updated ('r' and 9 or 10 digits: the
    documents' raw sizes are then mostly equal), or longer (their sizes differ)."""
    k = int(field[1:])
    old = f'v{(row * 7919 + k * 104729) % 5000}'
    return 'w' + old[1:] if kind == 'same-length' else 'r' + old[1:] + 'xyz'


def w3_tables(cluster, sizes, shapes, rows):
    """Workload 3's tables (bench.W3_SHAPES): per size, shape and access method two identical
    copies, each with its shape's expression indexes created in order."""
    sql = []
    exprs = bench.doc_expressions()
    for size in sizes:
        sql.append(f'CREATE TABLE w3_src_{size} AS SELECT g AS id, {exprs[size]} AS doc '
                   f'FROM generate_series(1, {rows}) g;')
        for n, position in shapes:
            for am in ('heap', 'hotheap'):
                for scale in (1, 2):
                    t = f'w3_{size}_{bench.w3_shape_key(n, position)}_{am}_{scale}'
                    sql.append(f'CREATE TABLE {t} (id int PRIMARY KEY, doc jsonb NOT NULL) '
                               f'USING {am} WITH (fillfactor = 80);')
                    sql.append(f'INSERT INTO {t} SELECT id, doc FROM w3_src_{size};')
                    for k in range(1, n + 1):
                        sql.append(f"CREATE INDEX ON {t} ((doc->>'f{k}'));")
    cluster.sql('\n'.join(sql))


def per_unit(cluster, statements_for, units, settings=(), keep=None, events=False):
    """keep: a path prefix; the two runs' profiles are kept as PREFIX.1 and PREFIX.2
    (bench/profile_units.py shows each function's cost per unit from them). events: a dict of
    every cache-simulation event per unit instead of the instructions."""
    one = cluster.instructions(statements_for(1, units), settings, keep and f'{keep}.1', events)
    two = cluster.instructions(statements_for(2, 2 * units), settings, keep and f'{keep}.2', events)
    if events:
        return {k: (two[k] - one[k]) / units for k in one}
    return (two - one) / units


def hotplus_lock_calls(profile):
    """Calls of LWLockAcquire and LWLockConditionalAcquire made by hotplus's own functions in a
    callgrind profile (names uncompressed): the shared statistics' lock, which a flush takes."""
    calls = 0
    caller = callee = ''
    with open(profile) as f:
        for line in f:
            if line.startswith('fn='):
                caller = line[3:]
            elif line.startswith('cfn='):
                callee = line[4:].strip()
            elif line.startswith('calls=') and 'hotplus' in caller and \
                    callee in ('LWLockAcquire', 'LWLockConditionalAcquire'):
                calls += int(line.split()[0][6:])
    return calls


def oltp_tables(cluster, rows):
    """bench.py's workload 6 table (ol), two identical copies per access method."""
    sql = []
    for am in ('heap', 'hotheap'):
        for scale in (1, 2):
            t = f'ol_{am}_{scale}'
            sql.append(f'CREATE TABLE {t} (id int PRIMARY KEY, k int NOT NULL, c char(120), pad char(60)) '
                       f'USING {am};')
            sql.append(f"INSERT INTO {t} SELECT g, g % 1000, md5(g::text) || repeat('x', 88), repeat('p', 60) "
                       f'FROM generate_series(1, {rows}) g;')
            sql.append(f'CREATE INDEX ON {t} (k);')
    cluster.sql('\n'.join(sql))


def nonhot_tables(cluster, rows):
    """The non-HOT updates hotheap hints (issue 55), two identical copies per variant (heap,
    hotheap, and heap for the ceiling): an ORM's table (10 int columns each indexed, a text
    column) and a tracking table (a status, a time indexed by its day, 8 int columns each
    indexed)."""
    sql = []
    cols = ', '.join(f'c{k} int' for k in range(1, 11))
    vals = ', '.join(f'(g * {k}) % 100003' for k in range(1, 11))
    for variant, am in (('heap', 'heap'), ('hotheap', 'hotheap'), ('ceiling', 'heap')):
        for scale in (1, 2):
            t = f'orm_{variant}_{scale}'
            sql.append(f'CREATE TABLE {t} (id int PRIMARY KEY, {cols}, pad text) USING {am};')
            sql.append(f"INSERT INTO {t} SELECT g, {vals}, repeat('p', 100) FROM generate_series(1, {rows}) g;")
            sql += [f'CREATE INDEX ON {t} (c{k});' for k in range(1, 11)]
            t = f'track_{variant}_{scale}'
            sql.append(f'CREATE TABLE {t} ({TRACK_COLUMNS}) USING {am};')
            sql.append(f'INSERT INTO {t} SELECT {TRACK_VALUES} FROM generate_series(1, {rows}) g;')
            sql += [f'CREATE INDEX ON {t} ({index});' for index in TRACK_INDEXES]
    cluster.sql('\n'.join(sql))


# One-row non-HOT updates (one indexed column changes), prepared: $1 the row's id; and the
# ceiling's, on heap: the changed column set alone, so the executor hints every other index.
NONHOT_UNITS = {
    # An ORM's full-row save that changes c10: every column written back.
    'orm save': ('UPDATE orm_{variant}_{scale} SET ' + ', '.join(f'c{k} = c{k}' for k in range(1, 10)) +
                 ', c10 = c10 + 1, pad = pad WHERE id = $1',
                 'UPDATE orm_{variant}_{scale} SET c10 = c10 + 1 WHERE id = $1'),
    'status and time': ("UPDATE track_{variant}_{scale} SET status = status + 1, at = at + interval '1 second' "
                        'WHERE id = $1',
                        'UPDATE track_{variant}_{scale} SET status = status + 1 WHERE id = $1'),
    # The same, the time moved on by a day: the day index changes too, nothing to hint.
    'status and day': ("UPDATE track_{variant}_{scale} SET status = status + 1, at = at + interval '1 day' "
                       'WHERE id = $1',
                       "UPDATE track_{variant}_{scale} SET status = status + 1, at = at + interval '1 day' "
                       'WHERE id = $1'),
}


# Workload 6's statements, one unit each (prepared): $1 an id (each unit another row).
OLTP_UNITS = {
    'update c': ["PREPARE u(int) AS UPDATE {t} SET c = md5($1::text) || repeat('c', 88) WHERE id = $1"],
    'update k': ['PREPARE u(int) AS UPDATE {t} SET k = k + 1 WHERE id = $1'],
    'select c': ['PREPARE u(int) AS SELECT c FROM {t} WHERE id = $1'],
    'mix of 10': ['PREPARE s(int) AS SELECT c FROM {t} WHERE id = $1',
                  "PREPARE c(int) AS UPDATE {t} SET c = md5($1::text) || repeat('c', 88) WHERE id = $1",
                  'PREPARE k(int) AS UPDATE {t} SET k = k + 1 WHERE id = $1'],
}


def oltp_unit(case, i, n):
    """The statements of unit i of a session of n units (ids spread over the table)."""
    ids = [(i * 7919 + j * 104729) % (2 * n) + 1 for j in range(4)]
    if case != 'mix of 10':
        return [f'EXECUTE u({ids[0]})']
    return (['BEGIN'] + [f'EXECUTE s({x})' for x in ids] + [f'EXECUTE c({x})' for x in ids] +
            [f'EXECUTE k({ids[0]})', f'EXECUTE k({ids[2]})', 'COMMIT'])


def print_report(lines, out=None):
    """The markdown report on stdout and, if asked, in a file."""
    report = '\n'.join(lines) + '\n'
    print(report)
    if out:
        with open(out, 'w') as f:
            f.write(report)


def cache_misses(events):
    """First-level and last-level data-cache misses (reads and writes) of one unit's events
    (--cache-sim)."""
    return (events.get('D1mr', 0) + events.get('D1mw', 0), events.get('DLmr', 0) + events.get('DLmw', 0))


def miss_columns(cost):
    """The cache-miss columns of a heap/hotheap row (--cache-sim): D1 and last-level misses
    (reads and writes) per unit, heap then hotheap."""
    miss = {am: cache_misses(c) for am, c in cost.items()}
    return (f" {miss['heap'][0]:.1f} | {miss['hotheap'][0]:.1f} | {miss['heap'][1]:.2f} | "
            f"{miss['hotheap'][1]:.2f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--pg-config', default=os.environ.get('PG_CONFIG', 'pg_config'))
    ap.add_argument('--w1-cases', default=','.join(c[0] for c in bench.W1_CASES),
                    help='workload-1 cases (bench.py keys); empty: none')
    ap.add_argument('--w1-rows', type=int, default=4000, help='rows of the smaller UPDATE')
    ap.add_argument('--docs', default='small,large', help='JSONB document sizes; empty: none')
    ap.add_argument('--docs-updates', type=int, default=400,
                    help='single-row UPDATEs of the smaller session')
    ap.add_argument('--lib', help='measure a copy of this hotplus.so instead of the '
                    "installed one (the extension's functions are pointed at the copy)")
    ap.add_argument('--out', help='also write the markdown report here')
    ap.add_argument('--w1-one-row', action='store_true',
                    help='workload 1 as one-row UPDATEs (each its own transaction, prepared) '
                    'instead of one UPDATE of every row: what a statement pays per row when it '
                    'changes only one')
    ap.add_argument('--verify-sample-rate', type=float, default=1.0,
                    help='hotplus.verify_sample_rate for the verify variant (a random draw '
                    'per update: below 1 the count varies between runs)')
    ap.add_argument('--oltp', type=int, default=0, metavar='N',
                    help="workload 6's statements (bench.py), N units per session (0: none); "
                    'a unit is one statement, or one 10-statement transaction for the mix')
    ap.add_argument('--nonhot', type=int, default=0, metavar='N',
                    help="the non-HOT updates hotheap hints (an ORM's full-row save; a status and a "
                         'time changed), N and 2N one-row UPDATEs per session (0: none)')
    ap.add_argument('--cache-sim', action='store_true',
                    help='with --oltp, --changed or --docs: also count data cache misses (callgrind --cache-sim=yes: '
                    'D1mr/D1mw first-level, DLmr/DLmw last-level, per statement)')
    ap.add_argument('--changed', default='', metavar='SHAPES',
                    help="workload 3 (an indexed field changed, non-HOT on both) for these shapes "
                    "of bench.W3_SHAPES (i1,i5_first,i5_last,i20_first,i20_last, or all), with "
                    '--changed-docs sizes; empty: none')
    ap.add_argument('--changed-docs', default='small,large', help='workload 3: document sizes')
    ap.add_argument('--changed-values', choices=('same-length', 'longer'), default='same-length',
                    help="workload 3: the new value of the field, of the old one's length or longer")
    ap.add_argument('--changed-updates', type=int, default=200,
                    help='workload 3: single-row UPDATEs of the smaller session')
    ap.add_argument('--stats-modes', type=int, default=0, metavar='N',
                    help="the JSONB small documents' one-row hotheap update (N and 2N per session) "
                    'with the statistics in backend mode and in shared mode (hotplus preloaded): '
                    'instructions per update and the statistics lock taken by hotplus per update')
    ap.add_argument('--keep-profiles', metavar='DIR',
                    help='keep the callgrind profiles here, as CASE_AM.1/.2 and SIZE_VARIANT.1/.2 '
                    '(bench/profile_units.py)')
    args = ap.parse_args()

    cases = [c for c in bench.W1_CASES if c[0] in args.w1_cases.split(',')]
    if args.keep_profiles:
        os.makedirs(args.keep_profiles, exist_ok=True)

    def profile(name):
        return os.path.join(os.path.abspath(args.keep_profiles), name) if args.keep_profiles else None
    sizes = [s for s in args.docs.split(',') if s]
    cluster = Cluster(args.pg_config)
    lines = []
    try:
        cluster.start()
        cluster.sql('CREATE EXTENSION hotplus;')
        # A private copy of the library, as bench.py pins one: a reinstall during the run
        # cannot change the code measured.
        lib = os.path.join(cluster.dir, 'hotplus.so')
        shutil.copy(os.path.abspath(args.lib) if args.lib else os.path.join(cluster.pkglibdir, 'hotplus.so'), lib)
        os.chmod(lib, 0o755)
        with open(lib, 'rb') as f:
            sha = hashlib.sha256(f.read()).hexdigest()[:12]
        if cluster.backend_note:
            replace_rdtscp(lib)
        cluster.sql(f"UPDATE pg_catalog.pg_proc SET probin = '{lib}' WHERE probin = '$libdir/hotplus';")
        w1_tables(cluster, cases, args.w1_rows)
        docs_tables(cluster, sizes, 2 * args.docs_updates)
        if args.stats_modes:
            # hotheap's table, a fresh copy per mode: each measured on tables no other run updated
            docs_tables(cluster, ['small'], 2 * args.stats_modes, variants=['mode_backend', 'mode_shared'])
        changed = bench.w3_parse_shapes(args.changed) if args.changed else []
        changed_sizes = [s for s in args.changed_docs.split(',') if s]
        if changed:
            w3_tables(cluster, changed_sizes, changed, 2 * args.changed_updates)
        if args.oltp:
            oltp_tables(cluster, max(20000, 2 * args.oltp))
        if args.nonhot:
            nonhot_tables(cluster, 2 * args.nonhot)
        cluster.sql('VACUUM ANALYZE; CHECKPOINT;')
        cluster.stop()
        lines += [f'# Instructions per update (callgrind), heap vs hotheap', '',
                  f'- server: {cluster.version}; hotplus.so: {args.lib or "the installed one"} (a private '
                  f'copy, sha256 {sha})',
                  f'- command: `{" ".join(sys.argv)}`', '']
        if cluster.backend_note:
            lines.insert(-1, f'- {cluster.backend_note}')
        if cases:
            if args.w1_one_row:
                lines += ['Workload 1 as one-row UPDATEs (`WHERE id = $1`, prepared, one per transaction):', '']
            lines += ['| workload 1 case | SET | heap instr/row | hotheap instr/row | change |',
                      '|---|---|---|---|---|']
            for key, label, _, _, set_clause, _, _, target in cases:
                cost = {}
                for am in ('heap', 'hotheap'):
                    def statements(scale, n, am=am, key=key, set_clause=set_clause):
                        t = f'{key}_{am}_{scale}'
                        if not args.w1_one_row:
                            return [f'UPDATE {t} SET {set_clause}']
                        return ([f'PREPARE u(int) AS UPDATE {t} SET {set_clause} WHERE id = $1'] +
                                [f'EXECUTE u({i})' for i in range(1, n + 1)])
                    cost[am] = per_unit(cluster, statements, args.w1_rows, keep=profile(f'{key}_{am}'))
                change = (cost['hotheap'] / cost['heap'] - 1) * 100
                lines.append(f'| {label} | `{set_clause}` | {cost["heap"]:.0f} | '
                             f'{cost["hotheap"]:.0f} | {change:+.1f}% |')
                print(lines[-1], flush=True)
            lines.append('')
        if args.oltp:
            lines += [f'Workload 6 (the OLTP shape), per statement ({args.oltp} and {2 * args.oltp} '
                      'units per session; the mix: per 10-statement transaction):', '',
                      '| case | heap instr | hotheap instr | change |' +
                      (' heap D1 misses | hotheap D1 misses | heap LL misses | hotheap LL misses |'
                       if args.cache_sim else ''),
                      '|---|---|---|---|' + ('---|---|---|---|' if args.cache_sim else '')]
            for case, prepares in OLTP_UNITS.items():
                cost = {}
                for am in ('heap', 'hotheap'):
                    def statements(scale, n, am=am, case=case, prepares=prepares):
                        t = f'ol_{am}_{scale}'
                        return [p.format(t=t) for p in prepares] + [
                            s for i in range(n) for s in oltp_unit(case, i, n)]
                    cost[am] = per_unit(cluster, statements, args.oltp, keep=profile(f'oltp_{case}_{am}'),
                                        events=args.cache_sim)
                ir = {am: c['Ir'] if args.cache_sim else c for am, c in cost.items()}
                row = (f"| {case} | {ir['heap']:.0f} | {ir['hotheap']:.0f} | "
                       f"{(ir['hotheap'] / ir['heap'] - 1) * 100:+.2f}% |")
                if args.cache_sim:
                    row += miss_columns(cost)
                lines.append(row)
                print(row, flush=True)
            lines.append('')
        for size in changed_sizes if changed else ():
            lines += [f'Workload 3, {size} documents: an indexed field changed (non-HOT on both), '
                      f'one-row UPDATE per transaction (prepared), {args.changed_updates} and '
                      f'{2 * args.changed_updates} per session:', '',
                      '| shape | field set | heap instr/update | hotheap instr/update | change | '
                      'hotheap as throughput vs heap |' +
                      (' heap D1 misses | hotheap D1 misses | heap LL misses | hotheap LL misses |'
                       if args.cache_sim else ''),
                      '|---|---|---|---|---|---|' + ('---|---|---|---|' if args.cache_sim else '')]
            for n, position in changed:
                key = bench.w3_shape_key(n, position)
                field = bench.w3_changed_field(n, position)
                cost = {}
                for am in ('heap', 'hotheap'):
                    def statements(scale, units, am=am, key=key, field=field):
                        t = f'w3_{size}_{key}_{am}_{scale}'
                        return ([f"PREPARE u(int, text) AS UPDATE {t} SET doc = jsonb_set(doc, "
                                 f"'{{{field}}}', to_jsonb($2)) WHERE id = $1"] +
                                [f"EXECUTE u({row}, '{changed_value(row, field, args.changed_values)}')"
                                 for row in ((i * 7919) % (2 * args.changed_updates) + 1 for i in range(units))])
                    cost[am] = per_unit(cluster, statements, args.changed_updates,
                                        keep=profile(f'w3_{size}_{key}_{am}'), events=args.cache_sim)
                ir = {am: c['Ir'] if args.cache_sim else c for am, c in cost.items()}
                row = (f"| {key} | {field} | {ir['heap']:.0f} | {ir['hotheap']:.0f} | "
                       f"{(ir['hotheap'] / ir['heap'] - 1) * 100:+.2f}% | {ir['heap'] / ir['hotheap']:.4f} |")
                if args.cache_sim:
                    row += miss_columns(cost)
                lines.append(row)
                print(lines[-1], flush=True)
            lines.append('')
        if args.nonhot:
            n = args.nonhot
            lines += ["Non-HOT updates hotheap hints (one indexed column changes; hotheap tells the other "
                      "indexes whose columns the statement sets that the row left their keys unchanged): "
                      "an ORM's full-row save of 10 int columns each indexed and a text column; a status "
                      "and a time indexed by its day, 8 more int columns each indexed; one-row UPDATE per "
                      f"transaction (prepared), {n} and {2 * n} per session; the ceiling: heap, the "
                      "changed column set alone (the executor hints every other index). A hinted btree "
                      "runs bottom-up deletion where an unhinted one splits its page: the ceiling's "
                      "instructions are btree's, not hotplus's:", '',
                      '| case | heap instr/update | hotheap instr/update | change | ceiling instr/update | '
                      'hotheap vs ceiling |', '|---|---|---|---|---|---|']
            for case, (update, alone) in NONHOT_UNITS.items():
                cost = {}
                for variant in ('heap', 'hotheap', 'ceiling'):
                    def statements(scale, units, variant=variant, update=alone if variant == 'ceiling' else update):
                        return ([f'PREPARE u(int) AS {update.format(variant=variant, scale=scale)}'] +
                                [f'EXECUTE u({(i * 7919) % (2 * n) + 1})' for i in range(units)])
                    cost[variant] = per_unit(cluster, statements, n,
                                             keep=profile(f"nonhot_{case.replace(' ', '_')}_{variant}"))
                lines.append(f"| {case} | {cost['heap']:.0f} | {cost['hotheap']:.0f} | "
                             f"{(cost['hotheap'] / cost['heap'] - 1) * 100:+.2f}% | {cost['ceiling']:.0f} | "
                             f"{(cost['hotheap'] / cost['ceiling'] - 1) * 100:+.2f}% |")
                print(lines[-1], flush=True)
            lines.append('')
        if args.stats_modes:
            n = args.stats_modes
            lines += [f'Statistics modes: the JSONB small documents\' one-row hotheap update (prepared, one per '
                      f'transaction, {n} and {2 * n} per session), hotplus in backend mode and preloaded '
                      '(shared mode):', '',
                      '| mode | instr/update | change | statistics lock taken by hotplus per update |',
                      '|---|---|---|---|']
            cost = {}
            for mode, settings in (('backend', ()), ('shared', (f'shared_preload_libraries={lib}',))):
                def statements(scale, units, mode=mode):
                    t = f'docs_small_mode_{mode}_{scale}'
                    return ([f'PREPARE u(int) AS {DOC_UPDATE.format(t=t)}'] +
                            [f'EXECUTE u({(i * 7919) % (2 * n) + 1})' for i in range(units)])
                prefix = profile(f'modes_{mode}') or os.path.join(cluster.dir, f'modes_{mode}')
                cost[mode] = per_unit(cluster, statements, n, settings, keep=prefix)
                locks = (hotplus_lock_calls(f'{prefix}.2') - hotplus_lock_calls(f'{prefix}.1')) / n
                lines.append(f"| {mode} | {cost[mode]:.0f} | "
                             f"{(cost[mode] / cost['backend'] - 1) * 100:+.2f}% | {locks:.3f} |")
                print(lines[-1], flush=True)
            lines.append('')
        for size in sizes:
            cost = {}
            for variant in DOC_VARIANTS:
                settings = (('hotplus.verify=on', f'hotplus.verify_sample_rate={args.verify_sample_rate}')
                            if variant == 'verify' else ('hotplus.read_path=off',) if variant == 'noread' else ())

                def statements(scale, n, variant=variant):
                    t = f'docs_{size}_{variant}_{scale}'
                    return ([f'PREPARE u(int) AS {DOC_UPDATE.format(t=t)}'] +
                            [f'EXECUTE u({(i * 7919) % (2 * args.docs_updates) + 1})' for i in range(n)])
                cost[variant] = per_unit(cluster, statements, args.docs_updates, settings,
                                         keep=profile(f'{size}_{variant}'), events=args.cache_sim)
            misses = {}
            if args.cache_sim:
                misses = {v: cache_misses(c) for v, c in cost.items()}
                cost = {v: c['Ir'] for v, c in cost.items()}
            lines += [f'JSONB {size} documents, 20 expression indexes, one-row UPDATE per '
                      f'transaction (prepared):', '',
                      '| variant | instr/update | hotheap as throughput vs it (its instr / hotheap instr) |' +
                      (' D1 misses/update | LL misses/update |' if misses else ''),
                      '|---|---|---|' + ('---|---|' if misses else '')]
            for variant in DOC_VARIANTS:
                lines.append(f'| {variant} | {cost[variant]:.0f} | '
                             f'{cost[variant] / cost["hotheap"]:.3f} |' +
                             (f' {misses[variant][0]:.0f} | {misses[variant][1]:.1f} |' if misses else ''))
            lines.append('')
            print('\n'.join(lines[-len(DOC_VARIANTS) - 4:]), flush=True)
    finally:
        cluster.stop(check=False)  # stopped already unless setting up failed
        cluster.cleanup()
    print_report(lines, args.out)


if __name__ == '__main__':
    main()
