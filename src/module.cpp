// Library entry: module magic and _PG_init.
//
// hotplus works without shared_preload_libraries: the library is loaded the first time a
// backend builds the relcache entry of a hotheap table (through the AM handler) or calls
// one of the extension's functions. Anything registered here must therefore be per-backend
// and must not need shared memory.
#include "am/pg.hpp"

#include "am/as_heap.hpp"
#include "am/contrib_as_heap.hpp"
#include "am/hotheap_am.hpp"
#include "am/repack.hpp"
#include "update/hot_update.hpp"
#include "update/hot_blocking_override.hpp"
#include "read/plan_display.hpp"
#include "read/read_planner.hpp"
#include "read/read_scan.hpp"
#include "read/shared_detoast.hpp"
#include "am/stored_form.hpp"
#include "update/relation_info.hpp"
#include "am/settings.hpp"
#include "update/statement_scope.hpp"
#include "stats/stats.hpp"
#include "update/verifier.hpp"

extern "C" {
PG_MODULE_MAGIC;

void _PG_init(void);

void
_PG_init(void)
{
	hotplus::define_settings();
	hotplus::hotheap_am_init(hotplus::hotheap_tuple_update);
	hotplus::as_heap_init();
	hotplus::contrib_as_heap_init();
	hotplus::relation_info_init();
	hotplus::verifier_init();
	hotplus::hot_blocking_override_init();
	hotplus::statement_scope_init();
	hotplus::stats_init();
	hotplus::read_scan_init();
	hotplus::shared_detoast_init();
	hotplus::stored_form_init();
	hotplus::read_planner_init();
	hotplus::plan_display_init();
	hotplus::repack_init();
	hotplus::reserve_settings_prefix();
}
}
