#!/usr/bin/env bash
# Runs every hotplus test on this machine, as root, from a fresh Debian 12:
# installs dependencies, builds warning-free, installs, then runs
#   unit        Catch2 tests of the pure core (test/unit)
#   regress     pg_regress suite (sql/, expected/) on a throwaway cluster
#   isolation   isolation tester specs (specs/, expected/) on a throwaway cluster
#   differential  randomized hotheap-vs-heap differential test, fixed seeds
#   tap         TAP tests (t/*.pl, PostgreSQL::Test::Cluster): replication, crashes, upgrades
# and ends with one summary line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# Not log/: PGXS's "make clean" removes that.
log_dir=${HOTPLUS_LOG_DIR:-$root/test-logs}
mkdir -p "$log_dir"

bash scripts/install-deps.sh || { echo "install-deps failed"; echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
failures=()

record() { # name passed failed
	passed=$((passed + $2))
	failed=$((failed + $3))
	if (($3 > 0)); then failures+=("$1"); fi
	printf '== %-10s %d passed, %d failed\n' "$1" "$2" "$3"
}

# --- build: must be warning-free -------------------------------------------------------
make clean >/dev/null 2>&1
if make -j2 >"$log_dir/build.log" 2>&1 && make install >>"$log_dir/build.log" 2>&1; then
	if grep -q 'warning:' "$log_dir/build.log"; then
		grep 'warning:' "$log_dir/build.log"
		record build 0 1
	else
		record build 1 0
	fi
else
	tail -40 "$log_dir/build.log"
	record build 0 1
	echo "${passed} passed, ${failed} failed"
	exit 1
fi

# --- unit: Catch2 ---------------------------------------------------------------------
make unit >"$log_dir/unit.log" 2>&1
unit_rc=$?
tail -3 "$log_dir/unit.log"
if grep -q '^All tests passed' "$log_dir/unit.log"; then
	n=$(sed -n 's/^All tests passed (.* in \([0-9]*\) test case.*/\1/p' "$log_dir/unit.log")
	record unit "${n:-1}" 0
else
	p=$(sed -n 's/^test cases:.*| *\([0-9]*\) passed.*/\1/p' "$log_dir/unit.log")
	f=$(sed -n 's/^test cases:.*| *\([0-9]*\) failed.*/\1/p' "$log_dir/unit.log")
	((unit_rc != 0)) && [ -z "$f" ] && f=1
	record unit "${p:-0}" "${f:-1}"
fi

# --- pg_regress / isolation: count from the runner's own summary ------------------------
count_regress() { # name logfile rc
	local name=$1 file=$2 rc=$3 total fails
	# pg_regress 15 centres its summary: " All 17 tests passed. "
	if grep -qE '^ *All [0-9]+ tests passed' "$file"; then
		total=$(grep -oE '^ *All [0-9]+' "$file" | grep -oE '[0-9]+')
		record "$name" "$total" 0
	elif grep -qE '[0-9]+ of [0-9]+ tests failed' "$file"; then
		fails=$(grep -oE '[0-9]+ of [0-9]+ tests failed' "$file" | head -1)
		set -- $fails
		record "$name" $(($3 - $1)) "$1"
	else
		record "$name" 0 1
	fi
	if ((rc != 0)) && [ -f regression.diffs ]; then
		echo "---- $name: regression.diffs (first 200 lines)"
		head -200 regression.diffs
	fi
	[ -f regression.diffs ] && cp regression.diffs "$log_dir/$name.diffs"
}

# -t: a temporary cluster directory even as root; a random port, since pg_createcluster
# would pick the same first free port for two runs that start at once.
virtualenv() { pg_virtualenv -t -v 15 -c "-p $((20000 + RANDOM % 20000))" "$@"; }

if ls sql/*.sql >/dev/null 2>&1; then
	virtualenv make installcheck ISOLATION= >"$log_dir/regress.log" 2>&1
	rc=$?
	grep -E '^(test | +[a-z_]+ +\.\.\.| *All | *[0-9]+ of )' "$log_dir/regress.log" || true
	count_regress regress "$log_dir/regress.log" $rc
fi

if ls specs/*.spec >/dev/null 2>&1; then
	virtualenv make installcheck REGRESS= >"$log_dir/isolation.log" 2>&1
	rc=$?
	grep -E '^(test | +[a-z_]+ +\.\.\.| *All | *[0-9]+ of )' "$log_dir/isolation.log" || true
	count_regress isolation "$log_dir/isolation.log" $rc
fi

# Fixed seeds, so CI is repeatable; scripts/soak.sh runs random seeds for as long as you like.
virtualenv /usr/bin/python3 test/differential/difftest.py --seeds "${HOTPLUS_DIFF_SEEDS:-1-40}" \
	>"$log_dir/differential.log" 2>&1
grep -E 'FAILED|^    ' "$log_dir/differential.log" | head -60 || true
p=$(grep -c ' ok (' "$log_dir/differential.log")
f=$(grep -c ' FAILED ' "$log_dir/differential.log")
if ! grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$log_dir/differential.log"; then
	tail -20 "$log_dir/differential.log"
	f=$((f + 1))
fi
record differential "$p" "$f"

if ls t/*.pl >/dev/null 2>&1; then
	bash scripts/tap.sh >"$log_dir/tap.log" 2>&1
	rc=$?
	grep -E '^t/|^Files=|^Result:|Failed' "$log_dir/tap.log" || true
	total=$(sed -n 's/^Files=[0-9]*, Tests=\([0-9]*\),.*/\1/p' "$log_dir/tap.log")
	bad=$(grep -oE 'Failed [0-9]+/[0-9]+ subtests' "$log_dir/tap.log" | awk '{split($2, a, "/"); s += a[1]} END {print s + 0}')
	if ((rc != 0 && bad == 0)); then bad=1; fi
	total=${total:-0}
	good=$((total - bad))
	((good < 0)) && good=0
	((rc != 0)) && tail -30 "$log_dir/tap.log"
	record tap "$good" "$bad"
fi

if ((failed > 0)); then
	echo "failed suites: ${failures[*]} (logs in $log_dir)"
fi
echo "${passed} passed, ${failed} failed"
((failed == 0))
