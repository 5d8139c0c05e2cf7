// Whether a column's values may be stored compressed or out of line: the only values one
// shared detoasted copy saves work on (D14b). A read path node over values that are all short
// and in line costs a little per row and saves nothing, so the planner asks this first.
//
// Plan-time evidence only, no data is read: the table's TOAST relation has blocks (some value
// of the table is stored out of line), or the column's values are wide on average as ANALYZE
// measured them in their stored form (kWideStoredValue: compressed in line, or large enough
// that a call over them costs far more than the node). Without either, the answer is no: the
// node is left out and heap's plan runs, which costs nothing where nothing could be gained
// (and gains nothing on a table whose compressed values ANALYZE has not seen yet).
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "utils/relcache.h"
}

namespace hotplus {

// ANALYZE's average stored width at or above which a column's values count as wide.
inline constexpr int kWideStoredValue = 512;

bool values_may_be_toasted(Relation rel, AttrNumber attno);

} // namespace hotplus
