// The HOT decision, as pure logic: which indexes an UPDATE really changes.
//
// No PostgreSQL header may be included here (the core is unit-tested on its own). The glue
// describes each index as an IndexShape and each update as ColumnChanges, and answers the
// questions the core asks through a Probe (evaluate a predicate, compare expression values).
//
// The rule (invariants in src/README.md, "The HOT decision and why it is safe"). An index
// is UNCHANGED by an update iff
//   (a) none of the columns it reads (stored, expression or predicate inputs) differs, or
//   (b) it is partial and its predicate is false for both the old and the new row, or
//   (c) its predicate (if any) is true for both rows and every stored key/INCLUDE column and
//       every expression value is image-equal (same bytes after detoasting, in the value's
//       own type) between the old and the new row.
// Otherwise it CHANGES. An index whose expressions or predicate read the whole row CHANGES
// with every update, as heap counts it: the whole-row value depends on the row type, which
// ADD/DROP COLUMN change without re-indexing, so equal values today do not mean the key the
// index stores is today's. The update may be HOT iff no index changes. Summarizing indexes
// (PG16+ BRIN) never block HOT and are heap's alone: the glue never describes them here
// (src/README.md D6a).
//
// Probe calls may raise a PostgreSQL ERROR (longjmp). So nothing in this file that calls a
// probe may own an object with a destructor in its stack frame; the shapes and the change
// vector are owned by the caller.
#pragma once

// The boundary enforces itself: a glue file includes core headers before any PostgreSQL
// header (port.h redefines printf & co., which standard C++ headers must not see).
#ifdef POSTGRES_H
#error "src/core headers must be included before PostgreSQL's postgres.h (am/pg.hpp)"
#endif

#include <boost/container/small_vector.hpp>
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

namespace hotplus::core {

// A user column's number, 1-based as in PostgreSQL.
using ColumnNumber = std::int16_t;
using ColumnList = boost::container::small_vector<ColumnNumber, 8>;

// How one column's new value compares with its old value.
enum class ColumnChange : std::uint8_t
{
	Same,		// equal as stored; stock heap also sees no change
	ImageEqual, // stored differently (compressed, out of line) but equal after detoasting
	Changed,	// different values
};

// A set of columns an index reads, as a list, with a bit mask of it for the common case
// (every column below kMaskColumns). Only built through push_back/assign, so the mask and
// the list always agree.
class ColumnSet
{
  public:
	static constexpr int kMaskColumns = 64;

	ColumnSet() = default;
	ColumnSet(std::initializer_list<ColumnNumber> cols) { assign(cols.begin(), cols.end()); }

	void push_back(ColumnNumber col)
	{
		cols_.push_back(col);
		if (col >= 1 && col < kMaskColumns)
			mask_ |= std::uint64_t{1} << col;
		else
			beyond_mask_ = true;
		max_ = std::max(max_, col);
	}
	template <typename It>
	void assign(It first, It last)
	{
		cols_.clear();
		mask_ = 0;
		beyond_mask_ = false;
		max_ = 0;
		for (; first != last; ++first)
			push_back(*first);
	}

	const ColumnList &list() const noexcept { return cols_; }
	ColumnList::const_iterator begin() const noexcept { return cols_.begin(); }
	ColumnList::const_iterator end() const noexcept { return cols_.end(); }
	bool empty() const noexcept { return cols_.empty(); }
	std::size_t size() const noexcept { return cols_.size(); }

	// The mask is the whole set: every column is in [1, kMaskColumns).
	bool in_mask() const noexcept { return !beyond_mask_; }
	std::uint64_t mask() const noexcept { return mask_; }
	ColumnNumber max() const noexcept { return max_; }

  private:
	ColumnList cols_;
	std::uint64_t mask_ = 0;
	bool beyond_mask_ = false;
	ColumnNumber max_ = 0;
};

// Per-update facts about every column, indexed by ColumnNumber (slot 0 unused).
// Sized once; reset, get and set never allocate or throw, so the glue may use them on the
// update path. A column outside the range reads as Changed: the safe answer.
// Invariant: bit c of changed_ / image_equal_ is set iff c < ColumnSet::kMaskColumns and
// changes_[c] is Changed / ImageEqual (so strongest() over a set in the mask is two ANDs).
class ColumnChanges
{
  public:
	explicit ColumnChanges(int natts = 0) : changes_(natts + 1, ColumnChange::Same) {}

