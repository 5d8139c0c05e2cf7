// The C++ objects of a RelationInfo: the core's view of the relation's indexes and the
// per-update change vector. Include before any PostgreSQL header (port.h redefines
// printf and friends, which standard C++ headers must not see); the core headers enforce
// it: they #error when postgres.h came first.
#pragma once

#include "core/hot_decision.hpp"

#include <vector>

namespace hotplus::core_bridge {

struct CoreState
{
	std::vector<core::IndexShape> indexes;
	core::StoredColumnBlockers blockers; // of indexes, made when they are complete
	core::InputsUnion inputs;			 // likewise
	core::ColumnChanges changes;
};

} // namespace hotplus::core_bridge
