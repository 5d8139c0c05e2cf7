#!/usr/bin/env bash
# The tools a DBA runs beside hotplus, each run as documented in doc/using.md ("Working with
# other tools") against throwaway clusters of Debian's PostgreSQL 15 (issue 48, item 3):
#
#   repack      pg_repack of a hotheap table while pgbench updates it, and --only-indexes
#   pglogical   a hotheap provider to a heap and to a hotheap subscriber: initial sync and
#               streamed updates (and output_plugin_libraries, which 15.19 introduced)
#   partman     pg_partman's create_parent + run_maintenance(): children hotheap with
#               default_table_access_method set for the database or the role, heap without
#               it, and hotplus_convert(parent) mending a mixed set
#   postgis     toasted geometries, a GiST and an expression index, HOT updates
#   backup      pgBackRest (local repository, full backup, restore, start) and pg_basebackup
#   dump        pg_dump -Fc restored with hotplus, and into a server without hotplus with
#               the documented pg_restore recipe
#
#   bash scripts/tools-check.sh [WORKFLOW...]      # as root on Debian 12; make tools-check
#
# It installs Debian's packages of the tools (and hotplus's build dependencies), builds
# hotplus and installs it into Debian's 15 (PG_CONFIG; with HOTPLUS_TOOLS_INSTALL=copy into
# a hard-linked copy of that installation instead, which leaves Debian's own hotplus files
# alone for another run that uses them, scripts/test.sh's say), then after every workflow checks
# every hotheap table: still hotheap (pg_class.relam), the same rows (count and md5 of the
# sorted rows), amcheck's bt_index_check(index, heapallindexed) on each btree index, index
# scans returning what sequential scans return, and an update of a jsonb field that only
# hotheap makes HOT (an expression index reads another field) HOT afterwards (the
# transaction's pg_stat_get_xact_tuples_hot_updated and pg_stat_user_tables.n_tup_hot_upd
# after a flush). It ends with "N passed, N failed" and exits 1 on a failure. Not part of
# scripts/test.sh: it changes Debian's installation (packages, and make install unless
# HOTPLUS_TOOLS_INSTALL=copy).
# Logs: test-logs/tools-check/ (HOTPLUS_LOG_DIR to change).
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
source scripts/lib/steps.sh

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
all_workflows=(repack pglogical partman postgis backup dump)
workflows=("$@")
((${#workflows[@]})) || workflows=("${all_workflows[@]}")

for w in "${workflows[@]}"; do
	[[ " ${all_workflows[*]} " == *" $w "* ]] || { echo "tools-check: unknown workflow $w (${all_workflows[*]})" >&2; exit 2; }
done

if ((EUID != 0)); then
	echo "tools-check: run as root (it installs packages and hotplus into Debian's server)" >&2
	exit 2
fi
if ! grep -qs '^VERSION_ID="12"' /etc/os-release || ! grep -qs '^ID=debian' /etc/os-release; then
	echo "tools-check: written for Debian 12 and its PostgreSQL 15 packages" >&2
	exit 2
fi

log_dir=${HOTPLUS_LOG_DIR:-$top/test-logs}/tools-check
rm -rf "$log_dir" && mkdir -p "$log_dir"
started=$SECONDS
steps_start 58 timed

# ---------------------------------------------------------------------------
# Throwaway clusters: NAME's data directory is $work/NAME/data, its socket directory
# $work/NAME; the servers run as postgres (initdb refuses root).
work=$(mktemp -d -t hotplus-tools.XXXXXX)
chmod 755 "$work"
chown postgres: "$work"
declare -A node_port node_bin node_data
running=()
bg_pids=()

as_pg() { runuser -u postgres -- "$@"; }

cleanup() {
	local n p
	for p in "${bg_pids[@]}"; do kill "$p" 2>/dev/null; done
	for n in "${running[@]}"; do
		as_pg "${node_bin[$n]}/pg_ctl" -D "${node_data[$n]}" -m immediate stop >/dev/null 2>&1
	done
	for n in "${!node_data[@]}"; do
		[ -f "$work/$n/server.log" ] && cp "$work/$n/server.log" "$log_dir/server-$n.log"
	done
	rm -rf "$work"
}
trap cleanup EXIT

# pg_tree NAME [without-hotplus]: a copy of Debian's 15 installation under $work/NAME, of
# hard links (a copy where /tmp is another file system) of the server's bin, lib, share and
# include directories, from which the server (and pg_config, for a build) finds the others
# relative to its own binary; without hotplus's files if asked. Prints its bin directory.
# (Nothing in it may be chowned or written to in place: the links are Debian's files;
# make install replaces a file, it does not write into it.)
debian_pg_config=$PG_CONFIG
pg_tree() {
	local root=$work/$1 d libdir sharedir bin includedir
	bin=$("$debian_pg_config" --bindir) libdir=$("$debian_pg_config" --pkglibdir)
	sharedir=$("$debian_pg_config" --sharedir) includedir=$("$debian_pg_config" --includedir)
	for d in "$bin" "$libdir" "$sharedir" "$includedir"; do
		mkdir -p "$root$(dirname "$d")"
		cp -al "$d" "$root$d" 2>/dev/null || cp -a "$d" "$root$d" || return 1
	done
	if [ "${2:-}" = without-hotplus ]; then
		rm -rf "$root$libdir/hotplus.so" "$root$libdir/bitcode/hotplus" "$root$libdir/bitcode/hotplus.index.bc" \
			"$root$sharedir"/extension/hotplus[.-]*
	fi
	echo "$root$bin"
}

# ---------------------------------------------------------------------------
# Packages and hotplus.
tool_packages=(postgresql-15-repack postgresql-15-partman postgresql-15-pglogical postgresql-15-postgis-3 pgbackrest)
echo "== installing: hotplus's build dependencies, ${tool_packages[*]}"
if ! bash scripts/install-deps.sh >"$log_dir/install.log" 2>&1; then
	tail -20 "$log_dir/install.log"
	record install 0 1
	steps_end "$log_dir"
	exit 1
fi
missing=()
for p in "${tool_packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	bash scripts/apt-get.sh update -qq >>"$log_dir/install.log" 2>&1
	if ! bash scripts/apt-get.sh install -y -qq --no-install-recommends "${missing[@]}" >>"$log_dir/install.log" 2>&1; then
		tail -20 "$log_dir/install.log"
		record install 0 1
		steps_end "$log_dir"
		exit 1
	fi
fi
record install 1 0
if [ "${HOTPLUS_TOOLS_INSTALL:-debian}" = copy ]; then
	echo "== hotplus goes into a copy of Debian's 15 ($work/installed)"
	PG_CONFIG=$(pg_tree installed without-hotplus)/pg_config || { record build-and-install 0 1; steps_end "$log_dir"; exit 1; }
fi
bindir=$("$PG_CONFIG" --bindir)
if ! { make -s PG_CONFIG="$PG_CONFIG" && make -s PG_CONFIG="$PG_CONFIG" install; } >"$log_dir/build.log" 2>&1; then
	tail -20 "$log_dir/build.log"
	record build-and-install 0 1
	steps_end "$log_dir"
	exit 1
fi
record build-and-install 1 0
versions=$(
	echo "PostgreSQL: $("$bindir/postgres" --version)"
	echo "hotplus: $(sed -n "s/^default_version = '\(.*\)'/\1/p" hotplus.control) (this tree, $(git rev-parse --short HEAD 2>/dev/null || echo '?'))"
	dpkg-query -W -f='${Package}: ${Version}\n' "${tool_packages[@]}"
	echo "pgbackrest reports: $(pgbackrest version 2>/dev/null)"
	echo "pg_repack reports: $("$bindir/pg_repack" --version 2>/dev/null)"
)
echo "$versions" | sed 's/^/   /'

random_port() { echo $((20000 + RANDOM % 20000)); }

# node_new NAME [BINDIR]: initdb (trust, the locale C, UTF8), a port, fsync off.
node_new() {
	local n=$1 bin=${2:-$bindir}
	mkdir -p "$work/$n" && chown postgres: "$work/$n"
	node_bin[$n]=$bin
	node_data[$n]=$work/$n/data
	node_port[$n]=$(random_port)
	as_pg "$bin/initdb" -D "${node_data[$n]}" -U postgres -A trust --no-sync --locale=C -E UTF8 \
		>"$work/$n/initdb.log" 2>&1 || { cat "$work/$n/initdb.log"; return 1; }
	node_conf "$n" "listen_addresses = ''" "unix_socket_directories = '$work/$n'" "fsync = off"
	# As in every test of hotplus: its verifier on (not on the server without hotplus).
	# HOTPLUS_TOOLS_CONF: one more line, e.g. "hotplus.enabled = off", under which every
	# check of a HOT update that heap would not make HOT must fail (a check of the checks).
	[ "$bin" = "$bindir" ] && node_conf "$n" "hotplus.verify = on" ${HOTPLUS_TOOLS_CONF:+"$HOTPLUS_TOOLS_CONF"}
	return 0
}

# node_adopt NAME DATADIR [BINDIR]: a data directory made elsewhere (a restored backup).
node_adopt() {
	local n=$1 data=$2 bin=${3:-$bindir}
	mkdir -p "$work/$n" && chown postgres: "$work/$n"
	node_bin[$n]=$bin
	node_data[$n]=$data
	node_port[$n]=$(random_port)
	node_conf "$n" "unix_socket_directories = '$work/$n'"
}

node_conf() { # NAME LINE...: appended to postgresql.conf
	local n=$1
	shift
	printf '%s\n' "$@" | as_pg tee -a "${node_data[$n]}/postgresql.conf" >/dev/null
}

node_start() { # NAME: starts it on its port, or on another if that one is taken
	local n=$1 attempt
	for attempt in 1 2 3 4 5; do
		as_pg sed -i "/^port = /d" "${node_data[$n]}/postgresql.conf"
		node_conf "$n" "port = ${node_port[$n]}"
		if as_pg "${node_bin[$n]}/pg_ctl" -D "${node_data[$n]}" -l "$work/$n/server.log" -w -t 300 start \
			>/dev/null 2>&1; then
			running+=("$n")
			return 0
		fi
		grep -qE 'Address already in use|lock file .* already exists' "$work/$n/server.log" || break
		node_port[$n]=$(random_port)
	done
	tail -20 "$work/$n/server.log"
	return 1
}

node_stop() { # NAME
	local n=$1 i
	as_pg "${node_bin[$n]}/pg_ctl" -D "${node_data[$n]}" -w -m fast stop >/dev/null 2>&1
	for i in "${!running[@]}"; do [ "${running[$i]}" = "$n" ] && unset 'running[i]'; done
}

wait_until() { # NAME DB SQL: until SQL returns t (at most 3 minutes)
	local i
	for ((i = 0; i < 360; i++)); do
		[ "$(sql "$1" "$2" "$3" 2>/dev/null)" = t ] && return 0
		sleep 0.5
	done
	return 1
}

connstr() { echo "host=$work/$1 port=${node_port[$1]} dbname=$2 user=postgres"; }

# q NAME DB [psql args]...: psql as postgres (or as $q_user), quiet, unaligned, stopping at
# the first error.
q() {
	local n=$1 db=$2
	shift 2
	as_pg env PATH="$bindir:$PATH" psql -X -q -A -t -v ON_ERROR_STOP=1 -h "$work/$n" -p "${node_port[$n]}" \
		-U "${q_user:-postgres}" -d "$db" "$@"
}
sql() { q "$1" "$2" -c "$3"; } # NAME DB SQL

# A tool as postgres with the node's connection in the environment.
pg_env() { # NAME DB COMMAND...
	local n=$1 db=$2
	shift 2
	as_pg env PATH="$bindir:$PATH" PGHOST="$work/$n" PGPORT="${node_port[$n]}" PGUSER=postgres PGDATABASE="$db" "$@"
}

# ---------------------------------------------------------------------------
# The checks.
pass() { record "$1" 1 0; }
fail() { # NAME MESSAGE...
	record "$1" 0 1
	shift
	printf '   %s\n' "$@"
}
expect() { # NAME GOT WANT
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got:  $2" "want: $3"; fi
}

# Session-local helpers (pg_temp: nothing is left in the database) for one psql run.
cat >"$work/helpers.sql" <<'EOF'
-- (amcheck is created in the database before the checks that call it)
SET check_function_bodies = off;
-- A relation and, if it is partitioned, its partitions (pg_partition_tree() alone returns
-- nothing for a table outside any partition tree).
CREATE FUNCTION pg_temp.tc_tables(rel regclass) RETURNS SETOF regclass LANGUAGE sql AS $f$
  SELECT rel UNION SELECT relid FROM pg_catalog.pg_partition_tree(rel)
$f$;
-- The access methods of every table of a relation (a partitioned table's partitions).
CREATE FUNCTION pg_temp.tc_ams(rel regclass) RETURNS text LANGUAGE sql AS $f$
  SELECT coalesce(string_agg(DISTINCT a.amname, ',' ORDER BY a.amname), '(none)')
  FROM pg_temp.tc_tables(rel) p(relid)
  JOIN pg_catalog.pg_class c ON c.oid = p.relid
  JOIN pg_catalog.pg_am a ON a.oid = c.relam
  WHERE c.relkind IN ('r', 'm')
$f$;
-- Its rows: their number and the md5 of their text, sorted.
CREATE FUNCTION pg_temp.tc_rows(rel regclass) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE result text;
BEGIN
  EXECUTE format('SELECT count(*) || '' '' || md5(coalesce(string_agg(r, E''\n'' ORDER BY r), ''''))
                  FROM (SELECT tc_row::text AS r FROM %s tc_row) s', rel) INTO result;
  RETURN result;
END
$f$;
-- The btree indexes of a relation's tables.
CREATE FUNCTION pg_temp.tc_btrees(rel regclass)
RETURNS TABLE (idx regclass, idxname name, tab regclass, key text, pred text) LANGUAGE sql AS $f$
  SELECT i.indexrelid::regclass, ic.relname, i.indrelid::regclass,
         pg_catalog.pg_get_indexdef(i.indexrelid, 1, true),
         pg_catalog.pg_get_expr(i.indpred, i.indrelid, true)
  FROM pg_temp.tc_tables(rel) p(relid)
  JOIN pg_catalog.pg_index i ON i.indrelid = p.relid
  JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
  JOIN pg_catalog.pg_am am ON am.oid = ic.relam
  WHERE am.amname = 'btree' AND ic.relkind = 'i'
  ORDER BY 2
$f$;
-- amcheck with heapallindexed on each: the number checked (an error stops psql).
CREATE FUNCTION pg_temp.tc_amcheck(rel regclass) RETURNS bigint LANGUAGE sql AS $f$
  SELECT count(*) FROM (SELECT public.bt_index_check(idx, true) FROM pg_temp.tc_btrees(rel)) s
$f$;
-- For each btree index: the rows an index scan of it finds (first key not null, and the
-- index's predicate) equal those a sequential scan finds; the plan must use that index.
-- Returns the number of indexes compared, or raises naming the first difference.
CREATE FUNCTION pg_temp.tc_scans(rel regclass) RETURNS int LANGUAGE plpgsql AS $f$
DECLARE b record; query text; plan text; by_index text; by_seq text; n int := 0;
BEGIN
  FOR b IN SELECT * FROM pg_temp.tc_btrees(rel) LOOP
    query := format('SELECT count(*) || '' '' || md5(coalesce(string_agg(r, E''\n'' ORDER BY r), ''''))
                     FROM (SELECT tc_row::text AS r FROM %s tc_row WHERE (%s) IS NOT NULL%s) s',
                    b.tab, b.key, CASE WHEN b.pred IS NOT NULL THEN format(' AND (%s)', b.pred) ELSE '' END);
    PERFORM set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
            set_config('enable_indexonlyscan', 'off', true), set_config('enable_indexscan', 'on', true);
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
    IF plan NOT LIKE format('%%"Index Name": "%s"%%', b.idxname) THEN
      RAISE EXCEPTION 'index %: the plan does not use it: %', b.idx, plan;
    END IF;
    EXECUTE query INTO by_index;
    PERFORM set_config('enable_seqscan', 'on', true), set_config('enable_indexscan', 'off', true);
    EXECUTE query INTO by_seq;
    IF by_index IS DISTINCT FROM by_seq THEN
      RAISE EXCEPTION 'index %: index scan finds % rows, sequential scan %', b.idx, by_index, by_seq;
    END IF;
    n := n + 1;
  END LOOP;
  RETURN n;
END
$f$;
-- HOT updates of a relation's tables: this transaction's, and pg_stat_user_tables' count.
CREATE FUNCTION pg_temp.tc_xact_hot(rel regclass) RETURNS text LANGUAGE sql AS $f$
  SELECT sum(pg_catalog.pg_stat_get_xact_tuples_hot_updated(relid)) || ' of '
         || sum(pg_catalog.pg_stat_get_xact_tuples_updated(relid))
  FROM pg_temp.tc_tables(rel) p(relid)
$f$;
CREATE FUNCTION pg_temp.tc_hot_total(rel regclass) RETURNS bigint LANGUAGE sql AS $f$
  SELECT coalesce(sum(n_tup_hot_upd), 0) FROM pg_catalog.pg_stat_user_tables
  WHERE relid IN (SELECT pg_temp.tc_tables(rel))
$f$;
EOF
chmod 644 "$work/helpers.sql"
hq() { q "$1" "$2" -f "$work/helpers.sql" "${@:3}"; } # q with the helpers

# fingerprint NAME DB TABLE: "access methods | rows" of TABLE.
fingerprint() { hq "$1" "$2" -c "SELECT pg_temp.tc_ams('$3') || ' | ' || pg_temp.tc_rows('$3')"; }

# verify LABEL NAME DB TABLE WANT_AM WANT_FINGERPRINT HOT_SET HOT_WHERE HOT_N
# The table's access methods and rows against a fingerprint (of the table before the
# workflow, or of a twin that got the same changes; none: no rows check),
# amcheck, index against sequential scans, then an update (SET HOT_SET WHERE HOT_WHERE) of
# HOT_N rows that must all be HOT (when WANT_AM is hotheap; on heap none may be), then
# amcheck and the scans again.
verify() {
	local label=$1 n=$2 db=$3 t=$4 am=$5 want=$6 set=$7 where=$8 k=$9 got out
	sql "$n" "$db" "CREATE EXTENSION IF NOT EXISTS amcheck" >/dev/null 2>&1
	got=$(fingerprint "$n" "$db" "$t" 2>&1)
	expect "$label: $t is $am" "${got%% |*}" "$am"
	[ -n "$want" ] && expect "$label: $t has the same rows" "${got#* | }" "${want#* | }"
	out=$(hq "$n" "$db" -c "SELECT pg_temp.tc_amcheck('$t') || ' ' || pg_temp.tc_scans('$t')" 2>&1)
	if [[ $out =~ ^([0-9]+)\ ([0-9]+)$ ]] && ((BASH_REMATCH[1] > 0 && BASH_REMATCH[1] == BASH_REMATCH[2])); then
		pass "$label: $t: amcheck, index = seq scans (${BASH_REMATCH[1]} btrees)"
	else
		fail "$label: $t: amcheck, index = seq scans" "$out"
	fi
	[ -z "$set" ] && return
	out=$(hq "$n" "$db" -c "SELECT pg_temp.tc_hot_total('$t')" -c "BEGIN" \
		-c "UPDATE $t SET $set WHERE $where" -c "SELECT pg_temp.tc_xact_hot('$t')" -c "COMMIT" \
		-c "SELECT pg_stat_force_next_flush()" -c "SELECT pg_temp.tc_hot_total('$t')" 2>&1 | tr '\n' ' ')
	local before after xact
	if [[ $out =~ ^([0-9]+)\ ([0-9]+\ of\ [0-9]+)\ +([0-9]+)\ $ ]]; then
		before=${BASH_REMATCH[1]} xact=${BASH_REMATCH[2]} after=${BASH_REMATCH[3]}
		if [ "$am" = heap ]; then
			expect "$label: $t: the update is not HOT on heap" "$xact, n_tup_hot_upd +$((after - before))" "0 of $k, n_tup_hot_upd +0"
		else
			expect "$label: $t: the update is HOT" "$xact, n_tup_hot_upd +$((after - before))" "$k of $k, n_tup_hot_upd +$k"
		fi
	else
		fail "$label: $t: the update is HOT" "$out"
	fi
	out=$(hq "$n" "$db" -c "SELECT pg_temp.tc_amcheck('$t') || ' ' || pg_temp.tc_scans('$t')" 2>&1)
	if [[ $out =~ ^([0-9]+)\ ([0-9]+)$ ]] && ((BASH_REMATCH[1] > 0 && BASH_REMATCH[1] == BASH_REMATCH[2])); then
		pass "$label: $t: after it, amcheck, index = seq scans"
	else
		fail "$label: $t: after it, amcheck, index = seq scans" "$out"
	fi
}

# The test table: a jsonb document with an expression index on one field (an update of
# another field is HOT only on hotheap), a partial index, values toasted out of line.
docs_sql() { # TABLE AM ROWS
	cat <<EOF
CREATE TABLE $1 (id int PRIMARY KEY, doc jsonb NOT NULL, n int NOT NULL DEFAULT 0, big text)
  USING $2 WITH (fillfactor = 70);
ALTER TABLE $1 ALTER big SET STORAGE EXTERNAL;
INSERT INTO $1 SELECT g, jsonb_build_object('a', g % 97, 'b', 0), CASE WHEN g % 20 = 0 THEN -g ELSE 0 END,
  CASE WHEN g % 25 = 0 THEN repeat(md5(g::text), 100) END
FROM generate_series(1, $3) g;
CREATE INDEX ${1}_a ON $1 ((doc->>'a'));
CREATE INDEX ${1}_neg ON $1 (n) WHERE n < 0;
EOF
}
# The update that only hotheap makes HOT: field b, which no index reads.
hot_set="doc = jsonb_set(doc, '{b}', to_jsonb((doc->>'b')::int + 1))"

workflow_header() { echo "== $1"; workflow_started=$SECONDS; wf_log=$log_dir/${1%%:*}.log; }
logged() { "$@" >>"$wf_log" 2>&1; } # COMMAND...: its output to the workflow's log
workflow_footer() { echo "   ($1: $((SECONDS - workflow_started)) s)"; }

# ---------------------------------------------------------------------------
# Workflows.

# A partitioned table with hotheap partitions, an expression index on its parent, values
# compressed in line.
parted_sql() { # TABLE
	cat <<EOS
CREATE TABLE $1 (id int, doc jsonb NOT NULL, big text, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE TABLE ${1}_1 PARTITION OF $1 FOR VALUES FROM (0) TO (1000) USING hotheap WITH (fillfactor = 70);
CREATE TABLE ${1}_2 PARTITION OF $1 FOR VALUES FROM (1000) TO (2000) USING hotheap WITH (fillfactor = 70);
CREATE INDEX ${1}_a ON $1 ((doc->>'a'));
INSERT INTO $1 SELECT g, jsonb_build_object('a', g % 89, 'b', 0),
  CASE WHEN g % 30 = 0 THEN repeat(md5(g::text), 100) END
FROM generate_series(0, 1999) g;
EOS
}

wf_dump() {
	workflow_header "dump: pg_dump -Fc; pg_restore with hotplus, and into a server without it"
	local l=$log_dir/dump.log dump=$work/dump/src.dump fp_docs fp_parted out rc tree
	node_new dump >>"$l" 2>&1 && node_start dump >>"$l" 2>&1 || { fail "dump: cluster starts" "$(tail -5 "$l")"; return; }
	sql dump postgres "CREATE DATABASE src" >>"$l" 2>&1
	q dump src -c "CREATE EXTENSION hotplus" -c "$(docs_sql docs hotheap 2000)" -c "$(parted_sql parted)" >>"$l" 2>&1
	fp_docs=$(fingerprint dump src docs) fp_parted=$(fingerprint dump src parted)
	expect "dump: source tables are hotheap" "${fp_docs%% |*} ${fp_parted%% |*}" "hotheap hotheap"
	pg_env dump src pg_dump -Fc -f "$dump" >>"$l" 2>&1
	check "dump: pg_dump -Fc" test -s "$dump"

	# Into a database of a server with hotplus: the dump creates the extension, the tables
	# are hotheap.
	sql dump postgres "CREATE DATABASE restored" >>"$l" 2>&1
	check "dump: pg_restore --exit-on-error (with hotplus)" pg_env dump restored pg_restore --exit-on-error -d restored "$dump"
	verify "dump: with hotplus" dump restored docs hotheap "$fp_docs" "$hot_set" "id BETWEEN 101 AND 110" 10
	verify "dump: with hotplus" dump restored parted hotheap "$fp_parted" "$hot_set" "id BETWEEN 101 AND 110" 10
	node_stop dump

	# A server without hotplus's files.
	if ! tree=$(pg_tree nohotplus-tree without-hotplus 2>>"$l"); then
		fail "dump: a copy of the server without hotplus" "$(tail -5 "$l")"
		return
	fi
	node_new nohotplus "$tree" >>"$l" 2>&1 && node_start nohotplus >>"$l" 2>&1 ||
		{ fail "dump: the server without hotplus starts" "$(tail -5 "$l")"; return; }
	out=$(sql nohotplus postgres "SELECT count(*) FROM pg_available_extensions WHERE name = 'hotplus'" 2>&1)
	expect "dump: that server has no hotplus" "$out" 0
	# Without the recipe: the errors, and heap tables.
	sql nohotplus postgres "CREATE DATABASE plain" >>"$l" 2>&1
	out=$(pg_env nohotplus plain pg_restore -d plain "$dump" 2>&1)
	rc=$?
	echo "$out" >>"$l"
	echo "   plain pg_restore (exit $rc): $(echo "$out" | grep -E '^pg_restore: error' | sed 's/^pg_restore: error: //' | paste -sd ';' | cut -c1-400)"
	expect "dump: plain pg_restore fails there" "$rc $(echo "$out" | grep -o "errors ignored on restore: [0-9]*")" "1 errors ignored on restore: 3"
	out=$(sql nohotplus plain "SELECT string_agg(DISTINCT a.amname, ',') FROM pg_class c JOIN pg_am a ON a.oid = c.relam
		WHERE c.relname IN ('docs', 'parted_1', 'parted_2')" 2>&1)
	expect "dump: ... and restores the tables as heap" "$out" heap
	# The recipe.
	as_pg env PATH="$bindir:$PATH" pg_restore -l "$dump" | grep -v 'EXTENSION.*hotplus' >"$work/dump/list"
	chmod 644 "$work/dump/list"
	out=$(as_pg env PATH="$bindir:$PATH" pg_restore -L "$work/dump/list" --no-table-access-method -f - "$dump" 2>&1)
	expect "dump: the recipe's SQL names neither hotplus nor hotheap" "$(echo "$out" | grep -ciE 'hotplus|hotheap')" 0
	sql nohotplus postgres "CREATE DATABASE recipe" >>"$l" 2>&1
	out=$(pg_env nohotplus recipe pg_restore -L "$work/dump/list" --no-table-access-method --exit-on-error -d recipe "$dump" 2>&1)
	rc=$?
	echo "$out" >>"$l"
	expect "dump: the recipe: pg_restore --exit-on-error exits 0" "$rc${out:+: $out}" 0
	verify "dump: without hotplus" nohotplus recipe docs heap "$fp_docs" "$hot_set" "id BETWEEN 101 AND 110" 10
	verify "dump: without hotplus" nohotplus recipe parted heap "$fp_parted" "$hot_set" "id BETWEEN 101 AND 110" 10
	node_stop nohotplus
	workflow_footer dump
}

wf_backup() {
	workflow_header "backup: pgBackRest (full backup, WAL, restore) and pg_basebackup"
	local l=$log_dir/backup.log b=$work/backup out rc fp_docs fp_parted
	node_new primary >>"$l" 2>&1 || { fail "backup: cluster" "$(tail -5 "$l")"; return; }
	mkdir -p "$b/repo" "$b/log" "$b/lock" "$b/spool"
	chown -R postgres: "$b"
	node_conf primary "archive_mode = on" \
		"archive_command = 'pgbackrest --config=$b/pgbackrest.conf --stanza=tc archive-push %p'"
	node_start primary >>"$l" 2>&1 || { fail "backup: cluster starts" "$(tail -5 "$l")"; return; }
	cat >"$b/pgbackrest.conf" <<EOC
[global]
repo1-path=$b/repo
repo1-retention-full=1
log-path=$b/log
lock-path=$b/lock
spool-path=$b/spool
start-fast=y
log-level-console=warn

[tc]
pg1-path=${node_data[primary]}
pg1-socket-path=$work/primary
pg1-port=${node_port[primary]}
pg1-user=postgres
EOC
	chown postgres: "$b/pgbackrest.conf"
	local br=(pgbackrest "--config=$b/pgbackrest.conf" --stanza=tc)
	q primary postgres -c "CREATE EXTENSION hotplus" -c "$(docs_sql docs hotheap 2000)" -c "$(parted_sql parted)" \
		-c "UPDATE docs SET $hot_set WHERE id % 7 = 0" >>"$l" 2>&1
	check "backup: pgbackrest stanza-create" as_pg "${br[@]}" stanza-create
	check "backup: pgbackrest check" as_pg "${br[@]}" check
	check "backup: pgbackrest backup --type=full" as_pg "${br[@]}" backup --type=full
	fp_docs=$(fingerprint primary postgres docs)
	# Changes after the backup, which the restore replays from the archived WAL.
	q primary postgres -c "UPDATE docs SET $hot_set WHERE id % 11 = 0" \
		-c "UPDATE docs SET n = n - 1 WHERE id % 13 = 0" \
		-c "UPDATE parted SET $hot_set WHERE id % 5 = 0" >>"$l" 2>&1
	# check switches to a new WAL segment and waits until the archive has the last one.
	as_pg "${br[@]}" check >>"$l" 2>&1
	out=$fp_docs
	fp_docs=$(fingerprint primary postgres docs) fp_parted=$(fingerprint primary postgres parted)
	echo "$fp_docs / $fp_parted" >>"$l"
	expect "backup: source tables are hotheap" "${fp_docs%% |*} ${fp_parted%% |*}" "hotheap hotheap"
	check "backup: the rows changed after the backup" test "$out" != "$fp_docs"
	as_pg "${br[@]}" info >>"$l" 2>&1

	mkdir -p "$work/restored" && chown postgres: "$work/restored"
	check "backup: pgbackrest restore into a new data directory" \
		as_pg "${br[@]}" "--pg1-path=$work/restored/data" restore
	node_adopt restored "$work/restored/data"
	node_conf restored "archive_mode = off"
	if node_start restored >>"$l" 2>&1; then
		pass "backup: the restored server starts (pgBackRest)"
		# pg_ctl returns once the server accepts (read-only) connections; recovery goes on
		# to the end of the archived WAL, then the server is promoted.
		check "backup: the restored server ends recovery" wait_until restored postgres "SELECT NOT pg_is_in_recovery()"
		verify "backup: pgBackRest" restored postgres docs hotheap "$fp_docs" "$hot_set" "id BETWEEN 101 AND 110" 10
		verify "backup: pgBackRest" restored postgres parted hotheap "$fp_parted" "$hot_set" "id BETWEEN 101 AND 110" 10
		node_stop restored
	else
		fail "backup: the restored server starts (pgBackRest)" "$(tail -5 "$work/restored/server.log")"
	fi

	# pg_basebackup of the same server, started as a server of its own.
	mkdir -p "$work/basebackup" && chown postgres: "$work/basebackup"
	check "backup: pg_basebackup" pg_env primary postgres pg_basebackup -D "$work/basebackup/data" -X stream -c fast
	node_adopt basebackup "$work/basebackup/data"
	node_conf basebackup "archive_mode = off"
	if node_start basebackup >>"$l" 2>&1; then
		pass "backup: the server of the base backup starts"
		verify "backup: pg_basebackup" basebackup postgres docs hotheap "$fp_docs" "$hot_set" "id BETWEEN 101 AND 110" 10
		verify "backup: pg_basebackup" basebackup postgres parted hotheap "$fp_parted" "$hot_set" "id BETWEEN 101 AND 110" 10
		node_stop basebackup
	else
		fail "backup: the server of the base backup starts" "$(tail -5 "$work/basebackup/server.log")"
	fi
	node_stop primary
	workflow_footer backup
}

# pg_partman's set: a partitioned table with an expression index; its rows also in a heap
# table events_rows, to compare with.
events_sql() {
	cat <<EOS
CREATE TABLE public.events (id int NOT NULL, doc jsonb NOT NULL, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE INDEX events_a ON public.events ((doc->>'a'));
CREATE TABLE public.events_rows AS SELECT g AS id, jsonb_build_object('a', g % 7, 'b', 0) AS doc
FROM generate_series(0, 299) g;
EOS
}
# As documented: create_parent, rows, then run_maintenance(), which makes the next children.
# (Children are made with LIKE, without the table's fillfactor: a child's page of 100 rows
# has room for 7 more versions, so the HOT check updates 5 rows.)
partman_sql="SELECT partman.create_parent('public.events', 'id', 'native', '100', p_premake := 2);
INSERT INTO public.events SELECT * FROM public.events_rows;
SELECT partman.run_maintenance();"
# The children: how many of each access method.
children_sql="SELECT string_agg(amname || ':' || n, ' ' ORDER BY amname) FROM (
  SELECT a.amname, count(*) AS n FROM pg_partition_tree('public.events') p
  JOIN pg_class c ON c.oid = p.relid JOIN pg_am a ON a.oid = c.relam
  WHERE p.isleaf GROUP BY 1) s"

partman_db() { # DB: the extensions
	sql partman postgres "CREATE DATABASE $1" &&
		q partman "$1" -c "CREATE EXTENSION hotplus" -c "CREATE SCHEMA partman" \
			-c "CREATE EXTENSION pg_partman SCHEMA partman"
}

wf_partman() {
	workflow_header "partman: create_parent and run_maintenance() with and without the default"
	local l=$log_dir/partman.log out want
	node_new partman >>"$l" 2>&1 && node_start partman >>"$l" 2>&1 || { fail "partman: cluster starts" "$(tail -5 "$l")"; return; }

	# 1. The database's default: every child hotheap (p0 to p400 and the default partition).
	partman_db pm_database >>"$l" 2>&1
	sql partman postgres "ALTER DATABASE pm_database SET default_table_access_method = hotheap" >>"$l" 2>&1
	# (With a fillfactor on the template table, which pg_partman gives the children it makes
	# after: run_maintenance() makes events_p300 and events_p400.)
	q partman pm_database -c "$(events_sql)" \
		-c "SELECT partman.create_parent('public.events', 'id', 'native', '100', p_premake := 2)" \
		-c "ALTER TABLE partman.template_public_events SET (fillfactor = 70)" \
		-c "INSERT INTO public.events SELECT * FROM public.events_rows" \
		-c "SELECT partman.run_maintenance()" >>"$l" 2>&1
	expect "partman: database default: children" "$(sql partman pm_database "$children_sql" 2>&1)" "hotheap:6"
	out=$(sql partman pm_database "SELECT string_agg(c.relname, ' ' ORDER BY c.relname)
		FROM pg_partition_tree('public.events') p JOIN pg_class c ON c.oid = p.relid
		WHERE p.isleaf AND c.reloptions @> '{fillfactor=70}'" 2>&1)
	expect "partman: children made after get the template's fillfactor" "$out" "events_p300 events_p400"
	want=$(fingerprint partman pm_database events_rows)
	verify "partman: database default" partman pm_database events hotheap "$want" "$hot_set" "id BETWEEN 101 AND 105" 5

	# 2. The role's default, for a role (not a superuser) that owns the set and runs the
	# maintenance, with the grants pg_partman documents.
	partman_db pm_role >>"$l" 2>&1
	q partman pm_role -c "CREATE ROLE pm_maint LOGIN" \
		-c "ALTER ROLE pm_maint SET default_table_access_method = hotheap" \
		-c "GRANT ALL ON SCHEMA partman, public TO pm_maint" \
		-c "GRANT ALL ON ALL TABLES IN SCHEMA partman TO pm_maint" \
		-c "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA partman TO pm_maint" \
		-c "GRANT EXECUTE ON ALL PROCEDURES IN SCHEMA partman TO pm_maint" \
		-c "GRANT TEMPORARY ON DATABASE pm_role TO pm_maint" >>"$l" 2>&1
	q_user=pm_maint q partman pm_role -c "$(events_sql)" -c "$partman_sql" >>"$l" 2>&1
	expect "partman: role default: children" "$(sql partman pm_role "$children_sql" 2>&1)" "hotheap:6"
	want=$(fingerprint partman pm_role events_rows)
	verify "partman: role default" partman pm_role events hotheap "$want" "$hot_set" "id BETWEEN 101 AND 105" 5

	# 3. No default: heap children, even from a hotheap template table. Setting the default
	# later makes the next children hotheap and the set mixed; hotplus_convert(parent) mends it.
	partman_db pm_none >>"$l" 2>&1
	q partman pm_none -c "$(events_sql)" -c "$partman_sql" \
		-c "SELECT public.hotplus_convert('partman.template_public_events'::regclass)" \
		-c "INSERT INTO public.events_rows SELECT g, jsonb_build_object('a', g % 7, 'b', 0) FROM generate_series(300, 399) g" \
		-c "INSERT INTO public.events SELECT * FROM public.events_rows WHERE id >= 300" \
		-c "SELECT partman.run_maintenance()" >>"$l" 2>&1
	expect "partman: no default, hotheap template: children" "$(sql partman pm_none "$children_sql" 2>&1)" "heap:7"
	sql partman postgres "ALTER DATABASE pm_none SET default_table_access_method = hotheap" >>"$l" 2>&1
	q partman pm_none \
		-c "INSERT INTO public.events_rows SELECT g, jsonb_build_object('a', g % 7, 'b', 0) FROM generate_series(400, 499) g" \
		-c "INSERT INTO public.events SELECT * FROM public.events_rows WHERE id >= 400" \
		-c "SELECT partman.run_maintenance()" >>"$l" 2>&1
	expect "partman: default set later: a mixed set" "$(sql partman pm_none "$children_sql" 2>&1)" "heap:7 hotheap:1"
	out=$(sql partman pm_none "SELECT public.hotplus_convert('public.events'::regclass)" 2>>"$l")
	expect "partman: hotplus_convert(parent) switches the heap children" "$out" 7
	expect "partman: mended: children" "$(sql partman pm_none "$children_sql" 2>&1)" "hotheap:8"
	want=$(fingerprint partman pm_none events_rows)
	verify "partman: mended" partman pm_none events hotheap "$want" "$hot_set" "id BETWEEN 101 AND 105" 5
	node_stop partman
	workflow_footer partman
}


# pgbench's transaction: the same update of a random row of docs (hotheap) and of its heap
# twin, in one transaction, so that the twin always holds what docs should.
repack_pgbench() { # NAME ROWS SECONDS OUTPUT: pgbench in the background, its pid in bg_pids
	cat >"$work/$1/update.sql" <<EOS
\\set id random(1, $2)
BEGIN;
UPDATE docs SET n = n + 1, doc = jsonb_set(doc, '{b}', to_jsonb(n + 1)) WHERE id = :id;
UPDATE twin SET n = n + 1, doc = jsonb_set(doc, '{b}', to_jsonb(n + 1)) WHERE id = :id;
END;
EOS
	chmod 644 "$work/$1/update.sql"
	pg_env "$1" postgres pgbench -n -c 2 -j 1 -R 200 -T "$3" -f "$work/$1/update.sql" >"$4" 2>&1 &
	bg_pids+=($!)
}

# pg_repack ARGS while pgbench updates docs: pgbench must still run when pg_repack ends,
# exit 0, and the twin must show every committed transaction.
repack_under_pgbench() { # LABEL PG_REPACK-ARGS...
	local label=$1 l=$log_dir/repack.log out pid rc sum_before sum_after ntx
	shift
	sum_before=$(sql repack postgres "SELECT sum(n) FROM docs")
	repack_pgbench repack 5000 20 "$work/repack/pgbench.out"
	pid=${bg_pids[-1]}
	sleep 3
	local t0=$SECONDS
	out=$(pg_env repack postgres pg_repack -d postgres "$@" 2>&1)
	rc=$?
	echo "$out" >>"$l"
	if ((rc == 0)); then pass "repack: $label: pg_repack exits 0 ($((SECONDS - t0)) s)"; else fail "repack: $label: pg_repack exits 0" "exit $rc: $out"; fi
	check "repack: $label: pgbench still ran when pg_repack ended" kill -0 "$pid"
	wait "$pid"
	rc=$?
	cat "$work/repack/pgbench.out" >>"$l"
	ntx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$work/repack/pgbench.out")
	expect "repack: $label: pgbench exits 0" "$rc" 0
	sum_after=$(sql repack postgres "SELECT sum(n) FROM docs")
	expect "repack: $label: docs counts every pgbench transaction (${ntx:-?})" "$((sum_after - sum_before))" "${ntx:-none}"
}

wf_repack() {
	workflow_header "repack: pg_repack and pg_repack --only-indexes under pgbench"
	local l=$log_dir/repack.log want
	node_new repack >>"$l" 2>&1 && node_start repack >>"$l" 2>&1 || { fail "repack: cluster starts" "$(tail -5 "$l")"; return; }
	q repack postgres -c "CREATE EXTENSION hotplus" -c "CREATE EXTENSION pg_repack" \
		-c "$(docs_sql docs hotheap 5000)" -c "$(docs_sql twin heap 5000)" >>"$l" 2>&1
	expect "repack: docs is hotheap" "$(hq repack postgres -c "SELECT pg_temp.tc_ams('docs')" 2>&1)" hotheap

	repack_under_pgbench "table" --table=docs --no-order
	want=$(fingerprint repack postgres twin)
	verify "repack: after pg_repack" repack postgres docs hotheap "$want" "$hot_set" "id BETWEEN 101 AND 110" 10
	sql repack postgres "UPDATE twin SET $hot_set WHERE id BETWEEN 101 AND 110" >>"$l" 2>&1
	repack_under_pgbench "only indexes" --table=docs --only-indexes
	want=$(fingerprint repack postgres twin)
	verify "repack: after --only-indexes" repack postgres docs hotheap "$want" "$hot_set" "id BETWEEN 101 AND 110" 10
	node_stop repack
	workflow_footer repack
}
# hotplus_stat_tables' counts of a hotheap table (shared mode: every backend's, the apply
# worker's too), once its updates reached WANT: "UPDATES HOT" or "timeout (...)". (The apply
# worker of pglogical does not report to pg_stat_user_tables while it runs.)
applied_counts() { # NAME DB TABLE WANT_UPDATES
	local i out
	for ((i = 0; i < 120; i++)); do
		out=$(sql "$1" "$2" "SELECT updates || ' ' || (hot_stock + hot_by_expression + hot_by_partial + hot_by_image)
			FROM public.hotplus_stat_tables WHERE relid = '$3'::regclass" 2>/dev/null)
		[ "${out%% *}" -ge "$4" ] 2>/dev/null && { echo "$out"; return 0; }
		sleep 0.5
	done
	echo "timeout (${out:-no row})"
}

wf_pglogical() {
	workflow_header "pglogical: a hotheap provider, a heap and a hotheap subscriber"
	local l=$log_dir/pglogical.log out n s fp k
	local conf=("wal_level = logical" "shared_preload_libraries = 'pglogical'" "track_commit_timestamp = on"
		"max_worker_processes = 16" "max_replication_slots = 10" "max_wal_senders = 10")
	# The subscriber preloads hotplus too, for the apply worker's counts in hotplus_stat_tables.
	node_new provider >>"$l" 2>&1 && node_conf provider "${conf[@]}" && node_start provider >>"$l" 2>&1 &&
		node_new subscriber >>"$l" 2>&1 && node_conf subscriber "${conf[@]}" \
		"shared_preload_libraries = 'pglogical, hotplus'" && node_start subscriber >>"$l" 2>&1 ||
		{ fail "pglogical: clusters start" "$(tail -5 "$l")"; return; }
	local provider_dsn
	provider_dsn=$(connstr provider postgres)
	q provider postgres -c "CREATE EXTENSION hotplus" -c "CREATE EXTENSION pglogical" \
		-c "$(docs_sql docs hotheap 2000)" \
		-c "SELECT pglogical.create_node(node_name := 'provider', dsn := '$provider_dsn')" \
		-c "SELECT pglogical.replication_set_add_table('default', 'public.docs', synchronize_data := true)" >>"$l" 2>&1
	# Subscribers: database sub_heap (no hotplus, docs heap) and sub_hotheap (docs hotheap).
	for s in sub_heap sub_hotheap; do
		sql subscriber postgres "CREATE DATABASE $s" >>"$l" 2>&1
		[ $s = sub_hotheap ] && sql subscriber $s "CREATE EXTENSION hotplus" >>"$l" 2>&1
		q subscriber $s -c "CREATE EXTENSION pglogical" \
			-c "$(docs_sql docs "$([ $s = sub_heap ] && echo heap || echo hotheap)" 0)" \
			-c "SELECT pglogical.create_node(node_name := '$s', dsn := '$(connstr subscriber $s)')" >>"$l" 2>&1
	done

	# 15.19 and later: the provider refuses pglogical's output plugin until
	# output_plugin_libraries names it.
	out=$(sql provider postgres "SHOW output_plugin_libraries" 2>&1)
	echo "   provider's output_plugin_libraries: $out"
	q subscriber sub_heap -c "SELECT pglogical.create_subscription(subscription_name := 'sub_heap',
		provider_dsn := '$provider_dsn', replication_sets := ARRAY['default'],
		synchronize_structure := false, synchronize_data := true)" >>"$l" 2>&1
	if [[ $out == *pgoutput* && $out != *pglogical_output* ]]; then
		for ((n = 0; n < 60; n++)); do
			grep -q 'library "pglogical_output" may not be used as an output plugin' "$work/provider/server.log" && break
			sleep 0.5
		done
		check "pglogical: without output_plugin_libraries the provider refuses pglogical_output" \
			grep -q 'library "pglogical_output" may not be used as an output plugin' "$work/provider/server.log"
		out=$(sql subscriber sub_heap "SELECT count(*) FROM docs" 2>&1)
		expect "pglogical: ... and nothing is synchronized" "$out" 0
		# The documented step: keep the default's plugins, add pglogical_output, reload.
		q provider postgres -c "ALTER SYSTEM SET output_plugin_libraries = 'pgoutput', 'test_decoding', 'pglogical_output'" \
			-c "SELECT pg_reload_conf()" >>"$l" 2>&1
		# pglogical starts the failed worker again after a minute or so; at once with:
		q subscriber sub_heap -c "SELECT pglogical.alter_subscription_disable('sub_heap', true)" \
			-c "SELECT pglogical.alter_subscription_enable('sub_heap', true)" >>"$l" 2>&1
	else
		echo "   (this server has no output_plugin_libraries restriction to check)"
	fi
	q subscriber sub_hotheap -c "SELECT pglogical.create_subscription(subscription_name := 'sub_hotheap',
		provider_dsn := '$provider_dsn', replication_sets := ARRAY['default'],
		synchronize_structure := false, synchronize_data := true)" >>"$l" 2>&1
	for s in sub_heap sub_hotheap; do
		check "pglogical: $s: initial synchronization completes" logged \
			q subscriber $s -c "SET statement_timeout = '180s'" -c "SELECT pglogical.wait_for_subscription_sync_complete('$s')"
	done
	fp=$(fingerprint provider postgres docs)
	for s in sub_heap sub_hotheap; do
		out=$(fingerprint subscriber $s docs 2>&1)
		expect "pglogical: $s: the initial copy has the provider's rows" "${out#* | }" "${fp#* | }"
	done

	# Streamed updates of field b, which only hotheap makes HOT: HOT on the provider and on
	# the hotheap subscriber.
	k=$(sql provider postgres "SELECT count(*) FROM docs WHERE id % 3 = 0")
	out=$(q provider postgres -c "BEGIN" -c "UPDATE docs SET $hot_set WHERE id % 3 = 0" \
		-c "SELECT pg_stat_get_xact_tuples_hot_updated('docs'::regclass)" -c "COMMIT" 2>&1)
	expect "pglogical: provider: the update of field b is HOT" "$out" "$k"
	sql provider postgres "SELECT pglogical.wait_slot_confirm_lsn(NULL, NULL)" >>"$l" 2>&1
	expect "pglogical: sub_hotheap: the applied updates are HOT" "$(applied_counts subscriber sub_hotheap docs "$k")" "$k $k"

	# Then updates that change indexed values, inserts and deletes.
	q provider postgres -c "UPDATE docs SET doc = jsonb_set(doc, '{a}', to_jsonb(id % 89)) WHERE id % 7 = 0" \
		-c "UPDATE docs SET n = n + 25 WHERE n < 0 AND id % 40 = 0" \
		-c "UPDATE docs SET big = repeat(md5(id::text || 'x'), 100) WHERE id % 50 = 1" \
		-c "INSERT INTO docs SELECT g, jsonb_build_object('a', g % 97, 'b', 0), -1, NULL FROM generate_series(2001, 2100) g" \
		-c "DELETE FROM docs WHERE id % 30 = 0" \
		-c "SELECT pglogical.wait_slot_confirm_lsn(NULL, NULL)" >>"$l" 2>&1
	fp=$(fingerprint provider postgres docs)
	verify "pglogical: provider" provider postgres docs hotheap "" "" "" ""
	verify "pglogical: sub_heap" subscriber sub_heap docs heap "$fp" "$hot_set" "id BETWEEN 101 AND 110" 10
	verify "pglogical: sub_hotheap" subscriber sub_hotheap docs hotheap "$fp" "$hot_set" "id BETWEEN 101 AND 110" 10
	node_stop subscriber
	node_stop provider
	workflow_footer pglogical
}

# PostGIS: polygons of 1,025 points (16 kB, stored out of line) and of 9, a GiST index and
# two expression indexes; the same rows in a heap twin that gets the same updates.
parcels_sql() { # TABLE AM
	cat <<EOS
CREATE TABLE $1 (id int PRIMARY KEY, geom geometry(Polygon, 3857) NOT NULL, props jsonb NOT NULL, note text)
  USING $2 WITH (fillfactor = 70);
INSERT INTO $1 SELECT g,
  ST_SetSRID(ST_Buffer(ST_MakePoint((g % 20) * 100, (g / 20) * 100), 10 + g % 7, CASE WHEN g % 3 = 0 THEN 2 ELSE 256 END), 3857),
  jsonb_build_object('v', 0, 'owner', 'o' || g % 11), 'parcel ' || g
FROM generate_series(1, 300) g;
CREATE INDEX ${1}_geom ON $1 USING gist (geom);
CREATE INDEX ${1}_area ON $1 (ST_Area(geom));
CREATE INDEX ${1}_cx ON $1 (ST_X(ST_Centroid(geom)));
EOS
}

# A GiST search (bitmap scans of the GiST index) against a sequential scan.
gist_check() { # LABEL NAME DB TABLE
	local out
	out=$(q "$2" "$3" -c "SET enable_seqscan = off" -c "SET enable_indexscan = off" \
		-c "EXPLAIN (COSTS OFF) SELECT id FROM $4 WHERE geom && ST_MakeEnvelope(250, 250, 1250, 850, 3857)" \
		-c "SELECT count(*) || ' ' || sum(id) FROM $4 WHERE geom && ST_MakeEnvelope(250, 250, 1250, 850, 3857)" \
		-c "RESET enable_seqscan" -c "RESET enable_indexscan" -c "SET enable_bitmapscan = off" -c "SET enable_indexscan = off" \
		-c "SELECT count(*) || ' ' || sum(id) FROM $4 WHERE geom && ST_MakeEnvelope(250, 250, 1250, 850, 3857)" 2>&1)
	if [[ $out == *"Bitmap Index Scan on ${4}_geom"* ]] && [ "$(echo "$out" | tail -1)" = "$(echo "$out" | tail -2 | head -1)" ]; then
		pass "$1: GiST search = seq scan ($(echo "$out" | tail -1 | cut -d' ' -f1) rows)"
	else
		fail "$1: GiST search = seq scan" "$out"
	fi
}

wf_postgis() {
	workflow_header "postgis: toasted geometries, GiST and expression indexes"
	local l=$log_dir/postgis.log out want k
	node_new postgis >>"$l" 2>&1 && node_start postgis >>"$l" 2>&1 || { fail "postgis: cluster starts" "$(tail -5 "$l")"; return; }
	q postgis postgres -c "CREATE EXTENSION hotplus" -c "CREATE EXTENSION postgis" -c "CREATE EXTENSION amcheck" \
		-c "$(parcels_sql parcels hotheap)" -c "$(parcels_sql twin heap)" >>"$l" 2>&1
	out=$(sql postgis postgres "SELECT count(*) FILTER (WHERE pg_column_size(geom) > 8000) || ' '
		|| (pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE oid = 'parcels'::regclass)) > 0) FROM parcels" 2>&1)
	expect "postgis: 200 geometries of 16 kB, stored out of line" "$out" "200 true"
	want=$(fingerprint postgis postgres twin)
	verify "postgis" postgis postgres parcels hotheap "$want" "" "" ""
	gist_check "postgis" postgis postgres parcels

	# An unindexed column: HOT (as on heap). (The rows of each update are spread over the
	# pages: a page holds 20 to 40 rows and has room for a few new versions.)
	out=$(q postgis postgres -c "BEGIN" -c "UPDATE parcels SET props = jsonb_set(props, '{v}', '1') WHERE id % 15 = 1" \
		-c "SELECT pg_stat_get_xact_tuples_hot_updated('parcels'::regclass)" -c "COMMIT" 2>&1)
	sql postgis postgres "UPDATE twin SET props = jsonb_set(props, '{v}', '1') WHERE id % 15 = 1" >>"$l" 2>&1
	expect "postgis: updates of props (no index reads it) are HOT" "$out" 20
	# The geometry written back rebuilt but equal, as an ORM does: HOT on hotheap (heap
	# sees a new value), and the TOAST values are kept, not written again.
	out=$(q postgis postgres -c "SELECT public.hotplus_stat_reset()" -c "BEGIN" \
		-c "UPDATE parcels SET geom = ST_GeomFromEWKB(ST_AsEWKB(geom)), props = jsonb_set(props, '{v}', '2') WHERE id % 15 = 2" \
		-c "SELECT pg_stat_get_xact_tuples_hot_updated('parcels'::regclass)" -c "COMMIT" \
		-c "SELECT toast_reused FROM public.hotplus_stat_tables WHERE relid = 'parcels'::regclass" 2>&1 | grep . | paste -sd ' ')
	sql postgis postgres "UPDATE twin SET geom = ST_GeomFromEWKB(ST_AsEWKB(geom)), props = jsonb_set(props, '{v}', '2') WHERE id % 15 = 2" >>"$l" 2>&1
	expect "postgis: an equal geometry written back: HOT, TOAST values kept" "$out" "20 20"
	out=$(q postgis postgres -c "BEGIN" \
		-c "UPDATE twin SET geom = ST_GeomFromEWKB(ST_AsEWKB(geom)) WHERE id % 15 = 5" \
		-c "SELECT pg_stat_get_xact_tuples_hot_updated('twin'::regclass)" -c "ROLLBACK" 2>&1)
	expect "postgis: ... which heap does not make HOT" "$out" 0
	# The geometry moved: its GiST entry and the centroid's change (the area does not), so
	# not HOT; then every index against sequential scans.
	out=$(q postgis postgres -c "BEGIN" -c "UPDATE parcels SET geom = ST_Translate(geom, 1000, 50) WHERE id % 10 = 0" \
		-c "SELECT pg_stat_get_xact_tuples_hot_updated('parcels'::regclass)" -c "COMMIT" 2>&1)
	sql postgis postgres "UPDATE twin SET geom = ST_Translate(geom, 1000, 50) WHERE id % 10 = 0" >>"$l" 2>&1
	expect "postgis: moved geometries: not HOT" "$out" 0
	want=$(fingerprint postgis postgres twin)
	verify "postgis: after the updates" postgis postgres parcels hotheap "$want" \
		"props = jsonb_set(props, '{v}', '3')" "id % 30 = 4" 10
	gist_check "postgis: after the updates" postgis postgres parcels
	node_stop postgis
	workflow_footer postgis
}

for w in "${workflows[@]}"; do
	"wf_$w"
done

steps_end "$log_dir" "" "$versions" "tools-check: $((SECONDS - started)) s"
