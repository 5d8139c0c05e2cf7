#!/usr/bin/env bash
# The hotplus demo, as root on a fresh Debian 12: installs dependencies, builds and installs
# hotplus, starts a throwaway PostgreSQL 15 cluster (scripts/with-cluster.sh), and runs the same JSONB workload (an
# UPDATE of a document field that no index covers, on a table with 10 expression indexes
# over other fields) against a heap table and a hotheap table, side by side; then a read of
# five fields of a toasted jsonb on both (the read path).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-20000}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-15}

bash scripts/install-deps.sh
# Debian's PostgreSQL 15 (what install-deps.sh installs), for the build and the cluster alike.
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
make -s -j"$(nproc)" >/dev/null
make -s install >/dev/null

inside() {
	set -euo pipefail
	# The throughput of each table, in a directory of this run's own.
	tps_dir=$(mktemp -d -t hotplus-demo.XXXXXX)
	trap 'rm -rf "$tps_dir"' EXIT
	psql -X -q -v ON_ERROR_STOP=1 -v rows="$ROWS" -f demo/setup.sql >/dev/null
	echo "Two tables of $ROWS JSONB documents, 10 expression indexes each (doc->>'customer', ...)."
	echo "Workload: 2 clients, UPDATE ... SET doc = jsonb_set(doc, '{counter}', ...) WHERE id = random,"
	echo "for ${SECONDS_PER_RUN}s per table; 'counter' is in no index."
	echo
	for table in docs_heap docs_hotheap; do
		script=$(mktemp)
		printf '%s\n' '\set id random(1, :rows)' \
			"UPDATE $table SET doc = jsonb_set(doc, '{counter}', to_jsonb((doc->>'counter')::int + 1)) WHERE id = :id;" >"$script"
		tps=$(pgbench -n -M prepared -c 2 -j 2 -T "$SECONDS_PER_RUN" -D rows="$ROWS" -f "$script" 2>/dev/null |
			sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
		rm -f "$script"
		printf '%-14s %10.0f TPS\n' "$table" "$tps"
		echo "$tps" >"$tps_dir/$table"
	done
	echo
	psql -X -q -c 'SELECT pg_stat_force_next_flush()' >/dev/null 2>&1 || true
	sleep 1
	psql -X -f demo/report.sql
	awk 'NR==FNR {h=$1; next} {printf "hotheap / heap throughput: %.2fx\n", $1 / h}' \
		"$tps_dir/docs_heap" "$tps_dir/docs_hotheap"
	echo
	echo "Why, according to hotplus (hotplus_stat_tables, cluster-wide: hotplus is preloaded here):"
	psql -X -c "SELECT relname, updates, hot_stock, hot_by_expression, nonhot_index_changed,
	                   nonhot_page_full, round(check_time_ms::numeric / nullif(updates, 0) * 1000, 2) AS check_us_per_update
	            FROM hotplus_stat_tables"
	echo "hot_by_expression: HOT because all 10 expression indexes kept their values; heap cannot know that."
	echo
	echo "Reads (hotplus.read_path): five fields of a toasted jsonb, heap and hotheap."
	psql -X -q -f demo/read.sql
}
export -f inside
export ROWS SECONDS_PER_RUN
bash scripts/with-cluster.sh -o "shared_preload_libraries = 'hotplus'" -- bash -c inside
