#!/usr/bin/env bash
# PostgreSQL 19 for hotplus's tests: a Debian sid chroot with Debian's postgresql-19 binary
# packages from experimental, made once into the server cache, then reused.
#
#   bash scripts/pg19-chroot.sh                 # make it (if needed); print its directory
#   bash scripts/pg19-chroot.sh run CMD...      # run CMD inside it, as root, /proc mounted
#   bash scripts/pg19-chroot.sh bench-tools     # add Valgrind (bench/instructions.py on 19)
#
# Why a chroot: Debian's archive serves postgresql-19 only as binary packages (apt-get source
# answers 404 for every 19 version listed), and sid's binaries need a newer libc than Debian
# 12's. So 19 is a release build only; an assert-enabled 19 would need the source.
#
# The chroot is $cache/sid-19 (HOTPLUS_PG_CACHE, default /var/cache/hotplus). Debootstrap
# takes this machine's own Debian archive URI (the first deb entry for bookworm) and the
# archive key Debian 12 ships. The archive's Release files of sid/experimental may be past
# their Valid-Until date on a mirror snapshot, so that check is off for the chroot's apt.
# The packages installed: the newest postgresql-19 experimental offers (server, client,
# server-dev, libpq), and what hotplus builds and tests with (g++, make, Boost, Catch2,
# Perl's IPC::Run for TAP, python3-psycopg2). Every step that fails says which, with the
# tail of its log ($cache/sid-19.log).
set -Eeuo pipefail
cache=${HOTPLUS_PG_CACHE:-/var/cache/hotplus}
root=$cache/sid-19
log=$cache/sid-19.log
trap 'echo "pg19-chroot.sh: failed (exit $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

step() { # name command... : output to $log; on failure, say so with the log's tail
	local name=$1 rc=0
	shift
	echo "== $name: $*" >>"$log"
	"$@" >>"$log" 2>&1 || rc=$?
	if ((rc != 0)); then
		trap - ERR
		echo "pg19-chroot.sh: $name failed (exit $rc)" >&2
		echo "---- last 40 lines of $log" >&2
		tail -n 40 "$log" >&2
		exit 1
	fi
}

# The URI of this machine's Debian archive (deb822 or one-line sources).
debian_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '/^Types:.*deb( |$)/ {deb = 1} /^$/ {deb = 0} deb && /^URIs:/ {print $2; exit}' "$f" | grep . && return 0
	done
	sed -nE 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]].*/\2/p' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | grep -v security | head -n 1 | grep .
}

mounted() { mountpoint -q "$root/proc"; }
mount_proc() { mounted || mount -t proc proc "$root/proc"; }

chroot_apt() { # apt-get arguments... inside the chroot
	chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
		apt-get -o Acquire::Check-Valid-Until=false -o APT::Install-Recommends=false "$@"
}

make_chroot() {
	mkdir -p "$cache"
	: >"$log"
	local uri
	uri=$(debian_uri) || { echo "pg19-chroot.sh: no Debian archive URI in /etc/apt" >&2; exit 1; }
	if ! command -v debootstrap >/dev/null; then
		step "apt-get install debootstrap" bash "$(dirname "$0")/apt-get.sh" install -y -qq --no-install-recommends debootstrap
	fi
	rm -rf "$root.tmp"
	step debootstrap debootstrap --variant=minbase \
		--keyring=/usr/share/keyrings/debian-archive-keyring.gpg sid "$root.tmp" "$uri"
	cat >"$root.tmp/etc/apt/sources.list" <<-EOF
		deb $uri sid main
		deb $uri experimental main
	EOF
	rm -f "$root.tmp/etc/apt/sources.list.d/"*
	mv "$root.tmp" "$root"
	mount_proc
	step "apt-get update" chroot_apt update
	step "apt-get install postgresql-19" chroot_apt install -y postgresql-19/experimental \
		postgresql-client-19/experimental postgresql-server-dev-19/experimental \
		libpq-dev/experimental libpq5/experimental
	step "apt-get install build and test tools" chroot_apt install -y g++ make libboost-dev catch2 \
		libipc-run-perl python3 python3-psycopg2 ca-certificates
	# with-cluster.sh and tap.sh run the servers as postgres (initdb refuses root).
	chroot "$root" id postgres >/dev/null 2>&1 || step "postgres user" chroot "$root" useradd -m postgres
	chroot "$root" /usr/lib/postgresql/19/bin/postgres --version >>"$log"
	touch "$root/.complete"
}

mkdir -p "$cache"
exec 9>"$root.lock" # one maker at a time (scripts/test.sh may make it in the background)
flock 9
if [ ! -f "$root/.complete" ]; then
	rm -rf "$root"
	make_chroot
fi
flock -u 9
mount_proc

if [ "${1:-}" = bench-tools ]; then # not for the tests: only the instruction counts need it
	chroot_apt install -y valgrind binutils python3 >>"$log" 2>&1 || { tail -n 20 "$log" >&2; exit 1; }
	exit 0
fi
if [ "${1:-}" = run ]; then
	shift
	exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		TERM="${TERM:-dumb}" "$@"
fi
echo "$root"
