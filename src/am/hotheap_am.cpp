// hotheap = heap on disk and in WAL. Every callback is heap's own except:
//  - tuple_update: hotplus decides which indexes an update really changes
//    (update/hot_update.cpp, installed by _PG_init: the access method is below the paths);
//  - index_build_range_scan, index_validate_scan: heap's, run "as heap" (as_heap.hpp),
//    because they call heap_getnext(), which refuses any other routine;
//  - relation_toast_am: TOAST tables of hotheap tables are plain heap. Nothing ever updates
//    a TOAST row in place, so hotheap would gain nothing there, and plain heap keeps heap-only
//    tools (amcheck's verify_heapam, pgstattuple) working on them.
#include "am/hotheap_am.hpp"

#include "am/as_heap.hpp"

extern "C" {
#include "access/heapam.h"
#include "catalog/pg_am_d.h"
#include "utils/rel.h"
}

namespace hotplus {

static TableAmRoutine hotheap_methods;
static bool hotheap_methods_ready = false;
static HotheapTupleUpdate installed_tuple_update = nullptr;

static double
hotheap_index_build_range_scan(Relation table_rel, Relation index_rel, IndexInfo *index_info,
							   bool allow_sync, bool anyvisible, bool progress,
							   BlockNumber start_blockno, BlockNumber numblocks,
							   IndexBuildCallback callback, void *callback_state,
							   TableScanDesc scan)
{
	AsHeapScope scope;
	volatile double tuples = 0;

	as_heap_enter(&scope, table_rel, &hotheap_methods);
	PG_TRY();
	{
		tuples = GetHeapamTableAmRoutine()->index_build_range_scan(
			table_rel, index_rel, index_info, allow_sync, anyvisible, progress, start_blockno,
			numblocks, callback, callback_state, scan);
	}
	PG_FINALLY();
	{
		as_heap_leave(&scope);
	}
	PG_END_TRY();
	return tuples;
}

static void
hotheap_index_validate_scan(Relation table_rel, Relation index_rel, IndexInfo *index_info,
							Snapshot snapshot, ValidateIndexState *state)
{
	AsHeapScope scope;

	as_heap_enter(&scope, table_rel, &hotheap_methods);
	PG_TRY();
	{
		GetHeapamTableAmRoutine()->index_validate_scan(table_rel, index_rel, index_info,
													   snapshot, state);
	}
	PG_FINALLY();
	{
		as_heap_leave(&scope);
	}
	PG_END_TRY();
}

static Oid
hotheap_relation_toast_am(Relation)
{
	return HEAP_TABLE_AM_OID;
}

void
hotheap_am_init(HotheapTupleUpdate tuple_update)
{
	installed_tuple_update = tuple_update;
}

const TableAmRoutine *
hotheap_routine()
{
	if (!hotheap_methods_ready)
	{
		Assert(installed_tuple_update != nullptr); // _PG_init runs before any handler call
		hotheap_methods = *GetHeapamTableAmRoutine();
		hotheap_methods.tuple_update = installed_tuple_update;
		hotheap_methods.index_build_range_scan = hotheap_index_build_range_scan;
		hotheap_methods.index_validate_scan = hotheap_index_validate_scan;
		hotheap_methods.relation_toast_am = hotheap_relation_toast_am;
		hotheap_methods_ready = true;
	}
	return &hotheap_methods;
}

} // namespace hotplus

extern "C" {
PG_FUNCTION_INFO_V1(hotheap_tableam_handler);
Datum
hotheap_tableam_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(hotplus::hotheap_routine());
}
}
