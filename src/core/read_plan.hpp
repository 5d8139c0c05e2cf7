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

} // namespace hotplus::core