	void resize(int natts)
	{
		changes_.assign(natts + 1, ColumnChange::Same);
		changed_ = image_equal_ = 0;
	}
	void reset() noexcept
	{
		std::fill(changes_.begin(), changes_.end(), ColumnChange::Same);
		changed_ = image_equal_ = 0;
	}
	int natts() const noexcept { return static_cast<int>(changes_.size()) - 1; }
	ColumnChange get(ColumnNumber col) const noexcept
	{
		return in_range(col) ? changes_[col] : ColumnChange::Changed;
	}
	void set(ColumnNumber col, ColumnChange change) noexcept
	{
		if (!in_range(col))
			return;
		changes_[col] = change;
		if (col < ColumnSet::kMaskColumns)
		{
			const std::uint64_t bit = std::uint64_t{1} << col;
			changed_ = change == ColumnChange::Changed ? changed_ | bit : changed_ & ~bit;
			image_equal_ = change == ColumnChange::ImageEqual ? image_equal_ | bit : image_equal_ & ~bit;
		}
	}

	// The Changed columns below ColumnSet::kMaskColumns, as a bit mask (bit c: column c).
	std::uint64_t changed_mask() const noexcept { return changed_; }
	// The ImageEqual columns below ColumnSet::kMaskColumns, as a bit mask.
	std::uint64_t image_equal_mask() const noexcept { return image_equal_; }

	// The strongest change among cols.
	ColumnChange strongest(const ColumnList &cols) const noexcept;
	ColumnChange strongest(const ColumnSet &cols) const noexcept
	{
		if (!cols.in_mask())
			return strongest(cols.list());
		return strongest_in_mask(cols.mask(), cols.max());
	}
	// The strongest change among `first` and among all three sets together.
	void strongest(const ColumnSet &first, const ColumnSet &second, const ColumnSet &third,
				   ColumnChange *in_first, ColumnChange *in_all) const noexcept
	{
		if (first.in_mask() && second.in_mask() && third.in_mask())
		{
			*in_first = strongest_in_mask(first.mask(), first.max());
			*in_all = strongest_in_mask(first.mask() | second.mask() | third.mask(),
										std::max({first.max(), second.max(), third.max()}));
			return;
		}
		*in_first = strongest(first);
		*in_all = std::max({*in_first, strongest(second), strongest(third)});
	}

