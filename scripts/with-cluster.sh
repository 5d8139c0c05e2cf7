#!/usr/bin/env bash
# Runs a command against a throwaway cluster of the server that $PG_CONFIG (default: the
# pg_config on PATH) belongs to, Debian's or one built from source, then stops and removes it.
#
#   PG_CONFIG=/var/cache/hotplus/pg-18-cassert/bin/pg_config \
#     bash scripts/with-cluster.sh [-o "name = value"]... -- make installcheck
#
# The command sees PGHOST, PGPORT, PGUSER and PGDATABASE, and the server's programs (psql,
# pg_dump, ...) first on PATH; its exit status is the script's.
# initdb refuses root, so as root the server runs as postgres. The server log is kept as
# $HOTPLUS_SERVER_LOG when that is set (scripts/test.sh checks it with
# scripts/server-log-problems.sh).
set -uo pipefail

settings=()
while (($#)); do
	case $1 in
		-o) settings+=("$2"); shift 2 ;;
		--) shift; break ;;
		*) break ;;
	esac
done

bindir=$("${PG_CONFIG:-pg_config}" --bindir) || exit 2
dir=$(mktemp -d -t hotplus-cluster.XXXXXX)
as_owner() { if ((EUID == 0)); then runuser -u postgres -- "$@"; else "$@"; fi; }
((EUID == 0)) && chown postgres: "$dir"

if ! as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust --no-sync >"$dir/initdb.log" 2>&1; then
	cat "$dir/initdb.log" >&2
	rm -rf "$dir"
	exit 2
fi
# A random port: two runs at once must not pick the same first free one. Should the port be
# in use all the same, the start is retried on another one a few times.
random_port() { echo $((20000 + RANDOM % 20000)); }
port=$(random_port)
{
	echo "port = $port"
	echo "unix_socket_directories = '$dir'"
	echo "listen_addresses = ''"
	echo "fsync = off"
	for s in "${settings[@]}"; do echo "$s"; done
} >>"$dir/data/postgresql.conf"

attempt=1
until as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 start >/dev/null 2>"$dir/pg_ctl.err"; do
	if ((attempt < 5)) && grep -qE 'Address already in use|lock file ".*\.s\.PGSQL\.[0-9]+\.lock" already exists' "$dir/server.log"; then
		echo "with-cluster.sh: port $port in use, trying another" >&2
		attempt=$((attempt + 1))
		port=$(random_port)
		sed -i "s/^port = .*/port = $port/" "$dir/data/postgresql.conf"
		as_owner truncate -s 0 "$dir/server.log"
		continue
	fi
	cat "$dir/pg_ctl.err" "$dir/server.log" >&2
	rm -rf "$dir"
	exit 2
done

PATH="$bindir:$PATH" PGHOST=$dir PGPORT=$port PGUSER=postgres PGDATABASE=postgres "$@"
rc=$?

as_owner "$bindir/pg_ctl" -D "$dir/data" -w -m fast stop >/dev/null
[ -n "${HOTPLUS_SERVER_LOG:-}" ] && cp "$dir/server.log" "$HOTPLUS_SERVER_LOG"
rm -rf "$dir"
exit $rc
