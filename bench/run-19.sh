#!/usr/bin/env bash
# The benchmark suite on PostgreSQL 19, which this machine has only inside the Debian sid
# chroot of the tests (scripts/pg19-chroot.sh: Debian's binary packages need sid's libc):
#
#   bash bench/run-19.sh --workloads r2,r2t,r2s,r4 --out bench/results/read-scans-pg19
#
# Runs bench.py there, as bench/run.sh does here (the same cluster settings, default mode
# unless --quick or --full is given), on the committed tree (git archive HEAD: uncommitted
# changes are not measured), built and installed into the chroot's 19. The chroot has no
# matplotlib: raw.csv and meta.json are copied out and the report and charts rendered here
# (bench.py --report-only).
#
#   bash bench/run-19.sh --production --quick --out bench/results/production-pg19
#
# runs the production workload (bench/production.py, its mode as given) there instead, its
# report likewise rendered here (production.py --report-only).
set -euo pipefail
cd "$(dirname "$0")/.."
out=
mode=default
production=0
args=()
while (($#)); do
	case $1 in
		--out) out=$2; shift 2 ;;
		--quick) mode=quick; shift ;;
		--full) mode=full; shift ;;
		--production) production=1; shift ;;
		*) args+=("$1"); shift ;;
	esac
done
[ -n "$out" ] || { echo "run-19.sh: --out DIR is required" >&2; exit 2; }
chroot_dir=$(bash scripts/pg19-chroot.sh)
inner=$(mktemp -d "$chroot_dir/tmp/hotplus-bench.XXXXXX")
trap 'rm -rf "$inner"' EXIT
git archive HEAD | tar -x -C "$inner"
commit=$(git rev-parse --short HEAD)
# The extra arguments, quoted for the chroot's shell; none is none (printf with no argument
# would print one empty argument, which production.py refuses).
quoted=
((${#args[@]})) && quoted=$(printf ' %q' "${args[@]}")
if ((production)); then
	bash scripts/pg19-chroot.sh run bash -c "cd ${inner#"$chroot_dir"} && export PG_CONFIG=/usr/lib/postgresql/19/bin/pg_config \
		&& make -s >/dev/null && make -s install >/dev/null \
		&& BENCH_COMMIT=$commit python3 bench/production.py --mode $mode --no-report --out results-19$quoted"
	[ -f "$inner/results-19/runs.csv" ] || { echo "run-19.sh: the run inside the chroot wrote no results" >&2; exit 1; }
	mkdir -p "$out"
	cp "$inner/results-19/runs.csv" "$inner/results-19/samples.csv" "$inner/results-19/meta.json" "$out/"
	MPLBACKEND=Agg /usr/bin/python3 bench/production.py --report-only "$out"
	echo "run-19.sh: $out/report.md"
	exit 0
fi
bash scripts/pg19-chroot.sh run bash -c "cd ${inner#"$chroot_dir"} && export PG_CONFIG=/usr/lib/postgresql/19/bin/pg_config \
	&& make -s >/dev/null && make -s install >/dev/null && source bench/cluster-settings.sh \
	&& export BENCH_COMMIT=$commit BENCH_COMMAND='bash bench/run-19.sh$quoted' BENCH_LIB_SOURCE='make install in the sid chroot' \
	&& bash scripts/with-cluster.sh \"\${bench_cluster_settings[@]}\" -- python3 bench/bench.py --mode $mode$quoted --out results-19" || true # the report needs matplotlib
[ -f "$inner/results-19/raw.csv" ] || { echo "run-19.sh: the run inside the chroot wrote no results" >&2; exit 1; }
mkdir -p "$out"
cp "$inner/results-19/raw.csv" "$inner/results-19/meta.json" "$out/"
MPLBACKEND=Agg /usr/bin/python3 bench/bench.py --report-only --out "$out"
echo "run-19.sh: $out/report.md"
