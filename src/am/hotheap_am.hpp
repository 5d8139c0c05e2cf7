// The hotheap table access method: heap's routine with hotplus's own update path.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "access/tableam.h"
}

namespace hotplus {

using HotheapTupleUpdate = decltype(TableAmRoutine::tuple_update);

// The update path's tuple_update, installed by _PG_init before any use of the routine.
void hotheap_am_init(HotheapTupleUpdate tuple_update);

// hotheap's routine; built once per backend from heap's (see hotheap_am.cpp).
const TableAmRoutine *hotheap_routine();

} // namespace hotplus
