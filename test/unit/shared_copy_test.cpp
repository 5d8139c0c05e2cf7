// One detoasted copy per row and column (core/shared_copy.hpp, src/README.md D14b): the rule
// restated over all its inputs, then a model of the executor around it. The model runs random
// evaluations and memory context resets through decide_copy() with the glue's bookkeeping
// (read/shared_detoast.cpp: a current copy per group, a registry of live copies), and tracks
// every holder of every copy: a consumer (from the marker until it returns: a consumer's other
// arguments are constants, so before anything else of the evaluation runs) and the results of
// aliasing consumers (until their memory context is reset). Between two references, an
// evaluation may run plan nodes (a subplan elsewhere in the expression), which may reset
// another node's memory. No copy may be freed or reset while held, served with another value,
// or left unreleased beside its group's current one.
// Design points: D14b
#include <catch2/catch.hpp>

#include "core/shared_copy.hpp"

#include <map>
#include <random>
#include <set>
#include <vector>

using namespace hotplus::core;

TEST_CASE("decide_copy: the rule over every input", "[shared_copy]")
{
	for (int code = 0; code < (1 << 7); ++code)
	{
		CopyView view;
		view.own_alive = code & 1;
		view.own_matches = code & 2;
		view.own_in_context = code & 4;
		view.own_released = code & 8;
		view.other_matches = code & 16;
		view.context_watched = code & 32;
		CopyRequest request;
		request.result_may_alias = code & 64;
		const CopyDecision d = decide_copy(view, request);

		const bool own = view.own_alive && view.own_matches;
		CopyAction expected;
		if (own)
			expected = !request.result_may_alias || view.own_in_context ? CopyAction::ServeOwn : CopyAction::PassStored;
		else if (view.other_matches && !request.result_may_alias)
			expected = CopyAction::ServeOther;
		else if (view.context_watched)
			expected = CopyAction::MakeNew;
		else
			expected = CopyAction::PassStored;
		CAPTURE(code);
		REQUIRE(d.action == expected);
		REQUIRE(d.free_own == (expected == CopyAction::MakeNew && view.own_alive && !view.own_released));
		REQUIRE(d.release_served ==
				((expected == CopyAction::ServeOwn || expected == CopyAction::MakeNew) && request.result_may_alias));
	}
}

namespace {

// Two plan nodes, each with two per-row memory contexts below the per-query one (0, which
// the groups live in; resetting it resets all). Context 5 is elsewhere (not watched). A
// group belongs to one node and is evaluated only in that node's contexts (or 0, 5); another
// node's contexts are reset only by that node, which runs in the middle of an evaluation only
// through a subplan somewhere in the expression.
constexpr int kContexts = 6;
constexpr int kUnwatched = 5;
int context_of(int node, int which) { return 1 + 2 * node + which; } // 1, 2 / 3, 4

struct ModelCopy
{
	int key;
	int context;
	int group;
	bool released = false;
	bool alive = true;
};

struct Model
{
	std::vector<ModelCopy> copies;
	std::map<int, int> current;		 // group -> copy
	std::multiset<int> in_flight;	 // copies held by a consumer not called yet
	std::multimap<int, int> results; // context -> copy held by an aliasing result there
	long served = 0, made = 0, passed = 0, freed = 0, shared = 0;

	static bool watched(int context) { return context != kUnwatched; }

	void kill(int copy)
	{
		REQUIRE(copies[copy].alive);
		// Nothing that outlives the copy may hold it: consumers still waiting, results of
		// other contexts.
		REQUIRE(in_flight.count(copy) == 0);
		for (const auto &[context, held] : results)
			REQUIRE((held != copy || context == copies[copy].context));
		copies[copy].alive = false;
		for (auto it = current.begin(); it != current.end();)
			it = it->second == copy ? current.erase(it) : std::next(it);
	}

	void reset(int context)
	{
		std::vector<int> reset_contexts{context};
		if (context == 0)
			reset_contexts = {0, 1, 2, 3, 4};
		for (int c : reset_contexts)
		{
			for (int i = 0; i < static_cast<int>(copies.size()); ++i)
				if (copies[i].alive && copies[i].context == c)
					kill(i);
			results.erase(c);
		}
	}

