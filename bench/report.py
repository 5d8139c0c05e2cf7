"""Renders a run's report.md and charts from its raw.csv and meta.json (bench.py --out DIR;
the kept runs are in bench/results/<family>-pg<major>/).

Every number in the report is computed here from raw.csv, which holds every run; nothing is
dropped. Ratios are hotheap / heap of the medians over the rounds ("ratio of medians"); the
per-round ratios (each hotheap run over the heap run of the same round, run next to it) are
shown beside them as a check on the spread.
"""
import csv
import json
import os
import statistics

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

from w1_cases import W1_CASES  # noqa: E402

# Workload 3's shapes (bench.W3_SHAPES), as the report names them.
W3_LABELS = {
    'i20_last': '20 indexes, the changed one last',
    'i20_first': '20 indexes, the changed one first',
    'i5_last': '5 indexes, the changed one last',
    'i5_first': '5 indexes, the changed one first',
    'i1': '1 index',
}

# (workload, case, numerator variant, denominator variant, label, target ratio, kind)
# kind '>=': the ratio must be at least the target.
TPS_TARGETS = [
    ('w2', 'small', 'hotheap', 'heap', 'W2 small docs: hotheap / heap', 2.2),
    ('w2', 'small', 'hotheap', 'limit', 'W2 small docs: hotheap / limit (heap, PK only)', 0.93),
    ('w2', 'small', 'hotheap', 'limit20',
     'W2 small docs: hotheap / heap HOT with 20 untouched indexes (diagnostic)', None),
    ('w2', 'large', 'hotheap', 'heap', 'W2 large docs: hotheap / heap', 1.5),
    ('w2', 'large', 'hotheap', 'limit', 'W2 large docs: hotheap / limit (heap, PK only)', 0.90),
    ('w2', 'large', 'hotheap', 'limit20',
     'W2 large docs: hotheap / heap HOT with 20 untouched indexes (diagnostic)', None),
    ('w2', 'small', 'verify', 'hotheap', 'W2 small docs: hotplus.verify on / off (reported)', None),
    ('w2', 'large', 'verify', 'hotheap', 'W2 large docs: hotplus.verify on / off (reported)', None),
] + [('w3', f'{size} {key}', 'hotheap', 'heap',
       f'W3 indexed field changed, {size} docs, {W3_LABELS[key]}: hotheap / heap',
       0.97 if key == 'i20_last' else None)
      for size in ('small', 'large') for key in W3_LABELS] + [
    ('w4', None, 'hotheap', 'heap', 'W4 pgbench TPC-B-like: hotheap / heap', 0.98),
    ('w5', None, 'hot', 'nonhot', 'W5 heap: HOT / non-HOT (upper bound, no target)', None),
] + [('w6', f'{case}, {n}', 'hotheap', 'heap', f'W6 OLTP, {case}: hotheap / heap',
      0.99 if case == 'update c' else 0.98)
     for case in ('update c', 'update k', 'select c', 'mix of 10') for n in ('1 client', '2 clients')] + [
    ('w8', 'save()', 'hotheap', 'heap', "W8 ORM, Django save() (full row written back): hotheap / heap", 1.0),
    ('w8', 'update_fields', 'hotheap', 'heap',
     "W8 ORM, save(update_fields=['counter']) (HOT on both): hotheap / heap", 0.98),
    ('w8', 'changed columns', 'hotheap', 'heap',
     'W8 ORM, SQLAlchemy changed columns (an indexed one: non-HOT on both): hotheap / heap', 0.98),
] + [('w9', test, 'hotheap', 'heap', f'W9 sysbench {test}: hotheap / heap', 0.98)
     for test in ('oltp_update_non_index', 'oltp_update_index', 'oltp_read_write', 'oltp_point_select')]


def load(out):
    with open(os.path.join(out, 'raw.csv')) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(out, 'meta.json')) as f:
        meta = json.load(f)
    return rows, meta


def sel(rows, workload, case=None, variant=None):
    return [r for r in rows if r['workload'] == workload
            and (case is None or r['case'] == case)
            and (variant is None or r['variant'] == variant)]


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def values(rs):
    return [float(r['value']) for r in rs]


def paired_ratios(num, den, field='value'):
    """Per-round ratios: the runs of one round were made next to each other."""
    d = {r['round']: float(r[field]) for r in den}
    return [float(r[field]) / d[r['round']] for r in num if r['round'] in d and d[r['round']]]


def hot_share(rs):
    upd = sum(int(r['upd'] or 0) for r in rs)
    hot = sum(int(r['hot_upd'] or 0) for r in rs)
    return 100.0 * hot / upd if upd else None


def per_op(rs, field):
    return med([int(r[field]) / int(r['ops']) for r in rs if r[field] != '' and int(r['ops'] or 0)])


def growth(rs, kind):
    return med([int(r[f'{kind}_bytes_after']) - int(r[f'{kind}_bytes_before']) for r in rs
                if r[f'{kind}_bytes_after'] != ''])


def growth_per_ktxn(rs, kind):
    return med([1000.0 * (int(r[f'{kind}_bytes_after']) - int(r[f'{kind}_bytes_before'])) /
                int(r['ops']) for r in rs if int(r['ops'] or 0)])


def cpu_per_txn(rs):
    """Median server CPU per transaction (us): CPU of the backends that exited during the run."""
    return med([1000.0 * float(r['cpu_ms']) / int(r['ops']) for r in rs
                if r.get('cpu_ms') not in (None, '') and int(r['ops'] or 0)])


def fmt_bytes(b):
    if b is None:
        return 'n/a'
    sign = '-' if b < 0 else ('+' if b > 0 else '')
    b = abs(b)
    for unit, div in (('GB', 1 << 30), ('MB', 1 << 20), ('kB', 1 << 10)):
        if b >= div:
            return f'{sign}{b / div:.1f} {unit}'
    return f'{sign}{b:.0f} B'


def fmt_size(b):
    return fmt_bytes(b).lstrip('+')


def pct(x):
    return 'n/a' if x is None else f'{x:+.1f}%'


def share(x):
    return 'n/a' if x is None else f'{x:.0f}%'


# ---------------------------------------------------------------------------------------
def w1_results(rows):
    out = []
    for key, label, data, index, setc, rows_key, v43, target in W1_CASES:
        heap = sel(rows, 'w1', key, 'heap')
        hot = sel(rows, 'w1', key, 'hotheap')
        if not heap or not hot:
            continue
        mh, mx = med(values(heap)), med(values(hot))
        ratio = mx / mh
        pr = paired_ratios(hot, heap)
        change = (ratio - 1) * 100
        ch, cx = med([float(r['cpu_ms']) for r in heap]), med([float(r['cpu_ms']) for r in hot])
        out.append(dict(heap_cpu=ch, hot_cpu=cx, cpu_change=(cx / ch - 1) * 100,
                        paired_cpu=[(p - 1) * 100 for p in paired_ratios(hot, heap, 'cpu_ms')],key=key, label=label, setc=setc, method=index, data=data,
                        rows=int(heap[0]['ops']), n=(len(heap), len(hot)),
                        heap_ms=mh, hot_ms=mx, change=change, v43=v43, target=target,
                        ok=(med(pr) - 1) * 100 <= target, paired=[(p - 1) * 100 for p in pr],
                        hot_share=(hot_share(heap), hot_share(hot)),
                        wal=(per_op(heap, 'wal_bytes'), per_op(hot, 'wal_bytes')),
                        toast=(growth(heap, 'toast'), growth(hot, 'toast')),
                        idx=(growth(heap, 'index'), growth(hot, 'index'))))
    return out


