// The HOT decision against a brute-force model of the rule, over every index shape and
// every update on a 3-column table, and over random sets of indexes.
// Design points: D1, D3, D4, D6a, D9, D16
#include <catch2/catch.hpp>

#include "core/hot_decision.hpp"

#include <algorithm>
#include <random>
#include <vector>

using namespace hotplus::core;

namespace {

constexpr int kColumns = 3;

// The facts of one update that only evaluation reveals, per index.
struct EvaluationFacts
{
	bool predicate_old = true;
	bool predicate_new = true;
	bool expressions_equal = true;
};

// A probe that answers from EvaluationFacts and records how it was asked.
struct RecordingProbe
{
	std::vector<EvaluationFacts> facts;
	std::vector<std::vector<char>> calls; // per index: 'o', 'n' (predicate), 'e' (exprs)

	explicit RecordingProbe(std::vector<EvaluationFacts> f) : facts(std::move(f)), calls(facts.size()) {}

	bool predicate(int which, Side side)
	{
		calls.at(which).push_back(side == Side::Old ? 'o' : 'n');
		return side == Side::Old ? facts.at(which).predicate_old : facts.at(which).predicate_new;
	}
	bool expressions_equal(int which)
	{
		calls.at(which).push_back('e');
		return facts.at(which).expressions_equal;
	}
};

// The strongest change, column by column through get() (the model of ColumnChanges::strongest).
template <typename Columns>
ColumnChange
strongest(const ColumnChanges &changes, const Columns &cols)
{
	ColumnChange s = ColumnChange::Same;
	for (auto c : cols)
		if (changes.get(c) > s)
			s = changes.get(c);
	return s;
}

// Facts are only consistent with the inputs: immutable functions of image-equal inputs
// give equal values.
bool
consistent(const IndexShape &index, const ColumnChanges &changes, const EvaluationFacts &f)
{
	if (!index.has_predicate && !(f.predicate_old && f.predicate_new))
		return false;
	if (strongest(changes, index.predicate_inputs) != ColumnChange::Changed &&
		f.predicate_old != f.predicate_new)
		return false;
	if ((!index.has_expressions ||
		 strongest(changes, index.expression_inputs) != ColumnChange::Changed) &&
		!f.expressions_equal)
		return false;
	return true;
}

// The rule as src/core/hot_decision.hpp states it, literally.
bool
model_changes_index(const IndexShape &index, const ColumnChanges &changes, const EvaluationFacts &f)
{
	if (index.reads_whole_row)
		return true;
	if (index.has_predicate && !f.predicate_old && !f.predicate_new)
		return false;
	if (index.has_predicate && f.predicate_old != f.predicate_new)
		return true;
	for (auto c : index.stored_columns)
		if (changes.get(c) == ColumnChange::Changed)
			return true;
	return !f.expressions_equal;
}

// What the decision must answer for an index: the rule when it may be evaluated; when it may
// not, "changed" as soon as any input truly changed (the rule itself would need evaluation).
bool
model_decision_changes_index(const IndexShape &index, const ColumnChanges &changes,
							 const EvaluationFacts &f)
{
	if (index.evaluable || index.reads_whole_row)
		return model_changes_index(index, changes, f);
	for (auto *cols : {&index.stored_columns, &index.expression_inputs, &index.predicate_inputs})
		if (strongest(changes, *cols) == ColumnChange::Changed)
			return true;
	return false;
}

// Columns are numbered first..first + kColumns - 1 (first > 1: the table's earlier columns
// are never read or changed), so the decision is also tried where the columns straddle or
// pass ColumnSet's bit mask (kMaskColumns).
std::vector<IndexShape>
every_index_shape(int first = 1)
{
	std::vector<IndexShape> shapes;
	// Per column: member of stored / expression inputs / predicate inputs (3 bits).
	for (int membership = 0; membership < (1 << (3 * kColumns)); membership++)
		for (int flags = 0; flags < 8; flags++)
		{
			IndexShape s;
			s.has_expressions = flags & 1;
			s.has_predicate = flags & 2;
			// A whole-row reference is in an expression or the predicate, and reads every
			// column (the glue lists them all as inputs).
			s.reads_whole_row = flags & 4;
			if (s.reads_whole_row && ((!s.has_expressions && !s.has_predicate) || membership != (1 << (3 * kColumns)) - 1))
				continue;
			for (int k = 0; k < kColumns; k++)
			{
				const auto col = static_cast<ColumnNumber>(first + k);
				int bits = (membership >> (3 * k)) & 7;
				if (bits & 1)
					s.stored_columns.push_back(col);
				if (bits & 2)
					s.expression_inputs.push_back(col);
				if (bits & 4)
					s.predicate_inputs.push_back(col);
			}
			// An index has at least one key; expressions/predicates may read no column
			// (constants) but only exist when flagged.
			if (s.stored_columns.empty() && !s.has_expressions)
				continue;
			if (!s.has_expressions && !s.expression_inputs.empty())
				continue;
			if (!s.has_predicate && !s.predicate_inputs.empty())
				continue;
			shapes.push_back(s);
		}
	return shapes;
}

std::vector<ColumnChanges>
every_column_changes(int first = 1)
{
	std::vector<ColumnChanges> all;
	int combos = 1;
	for (int i = 0; i < kColumns; i++)
		combos *= 3;
	for (int code = 0; code < combos; code++)
	{
		ColumnChanges c(first + kColumns - 1);
		int rest = code;
		for (int k = 0; k < kColumns; k++, rest /= 3)
			c.set(static_cast<ColumnNumber>(first + k), static_cast<ColumnChange>(rest % 3));
		all.push_back(c);
	}
	return all;
}

std::vector<EvaluationFacts>
every_fact()
{
	std::vector<EvaluationFacts> all;
	for (int bits = 0; bits < 8; bits++)
		all.push_back({bool(bits & 1), bool(bits & 2), bool(bits & 4)});
	return all;
}

// An update of 1 to 4 random indexes (any shape; a sixth not evaluable), with evaluation
// facts consistent with its column changes.
struct RandomUpdate
{
	std::vector<IndexShape> indexes;
	std::vector<EvaluationFacts> facts;
	const ColumnChanges *changes;
};

RandomUpdate
random_update(std::mt19937 &rng, const std::vector<IndexShape> &shapes,
			  const std::vector<ColumnChanges> &updates, const std::vector<EvaluationFacts> &facts)
{
	RandomUpdate u;
	const int n = 1 + int(rng() % 4);
	u.changes = &updates[rng() % updates.size()];
	while (int(u.indexes.size()) < n)
	{
		IndexShape s = shapes[rng() % shapes.size()];
		s.evaluable = (rng() % 6) != 0;
		EvaluationFacts e = facts[rng() % facts.size()];
		if (!consistent(s, *u.changes, e))
			continue;
		u.indexes.push_back(s);
		u.facts.push_back(e);
	}
	return u;
}

} // namespace

