// The read path's per-scan decision, as pure logic: whether a scan of a hotheap table deforms
// only the columns its expressions read (src/README.md D14, seed 003).
//
// No PostgreSQL header may be included here. The glue describes the scan's expressions as one
// ColumnUse per user column and the rows the scan will read; plan_read() answers. The
// decision only affects cost: any answer is correct as long as `deformed` holds every column
// the scan's expressions read (the glue guarantees that by construction: it lists exactly
// the columns with `read` set).
#pragma once

// The boundary enforces itself: a glue file includes core headers before any PostgreSQL
// header (port.h redefines printf & co., which standard C++ headers must not see).
#ifdef POSTGRES_H
#error "src/core headers must be included before PostgreSQL's postgres.h (am/pg.hpp)"
#endif

#include <cstdint>
#include <vector>

#include "core/hot_decision.hpp"

namespace hotplus::core {

// What the scan's own expressions (filter and output list) do with one user column.
struct ColumnUse
{
	bool read = false; // some expression reads the column's value
};

struct ReadShape
{
	std::vector<ColumnUse> columns; // index 0 is column 1
	bool whole_row = false;			// a whole-row reference reads every column
	bool projects = true;			// the scan computes its own output (not its input slot)
	// The rows the scan will read and deform: the input of its filter, not its output, and no
	// more than a LIMIT above it will ask for (read_planner.cpp estimates them).
	double rows_read = 1e10;
};

struct ReadPlan
{
	bool selective = false; // deform only `deformed`, not 1..last
	ColumnList deformed;	// every column read, ascending (all for a whole-row reference)

	bool worthwhile() const noexcept { return selective; }
	ColumnNumber last() const noexcept { return deformed.empty() ? 0 : deformed.back(); }
};

// Selective deformation pays when few of the columns up to the last one read are needed:
// at most half of them, and at least kMinSkippedColumns skipped (walking past a column costs
// little; storing it is what selective deformation saves). Seed 003 switched at one half.
inline constexpr int kMinSkippedColumns = 4;

// What the node costs and saves, in instructions (bench/node_cost.py, PostgreSQL 15 and 18,
// one-row and 20-row prepared statements, read path on vs off): starting it costs about
// kNodeStartCost plus kNodeStartCostPerColumn per column of the table (its scan returns
// whole rows, whose descriptor is built per execution); selective deformation saves about
// kDeformSavingPerSkippedColumn per row read and column skipped.
inline constexpr double kNodeStartCost = 1500;
inline constexpr double kNodeStartCostPerColumn = 600;
inline constexpr double kDeformSavingPerSkippedColumn = 29;

ReadPlan plan_read(const ReadShape &shape);

// Shared detoast markers (D14b, D14c): a marker costs about kMarkerStartCost per statement (the
// executor initializes it as a function call: EXECUTE check, function lookup) and
// kMarkerCostPerRow per row where its value needs no detoasting (bench/node_cost.py: +2,700
// per statement and +70 per row for two markers over in-line documents, PostgreSQL 15); a
// shared copy saves a detoast, thousands (26,000 per row for a 6 kB document compressed in
// line read twice). So markers go where the column's values are likely stored compressed or
// out of line: from kRowsToShareWithoutEvidence rows on, where the table-wide evidence says
// so (values_may_be_toasted: met by this backend, TOAST blocks, wide on average); on fewer
// rows, where the per-statement cost counts, only where this backend met such values of that
// very column (values_met_extended), or where the table's TOAST relation holds
// am/stored_form.hpp's kToastBytesPerRowForFewRows (2 kB) or more per row of the table
// (rows_carry_toast): a TOAST relation with a few blocks says nothing about the one row a lookup reads, one that
// holds kilobytes per row says the row read likely has a value out of line. At 2 kB per row
// on average, a detoast the copy saves (a TOAST index lookup, the chunks copied and, mostly,
// decompressed: more than 2 instructions per byte) costs more than the markers' start by a
// factor of about 4 in expectation, whichever rows hold the values.
inline constexpr double kMarkerStartCost = 1350;
inline constexpr double kMarkerCostPerRow = 35;
inline constexpr double kRowsToShareWithoutEvidence = 20;

// Whether a column gets markers: read by `readers` readers of one row's value, in a plan whose
// nodes evaluate its references on `rows` rows. The readers are its qualifying references,
// and the update check where the column is an index input of the UPDATE's (or MERGE's)
// target: the check reads the old row's value after the plan did (D14b's "the update check"),
// so one reference and the check share a copy. Nothing is shared with fewer than two.
// met_extended: this backend met the column's values stored compressed or out of line;
// may_be_toasted: the table says they may be; toast_dense: its TOAST relation holds kilobytes
// per row (rows_carry_toast).
inline constexpr int kReadersToShare = 2;
bool marks_column(int readers, double rows, bool met_extended, bool may_be_toasted, bool toast_dense);

} // namespace hotplus::core
