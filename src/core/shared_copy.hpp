// One detoasted copy per row and column, shared by the references that read it (src/README.md
// D14b), as pure logic: what one reference does with the copies around it.
//
// No PostgreSQL header may be included here. The glue (read/shared_detoast.cpp) describes, for
// one reference evaluated on one row, its group's current copy (a group: one column as one plan
// node reads it) and whether another group holds a live copy of the same stored bytes, and
// decide_copy() answers: serve a copy, make one, or pass the stored value on as heap does.
//
// The words:
//  - A copy is made in the memory context the reference is evaluated in, where the function
//    reading it would have made its own detoasted copy on heap, and dies when that context is
//    reset. A copy is identified by the stored bytes it was made from (a compressed value's
//    bytes, an out-of-line value's TOAST pointer): equal stored bytes detoast to equal values,
//    whatever row holds them, so identity never rests on a pointer that a later row may reuse.
//  - The function reading a reference is its *consumer*. A consumer whose result may be the
//    copy itself or point into it (a by-reference result not known to be freshly made: a
//    varchar(n) coercion returns its argument within the limit) *aliases* the copy: its result
//    lives as long as the copy must.
//  - A copy is *released* once something outside its group may hold it: it was served to an
//    aliasing consumer, or to a reference of another group. A released copy is never freed
//    before its memory context is reset; an unreleased one is referenced by nothing once its
//    consumer returned, so its group frees it when it moves to another value.
//
// Invariants (test/unit/shared_copy_test.cpp checks them against a model that tracks every
// reference to every copy):
//  1. A served copy holds the value the reference reads (same stored bytes) and is alive.
//  2. An aliasing consumer is served only a copy made in the memory context it is evaluated in
//     (so its result lives exactly as long as heap's own copy would), and the copy is released.
//  3. A copy of another group is served only to a consumer that does not alias; the copy is
//     released first. (The consumer's other arguments are constants, read_references.hpp: it
//     is called right after the marker, before any plan node could run and reset the copy's
//     memory, and holds nothing of it once it returned.)
//  4. A group holds at most one unreleased copy, its current one, and frees it when it moves
//     to another value (a row changes between evaluations, never within one, so nothing
//     holds it then). A released copy it leaves behind lives until its memory context is
//     reset. An aliasing consumer evaluated in another context than the group's copy of the
//     same value gets the stored value (a consumer of this evaluation may still be waiting
//     for its other arguments with that copy, so it is not replaced).
//  5. Where the evaluation's memory context is not one the group can watch (not its own
//     context or below), nothing is copied: the stored value is passed on, as on heap.
#pragma once

#ifdef POSTGRES_H
#error "src/core headers must be included before PostgreSQL's postgres.h (am/pg.hpp)"
#endif

namespace hotplus::core {

// A reference, as the planner marked it.
struct CopyRequest
{
	bool result_may_alias = true; // its consumer's result may be the copy or point into it
};

// The copies around a reference, as found when it is evaluated.
struct CopyView
{
	bool own_alive = false;		  // the group has a current copy (its memory was not reset)
	bool own_matches = false;	  // ... made from the stored bytes this row holds
	bool own_in_context = false;  // ... in the memory context this evaluation runs in
	bool own_released = false;	  // ... and something outside the group may hold it
	bool other_matches = false;	  // another group's live copy was made from the same bytes
	bool context_watched = false; // this evaluation's memory context is the group's or below it
};

enum class CopyAction
{
	ServeOwn,	// the group's current copy
	ServeOther, // another group's copy (which is released first)
	MakeNew,	// detoast into a new copy, which becomes the group's current one
	PassStored, // the stored value, untouched (the consumer detoasts it, as on heap)
};

struct CopyDecision
{
	CopyAction action = CopyAction::PassStored;
	bool free_own = false;		  // MakeNew: free the group's current copy (invariant 4)
	bool release_served = false; // the copy served (own or new) is released from now on
};

CopyDecision decide_copy(const CopyView &view, const CopyRequest &request);

} // namespace hotplus::core
