#!/usr/bin/env bash
# Runs hotplus's regression and isolation suites (and optionally the differential test) on a
# PostgreSQL server built for Valgrind (assertions + USE_VALGRIND, scripts/build-pg.sh VERSION
# valgrind), every backend under Valgrind's memcheck with PostgreSQL's own suppressions, and
# reports every error whose stack has a hotplus frame. Not part of .ci/run: it takes about
# half an hour on 2 cores.
#
#   bash scripts/valgrind.sh [VERSION] [--differential SEEDS]   # default: 15, no differential
#   HOTPLUS_VALGRIND_REGRESS="hot_toast" HOTPLUS_VALGRIND_ISOLATION="" bash scripts/valgrind.sh
#                                       # only these tests (default: all of sql/ and specs/)
#
# Ends with "N passed, N failed": the suites' own tests, plus one check that fails when any
# Valgrind error names a hotplus frame (all errors are kept in $HOTPLUS_LOG_DIR/valgrind).
set -uo pipefail
cd "$(dirname "$0")/.."
# Debian's python3 (the one python3-psycopg2 is installed for) unless PYTHON says otherwise.
PYTHON=${PYTHON:-/usr/bin/python3}
root=$(pwd)
version=${1:-15}
seeds=""
if [ "${2:-}" = --differential ]; then seeds=${3:-1-5}; fi
log_dir=${HOTPLUS_LOG_DIR:-$root/test-logs}/valgrind
rm -rf "$log_dir" && mkdir -p "$log_dir"

bash scripts/install-deps.sh >/dev/null || exit 1
command -v valgrind >/dev/null || bash scripts/apt-get.sh install -y -qq valgrind >/dev/null
pg_config=$(bash scripts/build-pg.sh "$version" valgrind 2>"$log_dir/server-build.log" | tail -n 1)
[ -x "$pg_config" ] || { tail -n 50 "$log_dir/server-build.log"; echo "0 passed, 1 failed"; exit 1; }
supp=$(ls -d "${HOTPLUS_PG_CACHE:-/var/cache/hotplus}"/src/postgresql-"$version".*-valgrind/src/tools/valgrind.supp | tail -1)
bindir=$("$pg_config" --bindir)

# Build a private copy, so the working tree stays built for whatever it was built for.
work=$(mktemp -d -t hotplus-valgrind.XXXXXX)
git ls-files -z | xargs -0 cp --parents -t "$work"
chown -R postgres: "$work"
cd "$work"
if ! make PG_CONFIG="$pg_config" -j"$(nproc)" >"$log_dir/build.log" 2>&1 ||
	! make PG_CONFIG="$pg_config" install >>"$log_dir/build.log" 2>&1; then
	tail -30 "$log_dir/build.log"; echo "0 passed, 1 failed"; exit 1
fi

as_pg() { runuser -u postgres -- "$@"; }
as_pg "$bindir/initdb" -D "$work/data" -U postgres -A trust --no-sync >"$log_dir/initdb.log" 2>&1 || exit 1
port=$((20000 + RANDOM % 20000))
cat >>"$work/data/postgresql.conf" <<EOF
port = $port
unix_socket_directories = '$work'
listen_addresses = ''
fsync = off
hotplus.verify = on
max_connections = 20
EOF
mkdir -p "$work/vg" && chown postgres: "$work/vg"
as_pg valgrind --quiet --trace-children=yes --track-origins=yes --read-var-info=yes \
	--num-callers=40 --leak-check=no --error-markers=VALGRINDERROR-BEGIN,VALGRINDERROR-END \
	--suppressions="$supp" --log-file="$work/vg/%p.log" \
	"$bindir/postgres" -D "$work/data" >"$log_dir/server.log" 2>&1 &
for _ in $(seq 1 300); do
	"$bindir/pg_isready" -q -h "$work" -p "$port" && break
	sleep 1
done

export PGHOST=$work PGPORT=$port PGUSER=postgres PGDATABASE=postgres
passed=0 failed=0
count() { # log: add pg_regress's summary
	local all of
	all=$(grep -oE 'All [0-9]+ tests passed' "$1" | grep -oE '[0-9]+')
	of=$(grep -oE '[0-9]+ of [0-9]+ tests failed' "$1")
	if [ -n "$all" ]; then passed=$((passed + all))
	elif [ -n "$of" ]; then set -- $of; failed=$((failed + $1)); passed=$((passed + $3 - $1))
	else failed=$((failed + 1)); fi
}
selected=()
[ -n "${HOTPLUS_VALGRIND_REGRESS+set}" ] && selected+=(REGRESS="$HOTPLUS_VALGRIND_REGRESS")
if [ "${HOTPLUS_VALGRIND_REGRESS-x}" != "" ]; then
	PATH="$bindir:$PATH" make PG_CONFIG="$pg_config" installcheck ISOLATION= "${selected[@]}" >"$log_dir/regress.log" 2>&1
	count "$log_dir/regress.log"
fi
selected=()
[ -n "${HOTPLUS_VALGRIND_ISOLATION+set}" ] && selected+=(ISOLATION="$HOTPLUS_VALGRIND_ISOLATION")
if [ "${HOTPLUS_VALGRIND_ISOLATION-x}" != "" ]; then
	PATH="$bindir:$PATH" make PG_CONFIG="$pg_config" installcheck REGRESS= "${selected[@]}" >"$log_dir/isolation.log" 2>&1
	count "$log_dir/isolation.log"
fi
cp regression.diffs output_iso/regression.diffs "$log_dir/" 2>/dev/null
if [ -n "$seeds" ]; then
	"$PYTHON" test/differential/difftest.py --seeds "$seeds" >"$log_dir/differential.log" 2>&1
	passed=$((passed + $(grep -c ' ok (' "$log_dir/differential.log")))
	failed=$((failed + $(grep -c ' FAILED ' "$log_dir/differential.log")))
fi
as_pg "$bindir/pg_ctl" -D "$work/data" -w -t 600 -m fast stop >/dev/null

cp "$work"/vg/*.log "$log_dir/" 2>/dev/null
# One error per VALGRINDERROR block; the ones that matter name a hotplus frame.
errors=$(cat "$log_dir"/[0-9]*.log 2>/dev/null | grep -c 'VALGRINDERROR-BEGIN')
ours=$(awk '/VALGRINDERROR-BEGIN/ {b = ""; on = 1} on {b = b $0 "\n"} /VALGRINDERROR-END/ {on = 0; if (b ~ /hotplus/) {n++; printf "%s", b}} END {print n + 0 > "/dev/stderr"}' \
	"$log_dir"/[0-9]*.log 2>"$log_dir/ours.count" >"$log_dir/hotplus-errors.txt"; cat "$log_dir/ours.count")
echo "valgrind: $errors error(s) in all, $ours in hotplus frames (logs: $log_dir)"
[ "$ours" -gt 0 ] && head -80 "$log_dir/hotplus-errors.txt"
if [ "$ours" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
grep -E '^test |^ok|^not ok| FAILED' "$log_dir/regress.log" "$log_dir/isolation.log" 2>/dev/null | grep -v ' ok ' | head -20
cd / && rm -rf "$work"
echo "$passed passed, $failed failed"
((failed == 0))
