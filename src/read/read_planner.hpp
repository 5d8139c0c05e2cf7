// The read path's planning side: after the standard planner, the shared detoast markers go
// into every node's expressions (D14b, shared_markers.hpp), then every sequential, index and
// bitmap heap scan of a hotheap table whose expressions gain from selective deformation over
// the rows it will read (core/read_plan.hpp, D14c) gets a HotheapRead node above it
// (read_scan.hpp), which takes over the scan's filter and output list.
//
// Invariants of the HotheapRead placement:
//  1. Only the plan's shape changes: the scan keeps its rows, order, index conditions and
//     parallel awareness; the node evaluates exactly the filter and output list the scan had.
//     A scan that would evaluate expressions on its own rows anyway (index ORDER BY distance
//     operators) is left alone, as is every scan that gains nothing.
//  2. The node supports backward scans and mark/restore exactly when its scan does, so the
//     planner's earlier choices (Material for SCROLL cursors and merge joins) still hold.
//  3. Plan node ids stay unique (parallel query and EXPLAIN key on them).
#pragma once

namespace hotplus {

void read_planner_init(); // _PG_init: chains planner_hook

} // namespace hotplus
