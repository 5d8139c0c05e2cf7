#!/usr/bin/env bash
# Soak: the randomized differential test (test/differential/difftest.py) with random seeds for
# MINUTES minutes (default 30) on a throwaway cluster. Prints the seed of any failure; replay
# one with:  pg_virtualenv -t -v 15 /usr/bin/python3 test/differential/difftest.py --seeds S-S --keep
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's python3 (the one python3-psycopg2 is installed for) unless PYTHON says otherwise.
PYTHON=${PYTHON:-/usr/bin/python3}
minutes=${1:-30}
bash scripts/install-deps.sh
make -s -j"$(nproc)" >/dev/null && make -s install >/dev/null
pg_virtualenv -t -v 15 "$PYTHON" test/differential/difftest.py --soak "$minutes" "${@:2}"
