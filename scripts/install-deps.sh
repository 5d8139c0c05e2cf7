#!/usr/bin/env bash
# Installs everything hotplus needs to build, test, demo and benchmark on Debian 12, as root.
# Idempotent and quick when everything is already there.
set -euo pipefail

# postgresql-common: postgresql-15 depends on it anyway, and it provides /usr/bin/pg_config,
# the PG_CONFIG of a plain "make"; no script uses its cluster tools (pg_virtualenv, ...):
# throwaway clusters come from scripts/with-cluster.sh.
packages=(
	build-essential g++ make pkgconf
	postgresql-15 postgresql-server-dev-15 postgresql-client-15 postgresql-common
	catch2 libboost-dev
	libipc-run-perl
	python3 python3-psycopg2
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
	echo "install-deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	bash "$(dirname "$0")/apt-get.sh" update -qq
	# Debian's postgresql-common would create and start a "main" cluster; hotplus only ever
	# uses throwaway clusters, so skip that.
	mkdir -p /etc/postgresql-common
	if ! grep -qs '^create_main_cluster' /etc/postgresql-common/createcluster.conf; then
		echo 'create_main_cluster = false' >> /etc/postgresql-common/createcluster.conf
	fi
	bash "$(dirname "$0")/apt-get.sh" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
