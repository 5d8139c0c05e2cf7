#include "am/settings.hpp"

#include "am/pg.hpp"

extern "C" {
#include "utils/guc.h"
}

namespace hotplus {

Settings settings;

namespace {
#ifdef USE_ASSERT_CHECKING
constexpr bool kVerifyByDefault = true;
#else
constexpr bool kVerifyByDefault = false;
#endif
} // namespace

void
define_settings()
{
	DefineCustomBoolVariable(
		"hotplus.enabled", "Lets hotheap decide per index whether an UPDATE may be HOT.",
		"Off: hotheap tables update exactly like heap tables.", &settings.enabled, true,
		PGC_USERSET, 0, nullptr, nullptr, nullptr);
	DefineCustomBoolVariable(
		"hotplus.check_expressions",
		"Evaluates index predicates and expressions on the old and new row version.",
		"Off: any change to a column read by an index expression or predicate changes that "
		"index, as in heap; only image equality of stored columns is used.",
		&settings.check_expressions, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
	DefineCustomBoolVariable(
		"hotplus.reuse_toast",
		"Stores the old TOAST datum again when a value is written back unchanged.",
		"A new value equal after detoasting to the old one keeps the old compressed or "
		"out-of-line datum: nothing is toasted again and no TOAST rows change.",
		&settings.reuse_toast, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
	DefineCustomBoolVariable(
		"hotplus.index_hints",
		"Tells each index of an update that is not HOT whether the row left its key unchanged.",
		"btree then removes old versions of an unchanged key before it splits a page "
		"(bottom-up deletion). Off: every index gets the executor's own answer, which it "
		"takes from the statement's target columns alone, as on heap.",
		&settings.index_hints, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
	DefineCustomBoolVariable(
		"hotplus.verify",
		"Rechecks every HOT decision hotplus adds, independently, before the update is written.",
		"Whenever hotplus lets an update be HOT that heap would not, every index's predicate "
		"and key values are recomputed from the stored old row and the final new row and "
		"compared by image; every reused TOAST value is compared with the value written. A "
		"disagreement raises an ERROR naming the table and index, and nothing is written. "
		"On by default in assert-enabled builds.",
		&settings.verify, kVerifyByDefault, PGC_SUSET, 0, nullptr, nullptr, nullptr);
	DefineCustomRealVariable(
		"hotplus.verify_sample_rate",
		"Fraction of the updates hotplus.verify would check that it checks.",
		"Drawn at random per update: 1 checks every one, 0 none. The verifier costs about "
		"as much as evaluating every index expression on both row versions; a sample bounds "
		"that cost while it keeps watching.",
		&settings.verify_sample_rate, 1.0, 0.0, 1.0, PGC_SUSET, 0, nullptr, nullptr, nullptr);
#ifdef USE_ASSERT_CHECKING
	// Decides wrongly on purpose: assert-enabled builds only, where the tests run it. A
	// release build has no such setting (GRANT SET could hand it to a role; with
	// verify_sample_rate < 1 its wrong decisions reach the indexes).
	DefineCustomBoolVariable(
		"hotplus.verify_selftest",
		"Tests hotplus.verify: decides wrongly on purpose while hotplus.verify is on.",
		"Every checked update is let be HOT without deciding, and every varlena of the same "
		"size is reused as if written back; the verifier must stop each wrong case. No "
		"effect while hotplus.verify is off; updates hotplus.verify_sample_rate leaves "
		"unchecked are written wrongly (throwaway tables only).",
		&settings.verify_selftest, false, PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
		nullptr, nullptr, nullptr);
#endif
	DefineCustomBoolVariable(
		"hotplus.check_selftest",
		"Tests the update check's failure path: its decision throws on purpose.",
		"Every update that needs hotplus's decision fails inside it with a C++ exception, "
		"which must be caught: heap decides alone and hotplus_stat_tables.check_failures "
		"counts it.",
		&settings.check_selftest, false, PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
		nullptr, nullptr, nullptr);
	DefineCustomBoolVariable(
		"hotplus.read_path",
		"Reads of hotheap tables detoast a value once per row and plan node, and scans deform "
		"only the columns a query reads.",
		"Off: new plans read hotheap tables exactly like heap tables, and plans already made "
		"with the read path run without it (EXPLAIN still shows their HotheapRead node, which "
		"then only evaluates the filter and output list).",
		&settings.read_path, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
	DefineCustomBoolVariable(
		"hotplus.read_path_everywhere",
		"Tests the read path's nodes where its cost model would leave them out.",
		"With hotplus.read_path on, every scan whose columns could gain from selective "
		"deformation gets a node, whatever the rows it will read.",
		&settings.read_path_everywhere, false, PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
		nullptr, nullptr, nullptr);
	DefineCustomBoolVariable(
		"hotplus.read_path_show_markers",
		"Tests the read path's markers: EXPLAIN shows them.",
		"EXPLAIN shows each shared detoast marker as a call naming its group, instead of the "
		"column alone.",
		&settings.read_path_show_markers, false, PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
		nullptr, nullptr, nullptr);
	DefineCustomIntVariable(
		"hotplus.page_full_sample_every",
		"Tests the page-full statistics: how many of the updates that cannot be HOT for lack "
		"of room, and whose indexes would need evaluating, one evaluated update stands for.",
		"One in this many, drawn at random, is decided in full and counted in nonhot_page_full "
		"or nonhot_index_changed; if no index changed, it adds this number minus 1 to "
		"unchecked_hot_estimate. The others are counted in nonhot_page_full_unchecked. 1: "
		"every one is decided, 0: none.",
		&settings.page_full_sample_every, 16, 0, 1000000, PGC_SUSET,
		GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
}

void
reserve_settings_prefix()
{
	// After every hotplus.* variable is defined: this drops the placeholders left, which
	// would otherwise swallow a definition that comes later (and its configured value).
	MarkGUCPrefixReserved("hotplus");
}

} // namespace hotplus
