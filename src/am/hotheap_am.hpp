// The hotheap table access method: heap's routine with hotplus's own update path.
#pragma once

#include "glue/pg.hpp"

extern "C" {
#include "access/tableam.h"
}

namespace hotplus {

// hotheap's routine; built once per backend from heap's (see hotheap_am.cpp).
const TableAmRoutine *hotheap_routine();

} // namespace hotplus
