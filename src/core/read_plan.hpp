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
// A shared detoasted copy pays when at least two references would each detoast the value.
inline constexpr int kMinDetoastingReads = 2;

ReadPlan plan_read(const ReadShape &shape);

// A toastable column of the rows a plan node above a scan consumes (a join, an aggregate),
// read by expressions that node evaluates and that may be evaluated once per row below it,
// sharing one detoasted copy (D14b, read/consumer_pushdown.hpp).
struct ConsumedColumn
{
	int references = 0;		   // references to the column in those expressions (each one
							   // detoasts it on heap)
	double rows_in = 0;		   // rows the node below hands up: each is detoasted once when pushed
	double rows_evaluated = 0; // rows on which the consumer evaluates the expressions (a join's
							   // output only, an aggregate's every input row)
};

// How much fewer detoastings pushing must promise (planner row estimates are estimates, and
// the node below costs a little per row).
inline constexpr double kPushMargin = 1.5;

// Whether to evaluate the column's expressions below the consumer: at least two references
// would each detoast it, and the rows that would detoast it once each are clearly fewer than
// the detoastings heap would do.
bool push_below_consumer(const ConsumedColumn &column);

} // namespace hotplus::core
