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

// The row estimate (shape.rows) and the stored-form evidence, exhaustively over tables of up
// to 7 columns, each column also with and without evidence, at row counts around the
// thresholds, against a restatement of the cost model.
TEST_CASE("plan_read: few rows get a node only where its start is repaid", "[read_plan]")
{
	const double row_counts[] = {0, 1, 2, 5, kRowsToShareWithoutEvidence - 1, kRowsToShareWithoutEvidence, 23, 100, 1e6};
	for (int natts = 0; natts <= 7; ++natts)
	{
		long patterns = 1;
		for (int i = 0; i < natts; ++i)
			patterns *= 4;
		for (long code = 0; code < patterns; ++code)
			for (int evidence = 0; evidence < (1 << natts); evidence += (natts > 4 ? 5 : 1))
				for (double rows : row_counts)
				{
					ReadShape shape = shape_of(natts, code, false, true);
					shape.rows = rows;
					for (int i = 0; i < natts; ++i)
						shape.columns[i].seen_extended = (evidence >> i) & 1;
					const ReadPlan plan = plan_read(shape);

					ColumnList expected_detoast;
					int needed = 0, last = 0;
					for (int i = 0; i < natts; ++i)
					{
						const ColumnUse &use = shape.columns[i];
						const bool shareable = use.toastable && use.detoasting_reads >= 2;
						REQUIRE(needs_stored_form_evidence(use, rows) == (shareable && rows < kRowsToShareWithoutEvidence));
						if (shareable && (use.seen_extended || rows >= kRowsToShareWithoutEvidence))
							expected_detoast.push_back(static_cast<ColumnNumber>(i + 1));
						if (use.read)
						{
							++needed;
							last = i + 1;
						}
					}
					REQUIRE(plan.detoast_once == expected_detoast);
					// Evidence is never needed from a column whose answer cannot change the plan.
					const int skipped = last - needed;
					bool selective = needed > 0 && skipped >= kMinSkippedColumns && 2 * needed <= last;
					if (selective && expected_detoast.empty())
						selective = rows * skipped * kDeformSavingPerSkippedColumn >=
									kNodeStartCost + kNodeStartCostPerColumn * natts;
					REQUIRE(plan.selective == selective);
				}
	}
}

TEST_CASE("plan_read: the issue's statements", "[read_plan]")
{
	// UPDATE d SET doc = jsonb_set(doc, ...(doc->>'counter')...) WHERE id = $1: one row, the
	// document read twice.
	ReadShape update;
	update.rows = 1;
	update.columns.resize(2);
	update.columns[0].read = true;
	update.columns[1] = ColumnUse{true, true, 2, false};
	REQUIRE_FALSE(plan_read(update).worthwhile()); // in line as far as anyone knows: no node
	update.columns[1].seen_extended = true;
	REQUIRE(plan_read(update).detoast_once == ColumnList{2}); // compressed seen: shared
	// A 20-row scan shares without evidence; seed 003's one of 41 columns pays from 23 rows.
	update.columns[1].seen_extended = false;
	update.rows = kRowsToShareWithoutEvidence;
	REQUIRE(plan_read(update).detoast_once == ColumnList{2});
	ReadShape wide;
	wide.columns.resize(41);
	wide.columns[40].read = true;
	wide.rows = 22;
	REQUIRE_FALSE(plan_read(wide).worthwhile());
	wide.rows = 23;
	REQUIRE(plan_read(wide).selective);
}
