#!/usr/bin/env bash
# PostgreSQL's own regression (installcheck-parallel) and isolation suites, run against a
# cluster where every table is hotheap (default_table_access_method) and the read path is on,
# with the verifier on, in the source tree scripts/build-pg.sh kept for $PG_CONFIG's server.
#
#   PG_CONFIG=/var/cache/hotplus/pg-18-cassert/bin/pg_config bash scripts/pg-suites.sh LOGDIR
#
# A test counts as passed when its output equals PostgreSQL's expected output, or differs
# only in plan shape (scripts/plan-only-diff.py: the HotheapRead node and lines that moved
# under it), or is one of the differences every hotplus installation has (EXPECTED_DIFFS
# below, with the reason). Prints "pg-regress: N passed, N failed" and "pg-isolation: ...".
set -uo pipefail
cd "$(dirname "$0")/.."
# Debian's python3 (the one python3-psycopg2 is installed for) unless PYTHON says otherwise.
PYTHON=${PYTHON:-/usr/bin/python3}
root=$(pwd)
log_dir=${1:?usage: pg-suites.sh LOGDIR}
mkdir -p "$log_dir"
pg_config=${PG_CONFIG:?PG_CONFIG must name the server}
prefix=$(dirname "$(dirname "$pg_config")")
version=$("$pg_config" --version | sed 's/PostgreSQL \([0-9.]*\).*/\1/')
flavour=${prefix##*-}
tree=$(dirname "$prefix")/src/postgresql-$version-$flavour
if [ ! -f "$tree/src/test/regress/pg_regress" ]; then
	echo "pg-suites.sh: no built source tree at $tree (scripts/build-pg.sh keeps it)"
	echo "pg-regress: 0 passed, 1 failed"
	exit 1
fi

# Differences every database with the extension installed shows, whatever the read path does.
declare -A EXPECTED_DIFFS=(
	[create_index]="pg_depend lists the table access method of each table"
	[create_am]="the extension adds an access method and its handler to every database"
	[psql]="\\dA and \\df list the extension's access method and functions"
)

run_suites() {
	# template0 too: the suites create databases from it.
	for db in template1 postgres; do
		psql -X -q -d "$db" -c 'CREATE EXTENSION hotplus' || return 1
	done
	psql -X -q -d postgres -c "UPDATE pg_database SET datallowconn = true WHERE datname = 'template0'"
	psql -X -q -d template0 -c 'CREATE EXTENSION hotplus'
	psql -X -q -d postgres -c "UPDATE pg_database SET datallowconn = false WHERE datname = 'template0'"
	# Server-side COPY TO and lo_export write into results/ as the server's user.
	rm -rf "$tree/src/test/regress/results"
	mkdir -m 777 "$tree/src/test/regress/results"
	make -C "$tree/src/test/regress" installcheck-parallel >"$log_dir/pg-regress.log" 2>&1
	cp "$tree/src/test/regress/regression.diffs" "$log_dir/pg-regress.diffs" 2>/dev/null
	rm -rf "$log_dir/pg-regress-results"
	cp -r "$tree/src/test/regress/results" "$log_dir/pg-regress-results" 2>/dev/null
	make -C "$tree/src/test/isolation" installcheck >"$log_dir/pg-isolation.log" 2>&1
	cp "$tree/src/test/isolation/output_iso/regression.diffs" "$log_dir/pg-isolation.diffs" 2>/dev/null
	return 0
}
export -f run_suites
export tree log_dir

HOTPLUS_SERVER_LOG="$log_dir/pg-suites.server.log" bash scripts/with-cluster.sh \
	-o "shared_preload_libraries = 'hotplus'" -o "default_table_access_method = hotheap" \
	-o "hotplus.verify = on" -o "hotplus.read_path = on" -o "max_prepared_transactions = 10" \
	-- bash -c run_suites

# Tests whose output differs: from the runner's own lines ("test x ... FAILED" on 15,
# "not ok N - x" on 16+).
failed_tests() { # log
	grep -oE '^(test|     ) +[a-z0-9_]+ +\.\.\. +FAILED|^not ok +[0-9]+ +[-+] +[a-z0-9_]+' "$1" |
		sed -E 's/^(test|     ) +([a-z0-9_]+).*/\2/; s/^not ok +[0-9]+ +[-+] +([a-z0-9_]+).*/\1/'
}
all_tests() { # log
	grep -oE '^(test|     ) +[a-z0-9_]+ +\.\.\. |^(not )?ok +[0-9]+ +[-+] +[a-z0-9_]+' "$1" |
		sed -E 's/^(test|     ) +([a-z0-9_]+).*/\2/; s/^(not )?ok +[0-9]+ +[-+] +([a-z0-9_]+).*/\2/'
}

summarize() { # name log diffs
	local name=$1 log=$2 diffs=$3 total bad=0 t
	total=$(all_tests "$log" | wc -l)
	for t in $(failed_tests "$log"); do
		if [ -n "${EXPECTED_DIFFS[$t]:-}" ]; then
			echo "$name: $t differs as expected: ${EXPECTED_DIFFS[$t]}"
		elif "$PYTHON" scripts/plan-only-diff.py "$diffs" "$t"; then
			echo "$name: $t differs in plan shape only"
		else
			echo "$name: $t FAILED (see $diffs)"
			bad=$((bad + 1))
		fi
	done
	((total == 0)) && { tail -20 "$log"; bad=$((bad + 1)); }
	echo "$name: $((total - bad)) passed, $bad failed"
}
summarize pg-regress "$log_dir/pg-regress.log" "$log_dir/pg-regress.diffs"
summarize pg-isolation "$log_dir/pg-isolation.log" "$log_dir/pg-isolation.diffs"
