#include "update/part_changes.hpp"

#include "update/jsonb_parts.hpp"
#include "update/version_values.hpp"
#include "am/settings.hpp"

namespace hotplus {

namespace {

// Calls visit(input, part) for every part index `which` reads (its expression and predicate
// inputs beyond the table's columns); stops at the first visit that returns true.
template <typename Visit>
bool
any_part_of_index(const RelationInfo *info, int which, Visit visit)
{
	const core::IndexShape &shape = info->core->indexes[which];
	for (const core::ColumnSet *inputs : {&shape.expression_inputs, &shape.predicate_inputs})
		for (core::ColumnNumber input : *inputs)
			if (input > info->natts && visit(input, input - info->natts - 1))
				return true;
	return false;
}

// Whether the parts of column `column`, which `change` says changed, can be found Same: both
// versions hold a document, and hotplus.check_expressions is on (invariant 2).
bool
parts_comparable(const UpdateState *s, AttrNumber column, core::ColumnChange change)
{
	return change == core::ColumnChange::Changed && settings.check_expressions &&
		   !s->old_slot->tts_isnull[column - 1] && !s->args->slot->tts_isnull[column - 1];
}

// Whether part p's values are proved to differ, reading each document only up to that field
// (part_difference: a compressed or out-of-line old document is decompressed or fetched as a
// prefix). The column's stored values differ and neither is NULL.
bool
part_proved_different(UpdateState *s, int p)
{
	RelationInfo *info = s->info;
	UpdateScratch &scratch = info->scratch;
	uint8 &state = scratch.part_state[p];
	if (state == kPartUnknown)
	{
		const JsonbPart &part = info->parts.parts[p];
		// Still stored compressed or out of line unless this update (or the plan) detoasted it.
		const Datum old_read = as_read_so_far(info, kOld, part.column, s->old_slot->tts_values[part.column - 1]);
		Datum old_in_full = 0;
		const PartDifference d = part_difference(
			old_read, as_read_so_far(info, kNew, part.column, s->args->slot->tts_values[part.column - 1]),
			part.key, &old_in_full);
		state = d == PartDifference::DiffersAsScalars ? kPartChangedAsScalars
				: d == PartDifference::Differs		  ? kPartChanged
													  : kPartNoProof;
		if (!in_line_uncompressed(old_read))
			note_old_prefix_read(scratch, part.column, old_in_full);
	}
	return state == kPartChanged || state == kPartChangedAsScalars;
}

// Sets same[k] for the n parts registry.parts[parts[k]] of one column (in jsonb's key order):
// from a prefix of the old document when it is stored compressed or out of line and not read
// in full yet (compare_parts_in_prefix: the fields indexes read usually come before the bulk
// of a document), else from both detoasted (compare_parts, or part_is_same for one part).
void
compare_column_parts(UpdateState *s, AttrNumber column, const int *parts, int n, bool *same)
{
	RelationInfo *info = s->info;
	UpdateScratch &scratch = info->scratch;
	const Datum old_value = s->old_slot->tts_values[column - 1];
	const Datum new_value = detoasted_value(info, kNew, column, s->args->slot->tts_values[column - 1]);
	// Still stored compressed or out of line unless this update (or the plan) detoasted it.
	const Datum old_read = as_read_so_far(info, kOld, column, old_value);
	if (!in_line_uncompressed(old_read))
	{
		Datum old_in_full = 0;
		const bool compared = compare_parts_in_prefix(old_read, new_value, &info->parts, parts, n, same, &old_in_full);
		note_old_prefix_read(scratch, column, old_in_full);
		if (compared)
			return;
	}
	const Datum old_detoasted = detoasted_value(info, kOld, column, old_value);
	if (n == 1)
		same[0] = part_is_same(old_detoasted, new_value, info->parts.parts[parts[0]].key);
	else
	{
		Assert(parts >= info->parts.by_column && parts + n <= info->parts.by_column + info->parts.nparts);
		compare_parts(old_detoasted, new_value, &info->parts, static_cast<int>(parts - info->parts.by_column), n,
					  same);
	}
}

} // namespace

bool
guessed_part_proved_different(UpdateState *s, AttrNumber att)
{
	return any_part_of_index(s->info, s->guess, [s, att](core::ColumnNumber, int p) {
		return s->info->parts.parts[p].column == att && part_proved_different(s, p);
	});
}

void
classify_parts(UpdateState *s)
{
	RelationInfo *info = s->info;
	core::ColumnChanges &changes = info->core->changes;
	const JsonbPartRegistry &registry = info->parts;
	constexpr int kOnStack = 64;
	bool same_on_stack[kOnStack];
	for (int first = 0, end; first < registry.nparts; first = end)
	{
		const AttrNumber column = registry.parts[registry.by_column[first]].column;
		for (end = first + 1; end < registry.nparts && registry.parts[registry.by_column[end]].column == column; end++)
			;
		const int n = end - first;
		const core::ColumnChange change = changes.get(column);
		bool *same = nullptr;
		if (parts_comparable(s, column, change))
		{
			same = n <= kOnStack ? same_on_stack : static_cast<bool *>(palloc(sizeof(bool) * n));
			compare_column_parts(s, column, &registry.by_column[first], n, same);
		}
		for (int k = 0; k < n; k++)
		{
			const bool kept = same != nullptr && same[k];
			s->by_parts |= kept;
			changes.set(info->natts + 1 + registry.by_column[first + k], kept ? core::ColumnChange::Same : change);
		}
	}
	s->parts_complete = true;
}

void
classify_index_parts(UpdateState *s, int which)
{
	RelationInfo *info = s->info;
	core::ColumnChanges &changes = info->core->changes;
	any_part_of_index(info, which, [s, info, &changes](core::ColumnNumber input, int p) {
		const JsonbPart &part = info->parts.parts[p];
		const AttrNumber column = part.column;
		const core::ColumnChange change = changes.get(column);
		uint8 &state = info->scratch.part_state[p];
		bool kept = false;
		if (parts_comparable(s, column, change) && !part_proved_different(s, p))
		{
			if (state == kPartNoProof)
			{
				bool same;
				compare_column_parts(s, column, &p, 1, &same);
				state = same ? kPartSame : kPartChanged;
			}
			kept = state == kPartSame;
		}
		s->by_parts |= kept;
		changes.set(input, kept ? core::ColumnChange::Same : change);
		return false;
	});
}

} // namespace hotplus
