#include "core/read_plan.hpp"

namespace hotplus::core {

ReadPlan
plan_read(const ReadShape &shape)
{
	ReadPlan plan;
	for (std::size_t i = 0; i < shape.columns.size(); ++i)
		if (shape.columns[i].read || shape.whole_row) // a whole-row reference reads every column
			plan.deformed.push_back(static_cast<ColumnNumber>(i + 1));
	// A whole-row reference deforms everything anyway; a scan that hands its input slot up
	// unprojected must hand up every column its parent may read.
	if (shape.whole_row || !shape.projects || plan.deformed.empty())
		return plan;
	const int needed = static_cast<int>(plan.deformed.size());
	const int last = plan.last();
	const int skipped = last - needed;
	if (skipped < kMinSkippedColumns || 2 * needed > last)
		return plan;
	// It must repay the node's start within the rows the scan reads.
	const double start = kNodeStartCost + kNodeStartCostPerColumn * static_cast<double>(shape.columns.size());
	plan.selective = shape.rows_read * skipped * kDeformSavingPerSkippedColumn >= start;
	return plan;
}

bool
marks_column(int readers, double rows, bool met_extended, bool may_be_toasted, bool toast_dense)
{
	if (readers < kReadersToShare)
		return false;
	return rows >= kRowsToShareWithoutEvidence ? may_be_toasted || met_extended || toast_dense
											   : met_extended || toast_dense;
}

} // namespace hotplus::core
