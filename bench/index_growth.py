#!/usr/bin/env python3
"""How much the indexes of non-HOT updates grow: heap, hotheap, and the executor's own hint
as the ceiling (issue 55; src/update/index_hints.hpp).

A non-HOT update inserts an entry into every index; btree keeps the old versions of a key it
was told is unchanged from piling up (bottom-up deletion before a page split), and the
executor tells it so only for the indexes whose columns the statement does not set. The
workloads, each on a fresh table of --rows rows, updated --updates-per-row times per row on
average by 2 pgbench clients, one random row per transaction, autovacuum off (what a table
does between vacuums):

  jsonb20   ~1 kB documents with 20 `(doc->>'fN')` indexes, `SET doc = jsonb_set(doc,
            '{f20}', ...)`: one index changes, hotplus cannot make it HOT (heap, hotheap);
            ceiling: the same documents on heap with f20's value in a column of its own, the
            changed index on that column, `SET own = ...` (the executor hints the 19 others);
  orm10     10 int columns each indexed and a text column, an ORM's full-row save
            `SET c1 = c1, ..., c9 = c9, c10 = c10 + 1, pad = pad` (heap, hotheap); ceiling:
            `SET c10 = c10 + 1` alone;
  track     a status, a time indexed by its day (`((at AT TIME ZONE 'UTC')::date)`), 8 int
            columns each indexed, `SET status = status + 1, at = at + interval '1 second'`: the
            status index changes, the day stays, which hotheap tells only by evaluating the
            expression (heap, hotheap); ceiling: `SET status = status + 1` alone;
  full20    jsonb20's documents at fillfactor 100, a field no index reads changed: no index
            changes, updates that find no room are not HOT (heap, hotheap); ceiling: the same
            documents on heap at fillfactor 100 with a column of their own that no index reads,
            `SET own = ...` (the executor hints every index).

Reported: the untouched indexes' total size before and after, the changed index's, and the
TPS (in memory: fsync off, the table in shared_buffers), and the ratio of each growth to the
ceiling's; with --rounds N, each variant N times on fresh tables, in turn, as medians, the
TPS against heap's as the median of the per-round ratios.

    PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config /usr/bin/python3 bench/index_growth.py \
        --out bench/results/index-growth-pg15/report.md

hotplus as installed in that server (make install first). As root, the server runs as postgres.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pgnode  # noqa: E402
from pgnode import log  # noqa: E402

SETTINGS = {
    'shared_buffers': "'2GB'", 'fsync': 'off', 'synchronous_commit': 'off',
    'full_page_writes': 'off', 'autovacuum': 'off', 'checkpoint_timeout': "'1h'",
    'max_wal_size': "'20GB'", 'jit': 'off', 'max_connections': '20',
}

FIELDS = 20
DOC = ("(SELECT jsonb_object_agg('f' || k, 'v' || ((g::bigint * 7919 + k * 104729) % 5000)) "
       "FROM generate_series(1, 20) k) || jsonb_build_object('counter', 0, 'note', "
       "left(repeat(md5(g::text), 22), 640))")


def jsonb_table(t, am, fillfactor):
    yield f'CREATE TABLE {t} (id int PRIMARY KEY, doc jsonb) USING {am} WITH (fillfactor = {fillfactor}, autovacuum_enabled = @autovacuum@)'
    yield f'INSERT INTO {t} SELECT g, {DOC} FROM generate_series(1, @rows@) g'
    for k in range(1, FIELDS + 1):
        yield f"CREATE INDEX {t}_f{k} ON {t} ((doc->>'f{k}'))"


def split_table(t, fillfactor, indexed):
    """The ceiling of the document workloads: the same documents on heap, and what the UPDATE
    sets in a column of its own, which the UPDATE sets alone, so the executor hints every
    document index: f20's value (indexed: jsonb20) or a counter (not indexed: full20)."""
    yield f'CREATE TABLE {t} (id int PRIMARY KEY, doc jsonb, own text) WITH (fillfactor = {fillfactor}, autovacuum_enabled = @autovacuum@)'
    yield (f"INSERT INTO {t} SELECT g, {DOC}, 'v' || ((g::bigint * 7919 + {FIELDS} * 104729) % 5000) "
           f"FROM generate_series(1, @rows@) g")
    for k in range(1, FIELDS + (0 if indexed else 1)):
        yield f"CREATE INDEX {t}_f{k} ON {t} ((doc->>'f{k}'))"
    if indexed:
        yield f'CREATE INDEX {t}_f{FIELDS} ON {t} (own)'


