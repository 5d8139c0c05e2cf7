// The read path's per-scan decision (core/read_plan.hpp, src/README.md D14), exhaustively
// over every use pattern of tables of up to 12 columns and row counts around the thresholds,
// against a direct restatement.
// Design points: D14, D14c
#include <catch2/catch.hpp>

#include "core/read_plan.hpp"

#include <algorithm>

using namespace hotplus::core;

TEST_CASE("plan_read: deformed lists exactly the columns read; selective only where it repays the node's start",
		  "[read_plan]")
{
	const double row_counts[] = {0, 1, 2, 5, 19, 20, 23, 100, 1e3, 3e5, 1e10};
	for (int natts = 0; natts <= 12; ++natts)
		for (long code = 0; code < (1L << natts); ++code)
			for (int flags = 0; flags < 4; ++flags)
				for (double rows : row_counts)
				{
					const bool whole_row = flags & 1, projects = flags & 2;
					ReadShape shape;
					shape.whole_row = whole_row;
					shape.projects = projects;
					shape.rows_read = rows;
					for (int i = 0; i < natts; ++i)
					{
						ColumnUse use;
						use.read = (code >> i) & 1;
						shape.columns.push_back(use);
					}
					const ReadPlan plan = plan_read(shape);

					int needed = 0, last = 0;
					for (int i = 0; i < natts; ++i)
					{
						const bool in = std::count(plan.deformed.begin(), plan.deformed.end(), i + 1) == 1;
						REQUIRE(in == (shape.columns[i].read || whole_row));
						if (in)
						{
							++needed;
							last = i + 1;
						}
					}
					REQUIRE(std::is_sorted(plan.deformed.begin(), plan.deformed.end()));
					REQUIRE(plan.last() == last);
					const int skipped = last - needed;
					const bool shape_pays = needed > 0 && skipped >= kMinSkippedColumns && 2 * needed <= last &&
											!whole_row && projects;
					const bool repaid =
						rows * skipped * kDeformSavingPerSkippedColumn >= kNodeStartCost + kNodeStartCostPerColumn * natts;
					CAPTURE(natts, code, flags, rows);
					REQUIRE(plan.selective == (shape_pays && repaid));
					REQUIRE(plan.worthwhile() == plan.selective);
				}
}

TEST_CASE("plan_read: seed 003's table, one of 41 columns", "[read_plan]")
{
	ReadShape shape;
	shape.columns.resize(41);
	shape.columns[40].read = true;
	// The seed's query reads every row of the table to filter it (300,000): selective.
	shape.rows_read = 300000;
	ReadPlan plan = plan_read(shape);
	REQUIRE(plan.selective);
	REQUIRE(plan.deformed == ColumnList{41});
	// One row by key, or one row a LIMIT asks for: the node's start would not be repaid.
	shape.rows_read = 1;
	REQUIRE_FALSE(plan_read(shape).worthwhile());
	// From 23 rows read (40 columns skipped) on, it is.
	shape.rows_read = 22;
	REQUIRE_FALSE(plan_read(shape).worthwhile());
	shape.rows_read = 23;
	REQUIRE(plan_read(shape).worthwhile());
	// All 41 read: nothing to gain, the scan is left as it is.
	shape.rows_read = 300000;
	for (auto &use : shape.columns)
		use.read = true;
	plan = plan_read(shape);
	REQUIRE_FALSE(plan.worthwhile());
}

TEST_CASE("marks_column: two readers or more; few rows only with this column's own evidence or a TOAST relation of kilobytes per row, more with any", "[read_plan]")
{
	for (int readers : {0, 1, 2, 3, 40})
		for (double rows : {0.0, 1.0, 2.0, 19.0, kRowsToShareWithoutEvidence, 21.0, 1e3, 1e10})
			for (int evidence = 0; evidence < 8; ++evidence)
			{
				const bool met = evidence & 1, may = evidence & 2, dense = evidence & 4;
				CAPTURE(readers, rows, met, may, dense);
				// A copy one reader reads saves nothing. Evidence that this backend met such
				// values, and a TOAST relation that holds kilobytes per row, always count;
				// table-wide evidence (TOAST blocks, width) only where the rows repay the
				// markers' start.
				REQUIRE(marks_column(readers, rows, met, may, dense) ==
						(readers >= 2 && (met || dense || (may && rows >= kRowsToShareWithoutEvidence))));
			}
}
