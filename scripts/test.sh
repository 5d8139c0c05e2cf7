#!/usr/bin/env bash
# Runs every hotplus test on this machine, as root, from a fresh Debian 12: installs
# dependencies, runs the Catch2 unit tests of the pure core, checks the Makefile's test
# lists (REGRESS_TESTS, ISOLATION_TESTS) against sql/ and specs/ and META.json against the
# PGXN spec (scripts/check-meta.py) and each alternative expected file (expected/NAME_N.out)
# against its base and its recorded differences (scripts/check-alternatives.py) once, builds,
# installs, tests and removes the Debian package on Debian's 15 (scripts/package-test.sh,
# before target 15), then for each server target
#   build         build warning-free against that server and install into it
#   regress       pg_regress suite (sql/, expected/) on a throwaway cluster
#   isolation     isolation tester specs (specs/, expected/) on a throwaway cluster
#   direct-update the test module test/modules/direct_update, built warning-free and
#                 installed into that server, and its pg_regress test: C code updating a table
#                 (simple_table_tuple_update()) while a statement updates it is compared in full
#   hint-recorder the test module test/modules/hint_recorder, likewise: the index hints of
#                 non-HOT updates as an index receives them, row by row
#   differential  randomized hotheap-vs-heap differential test, fixed seeds
#   read-differential  randomized read path test: random schemas and queries, identical
#                 results with hotplus.read_path on and off (test/differential/readtest.py)
#   function-results  every built-in function's varlena result leaves the read path as
#                 heap's datum (test/differential/function_results.py)
#   upgrade       every version of the extension's scripts, created and updated, equals a
#                 fresh CREATE EXTENSION (scripts/upgrade-check.sh)
#   tap           TAP tests (t/*.pl, PostgreSQL::Test::Cluster): replication, crashes, upgrades
#                 (t/008: pg_upgrade to the target's server from Debian's 15 with this tree's
#                 hotplus, on targets other than 15 and 19)
#   citus         Citus built into the target's server (scripts/build-citus.sh, once), then
#                 t/citus/*.pl: a coordinator and two workers with distributed hotheap tables
#   discard-*     TARGET-cassert:discard only (make deep): the hot_*, decision_* and read_*
#                 regression tests and every isolation spec but iso_hot_reindex_drop_concurrently
#                 again with debug_discard_caches = 1
#                 (every relcache and catcache entry thrown away at each invalidation point)
#   pg-regress, pg-isolation  assert-enabled targets only: PostgreSQL's own regression and
#                 isolation suites with every table hotheap and the read path on
#                 (scripts/pg-suites.sh; differences allowed: plan shapes, and the three
#                 tests that list the extension's objects)
#   server-log    no assertion failure, leaked reference, memory context corruption or crash
#                 in any server log of the target's runs (scripts/server-log-problems.sh)
# and ends with one summary line "N passed, N failed" (", N skipped" when a step could not
# run here: the Citus steps of a major no Citus release supports, or of every major when the
# vendored Citus sources are missing; HOTPLUS_REQUIRE_CITUS=1, which .ci/run sets, makes
# missing sources a failure instead). Every cluster runs with
# hotplus.verify = on.
#
#   bash scripts/test.sh                  # targets "15 19 18-cassert 15-cassert:core" (.ci/run)
#   bash scripts/test.sh 15 17 18 ...     # any of 15 (Debian's), 15-cassert, 17, 18, 18-cassert, 19
#   bash scripts/test.sh 18-cassert:discard   # the debug_discard_caches runs only (make deep)
#
# A target followed by ":core" runs only build, regress, isolation, direct-update, hint-recorder,
# differential, read-differential, function-results and server-log; ":discard" only build, the
# debug_discard_caches suites (discard-*) and server-log. 15-cassert:core is in the default list because
# PostgreSQL 15 has code of its own (the read path evaluates the executor's expressions,
# compiled for a virtual slot, on heap rows) that only an assert-enabled 15 checks: it
# stopped on TTS_IS_VIRTUAL there once, where release builds and 18-cassert passed.
#
# A target other than 15 is a server built once from Debian's source package into
# /var/cache/hotplus by scripts/build-pg.sh (about 10 minutes on 2 cores), then reused.
#
# The working tree is never built in, cleaned or written to (except test-logs/): the unit
# tests and each target build in a copy of the tree's files (tracked ones with their
# uncommitted changes, and untracked ones git does not ignore) in a temporary directory,
# removed at the end, and the regression and isolation suites run in the target's copy. A
# copy rather than a PGXS VPATH build, because the Makefile's wildcards and -Isrc and the
# tests' "\i test/sql_helpers/..." are relative to the current directory.
set -uo pipefail
cd "$(dirname "$0")/.."
# Debian's python3 (the one python3-psycopg2 is installed for) unless PYTHON says otherwise.
PYTHON=${PYTHON:-/usr/bin/python3}
root=$(pwd)
log_root=${HOTPLUS_LOG_DIR:-$root/test-logs}
mkdir -p "$log_root"
work=$(mktemp -d -t hotplus-test.XXXXXX)
trap 'rm -rf "$work"' EXIT