TEST_CASE("decide_index matches the rule for every shape, update and evaluation outcome")
{
	// Columns 1-3; 62-64, across ColumnSet's bit mask; 100-102, beyond it.
	const int first = GENERATE(1, 62, 100);
	const auto shapes = every_index_shape(first);
	const auto updates = every_column_changes(first);
	const auto facts = every_fact();
	long checked = 0;

	for (const auto &shape : shapes)
		for (const auto &changes : updates)
			for (const auto &f : facts)
			{
				if (!consistent(shape, changes, f))
					continue;
				RecordingProbe probe({f});
				IndexVerdict v = decide_index(0, shape, changes, DecisionOptions{}, probe);
				INFO("verdict " << int(v));
				REQUIRE(verdict_changes_index(v) == model_changes_index(shape, changes, f));
				REQUIRE(v != IndexVerdict::Declined);

				// Call discipline: the old predicate first, the new one at most once after
				// it, expressions only once both predicates held.
				const auto &calls = probe.calls[0];
				bool saw_old = false, saw_new = false, saw_exprs = false;
				for (char c : calls)
				{
					if (c == 'o')
					{
						REQUIRE_FALSE(saw_old);
						REQUIRE_FALSE(saw_exprs);
						saw_old = true;
					}
					else if (c == 'n')
					{
						REQUIRE(saw_old);
						REQUIRE_FALSE(saw_new);
						REQUIRE_FALSE(saw_exprs);
						saw_new = true;
					}
					else
					{
						REQUIRE_FALSE(saw_exprs);
						REQUIRE((!shape.has_predicate || (f.predicate_old && f.predicate_new)));
						saw_exprs = true;
					}
				}
				// Nothing is evaluated when no input truly changed.
				ColumnList inputs;
				for (auto *l : {&shape.stored_columns, &shape.expression_inputs, &shape.predicate_inputs})
					inputs.insert(inputs.end(), l->begin(), l->end());
				if (strongest(changes, inputs) != ColumnChange::Changed)
					REQUIRE(calls.empty());
				// Expressions are evaluated only if one of their inputs changed.
				if (saw_exprs)
					REQUIRE(strongest(changes, shape.expression_inputs) == ColumnChange::Changed);
				checked++;
			}
	REQUIRE(checked > 60000);
}

TEST_CASE("with evaluation off, an index is never called unchanged wrongly and nothing is evaluated")
{
	const auto shapes = every_index_shape();
	const auto updates = every_column_changes();
	const auto facts = every_fact();
	DecisionOptions off;
	off.evaluate = false;

	for (const auto &shape : shapes)
		for (const auto &changes : updates)
			for (const auto &f : facts)
			{
				if (!consistent(shape, changes, f))
					continue;
				RecordingProbe probe({f});
				IndexVerdict v = decide_index(0, shape, changes, off, probe);
				REQUIRE(probe.calls[0].empty());
				if (!verdict_changes_index(v))
					REQUIRE_FALSE(model_changes_index(shape, changes, f));
			}
}

TEST_CASE("an index that may not be evaluated is decided from its inputs alone, never wrongly")
{
	const auto shapes = every_index_shape();
	const auto updates = every_column_changes();
	const auto facts = every_fact();
	const DecisionOptions on;
	int declined = 0;

	for (auto shape : shapes)
	{
		shape.evaluable = false;
		for (const auto &changes : updates)
			for (const auto &f : facts)
			{
				if (!consistent(shape, changes, f))
					continue;
				RecordingProbe probe({f});
				IndexVerdict v = decide_index(0, shape, changes, on, probe);
				REQUIRE(probe.calls[0].empty());
				if (!verdict_changes_index(v))
					REQUIRE_FALSE(model_changes_index(shape, changes, f));
				// Unchanged exactly when no input truly changed (and the whole row is not read).
				const bool any_changed =
					shape.reads_whole_row ||
					std::max({strongest(changes, shape.stored_columns),
							  strongest(changes, shape.expression_inputs),
							  strongest(changes, shape.predicate_inputs)}) == ColumnChange::Changed;
				REQUIRE(verdict_changes_index(v) == any_changed);
				declined += v == IndexVerdict::Declined;
			}
	}
	REQUIRE(declined > 1000);
}

