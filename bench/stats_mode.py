"""What shared statistics cost: single-row hotheap updates, shared mode vs backend mode.

Two throwaway PostgreSQL 15 clusters made by this script (as root, with bench/citus.py's Node):
one preloads hotplus (statistics in shared memory, flushed after every statement), one does not
(each backend counts for itself). The same table in both: 10000 rows of a jsonb document
with an expression index; pgbench -M prepared updates an unindexed field of one random row
(HOT by expression, counted). For 2, 8 and 32 clients, rounds alternate the two clusters.
Prints TPS medians and the shared / backend ratio per client count.

    /usr/bin/python3 bench/stats_mode.py [--rounds 3] [--duration 10]
"""
import argparse
import os
import pwd
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from citus import PGBIN, Node, free_ports  # noqa: E402

SCRIPT = ("\\set id random(1, 10000)\n"
          "UPDATE u SET doc = jsonb_set(doc, '{b}', (:id % 7)::text::jsonb) WHERE id = :id;\n")


def setup(node):
    with node.connect('postgres').cursor() as cur:
        cur.execute('CREATE DATABASE bench')
    node.x('CREATE EXTENSION hotplus')
    node.x('CREATE TABLE u (id int PRIMARY KEY, doc jsonb) USING hotheap WITH (fillfactor = 50)')
    node.x("INSERT INTO u SELECT g, jsonb_build_object('a', g, 'b', 0) FROM generate_series(1, 10000) g")
    node.x("CREATE INDEX u_a ON u ((doc->>'a'))")
    node.x('VACUUM ANALYZE u')


def pgbench(node, clients, duration, script):
    node.x('VACUUM u')
    node.x('CHECKPOINT')
    out = subprocess.run([f'{PGBIN}/pgbench', '-n', '-M', 'prepared', '-c', str(clients), '-j', '2',
                          '-T', str(duration), '-f', script, '-h', node.sockdir, '-p', str(node.port),
                          '-U', 'postgres', 'bench'], capture_output=True, text=True, check=True).stdout
    return float(re.search(r'^tps = ([0-9.]+)', out, re.M).group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--duration', type=int, default=10)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='hotplus-stats-mode.')
    os.chmod(tmp, 0o755)
    owner = pwd.getpwnam('postgres')
    os.chown(tmp, owner.pw_uid, owner.pw_gid)  # initdb runs as postgres
    script = os.path.join(tmp, 'u.sql')
    with open(script, 'w') as f:
        f.write(SCRIPT)
    ports = free_ports(2)
    nodes = {'shared': Node('shared', tmp, tmp, ports[0], 'hotplus', False),
             'backend': Node('backend', tmp, tmp, ports[1], '', False)}
    try:
        for node in nodes.values():
            node.init_and_start()
            setup(node)
        modes = [node.v('SELECT mode FROM hotplus_stat_info()') for node in nodes.values()]
        print(f'modes: {modes}', flush=True)
        for clients in (2, 8, 32):
            tps = {name: [] for name in nodes}
            for r in range(args.rounds):
                order = list(nodes) if r % 2 == 0 else list(reversed(nodes))
                for name in order:
                    tps[name].append(pgbench(nodes[name], clients, args.duration, script))
            med = {name: statistics.median(v) for name, v in tps.items()}
            paired = statistics.median(s / b for s, b in zip(tps['shared'], tps['backend']))
            print(f'{clients:2d} clients: shared {med["shared"]:8.0f} TPS, backend {med["backend"]:8.0f} TPS, '
                  f'shared/backend {med["shared"] / med["backend"]:.3f} (paired median {paired:.3f}); '
                  f'rounds shared {[round(v) for v in tps["shared"]]}, backend {[round(v) for v in tps["backend"]]}',
                  flush=True)
        counted = nodes['shared'].v("SELECT updates FROM hotplus_stat_tables WHERE relname = 'u'")
        upd = nodes['shared'].v("SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'u'")
        print(f'shared mode counted {counted} updates; pg_stat_user_tables {upd}')
    finally:
        for node in nodes.values():
            node.stop()


if __name__ == '__main__':
    main()
