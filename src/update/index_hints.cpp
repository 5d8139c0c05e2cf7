#include "update/index_hints.hpp"

extern "C" {
#include "utils/rel.h"
}

namespace hotplus {

namespace {

// The hints given to one result relation of the running statement, with what its IndexInfos
// held before (invariant 2). In the statement's memory; a list per statement frame.
struct GivenHints
{
	GivenHints *next;
	ResultRelInfo *rri;
	bool in_place;
	int nindexes; // rri->ri_NumIndices when made
	bool *saved;  // [2 * nindexes]: ii_CheckedUnchanged, ii_IndexUnchanged before the hints
};
static_assert(std::is_trivially_destructible_v<GivenHints>);

void
put_back(GivenHints *given)
{
	IndexInfo **infos = given->rri->ri_IndexRelationInfo;
	for (int i = 0; i < given->nindexes; i++)
	{
		infos[i]->ii_CheckedUnchanged = given->saved[2 * i];
		infos[i]->ii_IndexUnchanged = given->saved[2 * i + 1];
	}
	given->in_place = false;
}

// StatementUndo's undo: the frame's statement leaves.
void
put_back_all(void *list)
{
	for (auto *given = static_cast<GivenHints *>(list); given != nullptr; given = given->next)
		if (given->in_place)
			put_back(given);
}

// The running statement's result relation for this update, if the update is the statement's
// own (invariant 1): the new-version slot or the ON CONFLICT projection of the result relation
// the statement updates rel through.
ResultRelInfo *
hint_target(const UpdateState *s)
{
	ResultRelInfo *rri = s->info->statement_hint_target;
	if (rri == nullptr || rri->ri_NumIndices == 0 || rri->ri_RelationDesc != s->args->rel)
		return nullptr;
	const bool own = s->args->slot == rri->ri_newTupleSlot ||
					 (rri->ri_onConflict != nullptr && s->args->slot == rri->ri_onConflict->oc_ProjSlot);
	return own ? rri : nullptr;
}

// The record of rri's hints in the running statement, made (in the statement's memory) at
// its first hint.
GivenHints *
given_hints(StatementUndo *undo, ResultRelInfo *rri)
{
	auto *given = static_cast<GivenHints *>(undo->list);
	for (; given != nullptr; given = given->next)
		if (given->rri == rri)
			return given;
	given = static_cast<GivenHints *>(MemoryContextAlloc(undo->memory, sizeof(GivenHints)));
	given->rri = rri;
	given->in_place = false;
	given->nindexes = rri->ri_NumIndices;
	given->saved = static_cast<bool *>(MemoryContextAlloc(undo->memory, sizeof(bool) * 2 * given->nindexes));
	given->next = static_cast<GivenHints *>(undo->list);
	undo->list = given;
	undo->undo = put_back_all;
	return given;
}

} // namespace

void
index_hints_put_back(Relation rel)
{
	for (auto *given = static_cast<GivenHints *>(current_statement_undo->list); given != nullptr; given = given->next)
		if (given->in_place && given->rri->ri_RelationDesc == rel)
			put_back(given);
}

int
index_hints_give(const UpdateState *s)
{
	if (s->hints == kHintNone)
		return 0;
	ResultRelInfo *rri = hint_target(s);
	StatementUndo *undo = rri != nullptr ? current_statement_undo : nullptr;
	if (undo == nullptr)
		return 0;
	GivenHints *given = given_hints(undo, rri);
	// Both index lists are in RelationGetIndexList() order, the decision's without the
	// summarizing indexes: matched in one walk (invariant 4).
	const RelationInfo *info = s->info;
	IndexInfo **infos = rri->ri_IndexRelationInfo;
	int hinted = 0;
	for (int i = 0, k = 0; i < given->nindexes && k < info->nindexes; i++)
	{
		if (RelationGetRelid(rri->ri_IndexRelationDescs[i]) != info->indexes[k].index_oid)
			continue;
		const bool unchanged =
			s->hints == kHintAll ? info->statement_hint_candidates[k] : info->scratch.unchanged[k];
		k++;
		if (!unchanged)
			continue;
		if (!given->in_place)
			for (int j = 0; j < given->nindexes; j++)
			{
				given->saved[2 * j] = infos[j]->ii_CheckedUnchanged;
				given->saved[2 * j + 1] = infos[j]->ii_IndexUnchanged;
			}
		given->in_place = true;
		infos[i]->ii_CheckedUnchanged = true;
		infos[i]->ii_IndexUnchanged = true;
		hinted++;
	}
	return hinted;
}

} // namespace hotplus