def tps_results(rows):
    out = []
    for w, case, num, den, label, target in TPS_TARGETS:
        cases = [case] if case else sorted({r['case'] for r in sel(rows, w)})
        for c in cases:
            n, d = sel(rows, w, c, num), sel(rows, w, c, den)
            if not n or not d:
                continue
            mn, md = med(values(n)), med(values(d))
            ratio = mn / md
            cn, cd = cpu_per_txn(n), cpu_per_txn(d)
            out.append(dict(w=w, case=c, num=num, den=den, label=label, target=target,
                            cpu_num=cn, cpu_den=cd, cpu_ratio=cn / cd if cn and cd else None,
                            num_tps=mn, den_tps=md, ratio=ratio,
                            paired=paired_ratios(n, d), n=(len(n), len(d)),
                            ok=None if target is None else med(paired_ratios(n, d)) >= target))
    return out


def w3_wal_results(rows):
    """Workload 3's WAL per transaction, hotheap / heap, per case: the two runs of a round make
    the same updates, so the target is equality within 0.5% (median of the paired ratios)."""
    out = []
    for case in sorted({r['case'] for r in sel(rows, 'w3')}):
        per_txn = {v: [dict(r, value=int(r['wal_bytes']) / int(r['ops'])) for r in sel(rows, 'w3', case, v)
                       if int(r['ops'] or 0)] for v in ('hotheap', 'heap')}
        pr = paired_ratios(per_txn['hotheap'], per_txn['heap'])
        if pr:
            out.append(dict(case=case, paired=pr, heap=med(values(per_txn['heap'])),
                            hot=med(values(per_txn['hotheap'])), ok=abs(med(pr) - 1) <= 0.005))
    return out


def variant_table(rows, w, case):
    lines = ['| table | runs | median TPS | server CPU / txn | HOT share | WAL / txn | '
             'index growth / run | index growth / 1k txn | heap growth / run |',
             '|---|---|---|---|---|---|---|---|---|']
    variants = []
    for r in sel(rows, w, case):
        if r['variant'] not in variants:
            variants.append(r['variant'])
    for v in sorted(variants):
        rs = sel(rows, w, case, v)
        c = cpu_per_txn(rs)
        lines.append(f"| {v} | {len(rs)} | {med(values(rs)):.0f} | "
                     f"{'n/a' if c is None else f'{c:.0f} us'} | {share(hot_share(rs))} | "
                     f"{per_op(rs, 'wal_bytes'):.0f} B | {fmt_bytes(growth(rs, 'index'))} | "
                     f"{fmt_bytes(growth_per_ktxn(rs, 'index'))} | {fmt_bytes(growth(rs, 'table'))} |")
    return lines


def order_line(num, den):
    """The paired ratios split by which access method ran first in the round: a run that is
    slower for being first (or second) shows as two different medians, which alternating the
    order cancels only over an even number of rounds."""
    first = {r['round']: r['position'] == '1' for r in den}
    ratios = {r['round']: float(r['value']) / float(d['value'])
              for r in num for d in den if d['round'] == r['round']}
    parts = []
    for label, heap_first in (('heap ran first', True), ('hotheap ran first', False)):
        rs = [v for k, v in ratios.items() if first.get(k) == heap_first]
        if rs:
            parts.append(f"{label}: median {med(rs):.3f} ({len(rs)} rounds)")
    both = [med([v for k, v in ratios.items() if first.get(k) == f]) for f in (True, False)]
    if all(b is not None for b in both):
        parts.append(f"order-balanced (geometric mean of the two): {(both[0] * both[1]) ** 0.5:.3f}")
    return 'paired hotheap / heap, ' + '; '.join(parts)


def runs_line(rs):
    return ', '.join(f"{float(r['value']):.0f}" for r in sorted(rs, key=lambda r: int(r['round'])))


def verdict(ok):
    return 'n/a' if ok is None else ('**PASS**' if ok else '**MISS**')