	// One reference of `group` evaluated in `context` on a row whose stored value is `key`.
	void reference(int group, int key, int context, const CopyRequest &request)
	{
		CopyView view;
		const auto own_it = current.find(group);
		const int own = own_it == current.end() ? -1 : own_it->second;
		if (own >= 0)
		{
			const ModelCopy &c = copies[own];
			view.own_alive = true;
			view.own_matches = c.key == key;
			view.own_in_context = c.context == context;
			view.own_released = c.released;
		}
		int other = -1;
		for (int i = 0; i < static_cast<int>(copies.size()); ++i)
			if (copies[i].alive && copies[i].group != group && copies[i].key == key)
				other = i;
		view.other_matches = other >= 0;
		view.context_watched = watched(context);
		const CopyDecision d = decide_copy(view, request);

		int given = -1;
		switch (d.action)
		{
			case CopyAction::ServeOwn:
				given = own;
				break;
			case CopyAction::ServeOther:
				REQUIRE(!request.result_may_alias); // invariant 3
				given = other;
				copies[other].released = true;
				++shared;
				break;
			case CopyAction::MakeNew:
				REQUIRE(watched(context)); // invariant 5
				if (d.free_own)
				{
					REQUIRE(!copies[own].released);
					kill(own); // invariant 4: freed, so nothing may hold it
					++freed;
				}
				copies.push_back(ModelCopy{key, context, group});
				given = static_cast<int>(copies.size()) - 1;
				current[group] = given;
				++made;
				break;
			case CopyAction::PassStored:
				++passed;
				return;
		}
		if (d.release_served)
			copies[given].released = true;
		++served;
		// Invariant 1.
		REQUIRE(copies[given].alive);
		REQUIRE(copies[given].key == key);
		in_flight.insert(given);
		if (request.result_may_alias)
		{
			// Invariant 2: the result lives in `context`, exactly as long as the copy.
			REQUIRE(copies[given].context == context);
			REQUIRE(copies[given].released);
			results.emplace(context, given);
		}
		// Invariant 4: one unreleased copy per group, its current one.
		for (int i = 0; i < static_cast<int>(copies.size()); ++i)
			if (copies[i].alive && copies[i].group == group && !copies[i].released)
				REQUIRE(current[group] == i);
	}

	// The consumer is called with the copy, and returns.
	void call_consumer() { in_flight.clear(); }
};

} // namespace

TEST_CASE("decide_copy: no copy is freed, reset or served wrongly while anything holds it", "[shared_copy]")
{
	std::mt19937 random(20261203);
	long served = 0, made = 0, freed = 0, passed = 0, shared = 0;
	for (int run = 0; run < 30000; ++run)
	{
		Model model;
		// Groups 0..3: 0 and 1 of node 0, 2 and 3 of node 1.
		constexpr int kGroups = 4;
		const int keys = 1 + static_cast<int>(random() % 3);
		// Each group reads one row at a time; rows change between evaluations only.
		std::vector<int> row(kGroups);
		for (int &k : row)
			k = static_cast<int>(random() % keys);
		for (int step = 0; step < 14; ++step)
		{
			const int what = static_cast<int>(random() % 10);
			if (what < 2)
			{
				model.reset(static_cast<int>(random() % kContexts));
				continue;
			}
			if (what < 4)
			{
				row[random() % kGroups] = static_cast<int>(random() % keys);
				continue;
			}
			// An evaluation of one node: up to four references in one memory context, each
			// consumer called right after its marker. Between them a subplan may run plan
			// nodes, which may reset the other node's contexts.
			const int node = static_cast<int>(random() % 2);
			const int where = static_cast<int>(random() % 4);
			const int context = where < 2 ? context_of(node, where) : where == 2 ? 0 : kUnwatched;
			const int references = 1 + static_cast<int>(random() % 4);
			for (int r = 0; r < references; ++r)
			{
				const int group = 2 * node + static_cast<int>(random() % 2);
				CopyRequest request;
				request.result_may_alias = random() % 3 == 0;
				model.reference(group, row[group], context, request);
				model.call_consumer();
				if (random() % 3 == 0)
					model.reset(context_of(1 - node, static_cast<int>(random() % 2)));
			}
		}
		model.reset(0);
		model.reset(kUnwatched);
		served += model.served;
		made += model.made;
		freed += model.freed;
		passed += model.passed;
		shared += model.shared;
	}
	// The model exercised every path.
	REQUIRE(made > 0);
	REQUIRE(served > made);
	REQUIRE(freed > 0);
	REQUIRE(passed > 0);
	REQUIRE(shared > 0);
}
