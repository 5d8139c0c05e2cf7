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
};

struct ReadShape
{
	std::vector<ColumnUse> columns; // index 0 is column 1
	bool whole_row = false;			// a whole-row reference reads every column
	bool projects = true;			// the scan computes its own output (not its input slot)
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

ReadPlan plan_read(const ReadShape &shape);

} // namespace hotplus::core
