#!/usr/bin/env bash
# Installs what building the Debian package (debian/, "dpkg-buildpackage -us -uc -b") and
# testing it (scripts/package-test.sh) need on Debian 12, as root. Idempotent and quick when
# everything is already there.
#
#   bash scripts/package-deps.sh && dpkg-buildpackage -us -uc -b
#
# The packages are debian/control's Build-Depends: debhelper (dh; its "pgxs_loop" addon and
# pg_buildext come with postgresql-server-dev-all), the server headers of every packaged
# PostgreSQL major (postgresql-server-dev-all pulls in Debian 12's only one, 15),
# postgresql-all (the servers: the build runs the regression and isolation suites against
# the built files in a pg_virtualenv of postgresql-common; it also brings the PL packages
# and ecpg, as for every extension packaged this way), and what the Makefile's build uses:
# g++ (C++17, linked with -lstdc++), libboost-dev (boost/container) and python3
# (scripts/check-includes.py runs before anything is compiled). No clang: the Makefile
# sets with_llvm = no, so no JIT bitcode is built. dpkg-checkbuilddeps then confirms that
# nothing debian/control asks for is missing (a Build-Depends added there but not here
# fails this script).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
	build-essential dpkg-dev debhelper
	g++ make python3 libboost-dev
	postgresql-common postgresql-server-dev-all postgresql-all
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
	echo "package-deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# Waits for another apt or dpkg run to finish rather than fail on its lock.
	apt=(bash "$PWD/scripts/apt-get.sh")
	"${apt[@]}" update -qq
	# As scripts/install-deps.sh: no "main" cluster; builds and tests use throwaway ones.
	mkdir -p /etc/postgresql-common
	if ! grep -qs '^create_main_cluster' /etc/postgresql-common/createcluster.conf; then
		echo 'create_main_cluster = false' >> /etc/postgresql-common/createcluster.conf
	fi
	"${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

dpkg-checkbuilddeps debian/control
