#!/usr/bin/env bash
# The hotplus benchmark suite, as root on Debian 12:
#
#   bash bench/run.sh [--quick|--full]      (or: make bench BENCH_ARGS=--quick)
#
# Installs what it needs from Debian's packages, builds and installs hotplus, starts a
# throwaway PostgreSQL 15 cluster (scripts/with-cluster.sh, like the tests) and runs
# bench/bench.py in it, which writes report.md, raw.csv, meta.json and the PNG charts into
# bench/results/latest (--full: bench/results/updates-pgNN, the kept run of that major).
# Default mode: < 20 minutes on a 2-core machine; --quick: a few minutes; --full: v43's sizes,
# then the production workload (bench/production.py --mode full: durable settings, tables 8x
# shared_buffers, a standby, a 30-minute steady state; about 4 hours more).
#   bash bench/run.sh --production [--quick|--full]    only the production workload (default
#                                                      mode: about 2 hours)
# Extra options after the mode go to bench.py (see bench/bench.py --help), e.g. --rounds 3, or
# with --production to bench/production.py.
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's PostgreSQL 15, for the build, the installation and the cluster.
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}

mode=default
production=0
args=()
for a in "$@"; do
	case "$a" in
	--quick) mode=quick ;;
	--full) mode=full ;;
	--default) mode=default ;;
	--production) production=1 ;;
	*) args+=("$a") ;;
	esac
done

# Build and server dependencies (the project's own list), then the benchmark's own.
bash scripts/install-deps.sh
extra=(python3 python3-psycopg2 python3-matplotlib postgresql-client-15 postgresql-15 sysbench)
missing=()
for p in "${extra[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "bench: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

make -s
make -s install

# Other engineers may rebuild and reinstall hotplus on a shared machine while this runs: the
# benchmark uses a private copy of the library it just built (bench.py points the extension's
# functions at it), and records the commit and the state of the build inputs now.
libdir=$(mktemp -d /tmp/hotplus-bench-lib.XXXXXX)
trap 'rm -rf "$libdir"' EXIT
cp hotplus.so "$libdir/hotplus.so"
chmod 755 "$libdir"
chmod 644 "$libdir/hotplus.so"
export BENCH_LIB="$libdir/hotplus.so"
BENCH_COMMIT=$(git rev-parse --short HEAD)
BENCH_DIRTY=$(git status --porcelain --untracked-files=all -- src Makefile hotplus--1.0.sql hotplus.control | tr '\n' ';')
export BENCH_COMMIT BENCH_DIRTY

# nice -10 (bench.py) gives the cluster priority over other work only across sessions when the
# kernel's autogroup scheduling is off (bench/README.md "Method").
if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
	echo "bench: warning: kernel autogroup scheduling is on: work started from other sessions shares the CPUs" \
		"equally whatever its nice value (echo 0 > /proc/sys/kernel/sched_autogroup_enabled turns it off)" >&2
fi

# Debian's python3 (the one python3-psycopg2 and python3-matplotlib are installed for), not
# whatever python3 comes first in PATH, unless PYTHON says otherwise.
PYTHON=${PYTHON:-/usr/bin/python3}
export BENCH_COMMAND="bash bench/run.sh${*:+ $*}"
export MPLBACKEND=Agg
# The cluster: a temporary data directory (scripts/with-cluster.sh sets the PG* variables
# bench.py connects with); settings as documented in the report.
if ((!production)); then
	# The full mode replaces the kept run of its server major (bench/results/updates-pgNN);
	# the other modes write to bench/results/latest (not tracked) unless told otherwise.
	out=()
	if [ "$mode" = full ] && [[ " ${args[*]:-} " != *" --out "* ]]; then
		out=(--out "bench/results/updates-pg$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')")
	fi
	source bench/cluster-settings.sh
	bash scripts/with-cluster.sh "${bench_cluster_settings[@]}" -- \
		"$PYTHON" bench/bench.py --mode "$mode" ${out[@]+"${out[@]}"} ${args[@]+"${args[@]}"}
fi
# The production workload makes its own clusters (a primary and a standby, hotplus preloaded
# from the installation: the file's hash is recorded at the start and the end of the run).
if ((production)); then
	"$PYTHON" bench/production.py --mode "$mode" ${args[@]+"${args[@]}"}
elif [ "$mode" = full ]; then
	"$PYTHON" bench/production.py --mode full
fi