  private:
	bool in_range(ColumnNumber col) const noexcept
	{
		return col >= 1 && col < static_cast<int>(changes_.size());
	}
	// The columns of mask, the highest of them (or of a larger set) being max.
	ColumnChange strongest_in_mask(std::uint64_t mask, ColumnNumber max) const noexcept
	{
		if (max >= static_cast<int>(changes_.size()))
			return ColumnChange::Changed; // a column out of range reads as Changed
		if ((mask & changed_) != 0)
			return ColumnChange::Changed;
		return (mask & image_equal_) != 0 ? ColumnChange::ImageEqual : ColumnChange::Same;
	}
	std::vector<ColumnChange> changes_;
	std::uint64_t changed_ = 0;
	std::uint64_t image_equal_ = 0;
};

// What the decision needs to know about one index, fixed for the life of a relcache entry.
struct IndexShape
{
	ColumnSet stored_columns;	  // key and INCLUDE columns stored as-is
	ColumnSet expression_inputs; // every column an expression reads
	ColumnSet predicate_inputs;	  // every column the predicate reads
	bool has_expressions = false;
	bool has_predicate = false;
	// An expression or the predicate reads the whole row: changed by every update, never
	// evaluated (heap's HeapDetermineColumnsInfo counts attribute 0 as modified).
	bool reads_whole_row = false;
	// false: never evaluate this index's predicate or expressions; decide from the inputs
	// alone (an index that CREATE INDEX CONCURRENTLY has not made ready: heap never
	// evaluates it, and its expression may fail on rows it was never built for).
	bool evaluable = true;
};

// The old or the new version of the row.
enum class Side : std::uint8_t
{
	Old,
	New
};

// Why an index was found changed or unchanged. An UpdateDecision keeps the blocking index's,
// and which kinds of unchanged verdict it used (its used_* flags, from which the statistics
// tell HOT by expression, by predicate and by image apart).
enum class IndexVerdict : std::uint8_t
{
	UnchangedInputsSame,	   // (a), equal as stored: stock heap agrees
	UnchangedInputsImageEqual, // (a), but some input only image-equal
	UnchangedPredicateFalse,   // (b)
	UnchangedKeysEqual,		   // (c) without evaluating expressions: only inputs of the
							   //     predicate changed, and it holds on both sides
	UnchangedValuesEqual,	   // (c) after evaluating the expressions
	ChangedStoredColumn,	   // a stored key/INCLUDE column changed
	ChangedPredicateFlip,	   // predicate true on one side only
	ChangedExpressionValue,	   // an expression value changed
	ChangedWholeRow,		   // it reads the whole row: changed by every update
	Declined,				   // evaluation switched off or not allowed for this
							   // index: counted as changed
};

inline bool
verdict_changes_index(IndexVerdict v)
{
	return v >= IndexVerdict::ChangedStoredColumn;
}

// Switches for parts of the rule (GUCs in the glue).
struct DecisionOptions
{
	// false: evaluate no predicate and no expression; an index that would need it counts
	// as changed (Declined). Image equality of stored columns still applies.
	bool evaluate = true;
};
static_assert(std::is_trivially_destructible_v<DecisionOptions>); // on frames an ERROR may unwind

// The cheap part of the decision: what can be said without evaluating anything.
enum class Precheck : std::uint8_t
{
	Decided,	// *verdict is final
	NeedsProbe, // the predicate and/or the expressions must be evaluated
};

Precheck precheck_index(const IndexShape &index, const ColumnChanges &changes,
						IndexVerdict *verdict);

// The part of an index's decision that evaluates, for an index whose precheck said
// NeedsProbe. Probe must provide
//   bool predicate(int which, Side side)   the predicate's value on that side
//   bool expressions_equal(int which)      every expression value image-equal on both sides
// and is called only as the rule allows: the predicate before the expressions on each side,
// the expressions only when the predicate holds on both sides, and nothing whose answer
// cannot change the verdict.
template <typename Probe>
IndexVerdict
evaluate_index(int which, const IndexShape &index, const ColumnChanges &changes,
			   const DecisionOptions &options, Probe &probe)
{
	if (!options.evaluate || !index.evaluable)
		return IndexVerdict::Declined;
	if (index.has_predicate)
	{
		bool old_true = probe.predicate(which, Side::Old);
		// Inputs equal after detoasting give the same value: predicates are immutable.
		bool new_true = changes.strongest(index.predicate_inputs) == ColumnChange::Changed
							? probe.predicate(which, Side::New)
							: old_true;
		if (!old_true && !new_true)
			return IndexVerdict::UnchangedPredicateFalse;
		if (old_true != new_true)
			return IndexVerdict::ChangedPredicateFlip;
	}
	if (changes.strongest(index.stored_columns) == ColumnChange::Changed)
		return IndexVerdict::ChangedStoredColumn;
	if (changes.strongest(index.expression_inputs) != ColumnChange::Changed)
		return IndexVerdict::UnchangedKeysEqual;
	return probe.expressions_equal(which) ? IndexVerdict::UnchangedValuesEqual
										  : IndexVerdict::ChangedExpressionValue;
}

// The full decision for index number `which`: the precheck, then, if it needs one, the
// evaluation.
template <typename Probe>
IndexVerdict
decide_index(int which, const IndexShape &index, const ColumnChanges &changes,
			 const DecisionOptions &options, Probe &probe)
{
	IndexVerdict verdict = IndexVerdict::Declined;
	if (precheck_index(index, changes, &verdict) == Precheck::Decided)
		return verdict;
	return evaluate_index(which, index, changes, options, probe);
}

// The decision for a whole update.
struct UpdateDecision
{
	bool hot_allowed = true;		  // no index changes
	int blocking_index = -1;		  // the index found changing, if any
	IndexVerdict blocking_verdict = IndexVerdict::UnchangedInputsSame;
	bool used_expressions = false;	  // an index was found unchanged by evaluation (c)
	bool used_predicates = false;	  // an index was found unchanged by (b) or (c) w/o exprs
	bool used_image_equality = false; // an index was found unchanged thanks to image equality
};
static_assert(std::is_trivially_destructible_v<UpdateDecision>); // on frames an ERROR may unwind

// Marks the update not HOT, index `which` changing with verdict v.
inline void
block(UpdateDecision *d, int which, IndexVerdict v) noexcept
{
	d->hot_allowed = false;
	d->blocking_index = which;
	d->blocking_verdict = v;
}

// Records index `which`'s verdict v in *d. Returns false if it blocks HOT (then *d says so).
inline bool
record_verdict(UpdateDecision *d, int which, IndexVerdict v) noexcept
{
	switch (v)
	{
		case IndexVerdict::UnchangedInputsSame:
			return true;
		case IndexVerdict::UnchangedInputsImageEqual:
			d->used_image_equality = true;
			return true;
		case IndexVerdict::UnchangedPredicateFalse:
		case IndexVerdict::UnchangedKeysEqual:
			d->used_predicates = true;
			return true;
		case IndexVerdict::UnchangedValuesEqual:
			d->used_expressions = true;
			return true;
		default:
			block(d, which, v);
			return false;
	}
}

// The precheck of each index of an update, made once (blocked_without_evaluation) and reused
// by decide_update: for indexes [0, count), at most kCapacity. When every index was decided
// by its precheck (needs_probe == 0, count == the number of indexes), `settled` is the
// update's decision. Trivially destructible: it lives in frames a probe's ERROR may unwind.
struct Prechecks
{
	static constexpr int kCapacity = 64;
	int count = 0;
	int needs_probe = 0;
	UpdateDecision settled;
	Precheck result[kCapacity];
	IndexVerdict verdict[kCapacity];
};
static_assert(std::is_trivially_destructible_v<Prechecks>);

// The first step of decide_update on its own: whether some HOT-blocking index is found
// changed from the column changes alone, without evaluating anything. If so, *decision is
// final (not HOT, that index blocking), whatever the probe would say; the glue uses it to
// skip work (the page's free space) that only a decision that may allow HOT needs. The
// prechecks made are left in *prechecks for decide_update.
inline bool
blocked_without_evaluation(const std::vector<IndexShape> &indexes, const ColumnChanges &changes,
						   UpdateDecision *decision, Prechecks *prechecks) noexcept
{
	const int n = static_cast<int>(indexes.size());
	prechecks->count = 0;
	prechecks->needs_probe = 0;
	prechecks->settled = UpdateDecision{};
	for (int i = 0; i < n; i++)
	{
		IndexVerdict v = IndexVerdict::Declined;
		const Precheck result = precheck_index(indexes[i], changes, &v);
		if (i < Prechecks::kCapacity)
		{
			prechecks->result[i] = result;
			prechecks->verdict[i] = v;
			prechecks->count = i + 1;
		}
		if (result == Precheck::NeedsProbe)
			prechecks->needs_probe++;
		else if (!record_verdict(&prechecks->settled, i, v))
		{
			*decision = UpdateDecision{};
			block(decision, i, v);
			return true;
		}
	}
	return false;
}

// What decide_update() would still need, after blocked_without_evaluation() returned false
// with these prechecks, to say whether the update may be HOT (the glue asks when HOT is
// impossible anyway, the new version not fitting on the page, and evaluates nothing then):
enum class HotQuestion : std::uint8_t
{
	Settled,		   // nothing: every index was decided by its precheck, none changing;
					   // prechecks.settled is the answer
	WithoutEvaluation, // decide_update() answers without calling the probe: every index that
					   // needs one is declined (options.evaluate off, or not evaluable), and the
					   // first of them blocks HOT
	NeedsEvaluation,   // decide_update() may evaluate a HOT-blocking index's predicate or
					   // expressions (or not every index was prechecked: more than kCapacity)
};

inline HotQuestion
hot_question(const std::vector<IndexShape> &indexes, const Prechecks &prechecks,
			 const DecisionOptions &options) noexcept
{
	const int n = static_cast<int>(indexes.size());
	if (prechecks.count < n)
		return HotQuestion::NeedsEvaluation;
	bool declined = false;
	for (int i = 0; i < n; i++)
	{
		if (prechecks.result[i] != Precheck::NeedsProbe)
			continue;
		if (options.evaluate && indexes[i].evaluable)
			return HotQuestion::NeedsEvaluation;
		declined = true;
	}
	return declined ? HotQuestion::WithoutEvaluation : HotQuestion::Settled;
}

// blocked_without_evaluation() in a few instructions for its commonest "yes": a changed key
// or INCLUDE column of an index without a predicate. Such an index's precheck is
// ChangedStoredColumn whatever else changed, an index that reads the whole row is
// ChangedWholeRow on every update, and no other precheck blocks; so the index
// blocked_without_evaluation() stops at is the lowest of those.
// Built once from the relation's shapes (the glue's entry); answers only when every index's
// stored columns are below ColumnSet::kMaskColumns and within the change vector (else
// false: ask blocked_without_evaluation()). Never allocates: fixed-size, trivially
// destructible.
class StoredColumnBlockers
{
  public:
	StoredColumnBlockers() = default;
	explicit StoredColumnBlockers(const std::vector<IndexShape> &indexes) noexcept
	{
		usable_ = true;
		for (int i = static_cast<int>(indexes.size()) - 1; i >= 0; i--) // lowest index wins
		{
			const IndexShape &index = indexes[i];
			if (!index.stored_columns.in_mask())
			{
				usable_ = false;
				return;
			}
			max_column_ = std::max(max_column_, index.stored_columns.max());
			if (index.reads_whole_row)
			{
				whole_row_blocker_ = i;
				continue;
			}
			if (index.has_predicate)
				continue;
			for (ColumnNumber col : index.stored_columns)
			{
				mask_ |= std::uint64_t{1} << col;
				first_blocker_[col] = static_cast<std::int16_t>(i);
			}
		}
	}

