# The step counter of scripts/test.sh, scripts/package-test.sh and scripts/upgrade-check.sh,
# and the reading of pg_regress's summary, sourced by the three (from the tree's top):
#
#   source scripts/lib/steps.sh
#   steps_start 24 timed   # the name column's width; "timed": each line ends "(N s)"
#   record NAME PASSED FAILED     # "== NAME   N passed, N failed (T s)"
#   skip NAME REASON              # "== NAME   skipped: REASON": a step that cannot run here
#   check NAME COMMAND...         # one check: passed when COMMAND succeeds
#   regress_record NAME LOG [N]   # a pg_regress / pg_isolation_regress run's counts
#   steps_end LOG_DIR [LINE...]   # "failed: ...", "skipped: ...", LINE..., "N passed, N failed"
#                                 # (", N skipped" when steps were); status 1 on a failure
#
# The counts are the globals passed, failed and skipped, the names of failed steps failures
# (of skipped ones with their reasons, skips), and
# with "timed" the lines of timings ("NAME   T s"; a step's time is the time since the
# previous record, as the steps run one after another). prefix (empty unless the caller
# sets it) comes before every name.

steps_start() { # width [timed]
	step_width=$1
	step_timed=0
	[ "${2:-}" = timed ] && step_timed=1
	passed=0
	failed=0
	skipped=0
	failures=()
	skips=()
	timings=()
	prefix=""
	last_record=$SECONDS
}

record() { # name passed failed
	passed=$((passed + $2))
	failed=$((failed + $3))
	if (($3 > 0)); then failures+=("$prefix$1"); fi
	if ((step_timed)); then
		local took=$((SECONDS - last_record))
		last_record=$SECONDS
		timings+=("$(printf '%-32s %5d s' "$prefix$1" "$took")")
		printf "== %-${step_width}s %d passed, %d failed (%d s)\n" "$prefix$1" "$2" "$3" "$took"
	else
		printf "== %-${step_width}s %d passed, %d failed\n" "$prefix$1" "$2" "$3"
	fi
}

skip() { # name reason: a step that cannot run here, counted apart (never as passed)
	skipped=$((skipped + 1))
	skips+=("$prefix$1 ($2)")
	if ((step_timed)); then
		local took=$((SECONDS - last_record))
		last_record=$SECONDS
		timings+=("$(printf '%-32s %5d s' "$prefix$1" "$took")")
	fi
	printf "== %-${step_width}s skipped: %s\n" "$prefix$1" "$2"
}

# The summary line: "N passed, N failed", and ", N skipped" when a step was.
summary_line() {
	if ((skipped > 0)); then
		echo "${passed} passed, ${failed} failed, ${skipped} skipped"
	else
		echo "${passed} passed, ${failed} failed"
	fi
}

check() { # name command...: one check, passed when the command succeeds
	if "${@:2}"; then record "$1" 1 0; else record "$1" 0 1; fi
}

# pg_regress 15 centres its summary (" All 17 tests passed. "); 16+ prints TAP
# ("ok 1 - name", "# All 17 tests passed.", "# 1 of 17 tests failed."). Shows each test's
# line and the summary, and records name with the summary's counts, or as one failure when
# there is none (then shows the log's last N lines, if N is given).
regress_record() { # name log [N]
	local name=$1 file=$2 total fails
	grep -E '^(test | +[a-z_]+ +\.\.\.|(ok|not ok) +[0-9]+ | *(# )?All | *(# )?[0-9]+ of )' "$file" || true
	if grep -qE '^(# )? *All [0-9]+ tests passed' "$file"; then
		total=$(grep -oE 'All [0-9]+ tests passed' "$file" | grep -oE '[0-9]+')
		record "$name" "$total" 0
	elif grep -qE '[0-9]+ of [0-9]+ tests failed' "$file"; then
		fails=$(grep -oE '[0-9]+ of [0-9]+ tests failed' "$file" | head -1)
		set -- $fails
		record "$name" $(($3 - $1)) "$1"
	else
		[ -n "${3:-}" ] && tail -"$3" "$file"
		record "$name" 0 1
	fi
}

steps_end() { # log-dir [line...]: the failed steps, the lines, the summary; status 1 on a failure
	if ((failed > 0)); then
		echo "failed: ${failures[*]} (logs in $1)"
	fi
	if ((skipped > 0)); then
		printf 'skipped: %s\n' "${skips[@]}"
	fi
	(($# > 1)) && printf '%s\n' "${@:2}"
	summary_line
	((failed == 0))
}
