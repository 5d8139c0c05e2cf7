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

#include "glue/pg.hpp"

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
};

// Walks expr (an expression list or an implicit-AND list) and reports what it reads:
// whole columns into *columns (attribute numbers offset by FirstLowInvalidHeapAttributeNumber,
// as pull_varattnos; attno 0 for a whole-row reference), and parts, registered (deduplicated)
// in registry, as indexes into it in *parts (offset by 1, so 0 is never a member).
void collect_inputs(Node *expr, Bitmapset **columns, Bitmapset **parts, JsonbPartRegistry *registry);

// Whether the values under part.key of two detoasted jsonb datums are the same bytes.
bool jsonb_part_equal(Datum old_value, Datum new_value, const text *key);

} // namespace hotplus
