#!/usr/bin/env python3
"""Where the server's CPU goes per transaction, heap vs hotheap, split by shared object: for a
one-row workload-6 statement whose timed ratio is within noise, whether any difference is
hotplus's own code (hotplus.so), the server's code (postgres), or the kernel and libc (the
same system calls on both: there, differences between runs are the machine's).

Runs inside a cluster (PG* variables, as bench.py): workload 6's tables, then pairs of
pgbench runs (heap and hotheap, order alternating) with `perf record -a` sampling both CPUs
for the middle of each run; counts the samples of the server's processes (comm postgres) by
shared object and divides them by the transactions of the sampled time. As root (perf -a).

    bash scripts/with-cluster.sh -o shared_buffers=1GB -o synchronous_commit=off -- \
        /usr/bin/python3 bench/perf_split.py --case 'update c' --clients 2 --pairs 3 --out F
"""
import argparse
import collections
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402

ROW = re.compile(r'^\s*[\d.]+%\s+(\d+)\s+(\S+)\s+(\S+)\s+\[.\]\s+(.*)$')
GROUPS = ('postgres', 'hotplus.so', 'libc', 'kernel', 'other')


def group_of(dso):
    if dso == 'postgres' or dso == 'hotplus.so':
        return dso
    if dso.startswith('libc.so'):
        return 'libc'
    if dso == '[kernel.kallsyms]':
        return 'kernel'
    return 'other'


def server_symbols(data):
    """Samples of the server's processes by (shared object, symbol), from one perf.data."""
    # (perf report's --comm filter drops the kernel's samples: sort by comm and keep its rows)
    out = subprocess.run(['perf', 'report', '-i', data, '--no-children', '-g', 'none', '--sort', 'comm,dso,sym',
                          '-n', '--stdio'], capture_output=True, text=True, check=True).stdout
    samples = collections.Counter()
    for line in out.splitlines():
        m = ROW.match(line)
        if m and m.group(2) == 'postgres':
            samples[(m.group(3), m.group(4).strip())] += int(m.group(1))
    return samples


def by_group(symbols):
    groups = collections.Counter()
    for (dso, _), n in symbols.items():
        groups[group_of(dso)] += n
    return groups


def run_pair_member(am, case, clients, seconds, tmp):
    db = bench.DB('bench')
    db.x(f'VACUUM ol_{am}')
    db.x('CHECKPOINT')
    db.close()
    script = os.path.join(tmp, 'script.sql')
    with open(script, 'w') as f:
        f.write(bench.Bench.OLTP_SCRIPTS[case].format(t=f'ol_{am}'))
    # pgbench runs 2 s longer than perf samples, starting 1 s before: no connection or
    # disconnection is sampled. --progress gives the transactions of each second.
    pgbench = subprocess.Popen(['nice', '-n', '-10', 'pgbench', '-n', '-M', 'prepared', '-c', str(clients), '-j',
                                str(clients), '-T', str(seconds + 2), '-D', f'rows={bench.Bench.OLTP_ROWS}',
                                '-P', '1', '-f', script, 'bench'],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(1)
    data = os.path.join(tmp, f'perf-{am}.data')
    subprocess.run(['perf', 'record', '-q', '-a', '-o', data, '--', 'sleep', str(seconds)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    text, _ = pgbench.communicate()
    progress = [float(m.group(1)) for m in re.finditer(r'^progress: [\d.]+ s, ([\d.]+) tps', text, re.M)]
    tps = float(re.search(r'^tps = ([\d.]+)', text, re.M).group(1))
    # the sampled seconds are the progress reports 2..seconds+1
    txns = sum(progress[1:seconds + 1]) if len(progress) >= seconds + 1 else tps * seconds
    symbols = server_symbols(data)
    return tps, txns, by_group(symbols), symbols


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--case', default='update c', choices=list(bench.Bench.OLTP_SCRIPTS))
    ap.add_argument('--clients', type=int, default=2)
    ap.add_argument('--seconds', type=int, default=15)
    ap.add_argument('--pairs', type=int, default=3)
    ap.add_argument('--symbols', type=int, default=12, help='symbols listed each way')
    ap.add_argument('--out', required=True)
    args = ap.parse_args()

    db = bench.ensure_database('bench')
    bench.Bench.create_oltp_tables(db)
    server = db.v('SELECT version()')
    db.close()

    tmp = tempfile.mkdtemp(prefix='hotplus-perf-')
    runs = []
    by_symbol = {'heap': collections.Counter(), 'hotheap': collections.Counter()}
    for pair in range(args.pairs):
        for am in bench.order_for(pair, ['heap', 'hotheap']):
            tps, txns, samples, symbols = run_pair_member(am, args.case, args.clients, args.seconds, tmp)
            runs.append((pair + 1, am, tps, txns, samples))
            for key, n in symbols.items():
                by_symbol[am][key] += n / txns * 1000 / args.pairs
            bench.log(f'pair {pair + 1} {am:8s} {tps:9.0f} TPS ' +
                      ' '.join(f'{g} {samples[g] / txns * 1000:.2f}' for g in GROUPS))

    lines = [f'# Server CPU samples per 1000 transactions, by shared object: w6 {args.case}, '
             f'{args.clients} client{"s" if args.clients > 1 else ""}', '',
             f'- server: {server}',
             f'- `perf record -a` (cpu-clock, 4 kHz) over {args.seconds} s of each run, {args.pairs} pairs, '
             'order alternating; samples of comm postgres divided by the transactions pgbench reported '
             'for the sampled seconds', '',
             '| pair | table | TPS | ' + ' | '.join(GROUPS) + ' | all |',
             '|---|---|---|' + '---|' * (len(GROUPS) + 1)]
    for pair, am, tps, txns, samples in runs:
        lines.append(f'| {pair} | {am} | {tps:.0f} | ' +
                     ' | '.join(f'{samples[g] / txns * 1000:.2f}' for g in GROUPS) +
                     f' | {sum(samples.values()) / txns * 1000:.2f} |')
    lines += ['', '| group | heap median | hotheap median | hotheap - heap |', '|---|---|---|---|']
    for g in GROUPS + ('all',):
        med = {}
        for am in ('heap', 'hotheap'):
            med[am] = statistics.median((sum(s.values()) if g == 'all' else s[g]) / t * 1000
                                        for _, a, _, t, s in runs if a == am)
        lines.append(f'| {g} | {med["heap"]:.2f} | {med["hotheap"]:.2f} | {med["hotheap"] - med["heap"]:+.2f} |')
    keys = sorted(set(by_symbol['heap']) | set(by_symbol['hotheap']),
                  key=lambda k: by_symbol['hotheap'][k] - by_symbol['heap'][k])
    lines += ['', f'Symbols whose samples per 1000 transactions differ most (mean over the pairs; '
              f'{args.symbols} each way):', '', '| shared object | symbol | heap | hotheap | hotheap - heap |',
              '|---|---|---|---|---|']
    for key in keys[-args.symbols:][::-1] + keys[:args.symbols]:
        h, o = by_symbol['heap'][key], by_symbol['hotheap'][key]
        lines.append(f'| {key[0]} | `{key[1][:60]}` | {h:.2f} | {o:.2f} | {o - h:+.2f} |')
    with open(args.out, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))


if __name__ == '__main__':
    main()