TEST_CASE("image-equal inputs never cost an evaluation")
{
	IndexShape s;
	s.has_expressions = true;
	s.has_predicate = true;
	s.expression_inputs = {1};
	s.predicate_inputs = {2};
	ColumnChanges c(kColumns);
	c.set(1, ColumnChange::ImageEqual);
	c.set(2, ColumnChange::ImageEqual);
	RecordingProbe probe({EvaluationFacts{}});
	CHECK(decide_index(0, s, c, DecisionOptions{}, probe) == IndexVerdict::UnchangedInputsImageEqual);
	CHECK(probe.calls[0].empty());
}

TEST_CASE("a partial index whose predicate is false on both sides ignores its key change")
{
	IndexShape s;
	s.has_predicate = true;
	s.stored_columns = {1};
	s.predicate_inputs = {2};
	ColumnChanges c(kColumns);
	c.set(1, ColumnChange::Changed);
	RecordingProbe probe({EvaluationFacts{false, false, true}});
	CHECK(decide_index(0, s, c, DecisionOptions{}, probe) == IndexVerdict::UnchangedPredicateFalse);
	// The predicate's inputs did not change, so only the old side is evaluated.
	CHECK(probe.calls[0] == std::vector<char>{'o'});
}

TEST_CASE("decide_update: HOT iff no HOT-blocking index changes, for random index sets")
{
	const auto shapes = every_index_shape();
	const auto updates = every_column_changes();
	const auto facts = every_fact();
	std::mt19937 rng(20261130);

	for (int round = 0; round < 200000; round++)
	{
		const RandomUpdate u = random_update(rng, shapes, updates, facts);
		const std::vector<IndexShape> &indexes = u.indexes;
		const std::vector<EvaluationFacts> &f = u.facts;
		const ColumnChanges &changes = *u.changes;
		const int n = static_cast<int>(indexes.size());

		bool model_hot = true, model_stock_hot = true;
		for (int i = 0; i < n; i++)
		{
			model_hot &= !model_decision_changes_index(indexes[i], changes, f[i]);
			for (auto *l : {&indexes[i].stored_columns, &indexes[i].expression_inputs, &indexes[i].predicate_inputs})
				model_stock_hot &= strongest(changes, *l) == ColumnChange::Same;
			model_stock_hot &= !indexes[i].reads_whole_row; // heap: attribute 0 is modified
		}

		RecordingProbe probe(f);
		UpdateDecision d = decide_update(indexes, changes, DecisionOptions{}, probe);
		REQUIRE(d.hot_allowed == model_hot);
		if (d.hot_allowed)
		{
			// What HOT was allowed by: every index's own verdict, decided one by one (no
			// shortcut through the prechecks).
			bool image = false, predicates = false, expressions = false;
			for (int i = 0; i < n; i++)
			{
				RecordingProbe one(f);
				const IndexVerdict v = decide_index(i, indexes[i], changes, DecisionOptions{}, one);
				image |= v == IndexVerdict::UnchangedInputsImageEqual;
				predicates |= v == IndexVerdict::UnchangedPredicateFalse || v == IndexVerdict::UnchangedKeysEqual;
				expressions |= v == IndexVerdict::UnchangedValuesEqual;
			}
			REQUIRE(d.used_image_equality == image);
			REQUIRE(d.used_predicates == predicates);
			REQUIRE(d.used_expressions == expressions);
		}
		else
		{
			REQUIRE(d.blocking_index >= 0);
			REQUIRE(model_decision_changes_index(indexes[d.blocking_index], changes, f[d.blocking_index]));
			REQUIRE_FALSE(model_stock_hot);
			// The decision stops at the first change: no later index is evaluated.
			for (int i = d.blocking_index + 1; i < n; i++)
				REQUIRE(probe.calls[i].empty());
		}
		if (model_stock_hot)
			REQUIRE(d.hot_allowed);
		// Blocked without evaluation: only when some HOT-blocking index changes whatever
		// the probe says, and then with decide_update's own (final) decision.
		UpdateDecision early;
		Prechecks prechecks;
		const bool blocked_early = blocked_without_evaluation(indexes, changes, &early, &prechecks);
		// The shortcut answers exactly when the prechecks block (every column is in range).
		UpdateDecision fast;
		REQUIRE(StoredColumnBlockers(indexes).blocked(changes, &fast) == blocked_early);
		if (blocked_early)
		{
			REQUIRE_FALSE(fast.hot_allowed);
			REQUIRE(fast.blocking_index == early.blocking_index);
			REQUIRE(fast.blocking_verdict == early.blocking_verdict);
		}
		if (!blocked_early)
		{
			// decide_update on those prechecks: the same decision, the same probe calls.
			RecordingProbe again(f);
			UpdateDecision d2 = decide_update(indexes, changes, DecisionOptions{}, again, &prechecks);
			REQUIRE(d2.hot_allowed == d.hot_allowed);
			REQUIRE(d2.blocking_index == d.blocking_index);
			REQUIRE(d2.blocking_verdict == d.blocking_verdict);
			REQUIRE(d2.used_expressions == d.used_expressions);
			REQUIRE(d2.used_predicates == d.used_predicates);
			REQUIRE(d2.used_image_equality == d.used_image_equality);
			REQUIRE(again.calls == probe.calls);
		}
		else
		{
			REQUIRE_FALSE(early.hot_allowed);
			REQUIRE(early.blocking_index == d.blocking_index);
			REQUIRE(early.blocking_verdict == d.blocking_verdict);
			for (int i = 0; i < n; i++)
				REQUIRE(probe.calls[i].empty());
			for (auto any : facts)
			{
				if (consistent(indexes[early.blocking_index], changes, any))
					REQUIRE(model_decision_changes_index(indexes[early.blocking_index], changes, any));
			}
		}
		// An index that may not be evaluated never is.
		for (int i = 0; i < n; i++)
			if (!indexes[i].evaluable)
				REQUIRE(probe.calls[i].empty());
	}
}

