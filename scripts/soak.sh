#!/usr/bin/env bash
# Soak: the randomized differential test (test/differential/difftest.py) with random seeds for
# MINUTES minutes (default 30) on a throwaway cluster of Debian's PostgreSQL 15 ($PG_CONFIG for
# another server; scripts/with-cluster.sh). Prints the seed of any failure; replay one with:
#   bash scripts/with-cluster.sh -- /usr/bin/python3 test/differential/difftest.py --seeds S-S --keep
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's python3 (the one python3-psycopg2 is installed for) unless PYTHON says otherwise.
PYTHON=${PYTHON:-/usr/bin/python3}
minutes=${1:-30}
bash scripts/install-deps.sh
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
make -s -j"$(nproc)" >/dev/null && make -s install >/dev/null
bash scripts/with-cluster.sh -- "$PYTHON" test/differential/difftest.py --soak "$minutes" "${@:2}"
