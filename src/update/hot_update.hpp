// hotheap's tuple_update: where hotplus decides whether an update may be HOT.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "access/tableam.h"
}

namespace hotplus {

TM_Result hotheap_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
							   CommandId cid COMPAT_TUPLE_UPDATE_OPTIONS_PARAM, Snapshot snapshot,
							   Snapshot crosscheck, bool wait,
							   TM_FailureData *tmfd, LockTupleMode *lockmode,
							   CompatUpdateIndexesOut *update_indexes);

} // namespace hotplus
