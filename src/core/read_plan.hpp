// The read path's per-scan decision, as pure logic: which columns a scan of a hotheap table
// deforms selectively and which it detoasts once per row (src/README.md D14).
//
// No PostgreSQL header may be included here. The glue describes the scan's expressions as one
// ColumnUse per user column; plan_read() answers. The decision only affects cost: any answer
// is correct as long as `deformed` holds every column the scan's expressions read (the glue
// guarantees that by construction: it lists exactly the columns with `read` set).
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
	bool read = false;		// some expression reads the column's value
	bool toastable = false; // variable-length and not of storage PLAIN: may be stored
							// compressed, out of line or with a short header
	int detoasting_reads = 0; // references passed straight to a built-in function that
							  // detoasts its argument (the ones one shared copy can serve)
	bool seen_extended = false; // evidence that values are stored compressed or out of line
								// (am/stored_form.hpp); asked only where `rows` needs it
};

struct ReadShape
{
	std::vector<ColumnUse> columns; // index 0 is column 1
	bool whole_row = false;			// a whole-row reference reads every column
	bool projects = true;			// the scan computes its own output (not its input slot)
	double rows = 1e10;				// the planner's estimate of the rows the scan returns
};

struct ReadPlan
{
	bool selective = false;	  // deform only `deformed`, not 1..last
	ColumnList deformed;	  // every column read, ascending (all for a whole-row reference)
	ColumnList detoast_once;  // read through one shared detoasted copy per row

	bool worthwhile() const noexcept { return selective || !detoast_once.empty(); }
	ColumnNumber last() const noexcept { return deformed.empty() ? 0 : deformed.back(); }
};

// Selective deformation pays when few of the columns up to the last one read are needed:
// at most half of them, and at least kMinSkippedColumns skipped (walking past a column costs
// little; storing it is what selective deformation saves). Seed 003 switched at one half.
inline constexpr int kMinSkippedColumns = 4;
// A shared detoasted copy pays when at least two references would each detoast the value
// (in a scan's expressions, D14, or in the calls moved below a node above it, D14b).
inline constexpr int kMinDetoastingReads = 2;

// What the node costs and saves, in instructions (bench/node_cost.py, PostgreSQL 15 and 18,
// one-row and 20-row prepared statements, read path on vs off): starting it costs about
// kNodeStartCost plus kNodeStartCostPerColumn per column of the table (its scan now returns
// whole rows, whose descriptor is built per execution); selective deformation saves about
// kDeformSavingPerSkippedColumn per row and column skipped; a shared copy saves a detoast per
// extra reference of a compressed or out-of-line value (thousands of instructions: a 6 kB
// document read twice saved 27,000 per row) and costs about 120 per row when every value is
// in line and uncompressed.
inline constexpr double kNodeStartCost = 1500;
inline constexpr double kNodeStartCostPerColumn = 600;
inline constexpr double kDeformSavingPerSkippedColumn = 29;
// Below this many rows a shared copy needs evidence that the column's values are stored
// compressed or out of line (ColumnUse::seen_extended): one row by key of a small inline
// document gets no node. From this many on, the node's start is a small part of the
// statement (under 1% at 20 rows of 1 kB documents) and it finds out itself.
inline constexpr double kRowsToShareWithoutEvidence = 20;

// Whether a column's shared copy is worth it for a scan of `rows` rows.
bool shares_column(const ColumnUse &use, double rows);
// Whether a column's shared copy needs its stored-form evidence to be decided (the glue asks
// for it only then: it opens the TOAST relation).
bool needs_stored_form_evidence(const ColumnUse &use, double rows);

ReadPlan plan_read(const ReadShape &shape);

} // namespace hotplus::core
