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
# 18 from sid (deb-src entries only: no binary package of another release is installed). A
# suite apt does not know yet is added as a deb-src entry with the same URIs and Signed-By
# keyring as this machine's own Debian entry (/etc/apt/sources.list.d/*.sources or
# sources.list), and the source is taken only through apt-get source, which checks the .dsc
# against the signed Release file and the tarball against the .dsc. Build dependencies are
# Debian's bison, flex, libicu-dev (the tests use ICU collations) and liblz4-dev (lz4 TOAST
# compression, PostgreSQL 19's default: the tests mix methods); readline and zlib are left
# out to need no more -dev packages. A cached server is reused only when it was built with
# the configure options this script uses now ($prefix/.complete holds them).
#
# Every step that fails says which, and prints the last lines of its log on stderr (the logs
# are kept: apt's in $cache/src/build-pg-VERSION-FLAVOUR.log, configure's and make's in the
# build tree).
#   HOTPLUS_PG_DOWNLOAD_ONLY=1      stop once the source tarball is in $cache/src; print its path
#   HOTPLUS_PG_CONFIGURE_EXTRA=...  more options for configure (split on spaces)
set -Eeuo pipefail
version=$1
flavour=${2:-release}
apt_get="$(cd "$(dirname "$0")" && pwd)/apt-get.sh" # waits for other apt runs (apt-get.sh)
cache=${HOTPLUS_PG_CACHE:-/var/cache/hotplus}
prefix="$cache/pg-$version"
case $flavour in
	release) ;;
	cassert | valgrind) prefix+=-$flavour ;;
	*) echo "build-pg.sh: unknown flavour $flavour (release, cassert, valgrind)" >&2; exit 2 ;;
esac
# Anything else that fails (set -e) says where.
trap 'echo "build-pg.sh: failed (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

step() { # name log command... : the command's output goes to log; on failure, says so with the log's tail
	local name=$1 log=$2 rc=0
	shift 2
	echo "== $name: $*" >>"$log"
	"$@" >>"$log" 2>&1 || rc=$?
	if ((rc != 0)); then
		trap - ERR
		echo "build-pg.sh: $name failed (exit $rc): $*" >&2
		echo "---- last 40 lines of $log" >&2
		tail -n 40 "$log" >&2
		exit 1
	fi
}

# One build per server at a time: scripts/test.sh may build it in the background while a
# target asks for it; the second caller waits, then finds it complete.
mkdir -p "$cache"
exec 9>"$prefix.lock"
flock 9

options=(--prefix="$prefix" --enable-tap-tests --with-icu --with-lz4 --without-readline --without-zlib)
cflags=()
case $flavour in
	cassert) options+=(--enable-cassert --enable-debug) ;;
	# USE_VALGRIND makes the memory contexts tell Valgrind which chunks are allocated, so a
	# read of freed or never-written palloc memory is reported (src/include/utils/memdebug.h).
	valgrind) options+=(--enable-cassert --enable-debug); cflags=(CFLAGS="-DUSE_VALGRIND -Og -g") ;;
esac
build_id="${options[*]} ${cflags[*]} ${HOTPLUS_PG_CONFIGURE_EXTRA:-}"
if [ -x "$prefix/bin/pg_config" ] && [ "$(cat "$prefix/.complete" 2>/dev/null)" = "$build_id" ] &&
	[ -z "${HOTPLUS_PG_DOWNLOAD_ONLY:-}" ]; then
	echo "$prefix/bin/pg_config"
	exit 0
fi

case $version in
	15) suite=bookworm ;; # Debian 12's own source package (for an assert-enabled 15)
	17) suite=trixie ;;
	18) suite=sid ;;
	*) echo "build-pg.sh: no source suite known for PostgreSQL $version" >&2; exit 2 ;;
esac

# This machine's Debian archive: "URIs: ..." and, when it has one, "Signed-By: ..." (verbatim,
# an embedded key's continuation lines too) of the first enabled deb entry for the release
# codename, in deb822 (*.sources) or one-line (*.list, sources.list) format.
debian_archive() {
	local codename f
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || { echo "build-pg.sh: no VERSION_CODENAME in /etc/os-release" >&2; return 1; }
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v codename="$codename" '
			function flush() {
				if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " codename " ") && tolower(enabled) != "no" && uris != "") {
					print "URIs: " uris
					if (signed != "") print "Signed-By: " signed
					found = 1; exit
				}
				types = suites = uris = signed = enabled = ""; field = ""
			}
			/^#/ { next }
			/^[ \t]*$/ { flush(); next }
			/^[ \t]/ { if (field == "signed-by") signed = signed "\n" $0; next }
			{
				field = tolower(substr($0, 1, index($0, ":") - 1))
				value = substr($0, index($0, ":") + 1); sub(/^[ \t]+/, "", value); sub(/[ \t]+$/, "", value)
				if (field == "types") types = value
				else if (field == "suites") suites = value
				else if (field == "uris") uris = value
				else if (field == "signed-by") signed = value
				else if (field == "enabled") enabled = value
			}
			END { if (!found) flush() }
		' "$f" | grep . && return 0
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		# deb [opt=value ...] URI SUITE COMPONENT...
		sed -nE "s/^[[:space:]]*deb[[:space:]]+(\[([^]]*)\][[:space:]]+)?([^[:space:]]+)[[:space:]]+$codename[[:space:]].*/\3 \2/p" "$f" |
			head -n 1 | awk '{
				print "URIs: " $1
				for (i = 2; i <= NF; i++) if ($i ~ /^signed-by=/) { sub(/^signed-by=/, "", $i); print "Signed-By: " $i }
			}' | grep . && return 0
	done
	echo "build-pg.sh: no deb entry for $codename in /etc/apt/sources.list or /etc/apt/sources.list.d/" >&2
	return 1
}

