#!/usr/bin/env bash
# Prints the lines of PostgreSQL server logs that show a broken server or extension, and
# exits 0 if there is one (1 if the logs are clean):
#   TRAP:                       a failed assertion (assert-enabled builds)
#   ... leak / was not closed   a relcache, buffer pin, TupleDesc, snapshot, plancache or
#                               other resource reference still held at end of transaction
#                               (PG15 "... reference leak", PG17+ "resource was not closed")
#   problem in alloc set /      memory context corruption found by MEMORY_CONTEXT_CHECKING
#   detected write past chunk
#   terminated by signal        a backend crash (SIGSEGV, SIGABRT after TRAP)
# A test may make a server crash on purpose: lines matching $HOTPLUS_EXPECTED_LOG (an
# extended regular expression) are not reported.
#
#   bash scripts/server-log-problems.sh LOG...
pattern='TRAP:|reference leak|refcount leak|resource was not closed|leaked|problem in alloc set|detected write past chunk|terminated by signal|still active at|registered snapshots'
found=$(grep -HE "$pattern" "$@" 2>/dev/null)
if [ -n "${HOTPLUS_EXPECTED_LOG:-}" ]; then
	found=$(grep -vE "$HOTPLUS_EXPECTED_LOG" <<<"$found")
fi
[ -n "$found" ] || exit 1
echo "$found" | head -40
exit 0
