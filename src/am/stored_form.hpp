// Evidence of a column's stored form: whether its values may be stored compressed or out of
// line, the only values one shared detoasted copy saves work on (D14b). A marker over values
// that are all short and in line costs a little per reference and row and per statement and
// saves nothing, so the planner asks this first (core::marks_column()).
//
// Evidence, no data read at plan time:
//  - this backend has met a compressed or out-of-line value of the column (values_met_extended):
//    a marker that detoasted one, or an update that decompressed an old version's value to
//    compare it or evaluate an index expression (note_extended_value). A compressed in-line
//    value leaves no other trace: ANALYZE's width is the stored one, and a 1 kB document
//    stored as it is looks like a 6 kB one compressed to 1 kB;
//  - weaker, table-wide (values_may_be_toasted): the table's TOAST relation has blocks (some
//    value of the table is stored out of line), or ANALYZE measured the column's stored values
//    at kWideStoredValue bytes or more on average (large enough that a call over them costs
//    far more than the marker, compressed or not).
//  - for few rows too (rows_carry_toast): the table's TOAST relation holds, per row of the
//    table (pg_class.reltuples, as ANALYZE or VACUUM left it), kToastBytesPerRowForFewRows
//    bytes or more: then the row a lookup reads likely has a value out of line, whichever
//    column; a table never analyzed or vacuumed (reltuples unknown) says
//    nothing. A column of short values in a table whose other column fills the TOAST relation
//    gets markers it does not need: their start, about 1,350 instructions per statement.
// The TOAST relation's size is asked of the kernel (an lseek) only until it is seen large
// enough: the most it was seen to hold is remembered per table, and forgotten at any relcache
// invalidation of the table (TRUNCATE, VACUUM and ANALYZE send one), since TOAST relations
// seldom shrink otherwise. A size remembered too large gives markers that find nothing to
// share (their start, per statement), never a wrong result.
// The memo is per backend, never cleared (a dropped relation's entry only costs its slot;
// an OID reused by a new table at worst gives it markers for few-row statements, a cost, not
// a wrong result) and bounded (kMaxRememberedRelations; beyond, nothing more is noted).
#pragma once

#include "am/pg.hpp"

extern "C" {
#include "utils/relcache.h"
}

namespace hotplus {

// ANALYZE's average stored width at or above which a column's values count as wide.
inline constexpr int kWideStoredValue = 512;
inline constexpr long kMaxRememberedRelations = 4096;
// The TOAST bytes per row of the table from which a few-row statement gets markers without
// other evidence (core/read_plan.hpp: a saved detoast then costs about four times the
// markers' start, in expectation).
inline constexpr double kToastBytesPerRowForFewRows = 2048;

// This backend met a value of the column stored compressed or out of line.
bool values_met_extended(Oid relid, AttrNumber attno);
// values_met_extended, or the table stores values out of line, or the column's values are wide
// on average (ANALYZE).
bool values_may_be_toasted(Relation rel, AttrNumber attno);
// The table's TOAST relation holds kToastBytesPerRowForFewRows bytes or more per row.
bool rows_carry_toast(Relation rel);
// A stored value of relid's column attno was compressed or out of line.
void note_extended_value(Oid relid, AttrNumber attno);
// Adds the memo's relcache callback; from _PG_init.
void stored_form_init();

} // namespace hotplus