def orm_table(t, am):
    cols = ', '.join(f'c{k} int' for k in range(1, 11))
    yield f'CREATE TABLE {t} (id int PRIMARY KEY, {cols}, pad text) USING {am} WITH (autovacuum_enabled = @autovacuum@)'
    vals = ', '.join(f'(g * {k}) % 100003' for k in range(1, 11))
    yield f"INSERT INTO {t} SELECT g, {vals}, repeat('p', 100) FROM generate_series(1, @rows@) g"
    for k in range(1, 11):
        yield f'CREATE INDEX {t}_c{k} ON {t} (c{k})'


TRACK_COLUMNS = ('id int PRIMARY KEY, status int, at timestamptz, ' +
                 ', '.join(f'c{k} int' for k in range(1, 9)) + ', note text')
TRACK_VALUES = ("g, g % 7, timestamptz '2026-01-01 00:00:00+00' + (g % 365) * interval '1 day' + "
                "(g * 7919 % 40000) * interval '1 second', " +
                ', '.join(f'(g * {k}) % 100003' for k in range(1, 9)) + ", repeat('n', 60)")
TRACK_INDEXES = ['status', "((at AT TIME ZONE 'UTC')::date)"] + [f'c{k}' for k in range(1, 9)]


def track_table(t, am):
    yield f'CREATE TABLE {t} ({TRACK_COLUMNS}) USING {am} WITH (autovacuum_enabled = @autovacuum@)'
    yield f'INSERT INTO {t} SELECT {TRACK_VALUES} FROM generate_series(1, @rows@) g'
    for k, index in enumerate(TRACK_INDEXES):
        yield f'CREATE INDEX {t}_i{k} ON {t} ({index})'


ORM_SAVE = ', '.join(f'c{k} = c{k}' for k in range(1, 10)) + ', c10 = c10 + 1, pad = pad'

# workload -> [(variant, table setup, UPDATE, the changed index or None)]
WORKLOADS = {
    'jsonb20': [
        ('heap', lambda: jsonb_table('jh', 'heap', 100),
         "UPDATE jh SET doc = jsonb_set(doc, '{f20}', to_jsonb('w' || :v)) WHERE id = :id", 'jh_f20'),
        ('hotheap', lambda: jsonb_table('jo', 'hotheap', 100),
         "UPDATE jo SET doc = jsonb_set(doc, '{f20}', to_jsonb('w' || :v)) WHERE id = :id", 'jo_f20'),
        ('ceiling', lambda: split_table('jc', 100, True), "UPDATE jc SET own = 'w' || :v WHERE id = :id", 'jc_f20'),
    ],
    'orm10': [
        ('heap', lambda: orm_table('oh', 'heap'), f'UPDATE oh SET {ORM_SAVE} WHERE id = :id', 'oh_c10'),
        ('hotheap', lambda: orm_table('oo', 'hotheap'), f'UPDATE oo SET {ORM_SAVE} WHERE id = :id', 'oo_c10'),
        ('ceiling', lambda: orm_table('oc', 'heap'), 'UPDATE oc SET c10 = c10 + 1 WHERE id = :id', 'oc_c10'),
    ],
    'track': [
        ('heap', lambda: track_table('th', 'heap'),
         "UPDATE th SET status = status + 1, at = at + interval '1 second' WHERE id = :id", 'th_i0'),
        ('hotheap', lambda: track_table('tt', 'hotheap'),
         "UPDATE tt SET status = status + 1, at = at + interval '1 second' WHERE id = :id", 'tt_i0'),
        ('ceiling', lambda: track_table('tc', 'heap'), 'UPDATE tc SET status = status + 1 WHERE id = :id', 'tc_i0'),
    ],
    'full20': [
        ('heap', lambda: jsonb_table('fh', 'heap', 100),
         "UPDATE fh SET doc = jsonb_set(doc, '{counter}', to_jsonb(:v::int)) WHERE id = :id", None),
        ('hotheap', lambda: jsonb_table('fo', 'hotheap', 100),
         "UPDATE fo SET doc = jsonb_set(doc, '{counter}', to_jsonb(:v::int)) WHERE id = :id", None),
        ('ceiling', lambda: split_table('fc', 100, False), "UPDATE fc SET own = 'w' || :v WHERE id = :id", None),
    ],
}


