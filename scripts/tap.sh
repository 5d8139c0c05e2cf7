#!/usr/bin/env bash
# Runs the TAP suite (t/*.pl) with PostgreSQL::Test::Cluster of the server $PG_CONFIG names
# (default: the pg_config on PATH).
# initdb refuses root, so the tests run as postgres in a copy of t/ that postgres owns.
set -uo pipefail
cd "$(dirname "$0")/.."
pg_config=${PG_CONFIG:-pg_config}
pgxs_dir=$(dirname "$("$pg_config" --pgxs)")/..
bindir=$("$pg_config" --bindir)
work=$(mktemp -d -t hotplus-tap.XXXXXX)
cp -r t "$work/t"
# The documents too: a test that runs a documented recipe reads it from there (t/007).
cp -r doc "$work/doc"
# Every node runs with the verifier on (PostgreSQL::Test::Cluster appends TEMP_CONFIG to
# each node's postgresql.conf).
echo "hotplus.verify = on" >"$work/temp.conf"
chown -R postgres:postgres "$work"
cd "$work"
(($# > 0)) || set -- t/*.pl
# PG15 keeps data and logs in ./tmp_check; 16+ take TESTDATADIR and TESTLOGDIR (default ./log).
runuser -u postgres -- env PATH="$bindir:$PATH" PG_REGRESS="$pgxs_dir/test/regress/pg_regress" \
	TESTDATADIR="$work/tmp_check" TESTLOGDIR="$work/tmp_check/log" TEMP_CONFIG="$work/temp.conf" \
	prove -I "$pgxs_dir/test/perl" -I t "$@"
rc=$?
log_dir=${HOTPLUS_LOG_DIR:-$OLDPWD/test-logs}
mkdir -p "$log_dir" && rm -rf "$log_dir/tap" && cp -r "$work/tmp_check/log" "$log_dir/tap" 2>/dev/null
cd / && rm -rf "$work"
exit $rc