export DEBIAN_FRONTEND=noninteractive
src="$cache/src"
mkdir -p "$src"
apt_log="$src/build-pg-$version-$flavour.log" # apt and unpacking
: >"$apt_log"
has_source() { apt-cache showsrc "postgresql-$version" 2>/dev/null | grep -q '^Package:'; }

cd "$src"
orig=$(ls postgresql-"$version"_*.orig.tar.bz2 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$orig" ]; then
	if ! has_source; then
		list=/etc/apt/sources.list.d/hotplus-src-$suite.sources
		archive=$(debian_archive)
		printf 'Types: deb-src\n%s\nSuites: %s\nComponents: main\n' \
			"$(echo "$archive" | grep '^URIs:')" "$suite" >"$list.tmp"
		echo "$archive" | sed -n '/^Signed-By:/,$p' >>"$list.tmp"
		mv "$list.tmp" "$list"
		echo "build-pg.sh: added $list (deb-src $suite)" >&2
		step "apt-get update (for deb-src $suite)" "$apt_log" bash "$apt_get" update
		has_source || {
			echo "build-pg.sh: apt knows no source package postgresql-$version after adding $list" >&2
			exit 1
		}
	fi
	# Newest first. A mirror may lack the newest upload's files (seen: 15.20 and 17.12); then
	# an earlier version apt lists.
	listed=$(apt-cache showsrc "postgresql-$version" | sed -n 's/^Version: //p' | sort -rVu)
	for v in $listed; do
		echo "== apt-get source --download-only postgresql-$version=$v" >>"$apt_log"
		bash "$apt_get" source --download-only "postgresql-$version=$v" >>"$apt_log" 2>&1 && break
	done
	if ! ls postgresql-"$version"_*.orig.tar.bz2 >/dev/null 2>&1; then
		trap - ERR
		echo "build-pg.sh: apt-get source --download-only failed for every version of postgresql-$version apt lists:" $listed >&2
		echo "---- last 40 lines of $apt_log" >&2
		tail -n 40 "$apt_log" >&2
		exit 1
	fi
	orig=$(ls postgresql-"$version"_*.orig.tar.bz2 | sort -V | tail -1)
fi
if [ -n "${HOTPLUS_PG_DOWNLOAD_ONLY:-}" ]; then
	echo "$src/$orig"
	exit 0
fi
step "apt-get install (build dependencies)" "$apt_log" \
	bash "$apt_get" install -y -qq --no-install-recommends bison flex libicu-dev liblz4-dev pkgconf libipc-run-perl

upstream=${orig#postgresql-"$version"_}
build="$src/postgresql-${upstream%.orig.tar.bz2}-$flavour"
rm -rf "$build"
mkdir -p "$build"
step "unpack $orig" "$apt_log" tar xjf "$orig" -C "$build" --strip-components=1
cd "$build"

: >"$build/build.log"
rm -rf "$prefix" # a server built with other options
step configure "$build/configure.log" ./configure "${options[@]}" "${cflags[@]}" ${HOTPLUS_PG_CONFIGURE_EXTRA:-}
step make "$build/build.log" make -j"$(nproc)" -s
# Only the contrib modules the tests load (amcheck, pageinspect; pgstattuple, pgrowlocks and
# pg_surgery for contrib_as_heap and t/007): the rest of contrib would add about a minute per
# server on 2 cores. (A server built before these were added lacks the last three: build them
# with make -C contrib/NAME install in its build directory.)
contrib=(amcheck pageinspect pgstattuple pgrowlocks pg_surgery)
for module in "${contrib[@]}"; do
	step "make contrib/$module" "$build/build.log" make -j"$(nproc)" -s -C "contrib/$module"
done
step "make install" "$build/build.log" make -s install
for module in "${contrib[@]}"; do
	step "make contrib/$module install" "$build/build.log" make -s -C "contrib/$module" install
done
step "make isolation install" "$build/build.log" make -s -C src/test/isolation install
echo "$build_id" >"$prefix/.complete"
echo "$prefix/bin/pg_config"