def index_sizes(node, table, changed):
    """(bytes of the untouched indexes, bytes of the changed one), the primary key excluded."""
    rows = node.q("SELECT c.relname, pg_relation_size(c.oid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                  "WHERE i.indrelid = %s::regclass AND NOT i.indisprimary", (table,))
    untouched = sum(size for name, size in rows if name != changed)
    touched = sum(size for name, size in rows if name == changed)
    return untouched, touched


def run_variant(node, tmp, setup, update, changed, rows, per_row, clients, autovacuum):
    statements = list(setup())
    table = statements[0].split()[2]
    for sql in statements:
        node.x(sql.replace('@rows@', str(rows)).replace('@autovacuum@', 'on' if autovacuum else 'off'))
    node.x(f'VACUUM (ANALYZE) {table}')
    node.x('CHECKPOINT')
    before = index_sizes(node, table, changed)
    script = os.path.join(tmp, f'{table}.sql')
    with open(script, 'w') as f:
        f.write(f'\\set id random(1, {rows})\n\\set v random(1, 1000000000)\n{update};\n')
    os.chmod(script, 0o644)
    txns = rows * per_row // clients
    out = pgnode.as_postgres(f'{node.bindir}/pgbench', '-n', '-M', 'prepared', '-c', str(clients),
                             '-j', str(clients), '-t', str(txns), '-f', script, *node.libpq_args())
    tps, done = pgnode.pgbench_result(out)
    after = index_sizes(node, table, changed)
    hot = node.v(f"SELECT round(100.0 * n_tup_hot_upd / greatest(n_tup_upd, 1), 1)::float8 FROM pg_stat_user_tables "
                 f"WHERE relname = '{table}'")
    node.x(f'DROP TABLE {table}')
    return {'table': table, 'before': before, 'after': after, 'tps': tps, 'txns': done, 'hot_pct': hot}


def grown(run):
    return run['after'][0] - run['before'][0]


def mb(b):
    return f'{b / 1048576:.1f}'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--pg-config', default=os.environ.get('PG_CONFIG', 'pg_config'))
    ap.add_argument('--rows', type=int, default=20000)
    ap.add_argument('--updates-per-row', type=int, default=20)
    ap.add_argument('--clients', type=int, default=2)
    ap.add_argument('--rounds', type=int, default=1, help='each variant this many times, on fresh tables')
    ap.add_argument('--workloads', default=','.join(WORKLOADS))
    ap.add_argument('--out', help='also write the markdown report here')
    ap.add_argument('--autovacuum', metavar='NAPTIME',
                    help="autovacuum on with this autovacuum_naptime ('1min' is the default), thresholds "
                         'as default, instead of off')
    ap.add_argument('--keep', action='store_true')
    args = ap.parse_args()
    bindir = subprocess.run([args.pg_config, '--bindir'], capture_output=True, text=True, check=True).stdout.strip()
    version = subprocess.run([f'{bindir}/postgres', '--version'], capture_output=True, text=True).stdout.strip()

    class Bench:
        tmp = tempfile.mkdtemp(prefix='hotplus-growth.')
        node = None

        def stop_clusters(self):
            if self.node is not None:
                self.node.stop()

        def main(self):
            os.chmod(self.tmp, 0o755)
            port = pgnode.free_ports(1)[0]
            settings = (dict(SETTINGS, autovacuum='on', autovacuum_naptime=f"'{args.autovacuum}'") if args.autovacuum
                        else SETTINGS)
            self.node = pgnode.Node('growth', bindir, self.tmp, self.tmp, port, settings)
            pgnode.as_postgres('true')
            subprocess.run(['chown', 'postgres:', self.tmp], check=True)
            self.node.init_and_start()
            self.node.x('CREATE EXTENSION hotplus')
            lines = [f'# Index growth of non-HOT updates: heap, hotheap and the executor\'s own hint\n',
                     f'- server: {version}; hotplus {self.node.v("SELECT extversion FROM pg_extension WHERE extname = %s", ("hotplus",))}',
                     f'- {args.rows} rows per table, {args.updates_per_row} updates per row on average, '
                     f'{args.clients} clients, one random row per transaction, in memory (fsync off), '
                     f'autovacuum {f"on (naptime {args.autovacuum})" if args.autovacuum else "off"}',
                     f'- command: `bench/index_growth.py {" ".join(sys.argv[1:])}`\n',
                     f'- {args.rounds} round(s), the variants in turn (reversed every other round); medians of the '
                     'rounds, the TPS ratio as the median of the per-round ratios (range)\n',
                     '| workload | variant | untouched indexes, MB before → after | growth | vs ceiling | changed index, MB | HOT % | TPS | TPS vs heap |',
                     '|---|---|---|---|---|---|---|---|---|']
            for name in args.workloads.split(','):
                runs = {variant: [] for variant, *_ in WORKLOADS[name]}
                for r in range(args.rounds):
                    order = WORKLOADS[name] if r % 2 == 0 else list(reversed(WORKLOADS[name]))
                    for variant, setup, update, changed in order:
                        log(f'{name} {variant} round {r + 1}')
                        runs[variant].append(run_variant(self.node, self.tmp, setup, update, changed, args.rows,
                                                         args.updates_per_row, args.clients, args.autovacuum))
                ceiling = statistics.median(grown(x) for x in runs['ceiling'])
                for variant, rs in runs.items():
                    grew = statistics.median(grown(x) for x in rs)
                    ratio = f'{grew / ceiling:.2f}x' if ceiling > 0 else '-'
                    before = statistics.median(x['before'][0] for x in rs)
                    after = statistics.median(x['after'][0] for x in rs)
                    changed = (f"{mb(statistics.median(x['before'][1] for x in rs))} → "
                               f"{mb(statistics.median(x['after'][1] for x in rs))}" if rs[0]['after'][1] else '-')
                    tps = statistics.median(x['tps'] for x in rs)
                    per_round = [x['tps'] / h['tps'] for x, h in zip(rs, runs['heap'])]
                    vs_heap = ('-' if variant == 'heap' else
                               f'{statistics.median(per_round):.2f}x ({min(per_round):.2f}..{max(per_round):.2f})'
                               if len(per_round) > 1 else f'{per_round[0]:.2f}x')
                    lines.append(f"| {name} | {variant} | {mb(before)} → {mb(after)} | "
                                 f"+{mb(grew)} | {ratio} | {changed} | {statistics.median(x['hot_pct'] for x in rs)} | "
                                 f"{tps:.0f} | {vs_heap} |")
            report = '\n'.join(lines) + '\n'
            print(report)
            if args.out:
                os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
                with open(args.out, 'w') as f:
                    f.write(report)

    pgnode.run_and_clean_up(Bench(), args.keep)


if __name__ == '__main__':
    main()
