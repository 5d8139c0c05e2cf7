// HotheapRead: the custom scan node of the read path (D14).
//
// The planner (read_planner.hpp) puts a HotheapRead node above a scan of a hotheap table and
// moves the scan's filter and output list into it; the scan below returns whole rows. Per
// row the node takes the row from the scan's slot, deforms only the columns its expressions
// read (selective_deform.hpp), evaluates the filter and output list, and serves every
// qualifying reference to a column marked "detoast once" (read_references.hpp) from one
// detoasted copy made on first use.
//
// Invariants:
//  1. Rows, their order and every scan behaviour come from the unchanged scan below (seq,
//     index, bitmap, parallel, backward, EvalPlanQual, rescans with parameters); the node
//     only evaluates what the scan would have evaluated itself, on the same row.
//  2. Selective deformation is used only on the scan's own slot, freshly stored
//     (tts_nvalid == 0), and only when the node projects: then the slot is read by nothing
//     but the node's filter and output list, whose columns are the deformed set.
//  3. A detoasted copy is made only of a value stored compressed or out of line, and lives
//     in memory reset when the next row is fetched, at rescan and at the end: as long as
//     heap's per-row memory, where a function's own detoasted copy lives. It leaves the
//     node only where heap hands up such a copy too: a built-in function that detoasted its
//     argument and returned it (t::varchar(n), replace() without a match) returns the same
//     bytes on heap. The references whose datum a function may return as it received it,
//     undetoasted (NULLIF's first argument, array_larger and the others of
//     read_references.hpp), are never served from a copy: they get the stored datum, as on
//     heap. So every datum a node above receives has heap's bytes, header and compression
//     (test/differential/function_results.py checks every built-in function).
//  4. With hotplus.read_path off when the node starts, it only evaluates the filter and the
//     output list as the scan would have.
//  5. The filter and output list the executor compiled run until the first row with a
//     shared column stored compressed or out of line; from that row on (switched before
//     anything of it is evaluated) the marked ones run, to the end. Both give the same
//     values (D14): only the number of detoastings differs, so a scan of inline values
//     never pays for compiling the marked ones. EXPLAIN ANALYZE VERBOSE counts the copies
//     made ("Values Detoasted").
//  6. Where the executor compiled them for a virtual slot (PG15: a custom scan's slot type
//     cannot be set), they read the row's values without deforming it (ExecComputeSlotInfo
//     drops the fetch step for virtual slots): until the marked ones replace them, each
//     row is deformed up to the last column they read before they run. The planner lists
//     every column they read (kPrivateDeformed; all of them for a whole-row reference, which
//     deforms by itself anyway), so no value they read is left undeformed. Except where the
//     executor evaluates one of them through its one-Var shortcut for virtual slots, which
//     asserts the slot is virtual (a SubPlan's arguments, an output list of one column):
//     then the node compiles its own for the scan's slot type at the start
//     (uses_virtual_slot_shortcuts).
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
	kPrivateSelective,	 // Integer: 1 if selective deformation pays
	kPrivateDeformed,	 // IntList: every column the node's expressions read, ascending
	kPrivateDetoast,	 // IntList: columns read through one detoasted copy per row
	kPrivateMarkedQual,	 // List: the filter with those columns' qualifying references as markers
	kPrivateMarkedTlist, // List: the output list, likewise (both NIL when kPrivateDetoast is)
	kPrivateCount
};

const CustomScanMethods *read_scan_methods();
void read_scan_init(); // _PG_init

} // namespace hotplus