# ---------------------------------------------------------------------------------------
# Read-path workloads (r1..r5, opt-in). Each entry: (workload, label, numerator (case,
# variant), denominator (case, variant), kind, target, metric). The ratio is the numerator's
# median over the denominator's; kind '>=' / '<=' says which side of the target passes.
# For times (ms) a speedup is written heap / hotheap, so that bigger is better there too.
def _read_targets():
    t = []
    for jit in ('off', 'on'):
        five, one = f'five fields, jit {jit}', f'one field, jit {jit}'
        # seed 004's own big-jsonb query (the seed: 702 -> 133 ms, 5.3x); issue 40: >= 5x
        t += [('r1', f'R1 5 fields of a toasted jsonb, jit {jit}: speedup heap / hotheap',
               (five, 'heap'), (five, 'hotheap'), '>=', 5.0, 'ms'),
              ('r1', f'R1 hotheap, jit {jit}: 5 fields / 1 field (time)',
               (five, 'hotheap'), (one, 'hotheap'), '<=', 1.2, 'ms'),
              ('r1', f'R1 control, jit {jit}: hotheap with read_path off / heap (time)',
               (five, 'off'), (five, 'heap'), None, None, 'ms'),
              ('r1', f'R1 diagnostic, jit {jit}: 1 field, hotheap / heap (time)',
               (one, 'hotheap'), (one, 'heap'), None, None, 'ms')]
    for jit in ('off', 'on'):
        c41, c1 = f'col41, jit {jit}', f'col1, jit {jit}'
        t += [('r2', f'R2 col41 of 41 ints, jit {jit}: speedup heap / hotheap',
               (c41, 'heap'), (c41, 'hotheap'), '>=', 2.0, 'ms'),
              ('r2', f'R2 hotheap, jit {jit}: col41 / col1 (time)',
               (c41, 'hotheap'), (c1, 'hotheap'), '<=', 1.2, 'ms'),
              ('r2', f'R2 control, jit {jit}: hotheap with read_path off / heap (time)',
               (c41, 'off'), (c41, 'heap'), None, None, 'ms'),
              ('r2', f'R2 diagnostic, jit {jit}: col1, hotheap / heap (time)',
               (c1, 'hotheap'), (c1, 'heap'), None, None, 'ms')]
    for jit in ('off', 'on'):
        c = f'col40 after text, jit {jit}'
        t.append(('r2t', f'R2t col40 after a text column, jit {jit}: speedup heap / hotheap',
                  (c, 'heap'), (c, 'hotheap'), '>=', 1.8, 'ms'))
    c = 'pk fetch, 5 fields'
    t += [('r3', 'R3 pgbench, PK fetch of 5 fields: TPS hotheap / heap',
           (c, 'hotheap'), (c, 'heap'), '>=', 2.5, 'tps'),
          ('r3', 'R3 control: TPS hotheap with read_path off / heap',
           (c, 'off'), (c, 'heap'), None, None, 'tps')]
    for c in ('a: all 41 columns, jit off', 'b: numeric SELECT *, jit off'):
        t.append(('r4', f'R4{c[0]} nothing to gain ({c[3:]}): time hotheap / heap',
                  (c, 'hotheap'), (c, 'heap'), '<=', 1.02, 'ms'))
    t.append(('r4', 'R4c nothing to gain (pgbench -S): TPS hotheap / heap',
              ('c: pgbench -S*', 'hotheap'), ('c: pgbench -S*', 'heap'), '>=', 0.98, 'tps'))
    # R2s: seed 003's sweep, 1 to 41 of its columns selected: never slower than heap (within
    # the 2% of noise of a statement timed in rounds).
    for k in range(1, 42):
        c = f'{k} of 41 columns, jit off'
        t.append(('r2s', f'R2s seed 003 sweep, {k} of 41 columns, jit off: speedup heap / hotheap',
                  (c, 'heap'), (c, 'hotheap'), '>=', 0.98, 'ms'))
    # R6: the shared detoast markers in every node (D14b), issue 40's goals A1, J1, G1, W3.
    r6_goals = [('A1 five max(big->>k)', 4.0), ('A1b five FILTER/sum fields', 4.0),
                ('J1 hash join, b outer', 3.0), ('J1 nested loop, b outer', 3.0),
                ('J1 nested loop, b inner', 3.0), ('J1 merge join', 3.0),
                ('G1 GROUP BY big->>1 hashed', 2.5), ('G1 GROUP BY big->>g sorted', 2.5),
                ('G1 grouping sets', 2.0), ('W3 three window functions over fields', 1.5),
                ('W1 window over big->>1 by big->>2', 0.95)]
    for jit in ('off', 'on'):
        for case, goal in r6_goals:
            c = f'{case}, jit {jit}'
            t.append(('r6', f'R6 {c}: speedup heap / hotheap', (c, 'heap'), (c, 'hotheap'),
                      '>=' if goal else None, goal, 'ms'))
    t.append(('r6', 'R6 J1 hash join, b inner (hashed), jit off: speedup heap / hotheap',
              ('J1 hash join, b inner (hashed), jit off', 'heap'),
              ('J1 hash join, b inner (hashed), jit off', 'hotheap'), '>=', 3.0, 'ms'))
    for c in ('T1 orders x lines, per customer', 'T2 top orders by note length', 'T3 lines of open orders',
              'T4 notes sorted'):
        t.append(('r6', f'R6 {c} (TPC-H-like), jit off: speedup heap / hotheap',
                  (f'{c}, jit off', 'heap'), (f'{c}, jit off', 'hotheap'), '>=', 0.98, 'ms'))
    # R7: shapes where nothing can be gained (issue 31): hotheap within 5% of heap's time.
    for c in ('X1 three FILTERed max(big->>k)', 'X2 CASE in aggregate arguments',
              'X3 hash semi join, keys never match', 'X4 merge join, keys never match',
              'X5 misestimated filter above a subquery', 'X6 COALESCE fallback never taken',
              'X7 short in-line documents, two fields', 'X8 short in-line documents, five fields',
              'X9 short rows beside out-of-line ones, two fields'):
        t.append(('r7', f'R7 {c}, jit off: time hotheap / heap', (f'{c}, jit off', 'hotheap'),
                  (f'{c}, jit off', 'heap'), '<=', 1.05, 'ms'))
    # R8: issue 40's one-row statements where nothing can be gained: within 5% of heap's TPS.
    for c in ('X10 one short row by key, two fields', 'X11 next row by key, LIMIT 1',
              'X12 first row of a filter, LIMIT 1'):
        t.append(('r8', f'R8 {c}: TPS hotheap / heap', (c, 'hotheap'), (c, 'heap'), '>=', 0.95, 'tps'))
    return t


# With JIT, each speedup at least 0.9 of its JIT-off speedup (issue 40): (label, JIT-off
# target, JIT-on target), both in READ_TARGETS.
JIT_PAIRS = [('R1 five fields', 'R1 5 fields of a toasted jsonb, jit off: speedup heap / hotheap',
              'R1 5 fields of a toasted jsonb, jit on: speedup heap / hotheap'),
             ('A1 five max(big->>k)', 'R6 A1 five max(big->>k), jit off: speedup heap / hotheap',
              'R6 A1 five max(big->>k), jit on: speedup heap / hotheap')]
JIT_KEEP = 0.9


READ_TARGETS = _read_targets()


def sel_m(rows, workload, case, variant, metric):
    if case.endswith('*'):
        return [r for r in rows if r['workload'] == workload and r['case'].startswith(case[:-1])
                and r['variant'] == variant and r['metric'] == metric]
    return [r for r in rows if r['workload'] == workload and r['case'] == case
            and r['variant'] == variant and r['metric'] == metric]


def paired_by_round(num, den, field='value'):
    d = {r['round']: float(r[field]) for r in den if r[field] != ''}
    return [float(r[field]) / d[r['round']] for r in num
            if r[field] != '' and r['round'] in d and d[r['round']]]


def read_results(rows):
    out = []
    for w, label, (nc, nv), (dc, dv), kind, target, metric in READ_TARGETS:
        n, d = sel_m(rows, w, nc, nv, metric), sel_m(rows, w, dc, dv, metric)
        if not n or not d:
            continue
        mn, md = med(values(n)), med(values(d))
        ratio = mn / md
        if metric == 'ms':
            cn, cd = med([float(r['cpu_ms']) for r in n]), med([float(r['cpu_ms']) for r in d])
            cpu = cn / cd if cd else None
        else:  # server CPU per transaction, as a throughput equivalent (den CPU / num CPU)
            cn, cd = cpu_per_txn(n), cpu_per_txn(d)
            cpu = cd / cn if cn and cd else None
        paired = med(paired_by_round(n, d))
        ok = None if target is None else (paired >= target if kind == '>=' else paired <= target)
        cpu_ok = None if target is None or cpu is None else (cpu >= target if kind == '>=' else cpu <= target)
        out.append(dict(w=w, label=label, num=(nc.rstrip('*'), nv), den=(dc.rstrip('*'), dv),
                        num_med=mn, den_med=md, ratio=ratio, kind=kind, target=target,
                        metric=metric, ok=ok, cpu=cpu, cpu_ok=cpu_ok, paired=paired_by_round(n, d),
                        n=(len(n), len(d))))
    # JIT keeps the gain: the JIT-on speedup over the JIT-off one (paired medians).
    by_label = {r['label']: r for r in out}
    for name, off, on in JIT_PAIRS:
        if off in by_label and on in by_label:
            a, b = by_label[off], by_label[on]
            keep = med(b['paired']) / med(a['paired'])
            out.append(dict(w=a['w'], label=f'{name}: speedup with JIT / without', num=(on, 'jit on'),
                            den=(off, 'jit off'), num_med=med(b['paired']), den_med=med(a['paired']),
                            ratio=keep, kind='>=', target=JIT_KEEP, metric='speedup', ok=keep >= JIT_KEEP,
                            cpu=None, cpu_ok=None, paired=[keep], n=(1, 1)))
    return out