TEST_CASE("hot_question: what decide_update still needs after the prechecks, for random index sets")
{
	// Where the new version cannot fit on the page, the glue asks hot_question() instead of
	// evaluating: Settled and WithoutEvaluation must be decide_update()'s own answer with no
	// probe call at all, whatever the facts evaluation would reveal; NeedsEvaluation is the
	// only answer when some evaluation could decide HOT.
	const auto shapes = every_index_shape();
	const auto updates = every_column_changes();
	const auto facts = every_fact();
	std::mt19937 rng(20261204);
	int seen[3] = {};

	for (int round = 0; round < 100000; round++)
	{
		const RandomUpdate u = random_update(rng, shapes, updates, facts);
		const std::vector<IndexShape> &indexes = u.indexes;
		const std::vector<EvaluationFacts> &f = u.facts;
		const ColumnChanges &changes = *u.changes;
		const int n = static_cast<int>(indexes.size());
		DecisionOptions options;
		options.evaluate = (rng() % 4) != 0;

		UpdateDecision early;
		Prechecks prechecks;
		if (blocked_without_evaluation(indexes, changes, &early, &prechecks))
			continue;
		const HotQuestion q = hot_question(indexes, prechecks, options);
		seen[static_cast<int>(q)]++;

		RecordingProbe probe(f);
		const UpdateDecision d = decide_update(indexes, changes, options, probe, &prechecks);
		bool probe_called = false;
		for (int i = 0; i < n; i++)
			probe_called |= !probe.calls[i].empty();
		switch (q)
		{
			case HotQuestion::Settled:
				REQUIRE(prechecks.settled.hot_allowed);
				REQUIRE(d.hot_allowed);
				REQUIRE_FALSE(probe_called);
				break;
			case HotQuestion::WithoutEvaluation:
				REQUIRE_FALSE(d.hot_allowed);
				for (int i = 0; i < n; i++)
					REQUIRE(probe.calls[i].empty());
				break;
			case HotQuestion::NeedsEvaluation:
				// Some HOT-blocking index needed a probe and may be evaluated.
				{
					bool evaluable_probe = false;
					for (int i = 0; i < n; i++)
						evaluable_probe |= prechecks.result[i] == Precheck::NeedsProbe && indexes[i].evaluable &&
										   options.evaluate;
					REQUIRE(evaluable_probe);
				}
				break;
		}
		// Settled and WithoutEvaluation hold whatever evaluation would have revealed.
		if (q != HotQuestion::NeedsEvaluation)
			for (int i = 0; i < n; i++)
				for (auto other : facts)
				{
					if (!consistent(indexes[i], changes, other))
						continue;
					std::vector<EvaluationFacts> g = f;
					g[i] = other;
					RecordingProbe p2(g);
					REQUIRE(decide_update(indexes, changes, options, p2, &prechecks).hot_allowed == d.hot_allowed);
				}
	}
	CHECK(seen[0] > 0);
	CHECK(seen[1] > 0);
	CHECK(seen[2] > 0);
}

TEST_CASE("an index that reads the whole row changes with every update, without evaluation")
{
	// ALTER TABLE ... ADD COLUMN changes the whole-row value of a stored row without
	// re-indexing it: only a new entry at each update (heap's behaviour) keeps the key current.
	IndexShape whole;
	whole.has_expressions = true;
	whole.reads_whole_row = true;
	whole.expression_inputs = {1, 2, 3};
	IndexShape plain;
	plain.stored_columns = {2};
	for (int code = 0; code < 27; code++)
	{
		ColumnChanges c(kColumns);
		for (int k = 0, rest = code; k < kColumns; k++, rest /= 3)
			c.set(static_cast<ColumnNumber>(k + 1), static_cast<ColumnChange>(rest % 3));
		RecordingProbe probe({EvaluationFacts{}, EvaluationFacts{}});
		CHECK(decide_index(0, whole, c, DecisionOptions{}, probe) == IndexVerdict::ChangedWholeRow);
		const std::vector<IndexShape> indexes{plain, whole};
		UpdateDecision d = decide_update(indexes, c, DecisionOptions{}, probe);
		CHECK_FALSE(d.hot_allowed);
		// The lowest blocking index: the plain one when its key changed.
		CHECK(d.blocking_index == (c.get(2) == ColumnChange::Changed ? 0 : 1));
		UpdateDecision fast;
		CHECK(StoredColumnBlockers(indexes).blocked(c, &fast));
		CHECK(fast.blocking_index == d.blocking_index);
		CHECK(fast.blocking_verdict == d.blocking_verdict);
		CHECK(probe.calls[0].empty());
		CHECK(probe.calls[1].empty());
	}
}

