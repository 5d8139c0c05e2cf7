// Index inputs finer than a column: one top-level field of a jsonb column.
//
// An index expression or predicate that reads a jsonb column only through `col -> 'key'` or
// `col ->> 'key'` (constant key) depends on the value stored under that key, not on the
// whole document. Such a (column, key) pair is a *part*. The decision treats a part like a
// column of its own: an update that changes other fields of the document leaves the part
// Same, so the index is unchanged without evaluating anything.
//
// Invariants:
//  1. A column read anywhere other than as the direct argument of a recognized field access
//     (including a whole-row reference) is a full input; parts only ever narrow inputs that
//     are provably read through a field access.
//  2. A part is Same only if the column is Same, or both versions are jsonb objects (or both
//     are not) and the values under the key are absent in both or byte-identical in their
//     binary encoding (equal bytes imply an equal value, hence equal results of -> and ->>).
//     Anything else is Changed (conservative: the probe then evaluates the expression).
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "access/attnum.h"
#include "nodes/bitmapset.h"
#include "nodes/pg_list.h"
}

namespace hotplus {

struct JsonbPart
{
	AttrNumber column;
	text *key; // palloc'd copy
};

struct JsonbPartRegistry
{
	int nparts;
	int capacity;
	JsonbPart *parts;
	// Part indexes ordered by column, then by key in jsonb's object order (length, then
	// bytes): each column's parts form one run, compared in one pass (compare_parts).
	// Set by order_parts once every part is registered.
	int *by_column;
};

// Walks expr (an expression list or an implicit-AND list) and reports what it reads:
// whole columns into *columns (attribute numbers offset by FirstLowInvalidHeapAttributeNumber,
// as pull_varattnos; attno 0 for a whole-row reference), and parts, registered (deduplicated)
// in registry, as indexes into it in *parts (offset by 1, so 0 is never a member).
void collect_inputs(Node *expr, Bitmapset **columns, Bitmapset **parts, JsonbPartRegistry *registry);

// Orders the registered parts for compare_parts (registry->by_column); call once, after the
// last collect_inputs, in the memory context the registry lives in.
void order_parts(JsonbPartRegistry *registry);

// For the n parts registry->by_column[first .. first + n - 1] (one column's run), sets
// same[k] to whether the value under that part's key is the same bytes in two detoasted
// jsonb datums (invariant 2). One merge pass over the pairs of both objects, whose keys are
// stored sorted, instead of a binary search in each document per part, unless the objects
// have so many pairs that the searches cost less (one field indexed in a document of
// hundreds). bench/instructions.py, 20 parts of 22-key documents: 231,975 -> 204,057
// instructions per one-row UPDATE.
void compare_parts(Datum old_value, Datum new_value, const JsonbPartRegistry *registry, int first, int n,
				   bool *same);

// compare_parts() reading the old value only as far as the values of the n parts
// registry->parts[parts[k]] go (in jsonb's key order: a run of by_column, or one part): a
// compressed or out-of-line old document is decompressed or fetched up to the end of the last
// of those values (detoast_attr_slice: the bytes the whole value holds there), the new one
// read where it is. Sets same[k] as compare_parts() and part_is_same() do (invariant 2: each
// value's bytes compared in full) and returns true; returns false, with same[] unset, when
// that prefix would be more than half the old value or a document is not laid out as
// expected: then the caller compares the detoasted values. *old_in_full: as
// part_difference() says. bench/instructions.py, workload 3's large documents (20 short
// fields before a 6 kB array): no second decompression of the old document in full for the
// hints of a non-HOT update.
bool compare_parts_in_prefix(Datum old_value, Datum new_value, const JsonbPartRegistry *registry, const int *parts,
							 int n, bool *same, Datum *old_in_full);

// A difference found under one key of two jsonb values, reading each only as far as needed:
// a compressed or out-of-line old document is decompressed or fetched up to the end of the
// value under key (detoast_attr_slice), not in full. Only ever a proof of difference:
// NoneFound means "compare exactly" (part_is_same on the detoasted values), never "same",
// so a mistake here can only call a part changed, never unchanged.
enum class PartDifference : uint8
{
	NoneFound,		  // no difference proved: the caller compares exactly
	Differs,		  // the values under key differ (present in one only, or other bytes)
	DiffersAsScalars, // both strings, or both booleans, of other bytes: `col ->> key` and
					  // `col -> key` give different values (jsonb_object_field(_text))
};
// *old_in_full: the old value detoasted in full when reading it took all of it (a field
// near its end), else 0; the caller may keep it rather than detoast again.
PartDifference part_difference(Datum old_value, Datum new_value, const text *key, Datum *old_in_full);

// Whether expr (one index expression) is exactly `col -> 'key'` or `col ->> 'key'` of a
// part registered in registry; *part: its index there.
bool is_part_access(Node *expr, const JsonbPartRegistry *registry, int *part);

// Whether the value under key is the same bytes in two detoasted jsonb datums (invariant 2):
// compare_parts() for one part, by a binary search in each document, for an update that
// needs only the parts of one index (part_changes.hpp: the likely index first).
bool part_is_same(Datum old_value, Datum new_value, const text *key);

} // namespace hotplus
