// Running one of heap's own callbacks on a hotheap relation as if it were heap.
//
// heap_getnext() refuses any relation whose rd_tableam is not heap's routine (a pointer
// test, heapam.c), and heap's index_build_range_scan / index_validate_scan call it. So for
// the duration of those callbacks the relation's rd_tableam must point at heap's routine.
//
// Invariants (see as_heap.cpp for why each holds):
//  1. While a scope is open, rel->rd_tableam == GetHeapamTableAmRoutine(), even across an
//     in-place relcache rebuild of rel (a relcache callback re-applies it).
//  2. When the scope closes, normally or by ERROR, rd_tableam is hotheap's routine again.
//  3. Scopes nest (LIFO), also for the same relation.
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "access/tableam.h"
#include "utils/rel.h"
}

namespace hotplus {

// One open scope; lives in the caller's stack frame (a plain struct: no destructor, so an
// ERROR's longjmp may pass over it safely).
struct AsHeapScope
{
	Relation rel;
	const TableAmRoutine *restore_to;
	AsHeapScope *outer;
};
static_assert(std::is_trivially_destructible_v<AsHeapScope>); // on frames an ERROR may unwind

// Registers the relcache callback; call once from _PG_init.
void as_heap_init();

// Opens a scope: from here on rel looks like a heap relation to heap's code.
void as_heap_enter(AsHeapScope *scope, Relation rel, const TableAmRoutine *restore_to);

// Closes the innermost scope, which must be `scope`. Call from PG_FINALLY.
void as_heap_leave(AsHeapScope *scope);

} // namespace hotplus