copy_tree() { # dir: the working tree's files, as they are now, copied to dir
	mkdir -p "$1"
	if ((inside)); then # a copy already (the chroot has no git): all of it but the logs
		(cd "$root" && find . -mindepth 1 -maxdepth 1 ! -name test-logs -exec cp -a -t "$1" {} +)
		return
	fi
	(cd "$root" && git -c safe.directory="$root" ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			# A tracked file deleted in the working tree is left out.
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done | xargs -0 -r cp -P --parents -t "$1")
}
# --inside: run by a target that lives in a chroot (19, scripts/pg19-chroot.sh), on a copy of
# the tree in it: the chroot has its own packages, and the unit tests and test lists ran on
# the host already.
inside=0
if [ "${1:-}" = --inside ]; then
	inside=1
	shift
fi
targets=("$@")
((${#targets[@]})) || targets=(15 19 18-cassert 15-cassert:core)

if ((!inside)); then
	bash scripts/install-deps.sh || { echo "install-deps failed"; echo "0 passed, 1 failed"; exit 1; }
fi

# What the targets need built (the sid chroot, servers from source, Citus), made in the
# background, one after the other and at low priority, while the first targets' tests run:
# on a fresh machine the builds then overlap with tests instead of following them. The
# scripts lock per server, so a target that asks for one still being built waits for it.
prefetch() {
	local t pg
	for t in "${targets[@]}"; do [ "${t%%:*}" = 19 ] && bash scripts/pg19-chroot.sh; done
	for t in "${targets[@]}"; do
		case ${t%%:*} in
			15) pg=/usr/lib/postgresql/15/bin/pg_config ;;
			19) continue ;;
			*-cassert) pg=$(bash scripts/build-pg.sh "${t%%-cassert*}" cassert | tail -n 1) ;;
			*) pg=$(bash scripts/build-pg.sh "${t%%:*}" | tail -n 1) ;;
		esac
		[[ $t == *:* ]] || bash scripts/build-citus.sh "$pg"
	done
}
prefetch_pid=
if ((!inside)); then
	mkdir -p "$log_root"
	nice -n 10 bash -c "$(declare -f prefetch); targets=(${targets[*]}); prefetch" >"$log_root/prefetch.log" 2>&1 &
	prefetch_pid=$!
fi

# The step counter (scripts/lib/steps.sh): each step's time is the time since the previous
# record (steps run one after another); the summary lists them all at the end.
source scripts/lib/steps.sh
steps_start 24 timed

# A step whose command ends with "N passed, N failed": recorded with those counts.
summary_step() { # name log command...
	local name=$1 file=$2 line
	"${@:3}" >"$file" 2>&1
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$file" | tail -1)
	grep -E 'FAIL|^not ok' "$file" | head -30 || true
	if [ -n "$line" ]; then
		set -- $line
		record "$name" "$1" "$3"
	else
		tail -20 "$file"
		record "$name" 0 1
	fi
}