def r5_results(rows):
    """Sort memory and temp blocks: hotheap's must be no larger than heap's (medians)."""
    out = []
    cases = []
    for r in rows:
        if r['workload'] == 'r5' and r['case'] not in cases:
            cases.append(r['case'])
    for case in cases:
        for metric, label in (('sort_space_kb', 'Sort Space Used (kB)'),
                              ('temp_written_blocks', 'temp blocks written'),
                              ('sort_on_disk', 'sort on disk (runs)')):
            h, x = sel_m(rows, 'r5', case, 'heap', metric), sel_m(rows, 'r5', case, 'hotheap', metric)
            if not h or not x:
                continue
            if metric == 'sort_on_disk':
                mh, mx = sum(values(h)), sum(values(x))
            else:
                mh, mx = med(values(h)), med(values(x))
            out.append(dict(case=case, metric=metric, label=f'R5 {case}: {label}, hotheap vs heap',
                            heap=mh, hot=mx, heap_max=max(values(h)), hot_max=max(values(x)),
                            ok=mx <= mh and max(values(x)) <= max(values(h))))
    return out


def cpu_cell(r):
    if r['cpu'] is None:
        return 'n/a'
    return f"{r['cpu']:.3f}x" + ('' if r['cpu_ok'] is None else
                                 f" ({'meets' if r['cpu_ok'] else 'misses'})")


def read_section(rows, meta, rr, r5):
    L = []
    p = meta['params']
    L.append('## Read path workloads (r1..r8)')
    L.append('')
    L.append(f"Single statements (R1, R2, R2t, R4a, R4b): {p.get('r_rounds')} rounds; in each round "
             f"every variant runs its statement once untimed and then {p.get('r_reps')} times timed, "
             "the round's value being the median of those (also of the backend's CPU time and of "
             "its run-queue wait, the time it was runnable but waited for a CPU: "
             "`/proc/PID/schedstat`). Timed from the client around "
             "`cursor.execute()` (which returns when libpq holds the whole result; no conversion to "
             "Python objects is timed), so planning, execution and sending the result are in it; the "
             "backend's CPU time per statement (`/proc/PID/schedstat`) is the cross-check. Variants "
             "alternate their order from round to round. Every session sets "
             "`max_parallel_workers_per_gather = 0` (2 cores; no parallel workers to wait for) and "
             "either `jit = off` or `jit = on, jit_above_cost = 0`; `off` = the hotheap table with "
             "`hotplus.read_path = off` (a control: should equal heap). R3 and R4c are pgbench runs "
             f"(`-M prepared -c 2 -j 2 -T {p['duration']}`, {p['rounds']} rounds), R5 reads EXPLAIN "
             "(ANALYZE, BUFFERS, FORMAT JSON).")
    L.append('')
    L.append('| comparison | numerator (median) | denominator (median) | ratio of medians | '
             'per-round ratios | target | result | same ratio on backend CPU |')
    L.append('|---|---|---|---|---|---|---|---|')
    for r in rr:
        unit = {'ms': ' ms', 'tps': ' TPS'}.get(r['metric'], 'x')
        tgt = 'none' if r['target'] is None else f"{r['kind']} {r['target']:.2f}x"
        L.append(f"| {r['label']} | {r['num'][1]} ({r['num'][0]}): {r['num_med']:.1f}{unit} | "
                 f"{r['den'][1]} ({r['den'][0]}): {r['den_med']:.1f}{unit} | {r['ratio']:.3f}x | "
                 f"{', '.join(f'{x:.2f}' for x in r['paired'])} | {tgt} | {verdict(r['ok'])} | "
                 f"{cpu_cell(r)} |")
    L.append('')
    # per-case detail with plans
    checks = meta.get('r_checks', {})
    L.append('Statements, plans (checked before the rounds: a HotheapRead node or shared detoast markers '
             'on hotheap where required, neither on heap nor with `read_path = off`, and the results equal: row '
             'count and md5 of the sorted rows of the statement, and for the zero-row filters of '
             'the same statement with `= 1`), medians:')
    L.append('')
    L.append('| workload | case | variant | statement | plan | JIT functions | runs | median ms | '
             'median backend CPU ms | median run-queue wait ms | rows |')
    L.append('|---|---|---|---|---|---|---|---|---|---|---|')
    for w in ('r1', 'r2', 'r2t', 'r2s', 'r4', 'r6', 'r7'):
        for key, c in checks.get(w, {}).items():
            case, variant = key.split(' | ')
            if variant == 'memory':
                continue
            rs = sel_m(rows, w, case, variant, 'ms')
            if not rs:
                continue
            sql = c['sql'] if len(c['sql']) < 90 else c['sql'][:60] + ' ... ' + c['sql'][-30:]
            L.append(f"| {w} | {case} | {variant} | `{sql}` | {c['plan']} | {c['jit_functions']} | "
                     f"{len(rs)} | {med(values(rs)):.2f} | {med([float(r['cpu_ms']) for r in rs]):.2f} | "
                     f"{runq_med(rs)} | {rs[0]['ops']} |")
    L.append('')
    if checks.get('r4c'):
        L.append('R4c plans of pgbench -S\'s `SELECT abalance FROM pgbench_accounts WHERE aid = $1`: ' +
                 '; '.join(f'{v}: {s}' for v, s in checks['r4c'].items()))
        L.append('')
    if checks.get('r3'):
        L.append('R3 plans of the prepared statement: ' +
                 '; '.join(f'{v}: {s}' for v, s in checks['r3'].items()))
        L.append('')
    mem = {k[:-len(' | memory')]: v for k, v in checks.get('r6', {}).items() if k.endswith(' | memory')}
    if mem:
        L.append('R6 memory of the storing nodes (EXPLAIN ANALYZE of the check run: Sort Space Used, '
                 'Hash/HashAggregate Peak Memory Usage, Disk Usage, in kB; temp blocks written). Target: '
                 'hotheap never above heap.')
        L.append('')
        L.append('| case | heap | hotheap | hotheap above heap |')
        L.append('|---|---|---|---|')
        for case, m in mem.items():
            show = lambda d: ', '.join(f'{k} {v:g}' for k, v in sorted(d.items())) or '-'
            L.append(f"| {case} | {show(m['heap'])} | {show(m['hotheap'])} | "
                     f"{show({k: v[1] for k, v in m['hotheap_more'].items()}) if m['hotheap_more'] else 'never'} |")
        L.append('')
    for w in ('r1', 'r2', 'r2t', 'r2s', 'r4', 'r3', 'r6', 'r7', 'r8'):
        cases = []
        for r in rows:
            if r['workload'] == w and r['metric'] in ('ms', 'tps') and r['case'] not in cases:
                cases.append(r['case'])
        for case in cases:
            parts = []
            for v in sorted({r['variant'] for r in rows if r['workload'] == w and r['case'] == case}):
                rs = sorted(sel_m(rows, w, case, v, rows_metric(rows, w, case)),
                            key=lambda r: int(r['round']))
                parts.append(f"{v} " + ', '.join(f"{float(r['value']):.1f}" for r in rs))
            L.append(f"- {w} {case}, by round: " + ' | '.join(parts))
    L.append('')
    if r5:
        L.append("R5: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT big, big->'1' FROM b ORDER BY "
                 "big->'2'` with `jit = off`; Sort node's \"Sort Space Used\" / \"Sort Space Type\", "
                 "the plan's \"Temp Written Blocks\". Target: hotheap's no larger than heap's "
                 "(median and maximum over the rounds).")
        L.append('')
        L.append('| case | heap (median / max) | hotheap (median / max) | result |')
        L.append('|---|---|---|---|')
        for r in r5:
            L.append(f"| {r['label']} | {r['heap']:g} / {r['heap_max']:g} | {r['hot']:g} / "
                     f"{r['hot_max']:g} | {verdict(r['ok'])} |")
        L.append('')
        found = checks.get('r5', {})
        if found:
            L.append('R5 plans: ' + '; '.join(f"{k}: {v['plan']}, {v['sort_method']}, {v['space_type']}"
                                             for k, v in found.items()))
            L.append('')
    tc = meta.get('tpcb_checks')
    if tc and any(r['workload'] == 'r4' for r in rows):
        L.append('R4c pgbench tables\' access methods: ' + '; '.join(
            f"{db}: " + ', '.join(f'{t}={am}' for t, am in v) for db, v in tc.items()))
        L.append('')
    tables = {}
    for k in ('r_b', 'r_t', 'r_n', 'r_j'):
        tables.update(meta.get(k, {}))
    if tables:
        L.append('Read workload tables as built:')
        L.append('')
        L.append('| table | AM | rows | heap | TOAST | values (compression x rows: stored B, length) |')
        L.append('|---|---|---|---|---|---|')
        for t, c in tables.items():
            vals = '; '.join(f'{a} x{b}: {c_} B, {d}' for a, b, c_, d in c.get('values', []))
            L.append(f"| {t} | {c['am']} | {c['rows']} | {fmt_size(c['table_bytes'])} | "
                     f"{fmt_size(c['toast_bytes'])} | {vals or '-'} |")
        L.append('')
    return L