	// Whether blocked() answers for a change vector of changes' size: every index's stored
	// columns are in the mask and the vector.
	bool answers(const ColumnChanges &changes) const noexcept
	{
		return usable_ && max_column_ <= changes.natts();
	}

	// True (and *decision: not HOT, the blocking index, ChangedStoredColumn) when some
	// index blocks HOT by a changed stored column: then blocked_without_evaluation() would
	// return true with the same decision. False: not known here (see answers()).
	bool blocked(const ColumnChanges &changes, UpdateDecision *decision) const noexcept
	{
		if (!answers(changes))
			return false;
		std::uint64_t hit = changes.changed_mask() & mask_;
		if (hit == 0 && whole_row_blocker_ < 0)
			return false;
		int first = kNone;
		for (; hit != 0; hit &= hit - 1)
			first = std::min(first, static_cast<int>(first_blocker_[__builtin_ctzll(hit)]));
		*decision = UpdateDecision{};
		if (whole_row_blocker_ >= 0 && whole_row_blocker_ < first)
			block(decision, whole_row_blocker_, IndexVerdict::ChangedWholeRow);
		else
			block(decision, first, IndexVerdict::ChangedStoredColumn);
		return true;
	}

  private:
	static constexpr int kNone = 1 << 30;
	bool usable_ = false;
	int whole_row_blocker_ = -1; // the lowest index that reads the whole row
	ColumnNumber max_column_ = 0;
	std::uint64_t mask_ = 0; // the stored columns of indexes without a predicate
	std::array<std::int16_t, ColumnSet::kMaskColumns> first_blocker_{};
};
static_assert(std::is_trivially_destructible_v<StoredColumnBlockers>);

// decide_update()'s answer, in a few instructions, for the commonest update that may be
// HOT: no input of any index Changed (a field or column no index reads changed). Every
// index's precheck then says unchanged (UnchangedInputsSame, or UnchangedInputsImageEqual
// when an input is only image-equal), so the update is HOT, nothing evaluated, and HOT
// thanks to image equality iff some index input is ImageEqual. Built once from the
// relation's shapes (the glue's entry); answers only when every index's inputs are below
// ColumnSet::kMaskColumns and within the change vector, and no index reads the whole row
// (that one changes with every update). Fixed-size, trivially destructible.
class InputsUnion
{
  public:
	InputsUnion() = default;
	explicit InputsUnion(const std::vector<IndexShape> &indexes) noexcept
	{
		usable_ = true;
		for (const IndexShape &index : indexes)
		{
			for (const ColumnSet *set : {&index.stored_columns, &index.expression_inputs, &index.predicate_inputs})
			{
				usable_ &= set->in_mask();
				mask_ |= set->mask();
				max_column_ = std::max(max_column_, set->max());
			}
			usable_ &= !index.reads_whole_row;
		}
	}