# --- unit: Catch2 (no server involved) -------------------------------------------------
host_checks() {
log_dir=$log_root
copy_tree "$work/unit" || { echo "copying the tree failed"; echo "0 passed, 1 failed"; exit 1; }
make --no-print-directory -C "$work/unit" unit >"$log_dir/unit.log" 2>&1
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

# --- test-lists: every file in sql/ and specs/ is in the Makefile's lists, and back -----
if make -s --no-print-directory -C "$work/unit" check-test-lists >"$log_dir/test-lists.log" 2>&1; then
	record test-lists 1 0
else
	cat "$log_dir/test-lists.log"
	record test-lists 0 1
fi

# --- META.json against the PGXN meta spec and the tree --------------------------------
summary_step meta "$log_dir/meta.log" python3 scripts/check-meta.py

# --- alternatives: each expected/NAME_N.out differs from expected/NAME.out by its recorded
# hunks (expected/NAME_N.hunks) only: a base changed where its alternative was not --------
summary_step alternatives "$log_dir/alternatives.log" python3 scripts/check-alternatives.py

# --- the Debian package: built, installed with apt, tested, removed -----------------------
# Before target 15: it removes every hotplus file from Debian's 15 and leaves none; the
# target's own make install comes after it.
if [[ " ${targets[*]} " == *" 15 "* ]]; then
	summary_step package "$log_dir/package.log" env HOTPLUS_LOG_DIR="$log_dir" bash scripts/package-test.sh
fi
}
((inside)) || host_checks

# --- pg_regress / isolation: count from the runner's own summary ---------------------
regress_suite_in() { # dir name diffs make-variables... : one pg_regress-style suite on a
	# throwaway cluster, run by "make installcheck" in dir (diffs relative to it)
	local dir=$1 name=$2 diffs=$1/$3 file=$log_dir/$2.log rc
	shift
	rm -f "$diffs"
	cluster "$name" make -C "$dir" installcheck "${@:3}" >"$file" 2>&1
	rc=$?
	regress_record "$name" "$file"
	if ((rc != 0)) && [ -f "$diffs" ]; then
		echo "---- $name: $diffs (first 200 lines)"
		head -200 "$diffs"
	fi
	[ -f "$diffs" ] && cp "$diffs" "$log_dir/$name.diffs"
}
regress_suite() { # name diffs make-variables... : in the target's copy of the tree ($build_dir)
	regress_suite_in "$build_dir" "$@"
}

# The test modules (test/modules/*, not part of the extension), each built warning-free in the
# target's copy of the tree and installed into the target's server, then its pg_regress test:
#   direct-update  C code that updates a table with simple_table_tuple_update() while a
#                  statement updating the same table runs is not given the statement's
#                  target columns (src/README.md D8c);
#   hint-recorder  an index AM that is btree but records the executor's `indexUnchanged` of
#                  every entry: what each row's non-HOT update told each index (D16).
module_suite() { # module directory name; the step is named after it, "_" as "-"
	local name=${1//_/-} dir=$build_dir/test/modules/$1 file=$log_dir/${1//_/-}-build.log
	if ! make -C "$dir" >"$file" 2>&1 || ! make -C "$dir" install >>"$file" 2>&1; then
		tail -20 "$file"
		record "$name" 0 1
		return
	fi
	if grep -q 'warning:' "$file"; then
		grep 'warning:' "$file"
		record "$name" 0 1
		return
	fi
	regress_suite_in "$dir" "$name" regression.diffs
}

tap_suite() { # name log-dir files... : TAP files (scripts/tap.sh), counted from prove's summary
	local name=$1 dir=$2 file=$log_dir/$1.log rc total bad good
	HOTPLUS_LOG_DIR=$dir bash scripts/tap.sh "${@:3}" >"$file" 2>&1
	rc=$?
	grep -E '^t/|^Files=|^Result:|Failed' "$file" || true
	total=$(sed -n 's/^Files=[0-9]*, Tests=\([0-9]*\),.*/\1/p' "$file")
	bad=$(grep -oE 'Failed [0-9]+/[0-9]+ subtests' "$file" | awk '{split($2, a, "/"); s += a[1]} END {print s + 0}')
	if ((rc != 0 && bad == 0)); then bad=1; fi
	total=${total:-0}
	good=$((total - bad))
	((good < 0)) && good=0
	((rc != 0)) && tail -30 "$file"
	record "$name" "$good" "$bad"
}

# t/008_pg_upgrade_major.pl's old server: Debian's PostgreSQL 15 with this tree's hotplus,
# which target 15 installed if it ran before in this run, else built and installed here (in
# a copy of the tree). Sets upgrade_from to its installation directory (empty on failure,
# recorded as a failed step: t/008 would be skipped).
debian_15_has_tree=0
debian_15_with_hotplus() {
	local pg=/usr/lib/postgresql/15/bin/pg_config dir=$work/old-15 file=$log_dir/old-15-build.log
	if ((!debian_15_has_tree)); then
		rm -rf "$dir"
		if ! copy_tree "$dir" || ! make -C "$dir" -j"$(nproc)" PG_CONFIG=$pg >"$file" 2>&1 ||
			! make -C "$dir" PG_CONFIG=$pg install >>"$file" 2>&1; then
			tail -20 "$file"
			record "old-15 build" 0 1
			return
		fi
		rm -rf "$dir"
		debian_15_has_tree=1
	fi
	upgrade_from=/usr/lib/postgresql/15
}

pg_config_for() { # target -> pg_config path on stdout
	case $1 in
		15) echo /usr/lib/postgresql/15/bin/pg_config ;;
		19) echo /usr/lib/postgresql/19/bin/pg_config ;; # Debian's, inside the chroot
		*-cassert) bash scripts/build-pg.sh "${1%-cassert}" cassert | tail -n 1 ;;
		*) bash scripts/build-pg.sh "$1" | tail -n 1 ;;
	esac
}

