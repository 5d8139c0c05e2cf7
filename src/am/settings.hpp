// hotplus's GUCs. The five a user tunes (enabled, check_expressions, reuse_toast, read_path,
// index_hints) are user-settable (PGC_USERSET): per session, per role, per database, or per transaction
// with SET LOCAL. The verifier's are superuser-only (PGC_SUSET): a role must not switch off
// a check its administrator switched on; so are the ones for tests (selftests,
// read_path_everywhere, read_path_show_markers, page_full_sample_every), which no role should
// set on a production server.
#pragma once

namespace hotplus {

struct Settings
{
	// hotplus.enabled: off makes hotheap behave exactly like heap (its update is heap's).
	bool enabled = true;
	// hotplus.check_expressions: evaluate index predicates and expressions on the old and
	// new row. Off: an index whose predicate or expression inputs changed counts as changed.
	bool check_expressions = true;
	// hotplus.reuse_toast: when a toastable column's new value is equal after detoasting to
	// the old one but stored differently, store the old datum again (no re-toasting).
	bool reuse_toast = true;
	// hotplus.verify: recheck every update hotplus lets be HOT where heap would not, and
	// every reused TOAST datum, through an independent path (verifier.hpp) before heap
	// writes anything. On by default in assert-enabled builds (settings.cpp: the boot value
	// needs pg_config.h, which this header must not depend on).
	bool verify = false;
	// hotplus.verify_sample_rate: the fraction of the updates hotplus.verify would check that
	// it checks, drawn per update (1: every one; 0: none). A verified update costs 34 (PG15)
	// and 10 (PG18) times the check itself on 20 expression indexes
	// (doc/performance.md "In memory"): a sample keeps the verifier on in production at a
	// chosen cost.
	double verify_sample_rate = 1.0;
	// hotplus.verify_selftest (assert-enabled builds only): only while verify is on, decide
	// wrongly on purpose (every checked update HOT, every same-sized varlena reused) so tests
	// can show the verifier stops each wrong decision.
	bool verify_selftest = false;
	// hotplus.check_selftest: the HOT decision throws a C++ exception on purpose, so tests
	// can show it is caught, declined (heap decides) and counted as check_failures.
	bool check_selftest = false;
	// hotplus.read_path: reads of hotheap tables detoast a value once per row and plan node
	// (shared detoast markers, read/shared_detoast.hpp) and scans that read few of many
	// columns deform only those (a HotheapRead node, read_scan.hpp). Checked when planning
	// (off: neither), when a planned node starts (off: the node passes rows through
	// unchanged) and when a marker runs on a compressed or out-of-line value (off: the stored
	// value goes on, as on heap).
	bool read_path = true;
	// hotplus.index_hints: a non-HOT update tells each index the statement sets whether the
	// row left its key unchanged (update/index_hints.hpp), for btree's bottom-up deletion.
	// Off: every index gets the executor's own answer, as on heap (doc/performance.md "Hints":
	// the deletion a hint asks for costs CPU where no vacuum runs).
	bool index_hints = true;
	// hotplus.read_path_everywhere: for tests, a HotheapRead node wherever selective
	// deformation could serve, whatever the rows the scan will read (core/read_plan.hpp's cost
	// model leaves it out of few-row scans): the tests of the node's behaviour keep their
	// nodes on small tables, and readtest.py puts one under every query that can have one.
	bool read_path_everywhere = false;
	// hotplus.read_path_show_markers: for tests, EXPLAIN shows the shared detoast markers
	// (plan_display.hpp) as calls naming their group.
	bool read_path_show_markers = false;
	// hotplus.page_full_sample_every: an update whose new version cannot fit on the page
	// cannot be HOT, so hotplus evaluates no index expression or predicate to decide it (its
	// index hints may, update/index_hints.hpp); one in
	// this many of those that would have needed an evaluation to tell whether an index
	// changed are evaluated all the same, drawn at random, for the statistics' estimate of
	// how many would have been HOT with room (hotplus_stat_tables.unchecked_hot_estimate).
	// 1: every one (nothing is left unchecked), 0: none. For tests, not shown.
	int page_full_sample_every = 16;
};

extern Settings settings;

// The rows the read path's cost model (core/read_plan.hpp) counts for a node over a plan the
// planner expects `planned` rows from: unbounded under hotplus.read_path_everywhere.
inline double
read_path_rows(double planned)
{
	return settings.read_path_everywhere ? __builtin_huge_val() : planned;
}

void define_settings();
void reserve_settings_prefix(); // last, after every module defined its variables

} // namespace hotplus
