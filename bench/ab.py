"""A/B of two hotplus builds on the update check's hottest workload, in one cluster.

    bash scripts/with-cluster.sh -- /usr/bin/python3 bench/ab.py A.so B.so [--rounds 7] [--duration 10]
        [--b-setting hotplus.read_path=off ...]

Each build gets a database whose hotplus functions point at a private copy of it (pg_proc.probin,
as bench.py pins its library), with the JSONB table of workloads 2/3 (small documents, 20
expression indexes, hotheap; --docs large: the ~6 kB compressed ones) and, in database A only, its limit20 twin (heap with 20 untouched
btree indexes: heap's own HOT path with as many indexes). Rounds run A, B and limit20 in an
order rotated per round, each after VACUUM and CHECKPOINT: pgbench, one client, prepared,
updating the unindexed `counter` field. Measures TPS and the server CPU per transaction (the
exited pgbench backend's user + system time, as the postmaster's reaped children's: less
sensitive than TPS to other work on the machine). Prints medians, the ratio of medians and
the median of the per-round ratios.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time

import psycopg2

DOC_FIELDS = 20
FIELDS = (f"(SELECT jsonb_object_agg('f' || k, 'v' || ((g * 7919 + k * 104729) % 5000)) "
          f"FROM generate_series(1, {DOC_FIELDS}) k)")
DOCS = {  # bench.py's docs_setup
    # ~1 kB: 20 short fields, a counter and a 640-character note; not compressed
    'small': f"{FIELDS} || jsonb_build_object('counter', 0, 'note', left(repeat(md5(g::text), 22), 640))",
    # ~6 kB: 20 short fields, a counter and 60 order items; pglz-compressed inline
    'large': f"{FIELDS} || jsonb_build_object('counter', 0, 'items', (SELECT jsonb_agg("
             "jsonb_build_object('sku', 'sku-' || ((g + i) % 50), 'qty', (g * i) % 17, "
             "'price', ((g * 31 + i) % 1000) / 10.0, 'status', 'in stock')) "
             "FROM generate_series(1, 60) i))",
}
SCRIPT = ("\\set id random(1, :rows)\n"
          "UPDATE {t} SET doc = jsonb_set(doc, '{{counter}}', to_jsonb((doc->>'counter')::int + 1)) "
          "WHERE id = :id;\n")


def run(sql_db, sql, fetch=False):
    conn = psycopg2.connect(dbname=sql_db)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(sql)
        out = cur.fetchall() if fetch else None
    conn.close()
    return out


def setup(db, lib, rows, limit, doc, settings=()):
    run('postgres', f'DROP DATABASE IF EXISTS {db}')
    run('postgres', f'CREATE DATABASE {db}')
    run(db, 'CREATE EXTENSION hotplus')
    run(db, f"UPDATE pg_catalog.pg_proc SET probin = '{lib}' WHERE probin = '$libdir/hotplus'")
    for setting in settings:
        name, value = setting.split('=', 1)
        run(db, f"ALTER DATABASE {db} SET {name} = '{value}'")
    run(db, f'CREATE TABLE docs (id int PRIMARY KEY, doc jsonb NOT NULL) USING hotheap '
            f'WITH (fillfactor = 80, autovacuum_enabled = false)')
    run(db, f'INSERT INTO docs SELECT g, {doc} FROM generate_series(1, {rows}) g')
    for k in range(1, DOC_FIELDS + 1):
        run(db, f"CREATE INDEX docs_f{k} ON docs ((doc->>'f{k}'))")
    if limit:
        cols = ''.join(f', c{k} int' for k in range(1, DOC_FIELDS + 1))
        vals = ''.join(f', (id * {k}) % 1000' for k in range(1, DOC_FIELDS + 1))
        run(db, f'CREATE TABLE limit20 (id int PRIMARY KEY, doc jsonb NOT NULL{cols}) USING heap '
                f'WITH (fillfactor = 80, autovacuum_enabled = false)')
        run(db, f'INSERT INTO limit20 SELECT id, doc{vals} FROM docs')
        for k in range(1, DOC_FIELDS + 1):
            run(db, f'CREATE INDEX limit20_c{k} ON limit20 (c{k})')
    run(db, 'VACUUM ANALYZE')


def children_cpu_ms(pid):
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[13]) + int(fields[14])) * 1000.0 / os.sysconf('SC_CLK_TCK')


def pgbench(db, table, rows, duration, tmp, postmaster):
    """-> (TPS, server CPU microseconds per transaction)"""
    path = os.path.join(tmp, 'script.sql')
    with open(path, 'w') as f:
        f.write(SCRIPT.format(t=table))
    run(db, f'VACUUM {table}')
    run(db, 'CHECKPOINT')
    time.sleep(0.3)  # the postmaster reaps those connections' backends
    cpu0 = children_cpu_ms(postmaster)
    res = subprocess.run(['pgbench', '-n', '-M', 'prepared', '-c', '1', '-j', '1', '-T', str(duration),
                          '-D', f'rows={rows}', '-f', path, db], capture_output=True, text=True, check=True)
    time.sleep(0.3)
    cpu = children_cpu_ms(postmaster) - cpu0
    txns = int(re.search(r'number of transactions actually processed: (\d+)', res.stdout).group(1))
    return float(re.search(r'^tps = ([0-9.]+)', res.stdout, re.M).group(1)), cpu * 1000.0 / txns


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('lib_a')
    ap.add_argument('lib_b')
    ap.add_argument('--rounds', type=int, default=7)
    ap.add_argument('--duration', type=int, default=10)
    ap.add_argument('--rows', type=int, default=20000)
    ap.add_argument('--docs', choices=sorted(DOCS), default='small')
    ap.add_argument('--b-setting', action='append', default=[],
                    help='name=value set for B\'s database (ALTER DATABASE), e.g. hotplus.read_path=off')
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='hotplus-ab.')
    os.chmod(tmp, 0o755)
    libs = {}
    for name, src in (('a', args.lib_a), ('b', args.lib_b)):
        libs[name] = os.path.join(tmp, f'hotplus_{name}.so')
        shutil.copy(src, libs[name])
        os.chmod(libs[name], 0o644)
    try:
        datadir = run('postgres', 'SHOW data_directory', fetch=True)[0][0]
        with open(os.path.join(datadir, 'postmaster.pid')) as f:
            postmaster = int(f.readline())
        setup('ab_a', libs['a'], args.rows, True, DOCS[args.docs])
        setup('ab_b', libs['b'], args.rows, False, DOCS[args.docs], args.b_setting)
        runs = [('A', 'ab_a', 'docs'), ('B', 'ab_b', 'docs'), ('limit20', 'ab_a', 'limit20')]
        tps = {name: [] for name, _, _ in runs}
        cpu = {name: [] for name, _, _ in runs}
        for r in range(args.rounds):
            order = runs[r % len(runs):] + runs[:r % len(runs)]
            for name, db, table in order:
                t, c = pgbench(db, table, args.rows, args.duration, tmp, postmaster)
                tps[name].append(t)
                cpu[name].append(c)
            print(f'round {r + 1}: ' + ', '.join(f'{n} {tps[n][-1]:.0f} TPS {cpu[n][-1]:.1f} us' for n in tps),
                  flush=True)
        for metric, values, unit in (('TPS', tps, ''), ('CPU/txn', cpu, ' us')):
            med = {n: statistics.median(v) for n, v in values.items()}
            for n in values:
                print(f'{metric:7s} {n:8s} median {med[n]:9.1f}{unit}  (rounds: '
                      f'{", ".join(f"{v:.1f}" for v in values[n])})')
            for x, y in (('B', 'A'), ('A', 'limit20'), ('B', 'limit20')):
                paired = statistics.median(b / a for a, b in zip(values[y], values[x]))
                print(f'{metric:7s} {x}/{y}: ratio of medians {med[x] / med[y]:.3f}, '
                      f'median of paired ratios {paired:.3f}')
    finally:
        for db in ('ab_a', 'ab_b'):
            run('postgres', f'DROP DATABASE IF EXISTS {db}')
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
