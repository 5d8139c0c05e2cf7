#!/usr/bin/env python3
"""What the read path's node (HotheapRead) costs per statement and saves per row, in
instructions (callgrind, bench/instructions.py's method: n and 2n units in a single-user
backend, fixed costs cancel). The measurements behind core/read_plan.hpp's row threshold.

Each shape runs as a prepared statement with hotplus.read_path on and off on identical fresh
hotheap tables (plans are made per execution for the first five, then a generic plan: both
settings plan the same way). The difference, on minus off, is what the node adds to a
statement of that many rows; over two row counts it splits into a fixed part (per statement)
and a part per row.

    PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config /usr/bin/python3 bench/node_cost.py --out F
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402
from instructions import Cluster, per_unit, print_report  # noqa: E402

WIDE_COLUMNS = 40
SHAPES = {
    # selective deformation: one of 40 columns, the last
    'wide': ('wide', 'SELECT c{last} FROM {t} WHERE id BETWEEN $1 AND $1 + {span}', 'int'),
    # a shared copy of an inline, uncompressed document read twice (JSONB small)
    'small': ('docs_small', "SELECT doc->>'f1', doc->>'f2' FROM {t} WHERE id BETWEEN $1 AND $1 + {span}", 'int'),
    # a shared copy of a compressed inline document read twice (JSONB large)
    'large': ('docs_large', "SELECT doc->>'f1', doc->>'f2' FROM {t} WHERE id BETWEEN $1 AND $1 + {span}", 'int'),
}


def tables(cluster, rows):
    exprs = bench.doc_expressions()
    cols = ', '.join(f'c{k} int' for k in range(1, WIDE_COLUMNS + 1))
    vals = ', '.join(f'g + {k}' for k in range(1, WIDE_COLUMNS + 1))
    sql = []
    for scale in (1, 2):
        sql.append(f'CREATE TABLE wide_{scale} (id int PRIMARY KEY, {cols}) USING hotheap;')
        sql.append(f'INSERT INTO wide_{scale} SELECT g, {vals} FROM generate_series(1, {rows}) g;')
        for size in ('small', 'large'):
            sql.append(f'CREATE TABLE docs_{size}_{scale} (id int PRIMARY KEY, doc jsonb) USING hotheap;')
            sql.append(f'INSERT INTO docs_{size}_{scale} SELECT g, {exprs[size]} FROM generate_series(1, {rows}) g;')
    cluster.sql('\n'.join(sql))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--pg-config', default=os.environ.get('PG_CONFIG', 'pg_config'))
    ap.add_argument('--lib')
    ap.add_argument('--statements', type=int, default=200)
    ap.add_argument('--rows', default='1,20', help='rows per statement, two values')
    ap.add_argument('--shapes', default=','.join(SHAPES))
    ap.add_argument('--out')
    args = ap.parse_args()
    spans = [int(r) for r in args.rows.split(',')]
    n = args.statements
    cluster = Cluster(args.pg_config)
    lines = [f'# The read path node: cost per statement, saving per row (callgrind)', '',
             f'- server: {cluster.version}; {n} and {2 * n} statements per session', '',
             '| shape | rows | read_path on | off | on - off per statement |', '|---|---|---|---|---|']
    try:
        cluster.start()
        cluster.sql('CREATE EXTENSION hotplus;')
        if args.lib:
            cluster.sql(f"UPDATE pg_catalog.pg_proc SET probin = '{os.path.abspath(args.lib)}' "
                        "WHERE probin = '$libdir/hotplus';")
        tables(cluster, 2 * n + max(spans) + 1)
        cluster.sql('VACUUM ANALYZE; CHECKPOINT;')
        cluster.stop()
        diffs = {}
        for shape in args.shapes.split(','):
            table, query, _ = SHAPES[shape]
            for span in spans:
                cost = {}
                for setting in ('on', 'off'):
                    def statements(scale, k, table=table, query=query, span=span):
                        q = query.format(t=f'{table}_{scale}', span=span - 1, last=WIDE_COLUMNS)
                        return [f'PREPARE q(int) AS {q}'] + [f'EXECUTE q({i + 1})' for i in range(k)]
                    cost[setting] = per_unit(cluster, statements, n, (f'hotplus.read_path={setting}',))
                diffs[(shape, span)] = cost['on'] - cost['off']
                lines.append(f'| {shape} | {span} | {cost["on"]:.0f} | {cost["off"]:.0f} | '
                             f'{diffs[(shape, span)]:+.0f} |')
                print(lines[-1], flush=True)
            a, b = spans
            per_row = (diffs[(shape, b)] - diffs[(shape, a)]) / (b - a)
            fixed = diffs[(shape, a)] - a * per_row
            lines.append(f'| {shape} | fixed, per row | | | {fixed:+.0f}, {per_row:+.0f} |')
            print(lines[-1], flush=True)
    finally:
        cluster.stop(check=False)
        cluster.cleanup()
    print_report(lines, args.out)


if __name__ == '__main__':
    main()
