#!/usr/bin/env bash
# Builds a PostgreSQL server from Debian's source package into a cache outside the
# repository, once; later calls reuse it. For the version matrix (issue 7).
#
#   bash scripts/build-pg.sh 18 cassert    # -> /var/cache/hotplus/pg-18-cassert
#   bash scripts/build-pg.sh 17            # -> /var/cache/hotplus/pg-17
#
# Prints the installed pg_config path last. Sources: 17 from trixie, 18 from sid (deb-src
# lines only: no binary package of another release is installed). Build dependencies are
# Debian's bison and flex; ICU, readline and zlib are left out to need no more -dev packages.
set -euo pipefail
version=$1
flavour=${2:-release}
cache=${HOTPLUS_PG_CACHE:-/var/cache/hotplus}
prefix="$cache/pg-$version$([ "$flavour" = cassert ] && echo -cassert)"

if [ -x "$prefix/bin/pg_config" ] && [ -f "$prefix/.complete" ]; then
	echo "$prefix/bin/pg_config"
	exit 0
fi

case $version in
	17) suite=trixie ;;
	18) suite=sid ;;
	*) echo "build-pg.sh: no source suite known for PostgreSQL $version" >&2; exit 2 ;;
esac

export DEBIAN_FRONTEND=noninteractive
list=/etc/apt/sources.list.d/hotplus-src-$suite.sources
if [ ! -f "$list" ]; then
	printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$suite" >"$list"
	apt-get update -qq
fi
apt-get install -y -qq --no-install-recommends bison flex libipc-run-perl >/dev/null

src="$cache/src"
mkdir -p "$src"
cd "$src"
orig=$(ls postgresql-"$version"_*.orig.tar.bz2 2>/dev/null | tail -1 || true)
if [ -z "$orig" ]; then
	apt-get source -qq --download-only "postgresql-$version" >/dev/null
	orig=$(ls postgresql-"$version"_*.orig.tar.bz2 | tail -1)
fi
tree=$(tar tjf "$orig" | head -1 | cut -d/ -f1)
build="$src/$tree-$flavour"
rm -rf "$build"
mkdir -p "$build"
tar xjf "$orig" -C "$build" --strip-components=1
cd "$build"

options=(--prefix="$prefix" --enable-tap-tests --without-icu --without-readline --without-zlib)
[ "$flavour" = cassert ] && options+=(--enable-cassert --enable-debug)
./configure "${options[@]}" >configure.log 2>&1
make -j"$(nproc)" -s >build.log 2>&1
make -j"$(nproc)" -s -C contrib >>build.log 2>&1
make -s install >>build.log 2>&1
make -s -C contrib install >>build.log 2>&1
make -s -C src/test/isolation install >>build.log 2>&1
touch "$prefix/.complete"
echo "$prefix/bin/pg_config"
