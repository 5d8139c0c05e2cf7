// HotheapRead: the custom scan node of the read path (D14): selective deformation.
//
// The planner (read_planner.hpp) puts a HotheapRead node above a scan of a hotheap table whose
// filter and output list read few of the columns up to the last one they read, and moves the
// filter and output list into it; the scan below returns whole rows. Per row the node takes
// the row from the scan's slot, deforms only the columns its expressions read
// (selective_deform.hpp), and evaluates the filter and output list (shared detoast markers in
// them, if any, run as anywhere else: shared_detoast.hpp).
//
// Invariants:
//  1. Rows, their order and every scan behaviour come from the unchanged scan below (seq,
//     index, bitmap, parallel, backward, EvalPlanQual, rescans with parameters); the node
//     only evaluates what the scan would have evaluated itself, on the same row.
//  2. Selective deformation is used only on the scan's own slot, freshly stored
//     (tts_nvalid == 0), and only when the node projects: then the slot is read by nothing
//     but the node's filter and output list, whose columns are the deformed set.
//  3. With hotplus.read_path off when the node starts, it only evaluates the filter and the
//     output list as the scan would have.
//  4. The node is planned only where the rows its scan will read repay its start
//     (core/read_plan.hpp, D14c).
//  5. Where the executor compiled the filter and output list for a virtual slot (PG15: a
//     custom scan's slot type cannot be set), they read the row's values without deforming
//     it (ExecComputeSlotInfo drops the fetch step for virtual slots): each row is deformed
//     up to the last column they read before they run. The planner lists every column they
//     read (kPrivateDeformed; all of them for a whole-row reference, which deforms by itself
//     anyway), so no value they read is left undeformed. Except where the executor evaluates
//     one of them through its one-Var shortcut for virtual slots, which asserts the slot is
//     virtual (a SubPlan's arguments, an output list of one column): then the node compiles
//     its own for the scan's slot type at the start (uses_virtual_slot_shortcuts).
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "nodes/extensible.h"
}

namespace hotplus {

inline constexpr const char *kReadNodeName = "HotheapRead";

// custom_private of a HotheapRead plan: the plan-time decision.
enum ReadPrivate
{
	kPrivateDeformed, // IntList: every column the node's expressions read, ascending
	kPrivateCount
};

const CustomScanMethods *read_scan_methods();
void read_scan_init(); // _PG_init

} // namespace hotplus