TEST_CASE("decide_update: a stored column change blocks HOT before anything is evaluated")
{
	IndexShape expr;
	expr.has_expressions = true;
	expr.expression_inputs = {1};
	IndexShape plain;
	plain.stored_columns = {2};
	std::vector<IndexShape> indexes{expr, plain};
	ColumnChanges c(kColumns);
	c.set(1, ColumnChange::Changed);
	c.set(2, ColumnChange::Changed);
	RecordingProbe probe({EvaluationFacts{}, EvaluationFacts{}});
	UpdateDecision d = decide_update(indexes, c, DecisionOptions{}, probe);
	CHECK_FALSE(d.hot_allowed);
	CHECK(d.blocking_index == 1);
	CHECK(d.blocking_verdict == IndexVerdict::ChangedStoredColumn);
	CHECK(probe.calls[0].empty());
}

TEST_CASE("ColumnChanges::strongest over a ColumnSet (bit masks) equals the column-by-column answer")
{
	// Tables across the mask's edge (64), columns read outside the range (0, negative, past
	// the last: Changed) and above it, changes overwritten and reset.
	std::mt19937 random(20261201);
	for (int round = 0; round < 20000; round++)
	{
		const int natts = static_cast<int>(random() % 130);
		ColumnChanges changes(natts);
		if (random() % 2)
			changes.reset();
		const int nsets = static_cast<int>(random() % 200);
		for (int k = 0; k < nsets; k++)
			changes.set(static_cast<ColumnNumber>(static_cast<int>(random() % 140) - 2),
						static_cast<ColumnChange>(random() % 3));
		if (random() % 10 == 0)
			changes.reset();

		ColumnSet sets[3];
		ColumnList lists[3];
		for (int which = 0; which < 3; which++)
		{
			const int ncols = static_cast<int>(random() % 5);
			for (int k = 0; k < ncols; k++)
			{
				// Mostly inside the table and the mask, sometimes not.
				const int bound = random() % 4 == 0 ? 140 : std::min(natts + 1, 64);
				const auto col = static_cast<ColumnNumber>(static_cast<int>(random() % (bound + 2)) - 1);
				sets[which].push_back(col);
				lists[which].push_back(col);
			}
			REQUIRE(changes.strongest(sets[which]) == strongest(changes, lists[which]));
			REQUIRE(changes.strongest(lists[which]) == strongest(changes, lists[which]));
			ColumnSet copy;
			copy.assign(lists[which].begin(), lists[which].end());
			REQUIRE(changes.strongest(copy) == strongest(changes, lists[which]));
		}
		ColumnChange in_first, in_all;
		changes.strongest(sets[0], sets[1], sets[2], &in_first, &in_all);
		REQUIRE(in_first == strongest(changes, lists[0]));
		REQUIRE(in_all == std::max({strongest(changes, lists[0]), strongest(changes, lists[1]),
									strongest(changes, lists[2])}));
	}
}

TEST_CASE("StoredColumnBlockers agrees with blocked_without_evaluation on wide tables")
{
	// Columns across the mask's edge (64) and past the change vector, predicates, changes of
	// every kind: when the shortcut answers it is
	// blocked_without_evaluation()'s answer, and it answers whenever that one blocks and
	// every stored column is in the mask and the table.
	std::mt19937 random(20261202);
	int answered = 0;
	for (int round = 0; round < 50000; round++)
	{
		const int natts = static_cast<int>(random() % 130);
		ColumnChanges changes(natts);
		const int nsets = static_cast<int>(random() % (natts / 4 + 4));
		for (int k = 0; k < nsets; k++)
			changes.set(static_cast<ColumnNumber>(1 + random() % (natts + 1)),
						static_cast<ColumnChange>(random() % 3));

		std::vector<IndexShape> indexes(1 + random() % 6);
		bool all_in_reach = true;
		for (IndexShape &index : indexes)
		{
			for (ColumnSet *set : {&index.stored_columns, &index.expression_inputs, &index.predicate_inputs})
			{
				const int ncols = static_cast<int>(random() % 4);
				for (int k = 0; k < ncols; k++)
				{
					const int bound = random() % 5 == 0 ? 140 : std::min(natts + 1, 64);
					set->push_back(static_cast<ColumnNumber>(1 + random() % bound));
				}
			}
			index.has_expressions = !index.expression_inputs.empty();
			index.has_predicate = !index.predicate_inputs.empty() || random() % 8 == 0;
			index.reads_whole_row = (index.has_expressions || index.has_predicate) && random() % 10 == 0;
			all_in_reach &= index.stored_columns.in_mask() && index.stored_columns.max() <= natts;
		}

		UpdateDecision early, fast;
		Prechecks prechecks;
		const bool blocked_early = blocked_without_evaluation(indexes, changes, &early, &prechecks);
		const bool blocked_fast = StoredColumnBlockers(indexes).blocked(changes, &fast);
		if (blocked_fast)
		{
			answered++;
			REQUIRE(blocked_early);
			REQUIRE_FALSE(fast.hot_allowed);
			REQUIRE(fast.blocking_index == early.blocking_index);
			REQUIRE(fast.blocking_verdict == early.blocking_verdict);
		}
		else if (all_in_reach)
			REQUIRE_FALSE(blocked_early);
	}
	CHECK(answered > 300); // blocked by the shortcut: some hundreds of the 50000 rounds on this seed
}

