#include "core/read_plan.hpp"

namespace hotplus::core {

bool
needs_stored_form_evidence(const ColumnUse &use, double rows)
{
	return use.toastable && use.detoasting_reads >= kMinDetoastingReads && rows < kRowsToShareWithoutEvidence;
}

bool
shares_column(const ColumnUse &use, double rows)
{
	if (!use.toastable || use.detoasting_reads < kMinDetoastingReads)
		return false;
	return rows >= kRowsToShareWithoutEvidence || use.seen_extended;
}

ReadPlan
plan_read(const ReadShape &shape)
{
	ReadPlan plan;
	for (std::size_t i = 0; i < shape.columns.size(); ++i)
	{
		const ColumnUse &use = shape.columns[i];
		const auto column = static_cast<ColumnNumber>(i + 1);
		if (use.read || shape.whole_row) // a whole-row reference reads every column
			plan.deformed.push_back(column);
		if (shares_column(use, shape.rows))
			plan.detoast_once.push_back(column);
	}
	// A whole-row reference deforms everything anyway; a scan that hands its input slot up
	// unprojected must hand up every column its parent may read.
	if (!shape.whole_row && shape.projects && !plan.deformed.empty())
	{
		const int needed = static_cast<int>(plan.deformed.size());
		const int last = plan.last();
		const int skipped = last - needed;
		plan.selective = skipped >= kMinSkippedColumns && 2 * needed <= last;
		// Alone, it must repay the node's start within the rows the scan returns.
		if (plan.selective && plan.detoast_once.empty())
		{
			const double start = kNodeStartCost + kNodeStartCostPerColumn * static_cast<double>(shape.columns.size());
			plan.selective = shape.rows * skipped * kDeformSavingPerSkippedColumn >= start;
		}
	}
	return plan;
}

} // namespace hotplus::core
