#!/usr/bin/env python3
"""Instructions per update of megabyte documents: the update check taking a private copy of the
plan's detoasted old document (hotplus.read_path on) against reading the prefix it needs
(read_path off: the plan detoasts the same number of times either way, see below).

The UPDATE is bench's: doc = jsonb_set(doc, '{counter}', to_jsonb((doc->>'counter')::int + 1)).
Its plan detoasts doc twice with the read path off (doc->>'counter', jsonb_set) and twice with
it on (the marker of doc->>'counter', which the check also reads; jsonb_set is no qualifying
reference). So on - off = the marker's and the registry's cost + the check's copy - the
check's prefix read. Layouts: the large value's key sorts last ('zz...': jsonb orders keys by
length, then bytes), the prefix path's best case; or first ('p'), where the prefix must read past it.
"""
import os, sys
sys.path.insert(0, 'bench')
import instructions as I

pg_config, lib, units = sys.argv[1], sys.argv[2], int(sys.argv[3])
size_kb = int(sys.argv[4]) if len(sys.argv) > 4 else 1024
cluster = I.Cluster(pg_config)
try:
    cluster.start()
    cluster.sql('CREATE EXTENSION hotplus;')
    import shutil
    mine = os.path.join(cluster.dir, 'hotplus.so'); shutil.copy(lib, mine); os.chmod(mine, 0o755)
    cluster.sql(f"UPDATE pg_catalog.pg_proc SET probin = '{mine}' WHERE probin = '$libdir/hotplus';")
    rows = 2 * units
    sql = []
    for layout, key in (('last', 'zzzzzzzzzzzzzzzz'), ('first', 'p')):
        for storage in ('external', 'extended'):
            for scale in (1, 2):
                t = f'm_{layout}_{storage}_{scale}'
                sql.append(f'CREATE TABLE {t} (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 80);')
                sql.append(f'ALTER TABLE {t} ALTER doc SET STORAGE {storage};')
                sql.append(f"""INSERT INTO {t} SELECT g, (SELECT jsonb_object_agg('f' || k, 'v' || mod(g * k, 997)) FROM generate_series(1, 20) k)
                    || jsonb_build_object('counter', 0, '{key}', (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, {size_kb * 1024 // 32}) i))
                    FROM generate_series(1, {rows}) g;""")
                for k in range(1, 21):
                    sql.append(f"CREATE INDEX ON {t} ((doc->>'f{k}'));")
    sql.append('VACUUM ANALYZE; CHECKPOINT;')
    cluster.sql('\n'.join(sql))
    cluster.stop()
    print(f'{cluster.version}; {size_kb} kB documents; {units} and {2 * units} one-row updates per session')
    print('| large value | storage | read_path off (prefix) | on (copy) | on - off |')
    print('|---|---|---:|---:|---:|')
    for layout in ('last', 'first'):
        for storage in ('external', 'extended'):
            cost = {}
            for mode in ('off', 'on'):
                def statements(scale, n, layout=layout, storage=storage):
                    t = f'm_{layout}_{storage}_{scale}'
                    return ([f'PREPARE u(int) AS {I.DOC_UPDATE.format(t=t)}'] +
                            [f'EXECUTE u({(i * 7) % (2 * units) + 1})' for i in range(n)])
                cost[mode] = I.per_unit(cluster, statements, units, (f'hotplus.read_path={mode}',))
            print(f"| {layout} | {storage} | {cost['off']:,.0f} | {cost['on']:,.0f} | {cost['on'] - cost['off']:+,.0f} ({(cost['on'] / cost['off'] - 1) * 100:+.2f}%) |", flush=True)
finally:
    cluster.stop(check=False)
    cluster.cleanup()
