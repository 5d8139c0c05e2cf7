#include "core/shared_copy.hpp"

namespace hotplus::core {

CopyDecision
decide_copy(const CopyView &view, const CopyRequest &request)
{
	CopyDecision decision;
	if (view.own_alive && view.own_matches)
	{
		// Invariant 2: an aliasing consumer's result lives as long as the copy, which must live
		// as long as heap's own copy would: in this very context. A copy of this value in
		// another context is not replaced either (a consumer of this evaluation may be waiting
		// for its other arguments with it): the stored value goes on, as on heap.
		if (!request.result_may_alias || view.own_in_context)
		{
			decision.action = CopyAction::ServeOwn;
			decision.release_served = request.result_may_alias;
		}
		return decision;
	}
	// Invariant 3.
	if (view.other_matches && !request.result_may_alias)
	{
		decision.action = CopyAction::ServeOther;
		return decision;
	}
	// Invariant 5.
	if (!view.context_watched)
		return decision;
	decision.action = CopyAction::MakeNew;
	// Invariant 4: the group's copy holds another value (a row changes between evaluations,
	// never within one), so once unreleased it is referenced by nothing.
	decision.free_own = view.own_alive && !view.own_released;
	decision.release_served = request.result_may_alias;
	return decision;
}

} // namespace hotplus::core