	// True (and *decision: HOT, used_image_equality as decide_update() finds it) when no
	// index input Changed; false: not known here.
	bool settled_unchanged(const ColumnChanges &changes, UpdateDecision *decision) const noexcept
	{
		if (!usable_ || max_column_ > changes.natts() || (changes.changed_mask() & mask_) != 0)
			return false;
		*decision = UpdateDecision{};
		decision->used_image_equality = (changes.image_equal_mask() & mask_) != 0;
		return true;
	}

  private:
	bool usable_ = false;
	ColumnNumber max_column_ = 0;
	std::uint64_t mask_ = 0; // every index's inputs
};
static_assert(std::is_trivially_destructible_v<InputsUnion>);

// blocked_without_evaluation()'s answer read from the indexes' stored columns alone: a
// precheck blocks HOT only for an index that reads the whole row or whose stored key or
// INCLUDE column changed (without a predicate), and neither reads an expression's or a
// predicate's inputs. So the answer needs no jsonb part classified (parts are only ever
// expression or predicate inputs), and blocks with the same index and verdict. blockers:
// the same indexes' StoredColumnBlockers (its mask test, where it answers).
inline bool
blocked_by_stored_columns(const std::vector<IndexShape> &indexes, const StoredColumnBlockers &blockers,
						  const ColumnChanges &changes, UpdateDecision *decision) noexcept
{
	if (blockers.answers(changes))
		return blockers.blocked(changes, decision);
	for (int i = 0; i < static_cast<int>(indexes.size()); i++)
	{
		const IndexShape &index = indexes[i];
		const IndexVerdict v =
			index.reads_whole_row ? IndexVerdict::ChangedWholeRow
			: !index.has_predicate && changes.strongest(index.stored_columns) == ColumnChange::Changed
				? IndexVerdict::ChangedStoredColumn
				: IndexVerdict::UnchangedInputsSame;
		if (verdict_changes_index(v))
		{
			*decision = UpdateDecision{};
			block(decision, i, v);
			return true;
		}
	}
	return false;
}

// Decides cheapest first: every index that a stored column decides without evaluation,
// before any predicate or expression is evaluated; then the others in order, stopping at
// the first change.
// known: the prechecks of a blocked_without_evaluation() call on the same update that
// returned false (nullptr: made here).
template <typename Probe>
UpdateDecision
decide_update(const std::vector<IndexShape> &indexes, const ColumnChanges &changes,
			  const DecisionOptions &options, Probe &probe, const Prechecks *known = nullptr)
{
	UpdateDecision d;
	const int n = static_cast<int>(indexes.size());

	Prechecks made;
	if (known == nullptr)
	{
		if (blocked_without_evaluation(indexes, changes, &d, &made))
			return d;
		known = &made;
	}
	if (known->count == n && known->needs_probe == 0)
		return known->settled; // every index decided without evaluation, none blocking

	for (int i = 0; i < n; i++)
	{
		const IndexShape &index = indexes[i];
		IndexVerdict v = i >= known->count				  ? decide_index(i, index, changes, options, probe)
						 : known->result[i] == Precheck::Decided ? known->verdict[i]
																 : evaluate_index(i, index, changes, options, probe);
		if (!record_verdict(&d, i, v))
			return d;
	}
	return d;
}

// decide_update() with the index most likely to change looked at first, for the update
// that cannot be HOT: it needs only one changed index, and the likely one, found changed,
// settles it with nothing else compared or evaluated. `likely` is a guess (the glue's: the
// index the previous update of the table by statements with the same target columns found
// changed); any index, or -1, gives the same hot_allowed and used_* flags as
// decide_update(); a wrong guess costs only its own decision. blocking_index is the
// first index found changed: `likely` when it changes, else decide_update()'s.
//
// Some inputs may not be classified yet when this is called: the probe's complete_inputs()
// classifies the rest, and is called exactly once, before anything but the inputs of
// `likely` is read, unless `likely` settles the update (then never). So only `likely`'s
// inputs must be classified up front (all of them when it is -1 or not usable as a guess).
// The caller asks blocked_by_stored_columns() first, which needs no more, so that nothing
// is evaluated when a stored column settles the update (D9); if it did not, the decision
// is the same, only found later.
//
// inputs (nullptr: none): the same indexes' InputsUnion, asked once every input is classified
// (an update that changes no index input is then settled without a precheck per index).
template <typename Probe>
UpdateDecision
decide_update_likely_first(const std::vector<IndexShape> &indexes, const ColumnChanges &changes,
						   const DecisionOptions &options, Probe &probe, int likely,
						   const InputsUnion *inputs = nullptr)
{
	const int n = static_cast<int>(indexes.size());
	UpdateDecision d;
	if (likely < 0 || likely >= n || likely >= Prechecks::kCapacity)
	{
		probe.complete_inputs();
		if (inputs != nullptr && inputs->settled_unchanged(changes, &d))
			return d;
		return decide_update(indexes, changes, options, probe);
	}
	const IndexVerdict first = decide_index(likely, indexes[likely], changes, options, probe);
	if (verdict_changes_index(first))
	{
		block(&d, likely, first);
		return d;
	}
	probe.complete_inputs();
	// The guessed index unchanged with no input Changed: its verdict was a precheck's, which
	// the union's answer covers.
	if (inputs != nullptr && inputs->settled_unchanged(changes, &d))
		return d;
	Prechecks prechecks;
	if (blocked_without_evaluation(indexes, changes, &d, &prechecks))
		return d;
	// The likely index is decided (unchanged): decide_update() takes its verdict as a
	// precheck's instead of evaluating it again.
	if (prechecks.result[likely] == Precheck::NeedsProbe)
	{
		prechecks.result[likely] = Precheck::Decided;
		prechecks.verdict[likely] = first;
		prechecks.needs_probe--;
		record_verdict(&prechecks.settled, likely, first);
	}
	return decide_update(indexes, changes, options, probe, &prechecks);
}

// The indexes an update that is not HOT leaves unchanged, for the executor's hint to the
// index (index_unchanged_by_update(): btree then runs bottom-up deletion before it splits a
// page, instead of piling up versions of an unchanged key). unchanged[i] is set for an index
// whose key is known equal in both versions by the rule above and whose predicate (if any) is
// not known false on both (then the new row gets no entry: nothing to hint); every other entry
// is false (the executor keeps its own answer). Only the indexes `asked` are looked at
// (nullptr: every one): the others are left false, nothing asked of them. `changed`: an index
// already found changed (-1: none), not asked again. Without `evaluate`, an index whose
// precheck needs the probe is left false; with it, it is evaluated as decide_index() would
// (options permitting). Every input must be classified before (the probe's complete_inputs()
// is not called here). Returns how many are set.
template <typename Probe>
int
unchanged_indexes(const std::vector<IndexShape> &indexes, const ColumnChanges &changes,
				  const DecisionOptions &options, Probe &probe, const bool *asked, int changed, bool evaluate,
				  bool *unchanged)
{
	int count = 0;
	for (int i = 0; i < static_cast<int>(indexes.size()); i++)
	{
		unchanged[i] = false;
		if (i == changed || (asked != nullptr && !asked[i]))
			continue;
		IndexVerdict v = IndexVerdict::Declined;
		if (precheck_index(indexes[i], changes, &v) == Precheck::NeedsProbe)
		{
			if (!evaluate)
				continue;
			v = evaluate_index(i, indexes[i], changes, options, probe);
		}
		if (!verdict_changes_index(v) && v != IndexVerdict::UnchangedPredicateFalse)
		{
			unchanged[i] = true;
			count++;
		}
	}
	return count;
}

} // namespace hotplus::core
