#!/usr/bin/env bash
# apt-get as hotplus's scripts run it: one at a time, and waiting for any other apt or dpkg
# run rather than failing on its lock. scripts/test.sh builds the servers in the background
# while the first target's steps run, so on a fresh machine build-pg.sh's and
# build-citus.sh's installs meet install-deps.sh's and the package test's; apt-get alone
# fails at once with "Could not get lock /var/lib/dpkg/lock-frontend" (exit 100), and
# DPkg::Lock::Timeout covers the dpkg lock but not "apt-get update"'s lists lock in every
# apt version, hence the flock around every call.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
exec flock /var/lock/hotplus-apt-get.lock apt-get -o DPkg::Lock::Timeout=600 "$@"
