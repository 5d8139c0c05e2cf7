"""Throwaway PostgreSQL servers for the benchmark scripts that run their own clusters
(bench/citus.py: a coordinator and two workers; bench/production.py: a primary and a streaming
standby), as root, the servers running as user postgres.

A Node is one data directory of the server whose programs are in `bindir`, listening only on a
unix socket in `sockdir`, with the settings it was given appended to postgresql.conf.
"""
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import psycopg2


def log(msg):
    print(f'[{time.strftime("%H:%M:%S")}] {msg}', file=sys.stderr, flush=True)


def loadavg():
    """The machine's 1-minute load average: how much else wanted the CPUs."""
    with open('/proc/loadavg') as f:
        return f.read().split()[0]


def context_switches():
    """The machine's context switches since boot (/proc/stat): per transaction, what a run's
    CPU per transaction does not show of how its processes took turns on the CPUs. (Steal
    time would say what the hypervisor took, but this machine's reports none.)"""
    with open('/proc/stat') as f:
        for line in f:
            if line.startswith('ctxt '):
                return int(line.split()[1])
    return 0


def children_cpu_ms(pid):
    """CPU time of the exited, reaped children of a process (cutime + cstime), in ms: the
    backends that exited, for a postmaster."""
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[13]) + int(fields[14])) * 1000.0 / os.sysconf('SC_CLK_TCK')


def sha256(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        raise RuntimeError(f'{" ".join(cmd)} failed ({res.returncode}):\n{res.stdout}\n{res.stderr}')
    return res.stdout


def as_postgres(*cmd):
    return run(['runuser', '-u', 'postgres', '--', *cmd])


def free_ports(count):
    """Ports no one listens on (TCP on localhost, Debian's socket directory) at start."""
    ports = []
    while len(ports) < count:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
        s.close()
        if port not in ports and not os.path.exists(f'/var/run/postgresql/.s.PGSQL.{port}'):
            ports.append(port)
    return ports


def pgbench_result(out):
    """(TPS, transactions) of a pgbench run's standard output; an error if a transaction
    failed."""
    tps = float(re.search(r'^tps = ([0-9.]+) \(without initial', out, re.M).group(1))
    txns = int(re.search(r'number of transactions actually processed: (\d+)', out).group(1))
    failed = re.search(r'number of failed transactions: (\d+)', out)
    if failed and int(failed.group(1)):
        raise RuntimeError(f'pgbench: failed transactions\n{out}')
    return tps, txns


def renice(postmaster_pids, nice):
    """The clusters' processes (and the backends they fork later, which inherit it) and this
    driver (so the pgbench it starts) at CPU priority `nice`. Returns the value set, or 0 if
    it could not be set."""
    pids = {os.getpid()}
    for d in os.listdir('/proc'):
        if d.isdigit():
            try:
                with open(f'/proc/{d}/stat') as f:
                    ppid = int(f.read().rsplit(')', 1)[1].split()[1])
                if ppid in postmaster_pids or int(d) in postmaster_pids:
                    pids.add(int(d))
            except (OSError, ValueError, IndexError):
                pass
    try:
        for pid in pids:
            try:
                os.setpriority(os.PRIO_PROCESS, pid, nice)
            except ProcessLookupError:
                pass
    except OSError as e:
        log(f'cannot renice ({e}); running at normal priority')
        return 0
    log(f'nice {nice} for the clusters ({len(pids) - 1} processes) and the driver')
    return nice


class Node:
    def __init__(self, name, bindir, tmp, sockdir, port, settings, dbname='postgres'):
        self.name, self.bindir, self.sockdir, self.port = name, bindir, sockdir, port
        self.settings = dict(settings)
        self.dbname = dbname
        self.datadir = os.path.join(tmp, name)
        self.logfile = os.path.join(tmp, f'{name}.log')
        self.started = False
        self._conn = None

    def initdb(self, *options):
        as_postgres(f'{self.bindir}/initdb', '-D', self.datadir, '-U', 'postgres', '--auth=trust',
                    '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync', *options)
        self.configure(self.settings)

    def configure(self, settings, header='bench'):
        """Appends settings to postgresql.conf (later lines win) and remembers them."""
        self.settings.update(settings)
        conf = dict(settings, listen_addresses="''", port=str(self.port),
                    unix_socket_directories=f"'{self.sockdir}'")
        with open(os.path.join(self.datadir, 'postgresql.conf'), 'a') as f:
            f.write(f'\n# {header}\n')
            for k, v in conf.items():
                f.write(f'{k} = {v}\n')

    def start(self):
        as_postgres(f'{self.bindir}/pg_ctl', '-D', self.datadir, '-l', self.logfile, '-w', '-t', '600',
                    'start')
        self.started = True
        with open(os.path.join(self.datadir, 'postmaster.pid')) as f:
            self.postmaster_pid = int(f.readline())

    def init_and_start(self, *initdb_options):
        self.initdb(*initdb_options)
        self.start()

    def close(self):
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:
                pass
            self._conn = None

    def stop(self, mode='fast'):
        self.close()
        if self.started:
            try:
                as_postgres(f'{self.bindir}/pg_ctl', '-D', self.datadir, '-m', mode, '-w', '-t', '600',
                            'stop')
                self.started = False
            except Exception as e:
                log(f'{self.name}: stop failed: {e}')

    def connect(self, dbname=None):
        conn = psycopg2.connect(host=self.sockdir, port=self.port, user='postgres',
                                dbname=dbname or self.dbname)
        conn.autocommit = True
        return conn

    @property
    def conn(self):
        if self._conn is None or self._conn.closed:
            self._conn = self.connect()
        return self._conn

    def x(self, sql, args=None):
        with self.conn.cursor() as cur:
            cur.execute(sql, args)

    def q(self, sql, args=None):
        with self.conn.cursor() as cur:
            cur.execute(sql, args)
            return cur.fetchall()

    def v(self, sql, args=None):
        return self.q(sql, args)[0][0]

    def libpq_args(self, dbname=None):
        """-h/-p/-U/dbname for the server's client programs (pgbench, pg_basebackup)."""
        return ['-h', self.sockdir, '-p', str(self.port), '-U', 'postgres', dbname or self.dbname]


def run_and_clean_up(bench, keep):
    """Runs bench.main(), then stops its clusters (bench.stop_clusters()) and removes its
    temporary directory (bench.tmp), unless the run failed or keep is set (then it says where
    the data directories and server logs are). SIGTERM and SIGHUP end the run as ^C does."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda s, f: sys.exit(128 + s))
    ok = False
    try:
        bench.main()
        ok = True
    finally:
        bench.stop_clusters()
        if ok and not keep:
            shutil.rmtree(bench.tmp, ignore_errors=True)
        else:
            log(f'kept {bench.tmp} (data directories and server logs: *.log)')
