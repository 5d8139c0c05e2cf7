// What hotplus needs to know about one hotheap relation, built once per relcache entry.
//
// Invariants:
//  1. An entry describes exactly the indexes of RelationGetIndexList() at the time it was
//     built, including indexes that CREATE INDEX CONCURRENTLY has not made ready or valid.
//  2. Any relcache invalidation of the relation (or of all relations) marks the entry
//     invalid at once (relcache callback). An invalid entry is never used for a decision
//     until relation_info_revalidate() has read the relation's index list and tuple
//     descriptor again and found them equal to what the entry was built from. Everything
//     else in the entry is a function of those: an index's definition never changes under
//     its OID (REINDEX keeps it, REINDEX CONCURRENTLY makes a new index), and indisready is
//     only ever cleared together with indislive, which takes the index out of the list (an
//     index that became ready since only costs evaluations the entry declines to make).
//     Otherwise the entry is rebuilt at the next lookup, or,
//     while an update still uses it, that update declines (heap's own decision stands).
//     Revalidation marks the entry valid before it reads, so an invalidation processed
//     while reading leaves it invalid. Most invalidations of a table (ANALYZE, VACUUM,
//     GRANT, a cache reset, debug_discard_caches) change none of these.
//  3. Entries are freed only when no update uses them (`in_use == 0`).
//  4. Everything here lives in the entry's memory context (a child of CacheMemoryContext),
//     except the core's C++ objects, which are owned by `core` and deleted with the entry.
#pragma once

#include "am/pg.hpp"

#include "update/jsonb_parts.hpp"

extern "C" {
#include "access/attnum.h"
#include "nodes/execnodes.h"
#include "utils/relcache.h"
}

namespace hotplus {

namespace core_bridge {
struct CoreState; // C++ side of an entry: shapes and the per-update change vector
}

// One index, as the evaluation needs it.
struct IndexEvalInfo
{
	Oid index_oid;
	List *expressions;			 // planner-prepared index expressions (NIL if none)
	List *predicate;			 // implicit-AND predicate (NIL if none)
	ExprState **expression_states; // prepared lazily, one per expression
	ExprState *predicate_state;	 // prepared lazily
	bool prepared;
	int nexpressions;
	int16 *expression_typlen;	 // of the expression's own type (exprType), not the
	bool *expression_typbyval;	 // index's storage type
	// Per expression: the jsonb part it is exactly (`col -> 'key'`, `col ->> 'key'`,
	// is_part_access), or -1: its value differs when the part's values differ as scalars.
	int *expression_part;
	// Its access method may use the executor's "key unchanged" hint (index_hints.hpp): any
	// but the core ones whose aminsert ignores it (hash, GiST, GIN, SP-GiST, BRIN; 15 to 19:
	// only btree reads it). Only such indexes are hinted, and evaluated for a hint.
	bool takes_hint;
};

// One column's facts and per-update state, indexed by attribute number, all columns in one
// array (one or two cache lines for most tables: an update reads several per column).
struct ColumnFacts
{
	bool toastable;
	bool index_input;
	bool expression_input; // read by some expression or predicate
	// Per statement: how many of its values the statement had to fetch or decompress to
	// compare, all found different; -1 once one was equal (row_change.hpp invariant 2, D8b).
	int unequal_fetches;
};

// The buffers one update works in (update_state.hpp), made once for the relation's shape:
// per update, every field is written before it is read, or cleared by the check's cleanup
// (hot_update.cpp, end_check()).
struct UpdateScratch
{
	TupleTableSlot *old_slot;	  // buffer heap slot holding the old version when read from the TID
	TupleTableSlot *eval_slot[2]; // virtual slots with detoasted expression inputs, per side
	bool eval_slot_filled[2];
	// Each varlena column's value detoasted once per side (version_values.hpp).
	Datum *detoasted[2];   // [natts + 1]
	bool *is_detoasted[2]; // [natts + 1]
	bool any_detoasted[2]; // some is_detoasted[side] entry is set
	// The columns of which the update met an old value stored compressed or out of line, for
	// the read path (am/stored_form.hpp), told when the update is done (hot_update.cpp): the
	// first nold_extended, each column once (old_noted), however many of its jsonb fields
	// were read from a prefix (part_changes.cpp) before or after it was detoasted.
	AttrNumber *old_extended; // [natts + 1]
	bool *old_noted;		  // [natts + 1]: whether old_extended lists the column
	int nold_extended;
	// What is known of each jsonb part of a changed column (part_changes.hpp, PartState);
	// reset at the start of every checked update.
	uint8 *part_state; // [nparts]
	// The columns whose old stored datum goes into the new version (row_change.hpp), the
	// first UpdateState::toast_reused of them.
	AttrNumber *reused; // [ncompared]
	// The indexes a non-HOT update leaves unchanged (UpdateState::hints, kHintListed).
	bool *unchanged; // [nindexes]
};

// The fields every update reads come first, so that a one-row statement (whose parse and
// plan have evicted the entry from the CPU's first-level cache) misses on few cache lines.
struct RelationInfo
{
	Oid relid;
	bool valid;		// cleared by any relcache invalidation of the relation
	bool nothing_to_gain; // no toastable column and no expression/partial index
	int in_use;		// updates currently using this entry