namespace {

// A table of 3 plain columns and 2 jsonb parts (columns 4 and 5: only ever expression or
// predicate inputs, as the glue's parts are), for the likely-first decision.
constexpr int kPlain = 3;
constexpr int kWithParts = 5;

IndexShape
random_shape(std::mt19937 &rng)
{
	IndexShape s;
	for (int col = 1; col <= kWithParts; col++)
	{
		const int bits = static_cast<int>(rng() % 8);
		if ((bits & 1) && col <= kPlain)
			s.stored_columns.push_back(static_cast<ColumnNumber>(col));
		if (bits & 2)
			s.expression_inputs.push_back(static_cast<ColumnNumber>(col));
		if (bits & 4)
			s.predicate_inputs.push_back(static_cast<ColumnNumber>(col));
	}
	s.has_expressions = !s.expression_inputs.empty() || (s.stored_columns.empty()) || rng() % 4 == 0;
	s.has_predicate = !s.predicate_inputs.empty() || rng() % 8 == 0;
	s.evaluable = rng() % 8 != 0;
	s.reads_whole_row = (s.has_expressions || s.has_predicate) && rng() % 15 == 0;
	return s;
}

// A probe whose complete_inputs() puts the true changes into the vector the decision reads,
// and which records the order of everything it is asked.
struct LazyInputsProbe : RecordingProbe
{
	ColumnChanges *seen;
	const ColumnChanges *truth;
	int completions = 0;
	std::vector<int> order; // index asked, -1 for complete_inputs()

	LazyInputsProbe(std::vector<EvaluationFacts> f, ColumnChanges *s, const ColumnChanges *t)
		: RecordingProbe(std::move(f)), seen(s), truth(t)
	{
	}
	bool predicate(int which, Side side)
	{
		order.push_back(which);
		return RecordingProbe::predicate(which, side);
	}
	bool expressions_equal(int which)
	{
		order.push_back(which);
		return RecordingProbe::expressions_equal(which);
	}
	void complete_inputs()
	{
		completions++;
		order.push_back(-1);
		*seen = *truth;
	}
};

} // namespace

TEST_CASE("blocked_by_stored_columns answers as blocked_without_evaluation, with and without the mask test")
{
	std::mt19937 rng(20261203);
	for (int round = 0; round < 100000; round++)
	{
		std::vector<IndexShape> indexes;
		for (int n = 1 + static_cast<int>(rng() % 5); n > 0; n--)
			indexes.push_back(random_shape(rng));
		ColumnChanges changes(kWithParts);
		for (int col = 1; col <= kWithParts; col++)
			changes.set(static_cast<ColumnNumber>(col), static_cast<ColumnChange>(rng() % 3));
		UpdateDecision early, by_mask, by_loop;
		Prechecks prechecks;
		const bool blocked = blocked_without_evaluation(indexes, changes, &early, &prechecks);
		const StoredColumnBlockers blockers(indexes);
		REQUIRE(blockers.answers(changes));
		REQUIRE(blocked_by_stored_columns(indexes, blockers, changes, &by_mask) == blocked);
		REQUIRE(blocked_by_stored_columns(indexes, StoredColumnBlockers{}, changes, &by_loop) == blocked);
		if (blocked)
			for (const UpdateDecision &d : {by_mask, by_loop})
			{
				REQUIRE_FALSE(d.hot_allowed);
				REQUIRE(d.blocking_index == early.blocking_index);
				REQUIRE(d.blocking_verdict == early.blocking_verdict);
			}
		// The parts (columns 4, 5) are never read: any value there gives the same answer.
		ColumnChanges other_parts = changes;
		for (int col = kPlain + 1; col <= kWithParts; col++)
			other_parts.set(static_cast<ColumnNumber>(col), static_cast<ColumnChange>(rng() % 3));
		UpdateDecision again;
		REQUIRE(blocked_by_stored_columns(indexes, StoredColumnBlockers{}, other_parts, &again) == blocked);
	}
}

