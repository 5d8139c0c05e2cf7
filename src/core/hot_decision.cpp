#include "core/hot_decision.hpp"

#include <algorithm>

namespace hotplus::core {

ColumnChange
ColumnChanges::strongest(const ColumnList &cols) const noexcept
{
	ColumnChange result = ColumnChange::Same;
	for (ColumnNumber col : cols)
		result = std::max(result, get(col));
	return result;
}

Precheck
precheck_index(const IndexShape &index, const ColumnChanges &changes, IndexVerdict *verdict)
{
	if (index.reads_whole_row)
	{
		*verdict = IndexVerdict::ChangedWholeRow;
		return Precheck::Decided;
	}
	ColumnChange stored, any;
	changes.strongest(index.stored_columns, index.expression_inputs, index.predicate_inputs, &stored, &any);
	if (any == ColumnChange::Same)
	{
		*verdict = IndexVerdict::UnchangedInputsSame;
		return Precheck::Decided;
	}
	if (any == ColumnChange::ImageEqual)
	{
		// Every input is equal after detoasting, so every value the index derives from them
		// is too: index expressions and predicates are immutable functions of their inputs.
		*verdict = IndexVerdict::UnchangedInputsImageEqual;
		return Precheck::Decided;
	}
	if (stored == ColumnChange::Changed && !index.has_predicate)
	{
		*verdict = IndexVerdict::ChangedStoredColumn;
		return Precheck::Decided;
	}
	return Precheck::NeedsProbe;
}

} // namespace hotplus::core
