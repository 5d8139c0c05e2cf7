#!/usr/bin/env bash
# Builds a PostgreSQL server from Debian's source package into a cache outside the
# repository, once; later calls reuse it. For the targets of scripts/test.sh (make matrix).
#
#   bash scripts/build-pg.sh 18 cassert    # -> /var/cache/hotplus/pg-18-cassert
#   bash scripts/build-pg.sh 17            # -> /var/cache/hotplus/pg-17
#   bash scripts/build-pg.sh 15 valgrind   # -> /var/cache/hotplus/pg-15-valgrind: assertions
#                                          #    plus -DUSE_VALGRIND (scripts/valgrind.sh)
#
# Prints the installed pg_config path last. Sources: 15 from bookworm itself, 17 from trixie,
# 18 from sid (deb-src lines only: no binary package of another release is installed). Build
# dependencies are Debian's bison, flex and libicu-dev (the tests use ICU collations);
# readline and zlib are left out to need no more -dev packages.
set -euo pipefail
version=$1
flavour=${2:-release}
cache=${HOTPLUS_PG_CACHE:-/var/cache/hotplus}
prefix="$cache/pg-$version"
case $flavour in
	release) ;;
	cassert | valgrind) prefix+=-$flavour ;;
	*) echo "build-pg.sh: unknown flavour $flavour (release, cassert, valgrind)" >&2; exit 2 ;;
esac

if [ -x "$prefix/bin/pg_config" ] && [ -f "$prefix/.complete" ]; then
	echo "$prefix/bin/pg_config"
	exit 0
fi

case $version in
	15) suite=bookworm ;; # Debian 12's own source package (for an assert-enabled 15)
	17) suite=trixie ;;
	18) suite=sid ;;
	*) echo "build-pg.sh: no source suite known for PostgreSQL $version" >&2; exit 2 ;;
esac

export DEBIAN_FRONTEND=noninteractive
list=/etc/apt/sources.list.d/hotplus-src-$suite.sources
if ! apt-cache showsrc "postgresql-$version" 2>/dev/null | grep -c '^Package:' >/dev/null; then
	printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$suite" >"$list"
	apt-get update -qq
fi
apt-get install -y -qq --no-install-recommends bison flex libicu-dev pkgconf libipc-run-perl >/dev/null

src="$cache/src"
mkdir -p "$src"
cd "$src"
orig=$(ls postgresql-"$version"_*.orig.tar.bz2 2>/dev/null | tail -1 || true)
if [ -z "$orig" ]; then
	# Newest first. A mirror may lack the newest upload's files (seen: 15.20 and 17.12); then
	# take the newest earlier point release from Debian's pool, with the upstream tarball
	# checked against the SHA-256 its Debian .dsc lists.
	listed=$(apt-cache showsrc "postgresql-$version" | sed -n 's/^Version: //p' | sort -rV)
	for v in $listed; do
		apt-get source -qq --download-only "postgresql-$version=$v" >/dev/null 2>&1 && break
	done
	if ! ls postgresql-"$version"_*.orig.tar.bz2 >/dev/null 2>&1; then
		newest=$(echo "$listed" | head -n 1)
		upstream=${newest%%-*}
		revision=${newest#*-}
		for ((minor = ${upstream#*.}; minor >= 0; minor--)); do
			base="http://deb.debian.org/debian/pool/main/p/postgresql-$version/postgresql-${version}_$version.$minor"
			curl -fsS -o "dsc.tmp" "$base-$revision.dsc" 2>/dev/null || continue
			curl -fsS -o "orig.tmp" "$base.orig.tar.bz2" || continue
			sum=$(sha256sum orig.tmp | cut -d' ' -f1)
			if grep -q "$sum .*postgresql-${version}_$version.$minor.orig.tar.bz2" dsc.tmp; then
				mv orig.tmp "postgresql-${version}_$version.$minor.orig.tar.bz2"
				break
			fi
			echo "build-pg.sh: checksum mismatch for $base.orig.tar.bz2" >&2
		done
		rm -f dsc.tmp orig.tmp
	fi
	orig=$(ls postgresql-"$version"_*.orig.tar.bz2 | sort -V | tail -1)
fi
upstream=${orig#postgresql-"$version"_}
build="$src/postgresql-${upstream%.orig.tar.bz2}-$flavour"
rm -rf "$build"
mkdir -p "$build"
tar xjf "$orig" -C "$build" --strip-components=1
cd "$build"

options=(--prefix="$prefix" --enable-tap-tests --with-icu --without-readline --without-zlib)
cflags=()
case $flavour in
	cassert) options+=(--enable-cassert --enable-debug) ;;
	# USE_VALGRIND makes the memory contexts tell Valgrind which chunks are allocated, so a
	# read of freed or never-written palloc memory is reported (src/include/utils/memdebug.h).
	valgrind) options+=(--enable-cassert --enable-debug); cflags=(CFLAGS="-DUSE_VALGRIND -Og -g") ;;
esac
./configure "${options[@]}" "${cflags[@]}" >configure.log 2>&1
make -j"$(nproc)" -s >build.log 2>&1
make -j"$(nproc)" -s -C contrib >>build.log 2>&1
make -s install >>build.log 2>&1
make -s -C contrib install >>build.log 2>&1
make -s -C src/test/isolation install >>build.log 2>&1
touch "$prefix/.complete"
echo "$prefix/bin/pg_config"
