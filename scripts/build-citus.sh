#!/usr/bin/env bash
# Builds Citus from the vendored release archive into the server that $1 (a pg_config) names,
# once; later calls find it installed and return at once. As root on Debian 12.
#
#   bash scripts/build-citus.sh /usr/lib/postgresql/15/bin/pg_config
#   bash scripts/build-citus.sh /var/cache/hotplus/pg-18-cassert/bin/pg_config
#
# Sources: ../shared/vendor (HOTPLUS_VENDOR), unmodified `git archive`s of Citus release tags,
# checked against its SHA256SUMS before use: 13.2.2 for PostgreSQL 15, 14.0.1 for 16-18.
# Prints the installed Citus version last. On failure says why, with the log's tail; exits 3
# (nothing to build: scripts/test.sh skips the Citus tests) when no vendored release supports
# the server's major version (19 today), or when the release's archive is not in the vendor
# folder, unless HOTPLUS_REQUIRE_CITUS=1 (then that is a failure, exit 1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pg_config=${1:?usage: build-citus.sh PG_CONFIG}
vendor=${HOTPLUS_VENDOR:-$root/../shared/vendor}
cache=${HOTPLUS_PG_CACHE:-/var/cache/hotplus}

major=$("$pg_config" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
case $major in
	15) version=13.2.2 ;;
	16 | 17 | 18) version=14.0.1 ;;
	# Exit status 3: nothing to build here (scripts/test.sh skips the Citus tests).
	*) echo "build-citus.sh: no vendored Citus release supports PostgreSQL $major" >&2; exit 3 ;;
esac
archive=citus-$version.tar.gz

# One build per server at a time (scripts/test.sh may prefetch it in the background).
mkdir -p "$cache"
exec 9>"$cache/citus-$(echo "$pg_config" | md5sum | cut -c1-12).lock"
flock 9

# Installed by an earlier call for this very archive and server: nothing to do.
stamp=$("$pg_config" --sharedir)/extension/citus.hotplus-build
if [ -f "$("$pg_config" --pkglibdir)/citus.so" ] && [ -f "$stamp" ] &&
	[ "$(cat "$stamp")" = "$version $("$pg_config" --version)" ]; then
	echo "$version"
	exit 0
fi

if [ ! -f "$vendor/$archive" ]; then
	# A clone outside the project's CI layout has no ../shared/vendor: the Citus tests are
	# skipped (exit 3) and say what to put where, unless HOTPLUS_REQUIRE_CITUS=1 (.ci/run).
	msg="$archive not found in $vendor: to test Citus, put Citus $version there as $archive (the git archive of tag v$version of github.com/citusdata/citus) with a SHA256SUMS listing it, or set HOTPLUS_VENDOR to a folder that has them (doc/tests.md, Citus)"
	if [ "${HOTPLUS_REQUIRE_CITUS:-0}" = 1 ]; then
		echo "build-citus.sh: $msg (HOTPLUS_REQUIRE_CITUS=1: a failure)" >&2
		exit 1
	fi
	echo "build-citus.sh: $msg" >&2
	exit 3
fi
(cd "$vendor" && grep " $archive\$" SHA256SUMS | sha256sum -c --quiet -) || {
	echo "build-citus.sh: $vendor/$archive does not match $vendor/SHA256SUMS" >&2
	exit 1
}

# Citus's configure wants these (and the server headers include gssapi/gssapi.h).
export DEBIAN_FRONTEND=noninteractive
missing=()
for p in libzstd-dev liblz4-dev libcurl4-openssl-dev libkrb5-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	bash "$root/scripts/apt-get.sh" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		{ bash "$root/scripts/apt-get.sh" update -qq && bash "$root/scripts/apt-get.sh" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
fi

mkdir -p "$cache/src"
build=$(mktemp -d "$cache/src/citus-$version-pg$major.XXXXXX")
log=$cache/src/citus-$version-pg$major.log
trap 'rm -rf "$build"' EXIT
tar xzf "$vendor/$archive" -C "$build" --strip-components=1
cd "$build"

# 13.2.2 defines its own static have_createdb_privilege() for PostgreSQL < 16; 15.20 exports
# the same function from commands/dbcommands.h, and the two clash. Keep the server's.
if grep -qs 'have_createdb_privilege' "$("$pg_config" --includedir-server)/commands/dbcommands.h"; then
	perl -0pi -e 's/static inline bool\s*\nhave_createdb_privilege\(void\)\s*\n\{.*?\n\}\n//s' \
		src/include/pg_version_compat.h
fi

fail() {
	echo "build-citus.sh: $1 failed; the last lines of $log:" >&2
	tail -30 "$log" >&2
	exit 1
}
./configure PG_CONFIG="$pg_config" >"$log" 2>&1 || fail configure
make -j"$(nproc)" >>"$log" 2>&1 || fail make
make install >>"$log" 2>&1 || fail "make install"
echo "$version $("$pg_config" --version)" >"$stamp"
echo "$version"