TEST_CASE("decide_update_likely_first: decide_update's decision whatever the guess, the guess alone when it changes")
{
	// Random indexes over 3 columns and 2 parts, a random guess (or none, or out of range);
	// the parts that the guessed index does not read hold garbage until complete_inputs().
	std::mt19937 rng(20261204);
	int settled_by_guess = 0, wrong_guesses = 0;
	for (int round = 0; round < 200000; round++)
	{
		ColumnChanges truth(kWithParts);
		for (int col = 1; col <= kWithParts; col++)
			truth.set(static_cast<ColumnNumber>(col), static_cast<ColumnChange>(rng() % 3));
		const int n = 1 + static_cast<int>(rng() % 5);
		std::vector<IndexShape> indexes;
		std::vector<EvaluationFacts> facts;
		while (static_cast<int>(indexes.size()) < n)
		{
			IndexShape s = random_shape(rng);
			EvaluationFacts f{bool(rng() % 2), bool(rng() % 2), bool(rng() % 2)};
			if (!consistent(s, truth, f))
				continue;
			indexes.push_back(s);
			facts.push_back(f);
		}
		const int likely = static_cast<int>(rng() % (n + 2)) - 1; // -1 .. n

		ColumnChanges seen = truth;
		if (likely >= 0 && likely < n)
			for (int col = kPlain + 1; col <= kWithParts; col++)
			{
				const auto c = static_cast<ColumnNumber>(col);
				const IndexShape &guess = indexes[likely];
				const bool read = std::count(guess.expression_inputs.begin(), guess.expression_inputs.end(), c) ||
								  std::count(guess.predicate_inputs.begin(), guess.predicate_inputs.end(), c);
				if (!read)
					seen.set(c, static_cast<ColumnChange>(rng() % 3));
			}

		RecordingProbe plain(facts);
		const UpdateDecision expected = decide_update(indexes, truth, DecisionOptions{}, plain);
		UpdateDecision stored;
		const bool stored_first = rng() % 2 == 0; // as the glue asks, or not at all
		if (stored_first && blocked_by_stored_columns(indexes, StoredColumnBlockers(indexes), seen, &stored))
		{
			REQUIRE_FALSE(expected.hot_allowed);
			REQUIRE(stored.blocking_index == expected.blocking_index);
			continue;
		}
		LazyInputsProbe probe(facts, &seen, &truth);
		const UpdateDecision d = decide_update_likely_first(indexes, seen, DecisionOptions{}, probe, likely);

		REQUIRE(d.hot_allowed == expected.hot_allowed);
		REQUIRE(probe.completions <= 1);
		bool model_hot = true;
		for (int i = 0; i < n; i++)
			model_hot &= !model_decision_changes_index(indexes[i], truth, facts[i]);
		REQUIRE(d.hot_allowed == model_hot);
		if (d.hot_allowed)
		{
			REQUIRE(d.used_expressions == expected.used_expressions);
			REQUIRE(d.used_predicates == expected.used_predicates);
			REQUIRE(d.used_image_equality == expected.used_image_equality);
		}
		else
		{
			REQUIRE(d.blocking_index >= 0);
			REQUIRE(model_decision_changes_index(indexes[d.blocking_index], truth, facts[d.blocking_index]));
			REQUIRE(verdict_changes_index(d.blocking_verdict));
		}
		const bool guess_usable = likely >= 0 && likely < n;
		if (guess_usable && model_decision_changes_index(indexes[likely], truth, facts[likely]))
		{
			// The guess settles it: nothing else asked, the rest never classified.
			settled_by_guess++;
			REQUIRE(d.blocking_index == likely);
			REQUIRE(probe.completions == 0);
			for (int i = 0; i < n; i++)
				if (i != likely)
					REQUIRE(probe.calls[i].empty());
		}
		else
		{
			wrong_guesses += guess_usable;
			REQUIRE(probe.completions == 1);
		}
		// Before complete_inputs() only the guess is asked; nothing is asked twice about one
		// index and side (the guess's verdict is reused, not evaluated again), and every
		// index is asked as the rule allows (the predicate before the expressions).
		bool completed = false;
		for (int which : probe.order)
		{
			if (which == -1)
				completed = true;
			else if (!completed)
				REQUIRE(which == likely);
		}
		for (int i = 0; i < n; i++)
		{
			const auto &calls = probe.calls[i];
			REQUIRE(std::count(calls.begin(), calls.end(), 'o') <= 1);
			REQUIRE(std::count(calls.begin(), calls.end(), 'n') <= 1);
			REQUIRE(std::count(calls.begin(), calls.end(), 'e') <= 1);
			if (!calls.empty() && calls.front() != 'e')
				REQUIRE(calls.front() == 'o');
			if (std::count(calls.begin(), calls.end(), 'e'))
				REQUIRE(calls.back() == 'e');
			if (!indexes[i].evaluable)
				REQUIRE(calls.empty());
			// Never more than decide_update() asks, but for the guess.
			if (i != likely)
				REQUIRE(calls.size() <= plain.calls[i].size());
		}
	}
	CHECK(settled_by_guess > 10000);
	CHECK(wrong_guesses > 10000);
}