def runq_med(rs):
    vs = [float(r['runq_ms']) for r in rs if r.get('runq_ms') not in (None, '')]
    return f'{med(vs):.2f}' if vs else 'n/a'


def rows_metric(rows, w, case):
    for r in rows:
        if r['workload'] == w and r['case'] == case:
            return r['metric']
    return 'ms'


# ---------------------------------------------------------------------------------------
def chart_w1(res, path):
    fig, ax = plt.subplots(figsize=(10, 0.55 * len(res) + 1.8))
    ys = list(range(len(res)))[::-1]
    for y, r in zip(ys, res):
        color = '#2e7d32' if r['ok'] else '#c62828'
        ax.barh(y, r['change'], color=color, alpha=0.75, height=0.6)
        ax.scatter(r['paired'], [y] * len(r['paired']), color='black', s=10, zorder=3,
                   label='per-round ratio' if y == ys[0] else None)
        ax.plot([r['target']] * 2, [y - 0.38, y + 0.38], color='#1565c0', lw=2.5, zorder=4,
                label='target' if y == ys[0] else None)
        ax.scatter([r['v43']], [y], marker='x', color='grey', s=30, zorder=4,
                   label='v43 vs master' if y == ys[0] else None)
    ax.axvline(0, color='black', lw=0.8)
    ax.set_yticks(ys)
    ax.set_yticklabels([r['label'] for r in res], fontsize=8)
    ax.set_xlabel('hotheap vs heap, change of median UPDATE time (%)  -- lower is better')
    ax.set_title('Workload 1: one UPDATE over every row\n(green: target met, red: missed)', fontsize=10)
    ax.legend(fontsize=7, loc='lower right')
    ax.grid(axis='x', alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def chart_tps(res, path):
    fig, ax = plt.subplots(figsize=(10, 0.55 * len(res) + 1.8))
    ys = list(range(len(res)))[::-1]
    for y, r in zip(ys, res):
        color = '#757575' if r['ok'] is None else ('#2e7d32' if r['ok'] else '#c62828')
        ax.barh(y, r['ratio'], color=color, alpha=0.75, height=0.6)
        ax.scatter(r['paired'], [y] * len(r['paired']), color='black', s=10, zorder=3,
                   label='per-round ratio' if y == ys[0] else None)
        if r['target'] is not None:
            ax.plot([r['target']] * 2, [y - 0.38, y + 0.38], color='#1565c0', lw=2.5, zorder=4,
                    label='target (minimum)' if y == ys[0] else None)
        ax.text(max([r['ratio']] + r['paired']) + 0.04, y, f"{r['ratio']:.2f}x", va='center',
                fontsize=8)
    ax.axvline(1, color='black', lw=0.8)
    ax.set_yticks(ys)
    ax.set_yticklabels([r['label'] for r in res], fontsize=8)
    ax.set_xlabel('TPS ratio of medians  -- higher is better')
    ax.set_title('Workloads 2-5: pgbench TPS, 2 clients\n(green: target met, red: missed, grey: no target)',
                 fontsize=10)
    ax.legend(fontsize=7, loc='lower right')
    ax.grid(axis='x', alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def pgbench_section(rows, meta, tps, p):
    L = []
    L.append('## Workloads 2-5: pgbench')
    L.append('')
    L.append(f"`pgbench -n -M prepared -c {2} -j {2} -T {p['duration']}` per run; before each run "
             "`VACUUM` of the run's tables and `CHECKPOINT` (untimed). Autovacuum is disabled on the "
             "benchmark's tables (`autovacuum_enabled = false`), so that a worker vacuuming one "
             "table (mostly heap's, with its bloated indexes) does not land in another table's run "
             "on 2 cores; the explicit `VACUUM` between runs does that work instead. HOT share and updates come from `pg_stat_user_tables` deltas, WAL from "
             "`pg_current_wal_insert_lsn()` deltas divided by the transactions pgbench processed, "
             "sizes from `pg_indexes_size()` / `pg_relation_size()` before and after each run.")
    L.append('')
    L.append('| comparison | numerator median TPS | denominator median TPS | ratio of medians | '
             'per-round ratios | target | result | server CPU / txn, numerator / denominator |')
    L.append('|---|---|---|---|---|---|---|---|')
    for r in tps:
        tgt = 'none' if r['target'] is None else f">= {r['target']:.2f}x"
        L.append(f"| {r['label']} ({r['case']}) | {r['num']}: {r['num_tps']:.0f} | {r['den']}: "
                 f"{r['den_tps']:.0f} | {r['ratio']:.3f}x | "
                 f"{', '.join(f'{x:.2f}' for x in r['paired'])} | {tgt} | {verdict(r['ok'])} | "
                 + ('n/a |' if r['cpu_ratio'] is None else
                    f"{r['cpu_ratio']:.2f}x ({r['cpu_num']:.0f} / {r['cpu_den']:.0f} us) |"))
    L.append('')
    L.append('Server CPU per transaction: the CPU time (user + system) of the server processes that '
             'exited during the run, i.e. pgbench\'s two backends (plus any short-lived autovacuum '
             'worker the launcher started meanwhile), from the postmaster\'s `cutime + cstime`, divided by the '
             'transactions processed. It does not depend on how long the backends waited for a CPU, '
             'so it is a cross-check of the TPS ratios when other work shares the machine.')
    L.append('')
    descr = {
        'w2': ('Workload 2: JSONB documents, UPDATE of a field no index covers',
               "`UPDATE docs SET doc = jsonb_set(doc, '{counter}', to_jsonb((doc->>'counter')::int + 1)) "
               "WHERE id = :id` (random id). Tables: `heap` and `hotheap` with a primary key and 20 "
               "expression indexes `((doc->>'f1'))` .. `((doc->>'f20'))`; `limit` = heap with the "
               "primary key only (what HOT could give at most). Diagnostic, no target: `limit20` = "
               "heap with the primary key, the same documents and 20 btree indexes on int columns "
               "`c1`..`c20` that the UPDATE does not touch: HOT in heap, with as many indexes to "
               "open and lock per statement as hotheap's table (PostgreSQL opens every index of "
               "the target table at executor start, and 21 relation locks overflow the 16 "
               "fast-path lock slots). hotheap / limit20 is what hotplus's decision costs; "
               "limit20 / limit is what merely having 20 more indexes costs. `verify` = hotheap's "
               "table again with `hotplus.verify = on` (PGOPTIONS): every HOT decision hotplus "
               "adds is recomputed by the independent verifier before it is written."),
        'w3': ('Workload 3: every UPDATE changes an indexed field',
               "`UPDATE w3_SIZE_SHAPE SET doc = jsonb_set(doc, '{fK}', to_jsonb('r' || :r)) WHERE "
               "id = :id` (random id and value): non-HOT on both tables, so hotplus can gain "
               "nothing and must cost nothing. Shapes: 1, 5 or 20 expression indexes "
               "`((doc->>'f1'))` .. `((doc->>'fN'))` created in order, the field set read by the "
               "first of them or the last (`i20_last`: f20 of 20, the last index hotplus would "
               "reach in index order); each shape and size has its own heap and hotheap tables, "
               "made alike and updated by nothing else. hotheap looks first at the index that "
               "changed in the previous update (src/README.md D9a), so the order matters only "
               "for a table's first update. The two runs of a round make the same updates "
               "(`pgbench -t N --random-seed S`: N per client from a short run of both, scaled "
               "to the mode's duration; S per round), so the tables stay alike and their WAL "
               "per transaction compares (target: equal within 0.5%; what is left is the two "
               "clients' interleaving). `bench/wal_compare.py` compares the WAL of one session's "
               "updates record by record."),
        'w4': ('Workload 4: nothing to gain, pgbench TPC-B-like',
               f"`pgbench -i -s {p['tpcb_scale']}` into two databases, the second with "
               "`PGOPTIONS='-c default_table_access_method=hotheap'` (all four pgbench tables "
               "hotheap), then the builtin `tpcb-like` script; `pgbench_history` truncated before "
               "each run. Counts are over accounts, tellers and branches (3 updates per txn)."),
        'w5': ('Workload 5: the HOT vs non-HOT gap on heap',
               f"`t0(id int primary key, n1 int, n2 int)` with an index on `(id, n1)`, "
               f"{p['t0_rows']} rows, fillfactor 90; `UPDATE t0 SET n1 = random() * 100 WHERE id = "
               ":id` (non-HOT) vs the same on `n2` (HOT). The ratio is the most that making an "
               "update HOT buys on this machine for a narrow row with two small indexes."),
        'w6': ('Workload 6: the OLTP shape where nothing can gain',
               f"`ol(id int primary key, k int not null, c char(120), pad char(60))` with an "
               f"index on k, {meta.get('oltp', {}).get('rows', '?')} rows per table, one table per "
               f"access method; pgbench `-M prepared`, {p.get('oltp_duration', '?')} s runs, "
               f"{p.get('oltp_rounds', '?')} paired rounds (the two access methods back to back, "
               "order alternating), 1 and 2 clients: `UPDATE ol SET c = ... WHERE id = $1` "
               "(unindexed), `UPDATE ol SET k = k + 1 WHERE id = $1` (indexed), `SELECT c FROM ol "
               "WHERE id = $1`, and a transaction of 4 selects, 4 updates of c and 2 of k. hotheap "
               "decides as heap here; targets: within 1% (update c) and 2% (the others) by the "
               "median of the paired TPS ratios, with server CPU per transaction as the "
               "cross-check. Tables vacuumed after each round."),
        'w8': ('Workload 8: what ORMs send',
               f"`orm(id int primary key, name varchar(100), email varchar(200) unique, status text "
               f"indexed, bio text (~2.5 kB), counter int, updated_at timestamptz)`, "
               f"{meta.get('orm', {}).get('rows', '?')} rows per table (bio as stored: "
               f"{meta.get('orm', {}).get('bio', '?')}: compression, rows, stored bytes, raw bytes); "
               "each transaction loads one row by key (every column the UPDATE writes) and writes "
               "it back: Django's save() (every column sent back, counter and updated_at changed), "
               "save(update_fields=['counter']), SQLAlchemy's changed columns (status, indexed, and "
               f"updated_at). pgbench `-M extended` (planned per execution), 1 client, "
               f"{p.get('oltp_duration', '?')} s runs, {p.get('oltp_rounds', '?')} paired rounds; "
               "targets: save() at least heap's, the others within 2%."),
        'w9': ('Workload 9: sysbench itself',
               f"{meta.get('sysbench', {}).get('version', 'sysbench')} from Debian's package, its "
               f"own OLTP scripts unmodified (`--tables=1 --table-size="
               f"{meta.get('sysbench', {}).get('rows', '?')} --threads=2`, `prepare` into one "
               f"database per access method: {meta.get('sysbench', {}).get('access_methods', '?')}), "
               f"{p.get('oltp_duration', '?')} s runs, {p.get('oltp_rounds', '?')} paired rounds, "
               "the access methods back to back in alternating order, vacuumed after each round. "
               "Nothing in these scripts can gain; target within 2% by the median of the paired "
               "TPS ratios, server CPU per transaction beside it."),
    }
    for w in ('w2', 'w3', 'w4', 'w5', 'w6', 'w8', 'w9'):
        if not sel(rows, w):
            continue
        title, text = descr[w]
        L.append(f'### {title}')
        L.append('')
        L.append(text)
        L.append('')
        for case in sorted({r['case'] for r in sel(rows, w)}, reverse=True):
            L.append(f'**{case}**' if w in ('w2', 'w3', 'w6', 'w8', 'w9') else f'*{case}*')
            L.append('')
            L += variant_table(rows, w, case)
            L.append('')
            for v in sorted({r['variant'] for r in sel(rows, w, case)}):
                L.append(f"- {v} TPS by round: {runs_line(sel(rows, w, case, v))}")

            if w in ('w6', 'w8', 'w9'):
                L.append(f"- {order_line(sel(rows, w, case, 'hotheap'), sel(rows, w, case, 'heap'))}")
            L.append('')
    dc = meta.get('docs_checks')
    if dc:
        L.append('Document tables as built (`pg_column_compression(doc)` x rows: average stored '
                 'size -> average uncompressed size):')
        L.append('')
        L.append('| table | AM | indexes | documents | heap | TOAST | indexes size |')
        L.append('|---|---|---|---|---|---|---|')
        for t, c in dc.items():
            vals = '; '.join(f'{a} x{b}: {c_} B -> {d} B' for a, b, c_, d in c['values'])
            L.append(f"| {t} | {c['am']} | {c['indexes']} | {vals} | {fmt_size(c['table_bytes'])} | "
                     f"{fmt_size(c['toast_bytes'])} | {fmt_size(c['index_bytes'])} |")
        L.append('')
    tc = meta.get('tpcb_checks')
    if tc:
        L.append('pgbench tables\' access methods: ' + '; '.join(
            f"{db}: " + ', '.join(f'{t}={am}' for t, am in v) for db, v in tc.items()))
        L.append('')

    return L


# ---------------------------------------------------------------------------------------
def render(out):
    rows, meta = load(out)
    p = meta['params']
    w1 = w1_results(rows)
    tps = tps_results(rows)
    rr = read_results(rows)
    r5 = r5_results(rows)
    L = []
    L.append('# hotplus benchmark report')
    L.append('')
    L.append('heap vs hotheap, side by side on one throwaway cluster, interleaved, '
             f"{p.get('w1_rounds', p['rounds'])} rounds for workload 1, {p['rounds']} for the pgbench "
             "workloads" + (f", {p.get('r_rounds')} for the read workloads' single statements"
                            if (rr or r5) else '') +
             ". Ratios are hotheap / heap of the medians; no absolute-time claims (a shared 2-core VM).")
    L.append('')
    L.append(f"- command: `{meta['command']}` (mode `{meta['mode']}`)")
    L.append(f"- date: {meta['date']}; total {meta['total_seconds'] // 60} min "
             f"{meta['total_seconds'] % 60} s ({', '.join(f'{k} {v} s' for k, v in meta['phase_seconds'].items())})")
    dirty = meta.get('dirty') or []
    L.append(f"- git commit: `{meta['commit']}`" +
             (f" **plus uncommitted changes** in the build inputs (other work in progress in the "
              f"tree when the library was built): {', '.join('`' + d.strip() + '`' for d in dirty)}"
              if dirty else ' (clean build inputs)'))
    libs = sorted({r['lib_sha256'] for r in rows})
    source = meta.get('library_source', 'run.sh build')
    what = ('the library built at the start (`run.sh`)' if source == 'run.sh build' else
            'the installed library, taken at the start (a direct run of bench.py, not through '
            '`run.sh`: the commit below is the tree\'s, not necessarily the build\'s)')
    where = (f'a private copy of {what}, so that a reinstall by someone else on the machine '
             'cannot change it mid-run' if meta.get('library_private') else 'the installed library')
    L.append(f"- hotplus.so: {where}; sha256 prefix {', '.join(libs)}" +
             (' -- **the library changed during the run**; the `lib_sha256` column of raw.csv '
              'says which build each run used' if len(libs) > 1 else ' (the same for every run)'))
    L.append(f"- server: {meta['server_version']}")
    L.append(f"- machine: {meta['nproc']} cores, {meta['cpu']}; the cluster's processes and "
             f"pgbench ran at nice {meta.get('nice', 0)}" +
             (' (priority over other work on the shared machine)' if meta.get('nice') else ''))
    loads = []
    for w in ('w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w8', 'w9', 'r1', 'r2', 'r2t', 'r2s', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8'):
        ls = [float(r['loadavg1']) for r in sel(rows, w) if r.get('loadavg1')]
        if ls:
            loads.append(f"{w} median {med(ls):.1f} (max {max(ls):.1f})")
    if loads:
        busy = any(float(r['loadavg1']) > meta['nproc'] for r in rows if r.get('loadavg1'))
        L.append(f"- machine load, 1-minute load average at the runs: {'; '.join(loads)}" +
                 (f" -- **above the {meta['nproc']} cores at times: other processes competed "
                  "for the CPUs, which the wall-clock and TPS numbers carry as noise**" if busy else ''))
    L.append('- cluster settings (as the server reports them): ' +
             ', '.join(f'`{k}={v}`' for k, v in meta['settings'].items() if k != 'data_directory'))
    L.append(f"- mode parameters: " + ', '.join(f'{k}={v}' for k, v in p.items()))
    L.append('')

    # -- summary
    L.append('## Targets')
    L.append('')
    L.append('| workload | case | target | ratio of medians | per-round ratios (median: the verdict; min..max) | result | CPU cross-check (not the verdict) |')
    L.append('|---|---|---|---|---|---|---|')
    for r in w1:
        pr = r['paired']
        cpu_ok = r['cpu_change'] <= r['target']
        L.append(f"| 1 | {r['label']} | <= {r['target']:+.0f}% | {pct(r['change'])} | "
                 f"{pct(med(pr))}; {pct(min(pr))}..{pct(max(pr))} | {verdict(r['ok'])} | "
                 f"{pct(r['cpu_change'])} ({'meets' if cpu_ok else 'misses'}) |")
    for r in tps:
        pr = r['paired']
        tgt = 'none (reported)' if r['target'] is None else f">= {r['target']:.2f}x"
        case = r['case']
        if r['cpu_ratio']:
            eq = 1 / r['cpu_ratio']
            cpu = f"{eq:.3f}x" + ('' if r['target'] is None else
                                  f" ({'meets' if eq >= r['target'] else 'misses'})")
        else:
            cpu = 'n/a'
        L.append(f"| {r['w'][1]} | {r['label']} ({case}) | {tgt} | {r['ratio']:.3f}x | "
                 f"{med(pr):.3f}x; {min(pr):.3f}..{max(pr):.3f} | {verdict(r['ok'])} | {cpu} |")
    for r in rr:
        pr = r['paired']
        tgt = 'none (reported)' if r['target'] is None else f"{r['kind']} {r['target']:.2f}x"
        L.append(f"| {r['w'].upper()} | {r['label']} | {tgt} | {r['ratio']:.3f}x | "
                 f"{med(pr):.3f}x; {min(pr):.3f}..{max(pr):.3f} | {verdict(r['ok'])} | {cpu_cell(r)} |")
    for r in r5:
        L.append(f"| R5 | {r['label']} | hotheap <= heap | {r['hot']:g} vs {r['heap']:g} "
                 f"(max {r['hot_max']:g} vs {r['heap_max']:g}) | - | {verdict(r['ok'])} | - |")
    wal3 = w3_wal_results(rows)
    for r in wal3:
        pr = r['paired']
        L.append(f"| 3 | W3 WAL per transaction, hotheap / heap ({r['case']}; {r['hot']:.0f} / {r['heap']:.0f} B) "
                 f"| 1 +- 0.005 | {r['hot'] / r['heap']:.4f} | {med(pr):.4f}; {min(pr):.4f}..{max(pr):.4f} | "
                 f"{verdict(r['ok'])} | - |")
    n_pass = (sum(1 for r in w1 if r['ok']) + sum(1 for r in tps if r['ok']) +
              sum(1 for r in rr if r['ok']) + sum(1 for r in r5 if r['ok']) + sum(1 for r in wal3 if r['ok']))
    n_miss = (sum(1 for r in w1 if not r['ok']) + sum(1 for r in tps if r['ok'] is False) +
              sum(1 for r in rr if r['ok'] is False) + sum(1 for r in r5 if not r['ok']) +
              sum(1 for r in wal3 if not r['ok']))
    L.append('')
    L.append(f'{n_pass} targets met, {n_miss} missed. PASS/MISS is decided on the median of '
             'the per-round ratios of wall-clock time (workload 1) or TPS (2-5): the two runs of a '
             'round are made next to each other, so a machine whose speed changes between rounds '
             '(seen here: rounds in two modes 1.5x apart, both access methods slow or fast '
             'together) moves both, where it can tip a ratio of medians either way. The ratio of '
             'medians and the per-round minimum and maximum show the spread. The CPU cross-check is the same comparison made on CPU '
             'time instead: the backend\'s CPU time per UPDATE (workload 1, change in %), and for '
             'pgbench the inverse ratio of server CPU per transaction (a throughput equivalent: '
             'heap CPU / hotheap CPU). It is insensitive to time spent waiting for a CPU, so '
             'where the two disagree, other load on the machine is the likely reason.')
    L.append('')
    if w1:
        L.append('![workload 1](w1_detoast.png)')
        L.append('')
    if tps:
        L.append('![workloads 2-5](w2_5_tps.png)')
        L.append('')

    if rr or r5:
        L.append('Read workloads (R*): times are compared as heap / hotheap (a speedup) or '
                 'hotheap / heap (R4, R1/R2 controls), as the target says; the CPU column is the '
                 'same ratio of median backend CPU time per statement (R1, R2, R2t, R4a/b) or the '
                 'throughput equivalent of server CPU per transaction (R3, R4c).')
        L.append('')

    # -- workload 1
    if w1:
        L.append('## Workload 1: the v43 detoasting table')
        L.append('')
        L.append("One `UPDATE t SET ...` over every row of a fresh table (fillfactor 50, autovacuum off "
                 "for the table), timed from the client around the statement inside its transaction; "
                 "`VACUUM ANALYZE` and `CHECKPOINT` before each timed UPDATE, the table dropped after "
                 "it. Every run builds its table anew by copying the same source rows, so heap and "
                 "hotheap update identical data. Index on the value column itself (`CREATE INDEX ... "
                 "USING btree|hash|spgist (v)`); the controls have `PRIMARY KEY (id)` and a btree on a "
                 "short text column `s`, plus an unindexed `n int` and the 3000-byte compressed `v`.")
        L.append('')
        L.append('| case | rows | SET | heap ms (median) | hotheap ms (median) | hotheap vs heap | '
                 'v43 vs master | target | result | backend CPU ms heap / hotheap (median) | CPU change |')
        L.append('|---|---|---|---|---|---|---|---|---|---|---|')
        for r in w1:
            setc = r['setc'].replace('|', '\\|')
            L.append(f"| {r['label']} | {r['rows']} | `{setc}` | {r['heap_ms']:.1f} | "
                     f"{r['hot_ms']:.1f} | {pct(r['change'])} | {r['v43']:+.1f}% | "
                     f"<= {r['target']:+.0f}% | {verdict(r['ok'])} | {r['heap_cpu']:.1f} / "
                     f"{r['hot_cpu']:.1f} | {pct(r['cpu_change'])} |")
        L.append('')
        L.append('Times are wall-clock from the client (what the targets are judged on). The backend CPU '
                 'time (`/proc/PID/schedstat` of the backend around the statement) is shown as a '
                 'cross-check that is less sensitive to other processes competing for the 2 cores; it '
                 'excludes waiting and the WAL writer\'s work.')
        L.append('')
        L.append('Side effects (medians per run; heap / hotheap):')
        L.append('')
        L.append('| case | HOT share | WAL bytes / row | TOAST table growth | index growth (all indexes) |')
        L.append('|---|---|---|---|---|')
        for r in w1:
            L.append(f"| {r['label']} | {share(r['hot_share'][0])} / {share(r['hot_share'][1])} | "
                     f"{r['wal'][0]:.0f} / {r['wal'][1]:.0f} | {fmt_bytes(r['toast'][0])} / "
                     f"{fmt_bytes(r['toast'][1])} | {fmt_bytes(r['idx'][0])} / {fmt_bytes(r['idx'][1])} |")
        L.append('')
        L.append('Individual runs (ms, by round; heap | hotheap):')
        L.append('')
        for r in w1:
            L.append(f"- {r['label']}: {runs_line(sel(rows, 'w1', r['key'], 'heap'))} | "
                     f"{runs_line(sel(rows, 'w1', r['key'], 'hotheap'))}")
        L.append('')
        checks = meta.get('w1_checks', {})
        if checks:
            L.append('How the values are stored (checked on the first table of each case: '
                     '`pg_column_compression(v)`, rows, average `pg_column_size(v)`, average length; '
                     'before the UPDATE -> after it):')
            L.append('')
            L.append('| case | heap | hotheap |')
            L.append('|---|---|---|')
            for r in w1:
                cells = []
                for am in ('heap', 'hotheap'):
                    c = checks.get(f"{r['key']}|{am}", {})
                    fmt = lambda vs: '; '.join(f'{a} x{b}: {c_} B stored, {d} chars' for a, b, c_, d in vs)
                    cells.append(f"{fmt(c.get('values', []))} -> {fmt(c.get('after', []))}")
                L.append(f"| {r['label']} | {cells[0]} | {cells[1]} |")
            L.append('')
            L.append('`none` with a stored size equal to the length means uncompressed; the out-of-line '
                     'cases are STORAGE EXTERNAL and larger than the 2 kB TOAST threshold, so they are '
                     'in the TOAST table (see its growth above).')
            L.append('')

    # -- read path workloads
    if rr or r5:
        L += read_section(rows, meta, rr, r5)

    # -- workloads 2-5
    if tps:
        L += pgbench_section(rows, meta, tps, p)

    L.append('## Files')
    L.append('')
    L.append('- `raw.csv`: every run (workload, case, variant, round, position in the round, '
             'value in ms or TPS, rows/transactions, updates and HOT updates, WAL bytes, index / '
             'TOAST / table sizes before and after, hotplus.so hash, start time).')
    L.append('- `meta.json`: settings, parameters, storage checks.')
    charts = [c for c, present in (('`w1_detoast.png`', w1), ('`w2_5_tps.png`', tps)) if present]
    if charts:
        L.append(f"- {', '.join(charts)}: the charts above.")
    L.append('')
    with open(os.path.join(out, 'report.md'), 'w') as f:
        f.write('\n'.join(L))
    if w1:
        chart_w1(w1, os.path.join(out, 'w1_detoast.png'))
    if tps:
        chart_tps(tps, os.path.join(out, 'w2_5_tps.png'))
