#include "core/read_plan.hpp"

namespace hotplus::core {

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
		if (use.toastable && use.detoasting_reads >= kMinDetoastingReads)
			plan.detoast_once.push_back(column);
	}
	// A whole-row reference deforms everything anyway; a scan that hands its input slot up
	// unprojected must hand up every column its parent may read.
	if (!shape.whole_row && shape.projects && !plan.deformed.empty())
	{
		const int needed = static_cast<int>(plan.deformed.size());
		const int last = plan.last();
		plan.selective = last - needed >= kMinSkippedColumns && 2 * needed <= last;
	}
	return plan;
}

} // namespace hotplus::core
