// The read path's per-scan decision (core/read_plan.hpp, src/README.md D14), exhaustively
// over every use pattern of tables of up to 9 columns, against a direct restatement.
// Design points: D14
#include <catch2/catch.hpp>

#include "core/read_plan.hpp"

using namespace hotplus::core;

namespace {

// Decodes `code` into the uses of `natts` columns: per column, 0 unread, 1 read, 2 read by one
// detoasting reference, 3 read by two; toastable columns are the odd-numbered ones.
ReadShape
shape_of(int natts, long code, bool whole_row, bool projects)
{
	ReadShape shape;
	shape.whole_row = whole_row;
	shape.projects = projects;
	for (int i = 0; i < natts; ++i, code /= 4)
	{
		ColumnUse use;
		const int kind = static_cast<int>(code % 4);
		use.read = kind != 0;
		use.detoasting_reads = kind >= 2 ? kind - 1 : 0;
		use.toastable = (i % 2) == 0;
		shape.columns.push_back(use);
	}
	return shape;
}

} // namespace

TEST_CASE("plan_read: deformed lists exactly the columns read (all with a whole-row reference); selective only when it pays",
		  "[read_plan]")
{
	for (int natts = 0; natts <= 9; ++natts)
	{
		long patterns = 1;
		for (int i = 0; i < natts; ++i)
			patterns *= 4;
		for (long code = 0; code < patterns; ++code)
			for (int flags = 0; flags < 4; ++flags)
			{
				const bool whole_row = flags & 1, projects = flags & 2;
				const ReadShape shape = shape_of(natts, code, whole_row, projects);
				const ReadPlan plan = plan_read(shape);

				int needed = 0, last = 0;
				ColumnList expected_detoast;
				for (int i = 0; i < natts; ++i)
				{
					const ColumnUse &use = shape.columns[i];
					if (use.read || whole_row) // a whole-row reference reads every column
					{
						++needed;
						last = i + 1;
						REQUIRE(std::count(plan.deformed.begin(), plan.deformed.end(), i + 1) == 1);
					}
					else
						REQUIRE(std::count(plan.deformed.begin(), plan.deformed.end(), i + 1) == 0);
					if (use.toastable && use.detoasting_reads >= 2)
						expected_detoast.push_back(static_cast<ColumnNumber>(i + 1));
				}
				REQUIRE(std::is_sorted(plan.deformed.begin(), plan.deformed.end()));
				REQUIRE(plan.last() == last);
				REQUIRE(plan.detoast_once == expected_detoast);
				// Every detoasted column is also deformed (the shared copy is made from it).
				for (ColumnNumber c : plan.detoast_once)
					REQUIRE(std::count(plan.deformed.begin(), plan.deformed.end(), c) == 1);
				const bool pays = needed > 0 && last - needed >= kMinSkippedColumns && 2 * needed <= last;
				REQUIRE(plan.selective == (pays && !whole_row && projects));
				REQUIRE(plan.worthwhile() == (plan.selective || !expected_detoast.empty()));
			}
	}
}

TEST_CASE("plan_read: seed 003's table, one of 41 columns", "[read_plan]")
{
	ReadShape shape;
	shape.columns.resize(41);
	shape.columns[40].read = true;
	ReadPlan plan = plan_read(shape);
	REQUIRE(plan.selective);
	REQUIRE(plan.deformed == ColumnList{41});
	// All 41 read: nothing to gain, the scan is left as it is.
	for (auto &use : shape.columns)
		use.read = true;
	plan = plan_read(shape);
	REQUIRE_FALSE(plan.worthwhile());
}