TEST_CASE("InputsUnion settles exactly the updates that change no index input, as decide_update does")
{
	std::mt19937 rng(20261205);
	int settled = 0;
	for (int round = 0; round < 200000; round++)
	{
		ColumnChanges changes(kWithParts);
		for (int col = 1; col <= kWithParts; col++)
			changes.set(static_cast<ColumnNumber>(col), static_cast<ColumnChange>(rng() % 4 == 0 ? 2 : rng() % 2));
		std::vector<IndexShape> indexes;
		std::vector<EvaluationFacts> facts;
		const int n = 1 + static_cast<int>(rng() % 5);
		while (static_cast<int>(indexes.size()) < n)
		{
			IndexShape s = random_shape(rng);
			EvaluationFacts f{bool(rng() % 2), bool(rng() % 2), bool(rng() % 2)};
			if (!consistent(s, changes, f))
				continue;
			indexes.push_back(s);
			facts.push_back(f);
		}
		RecordingProbe probe(facts);
		const UpdateDecision expected = decide_update(indexes, changes, DecisionOptions{}, probe);
		UpdateDecision fast;
		const bool answered = InputsUnion(indexes).settled_unchanged(changes, &fast);
		bool any_changed_input = false, whole_row = false;
		for (const IndexShape &index : indexes)
		{
			whole_row |= index.reads_whole_row;
			for (auto *set : {&index.stored_columns, &index.expression_inputs, &index.predicate_inputs})
				any_changed_input |= strongest(changes, *set) == ColumnChange::Changed;
		}
		REQUIRE(answered == (!any_changed_input && !whole_row));
		if (answered)
		{
			settled++;
			REQUIRE(fast.hot_allowed);
			REQUIRE(expected.hot_allowed);
			REQUIRE(fast.used_expressions == expected.used_expressions);
			REQUIRE(fast.used_predicates == expected.used_predicates);
			REQUIRE(fast.used_image_equality == expected.used_image_equality);
			for (const auto &calls : probe.calls)
				REQUIRE(calls.empty());
		}
		// decide_update_likely_first with the union: decide_update's decision.
		const int likely = static_cast<int>(rng() % (n + 1)) - 1;
		ColumnChanges seen = changes;
		LazyInputsProbe lazy(facts, &seen, &changes);
		const InputsUnion all(indexes);
		const UpdateDecision d = decide_update_likely_first(indexes, seen, DecisionOptions{}, lazy, likely, &all);
		REQUIRE(d.hot_allowed == expected.hot_allowed);
		if (d.hot_allowed)
		{
			REQUIRE(d.used_expressions == expected.used_expressions);
			REQUIRE(d.used_predicates == expected.used_predicates);
			REQUIRE(d.used_image_equality == expected.used_image_equality);
		}
	}
	CHECK(settled > 10000);
}

TEST_CASE("unchanged_indexes: the hints of an update that is not HOT, against the model", "[hint]")
{
	// Every index asked and unchanged by the rule gets the hint when it may be evaluated (or
	// needs no evaluation), unless its predicate is false on both rows (no entry to hint); none
	// that changes ever does; without evaluation only those the prechecks settle; the index
	// already found changed, and those not asked, are not looked at.
	const auto shapes = every_index_shape();
	const auto updates = every_column_changes();
	const auto facts = every_fact();
	std::mt19937 rng(20261206);
	int hinted = 0, withheld = 0;
	for (int round = 0; round < 100000; round++)
	{
		const RandomUpdate u = random_update(rng, shapes, updates, facts);
		const ColumnChanges &changes = *u.changes;
		const int n = static_cast<int>(u.indexes.size());
		const bool evaluate = rng() % 2 == 0;
		const DecisionOptions options{rng() % 4 != 0};
		const int changed = static_cast<int>(rng() % (n + 1)) - 1;
		RecordingProbe probe(u.facts);
		bool unchanged[8] = {true, true, true, true, true, true, true, true};
		bool asked[8];
		const bool ask_all = rng() % 2 == 0;
		for (bool &a : asked)
			a = ask_all || rng() % 3 != 0;
		const int count =
			unchanged_indexes(u.indexes, changes, options, probe, ask_all ? nullptr : asked, changed, evaluate, unchanged);
		int set = 0;
		for (int i = 0; i < n; i++)
		{
			const IndexShape &index = u.indexes[i];
			const EvaluationFacts &f = u.facts[i];
			set += unchanged[i];
			const bool truly_unchanged = !model_changes_index(index, changes, f);
			// Never a wrong hint: only indexes the rule, and the decision, find unchanged.
			if (unchanged[i])
				REQUIRE((truly_unchanged && !model_decision_changes_index(index, changes, f) && i != changed));
			if (i == changed || !asked[i])
				REQUIRE(probe.calls[i].empty());
			if (!asked[i])
			{
				REQUIRE_FALSE(unchanged[i]);
				continue;
			}
			// What the prechecks settle (every input as stored or image-equal, no whole row) is
			// always hinted, with or without evaluation.
			bool inputs_unchanged = !index.reads_whole_row;
			for (auto *set_ : {&index.stored_columns, &index.expression_inputs, &index.predicate_inputs})
				inputs_unchanged &= strongest(changes, *set_) != ColumnChange::Changed;
			if (i != changed && inputs_unchanged)
				REQUIRE(unchanged[i]);
			// With evaluation allowed, every unchanged index with an entry is hinted.
			if (i != changed && evaluate && options.evaluate && index.evaluable && truly_unchanged &&
				!(index.has_predicate && !f.predicate_old && !f.predicate_new))
				REQUIRE(unchanged[i]);
			// Without evaluation nothing is evaluated.
			if (!evaluate)
				REQUIRE(probe.calls[i].empty());
			if (!unchanged[i] && truly_unchanged && i != changed)
				withheld++;
		}
		REQUIRE(count == set);
		hinted += count;
	}
	CHECK(hinted > 10000);
	CHECK(withheld > 1000);
}