core_done() { # the end of run_target: the server logs checked, the build removed
	# t/010 kills a backend with SIGKILL to check the statistics after a crash: that one line
	# of its own log is expected.
	if HOTPLUS_EXPECTED_LOG='/010_stats_lifecycle_[a-z]*\.log:.*terminated by signal 9: Killed' \
		bash scripts/server-log-problems.sh \
		"$log_dir"/*.server.log $(find "$log_dir/tap" "$log_dir/citus" -name '*.log' 2>/dev/null); then
		record server-log 0 1
	else
		record server-log 1 0
	fi
	rm -rf "$build_dir"
	echo "-- $label: done in $((SECONDS - started)) s"
}

# The debug_discard_caches runs (assert-enabled servers only, target suffix :discard; `make
# deep`): every relcache and catcache entry thrown away at each invalidation point.
discard_suites() {
	local tests specs
	tests=$(cd "$build_dir/sql" && ls hot_*.sql decision_*.sql read_*.sql | sed 's/\.sql$//' | tr '\n' ' ')
	# Not iso_hot_reindex_drop_concurrently: it shows that a prepared plan keeps scanning the
	# original index because no invalidation is processed between its executions, which
	# debug_discard_caches makes untrue (the plan is remade and scans the new index).
	specs=$(cd "$build_dir/specs" && ls *.spec | grep -v '^iso_hot_reindex_drop_concurrently' | sed 's/\.spec$//' | tr '\n' ' ')
	cluster_settings=(-o "debug_discard_caches = 1")
	regress_suite discard-regress regression.diffs REGRESS="${HOTPLUS_DISCARD_TESTS:-$tests}" ISOLATION=
	regress_suite discard-isolation output_iso/regression.diffs REGRESS= ISOLATION="${HOTPLUS_DISCARD_SPECS:-$specs}"
	cluster_settings=()
}

run_target() { # target[:core|:discard]
	local target=${1%%:*} label=$1 mode=full rc
	[[ $1 == *:core ]] && mode=core
	[[ $1 == *:discard ]] && mode=discard
	prefix="[$1] "
	log_dir=$log_root/${1/:/-}
	rm -rf "$log_dir"
	mkdir -p "$log_dir"

	local started=$SECONDS
	PG_CONFIG=$(pg_config_for "$target" 2>"$log_dir/server-build.log")
	if [ ! -x "$PG_CONFIG" ]; then
		tail -n 50 "$log_dir/server-build.log"
		record server 0 1
		return
	fi
	export PG_CONFIG
	echo "-- $label: $("$PG_CONFIG" --version) ($PG_CONFIG, ready after $((SECONDS - started)) s)"

	# --- build: must be warning-free; in a fresh copy of the tree --------------------------
	build_dir=$work/$target
	rm -rf "$build_dir"
	if ! copy_tree "$build_dir"; then
		record build 0 1
		return
	fi
	if make -C "$build_dir" -j"$(nproc)" >"$log_dir/build.log" 2>&1 &&
		make -C "$build_dir" install >>"$log_dir/build.log" 2>&1; then
		[ "$target" = 15 ] && debian_15_has_tree=1 # t/008's old server (debian_15_with_hotplus)
		if grep -q 'warning:' "$log_dir/build.log"; then
			grep 'warning:' "$log_dir/build.log"
			record build 0 1
		else
			record build 1 0
		fi
	else
		tail -40 "$log_dir/build.log"
		record build 0 1
		return
	fi

	# Every suite runs with the verifier on (src/update/verifier.hpp): a decision it disagrees
	# with fails the statement, and so the test.
	cluster() { # name command...
		HOTPLUS_SERVER_LOG="$log_dir/$1.server.log" bash scripts/with-cluster.sh \
			-o "hotplus.verify = on" "${cluster_settings[@]}" -- "${@:2}"
	}
	local cluster_settings=()

	if [ "$mode" = discard ]; then
		if [[ $target == *-cassert ]]; then
			discard_suites
		else
			echo "-- $label: debug_discard_caches needs an assert-enabled server (TARGET-cassert:discard)"
			record discard 0 1
		fi
		core_done
		return
	fi

	if ls sql/*.sql >/dev/null 2>&1; then
		regress_suite regress regression.diffs ISOLATION=
	fi
	if ls specs/*.spec >/dev/null 2>&1; then
		regress_suite isolation output_iso/regression.diffs REGRESS=
	fi
	local module
	for module in direct_update hint_recorder; do
		[ -d "test/modules/$module" ] && module_suite "$module"
	done

	# Fixed seeds, so CI is repeatable; scripts/soak.sh runs random seeds for as long as you like.
	cluster differential "$PYTHON" test/differential/difftest.py --seeds "${HOTPLUS_DIFF_SEEDS:-1-40}" \
		>"$log_dir/differential.log" 2>&1
	grep -E 'FAILED|^    ' "$log_dir/differential.log" | head -60 || true
	local p f line
	p=$(grep -c ' ok (' "$log_dir/differential.log")
	f=$(grep -c ' FAILED ' "$log_dir/differential.log")
	if ! grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$log_dir/differential.log"; then
		tail -20 "$log_dir/differential.log"
		f=$((f + 1))
	fi
	record differential "$p" "$f"

	# The read path: random schemas and queries, identical results with it on and off.
	cluster read-differential "$PYTHON" test/differential/readtest.py \
		--seeds "${HOTPLUS_READ_SEEDS:-1-20}" >"$log_dir/read-differential.log" 2>&1
	grep -E 'FAILED|^    ' "$log_dir/read-differential.log" | head -60 || true
	p=$(grep -c ' ok (' "$log_dir/read-differential.log")
	f=$(grep -c ' FAILED' "$log_dir/read-differential.log")
	if ! grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$log_dir/read-differential.log"; then
		tail -20 "$log_dir/read-differential.log"
		f=$((f + 1))
	fi
	record read-differential "$p" "$f"

	# The read path hands up heap's datums: every built-in function whose result is a varlena,
	# on compressed, out-of-line and short values, read path on and off.
	summary_step function-results "$log_dir/function-results.log" \
		cluster function-results "$PYTHON" test/differential/function_results.py

	if [ "$mode" = core ]; then
		core_done
		return
	fi
	# Every version of the extension's scripts, updated, gives what a fresh install gives.
	summary_step upgrade "$log_dir/upgrade.log" env HOTPLUS_LOG_DIR="$log_dir" \
		bash scripts/upgrade-check.sh

	if ls t/*.pl >/dev/null 2>&1; then
		# t/008 upgrades a 15 cluster to this target's server: not from 15 itself, nor in the
		# sid chroot (19), which has no 15.
		upgrade_from=
		if [ "$target" != 15 ] && ((!inside)); then debian_15_with_hotplus; fi
		HOTPLUS_UPGRADE_FROM=$upgrade_from tap_suite tap "$log_dir" t/*.pl
	fi

	# Citus: hotheap tables distributed over a coordinator and two workers (t/citus), with
	# Citus built into this target's server from the vendored release once.
	local citus_rc=0
	bash scripts/build-citus.sh "$PG_CONFIG" >"$log_dir/citus-build.log" 2>&1 || citus_rc=$?
	if ((citus_rc == 0)); then
		tap_suite citus "$log_dir/citus" t/citus/*.pl
	elif ((citus_rc == 3)); then # nothing to build here: no release for this major, or no sources
		skip citus "$(tail -n 1 "$log_dir/citus-build.log" | sed 's/^build-citus.sh: //')"
	else
		tail -20 "$log_dir/citus-build.log"
		record citus 0 1
	fi

	if [[ $target == *-cassert ]]; then
		# PostgreSQL's own suites with every table hotheap and the read path on.
		bash scripts/pg-suites.sh "$log_dir" >"$log_dir/pg-suites.log" 2>&1
		grep -E 'FAILED|as expected|^  [-+] ' "$log_dir/pg-suites.log" | head -80 || true
		local suite line
		for suite in pg-regress pg-isolation; do
			line=$(grep -E "^$suite: [0-9]+ passed, [0-9]+ failed$" "$log_dir/pg-suites.log")
			if [ -n "$line" ]; then
				set -- $line
				record "$suite" "$2" "$4"
			else
				record "$suite" 0 1
			fi
		done
	fi

	core_done
}

# A target whose server lives in a chroot (19: Debian's binary packages need sid's libc):
# the whole target runs there, on a copy of the tree, by this script with --inside; its step
# lines are shown as they come, its totals and failures join these, its logs come back.
run_target_in_chroot() { # target[:core]
	local label=$1 chroot_dir inner line f
	prefix="[$1] "
	log_dir=$log_root/${1/:/-}
	rm -rf "$log_dir"
	mkdir -p "$log_dir"
	local started=$SECONDS
	if ! chroot_dir=$(bash scripts/pg19-chroot.sh 2>"$log_dir/server-build.log"); then
		tail -n 50 "$log_dir/server-build.log"
		record server 0 1
		return
	fi
	echo "-- $label: Debian sid chroot $chroot_dir (ready after $((SECONDS - started)) s)"
	inner=$(mktemp -d "$chroot_dir/tmp/hotplus-test.XXXXXX")
	copy_tree "$inner/tree"
	: >"$work/inside.log" # before tail follows it (the redirect below is made by the child)
	bash scripts/pg19-chroot.sh run env HOTPLUS_LOG_DIR="${inner#"$chroot_dir"}/logs" \
		bash "${inner#"$chroot_dir"}/tree/scripts/test.sh" --inside "$1" >"$work/inside.log" 2>&1 &
	local pid=$!
	# Its step lines as they come (the chroot's own summary is joined with this one below).
	tail -n +1 -f --pid="$pid" "$work/inside.log" | grep --line-buffered -E '^(== |-- |---- )'
	wait "$pid"
	cp -r "$inner/logs/${1/:/-}/." "$log_dir/" 2>/dev/null
	cp "$work/inside.log" "$log_dir/inside.log"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$work/inside.log" | tail -1)
	if [ -z "$line" ]; then
		tail -n 30 "$work/inside.log"
		rm -rf "$inner"
		record "inside the chroot" 0 1
		return
	fi
	set -- ${line//,/}
	passed=$((passed + $1))
	failed=$((failed + $3))
	skipped=$((skipped + ${5:-0}))
	while IFS= read -r f; do [ -n "$f" ] && failures+=("$f"); done <"$inner/logs/failures"
	while IFS= read -r f; do [ -n "$f" ] && skips+=("$f"); done <"$inner/logs/skips"
	while IFS= read -r f; do [ -n "$f" ] && timings+=("$f"); done <"$inner/logs/timings"
	rm -rf "$inner"
	last_record=$SECONDS
	echo "-- $label: done in $((SECONDS - started)) s"
}

for target in "${targets[@]}"; do
	case ${target%%:*} in
		19) if ((inside)); then run_target "$target"; else run_target_in_chroot "$target"; fi ;;
		*) run_target "$target" ;;
	esac
done
prefix=""
[ -n "$prefetch_pid" ] && wait "$prefetch_pid" 2>/dev/null
if ((inside)); then # for the host's run_target_in_chroot
	printf '%s\n' "${failures[@]}" >"$log_root/failures"
	printf '%s\n' "${skips[@]}" >"$log_root/skips"
	printf '%s\n' "${timings[@]}" >"$log_root/timings"
fi
if ((!inside)) && ((${#timings[@]})); then
	echo "-- time per step:"
	printf '   %s\n' "${timings[@]}"
fi
steps_end "$log_root"