	// The running statement's use of the relation (statement_scope.hpp), learned at its
	// first update here and valid while statement_serial() == statement (a serial is never
	// reused, so a finished statement's cannot match; statement_result_rel points into the
	// running statement's memory). Only read by an update that owns the entry (in_use).
	uint64 statement;			  // PG_UINT64_MAX: nothing learned yet
	// The slot its own updates of rel come in (the result relation's new-tuple slot, or its
	// ON CONFLICT projection's); nullptr when the targets are not known. An update of rel in
	// another slot while the statement runs (C code under its plan updating rel directly)
	// is not the statement's: its columns are compared as if no statement were known.
	TupleTableSlot *statement_slot;
	TupleTableSlot *statement_conflict_slot;
	// The result relation an update of the statement's own (in one of those slots) belongs
	// to, whose indexes its hints go to (index_hints.hpp); nullptr when there is none.
	ResultRelInfo *statement_hint_target;
	bool statement_leaves_to_heap; // it changes no column of skip_unless_targeted
	// On a relation with nothing_to_gain: it sets the columns of two indexes or more, whose
	// hints may gain (update_gate.hpp step 3).
	bool statement_hints_only;
	// Per index: the executor tells it "changed" on every row of the statement (a key column
	// or expression input targeted), so a row that leaves its key unchanged gains by telling it
	// so (index_hints.hpp); and how many indexes are such.
	bool *statement_hint_candidates; // [nindexes]
	int nstatement_hint_candidates;
	// It changes no column of decision_inputs: only toastable columns no index reads, whose
	// reuse is all it can gain (update_gate.cpp, reuse_cannot_gain()).
	bool statement_reuse_only;
	// The targets the statement facts were derived from (learned_known false: not known,
	// every compared column may change); a copy in the entry's context. learned: any were
	// (the entry is zeroed when built).
	bool learned;
	bool learned_known;
	AttrNumber statement_max_compared; // the last of statement_compared, 0 if none
	int nstatement_compared;
	AttrNumber *statement_compared; // [ncompared] the compared columns it may change
	ResultRelInfo *statement_result_rel;
	// The index (number in `indexes`) the last decision of an update by statements with
	// these targets found changed, -1 if none: the next such update looks at it first
	// (core::decide_update_likely_first). Only a guess: any value costs only time.
	int likely_changed;
	Bitmapset *learned_targets;
	ColumnFacts *columns; // [natts + 1], by attribute number

	MemoryContext context;
	int natts;
	int nindexes;
	IndexEvalInfo *indexes; // in RelationGetIndexList() order

	// jsonb fields read through -> / ->> (jsonb_parts.hpp). Part i is the core's column
	// number natts + 1 + i.
	JsonbPartRegistry parts;

	// Columns (attribute numbers, ascending) whose old and new values are compared:
	// the inputs of every index, and every toastable column.
	int ncompared;
	AttrNumber *compared;
	AttrNumber max_compared;
	Bitmapset *compared_set; // the same, offset by FirstLowInvalidHeapAttributeNumber
	// Columns a statement must not target for hotplus to leave the update to heap
	// untouched: the compared columns, plus heap's HOT-blocking columns when those are more
	// (stock_blocks_more; a whole-row reference there means every column). Same offset.
	Bitmapset *skip_unless_targeted;
	// The columns the HOT decision reads: index inputs, plus heap's HOT-blocking columns
	// when those are more. A statement that targets none of them can only gain by TOAST
	// reuse (statement_reuse_only). Same offset.
	Bitmapset *decision_inputs;

	AttrNumber max_expression_input; // 0 if no expression or predicate reads a column
	bool any_evaluation; // some index has an expression or a predicate
	// heap's HOT-blocking columns (RelationGetIndexAttrBitmap(ALL), taken from the raw
	// index expressions, whole-row references included) are more than the columns the
	// planner-prepared expressions read (inlined SQL functions, folded constants): heap may
	// refuse HOT where no index input differs.
	bool stock_blocks_more;

	// Evaluation machinery, created once: expressions run in the per-tuple memory of estate.
	EState *estate;
	UpdateScratch scratch;

	core_bridge::CoreState *core;

	// What the entry was built from (invariant 2): the relation's index list in order,
	// summarizing indexes included, and the tuple descriptor (a private copy with its
	// constraints, also the slots' descriptor).
	int nlisted;
	Oid *listed;
	TupleDesc desc;
};


// Registers the invalidation callback; call once from _PG_init.
void relation_info_init();

// The valid entry for rel, revalidated or built if needed. Returns nullptr if it could not
// be built validly (the relation changed while building): decline and let heap decide.
// The last entry returned is checked first, inline (one per update).
extern RelationInfo *last_relation_info; // nullptr once it is freed
RelationInfo *relation_info_lookup(Relation rel);
inline RelationInfo *
relation_info_get(Relation rel)
{
	RelationInfo *info = last_relation_info;
	if (info != nullptr && info->relid == RelationGetRelid(rel) && info->valid)
		return info;
	return relation_info_lookup(rel);
}

// Whether info (invalidated or not) still describes rel (invariant 2); marks it valid if so.
bool relation_info_revalidate(RelationInfo *info, Relation rel);

} // namespace hotplus
