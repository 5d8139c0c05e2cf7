#include "glue/hot_update.hpp"

extern "C" {
#include "access/heapam.h"
}

namespace hotplus {

// Stage 1 (issue 2): the update is heap's own. The per-index HOT decision replaces this
// body; it still ends in heap's update so that the tuple on disk and in WAL is heap's.
TM_Result
hotheap_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot, CommandId cid,
					 Snapshot snapshot, Snapshot crosscheck, bool wait, TM_FailureData *tmfd,
					 LockTupleMode *lockmode, CompatUpdateIndexesOut *update_indexes)
{
	return GetHeapamTableAmRoutine()->tuple_update(rel, otid, slot, cid, snapshot, crosscheck,
												  wait, tmfd, lockmode, update_indexes);
}

} // namespace hotplus
