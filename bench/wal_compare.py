#!/usr/bin/env python3
"""WAL and stored tuples of the same updates on heap and hotheap twins, record by record.

Where hotheap must write exactly what heap writes (workload 3: an indexed field changed, no
update can be HOT on either table), this shows it: the same sequence of one-row UPDATEs (the
same rows, the same values, each its own transaction) runs on two identical tables, one heap
and one hotheap, from the same state (made alike, VACUUMed, then a CHECKPOINT before each
table's run). pg_waldump lists each run's WAL; the two lists must have the same records in
the same order, of the same sizes (resource manager, record type, record and total length;
the XIDs, LSNs, timestamps and relfilenodes differ by nature). Hint-bit page images of
catalogs (XLOG FPI_FOR_HINT, with data checksums: on by default since PostgreSQL 18) are
counted apart: which catalog page gets its first hint after the checkpoint depends on what
each session read, not on what the updates write; so are the background processes' records
(Standby RUNNING_XACTS, checkpoints), which fall into whichever run is going. The heap pages of both
tables must then hold the same line pointers and the same tuples (lengths, ctids, infomask2
with its HOT bits, data), XIDs and hint bits aside.

hotheap's index hints (hotplus.index_hints, 1.6) let btree delete old versions of an
unchanged key where heap's index would deduplicate or split its page: the Btree records then
differ by design. They are off for this comparison; --index-hints runs hotheap with them on,
compares every record but btree's exactly, and lists btree's apart.

A timed benchmark measures WAL per transaction too (bench.py's wal_bytes), but there it also
depends on how many transactions each run made and on the state the tables were left in by
earlier runs (index page splits and deduplication, room for a new version on its page):
those move it by several percent between runs of one access method. This is the exact
comparison.

    bash scripts/with-cluster.sh -- /usr/bin/python3 bench/wal_compare.py \\
        [--shapes i20_last,i1] [--docs small,large] [--updates 200] [--rows 2000] [--out FILE]

Needs a cluster it may create a database in as a superuser (PG* variables, as bench.py),
pg_waldump on PATH or next to the server's other programs (PG_CONFIG), and pageinspect.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

import psycopg2

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (the workloads' definitions)

RECORD = re.compile(r'^rmgr: (\S+)\s+len \(rec/tot\):\s+(\d+)/\s*(\d+), tx:\s+\d+, lsn: \S+, prev \S+, desc: (\S+)')
FIRST_NORMAL_OID = 16384  # relfilenodes below it: the catalogs' own (initdb's)
HINTS_ON = "on: btree's records compared apart"
BLOCK = re.compile(r'blkref #0: rel \d+/\d+/(\d+)(?: fork \S+)? blk (\d+)')


def waldump_binary():
    pg_config = os.environ.get('PG_CONFIG')
    if pg_config:
        bindir = subprocess.check_output([pg_config, '--bindir'], text=True).strip()
        return os.path.join(bindir, 'pg_waldump')
    return 'pg_waldump'


def records(datadir, start, end):
    """(rmgr, type, record length, total length) of every record between two LSNs."""
    out = subprocess.run([waldump_binary(), '-p', os.path.join(datadir, 'pg_wal'), '-s', start, '-e', end],
                         capture_output=True, text=True)
    result = []
    for line in out.stdout.splitlines():
        m = RECORD.match(line)
        if m:
            b = BLOCK.search(line)
            result.append((m.group(1), m.group(4), int(m.group(2)), int(m.group(3)),
                           (int(b.group(1)), int(b.group(2))) if b else None))
    if not result:
        raise SystemExit(f'pg_waldump found no records between {start} and {end}: {out.stderr[-500:]}')
    return result


def page_tuples(cur, table):
    """Every line pointer and tuple of the table's pages, XIDs and hint bits aside."""
    cur.execute(f"SELECT pg_relation_size('{table}') / current_setting('block_size')::int")
    blocks = cur.fetchone()[0]
    cur.execute(f"""SELECT b, p.lp, p.lp_flags, p.lp_off, p.lp_len, p.t_ctid::text, p.t_infomask2, md5(p.t_data)
                    FROM generate_series(0, {blocks} - 1) b, heap_page_items(get_raw_page('{table}', b)) p
                    ORDER BY b, p.lp""")
    return cur.fetchall()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--shapes', default='i20_last,i20_first,i5_last,i1',
                    help="workload 3's shapes (bench.W3_SHAPES keys, or all)")
    ap.add_argument('--docs', default='small,large')
    ap.add_argument('--rows', type=int, default=2000)
    ap.add_argument('--updates', type=int, default=200, help='one-row UPDATEs per table')
    ap.add_argument('--history', type=int, default=0, metavar='N',
                    help="first N one-row updates of workload 2's unindexed field (HOT on hotheap "
                    'only) on each table, then VACUUM: the tables of bench.py before this '
                    "change, where workload 3 ran after workload 2; the records then differ")
    ap.add_argument('--index-hints', action='store_true',
                    help="hotheap with hotplus.index_hints on: every record but btree's compared exactly")
    ap.add_argument('--out', help='also write the markdown report here')
    args = ap.parse_args()

    bench.ensure_database('walcmp').close()
    conn = psycopg2.connect(dbname='walcmp')
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute('CREATE EXTENSION IF NOT EXISTS pageinspect')
    cur.execute('SHOW data_directory')
    datadir = cur.fetchone()[0]
    cur.execute('SELECT version()')
    version = cur.fetchone()[0]
    exprs = bench.doc_expressions()
    shapes = bench.w3_parse_shapes(args.shapes)
    lines = ['# WAL and tuples of the same updates, heap vs hotheap', '',
             f'- server: {version}', f'- command: `{" ".join(sys.argv)}`',
             f'- {args.updates} one-row UPDATEs per table (prepared, each its own transaction), '
             f'the same rows and values on both; tables of {args.rows} rows, fillfactor 80; hotheap\'s '
             f'index hints {HINTS_ON if args.index_hints else "off"}' +
             (f'; before them, {args.history} updates of the unindexed counter on each table '
              '(HOT on hotheap, not on heap) and a VACUUM' if args.history else ''), '',
             '| documents | shape | field set | heap WAL bytes/update | hotheap WAL bytes/update | '
             'same records | same tuples | records by type (bytes/update; heap\'s, or each when they differ) |',
             '|---|---|---|---|---|---|---|---|']
    failures = 0
    for size in [s for s in args.docs.split(',') if s]:
        cur.execute(f'DROP TABLE IF EXISTS wal_src')
        cur.execute(f'CREATE TABLE wal_src AS SELECT g AS id, {exprs[size]} AS doc '
                    f'FROM generate_series(1, {args.rows}) g')
        for n, position in shapes:
            key = bench.w3_shape_key(n, position)
            field = bench.w3_changed_field(n, position)
            result = {}
            for am in ('heap', 'hotheap'):
                t = f'wal_{size}_{key}_{am}'
                bench.create_w3_table(cur.execute, t, am, 'wal_src', n)
                if args.history:
                    cur.execute(f"PREPARE h(int) AS UPDATE {t} SET doc = jsonb_set(doc, '{{counter}}', "
                                f"to_jsonb((doc->>'counter')::int + 1)) WHERE id = $1")
                    for i in range(args.history):
                        cur.execute('EXECUTE h(%s)', ((i * 104729) % args.rows + 1,))
                    cur.execute('DEALLOCATE h')
                    cur.execute(f'VACUUM {t}')
            for am in ('heap', 'hotheap'):
                t = f'wal_{size}_{key}_{am}'
                cur.execute('DEALLOCATE ALL')
                cur.execute(f"SET hotplus.index_hints = {'on' if args.index_hints else 'off'}")
                cur.execute(f"PREPARE u(text, int) AS UPDATE {t} SET doc = jsonb_set(doc, '{{{field}}}', "
                            f"to_jsonb($1::text)) WHERE id = $2")
                # Planning reads the table's statistics, whose catalog pages then get their
                # first hint bits (a full-page image with data checksums, on by default
                # since PostgreSQL 18): before the checkpoint, not in the measured WAL.
                cur.execute("EXPLAIN EXECUTE u('x', 1)")
                cur.execute('CHECKPOINT')
                cur.execute('SELECT pg_current_wal_insert_lsn()')
                start = cur.fetchone()[0]
                for i in range(args.updates):
                    row = (i * 7919) % args.rows + 1
                    cur.execute('EXECUTE u(%s, %s)', (f'r{(i * 104729) % 1000000000:09d}', row))
                cur.execute('SELECT pg_current_wal_insert_lsn(), '
                            'pg_wal_lsn_diff(pg_current_wal_insert_lsn(), %s)', (start,))
                end, wal = cur.fetchone()
                cur.execute('SELECT pg_switch_wal()')  # the records are on disk for pg_waldump
                result[am] = dict(wal=int(wal), records=records(datadir, start, end), tuples=page_tuples(cur, t))
            # A hint bit's page image of a catalog is no write of the update's table: which
            # catalog page gets one first depends on what each session read; and the
            # checkpointer's and background writer's records (Standby RUNNING_XACTS every 15 s,
            # checkpoints) fall where they fall. Both are counted apart.
            def own(am, btree=not args.index_hints):
                return [r[:4] for r in result[am]['records']
                        if not (r[1] == 'FPI_FOR_HINT' and r[4] is not None and r[4][0] < FIRST_NORMAL_OID)
                        and r[0] != 'Standby' and not r[1].startswith('CHECKPOINT') and (btree or r[0] != 'Btree')]
            catalog_hints = {am: len(result[am]['records']) - len(own(am, btree=True)) for am in ('heap', 'hotheap')}
            same_records = own('heap') == own('hotheap')
            same_tuples = result['heap']['tuples'] == result['hotheap']['tuples']
            failures += not (same_records and same_tuples)
            def top(am):
                by_type = collections.Counter()
                for rmgr, kind, _, total, _ in result[am]['records']:
                    by_type[f'{rmgr}/{kind}'] += total
                return ', '.join(f'{k} {v / args.updates:.0f}' for k, v in by_type.most_common(6))
            top = top('heap') if same_records else f"heap: {top('heap')}; hotheap: {top('hotheap')}"
            hints = ('' if not any(catalog_hints.values()) else
                     f" (catalog hint images and background records apart: {catalog_hints['heap']} / {catalog_hints['hotheap']})")
            if args.index_hints:
                def btree(am):
                    by_type = collections.Counter()
                    for rmgr, kind, _, total, _ in result[am]['records']:
                        if rmgr == 'Btree':
                            by_type[kind] += total
                    return ' '.join(f'{k} {v / args.updates:.0f}' for k, v in sorted(by_type.items()))
                hints += f"; btree's: heap {btree('heap')}, hotheap {btree('hotheap')}"
            lines.append(f"| {size} | {key} | {field} | {result['heap']['wal'] / args.updates:.1f} | "
                         f"{result['hotheap']['wal'] / args.updates:.1f} | {'yes' if same_records else 'NO'}{hints} | "
                         f"{'yes' if same_tuples else 'NO'} | {top} |")
            print(lines[-1], flush=True)
            if not same_records:
                for a, b in zip(own('heap'), own('hotheap')):
                    if a != b:
                        lines.append(f'  first differing record: heap {a}, hotheap {b}')
                        break
    conn.close()
    lines += ['', f'{failures} shape(s) differ' if failures else 'Every shape: the same WAL records and tuples.']
    print('\n'.join(lines[-2:]))
    if args.out:
        with open(args.out, 'w') as f:
            f.write('\n'.join(lines) + '\n')
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
