// Everything that differs between PostgreSQL major versions, in one place.
//
// Each difference names the server change it follows. hotplus builds against 15 today;
// 16-18 are issue 7 and must only touch this file (plus tests).
#pragma once

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 160000
#error "hotplus supports PostgreSQL 15 only for now (see src/glue/compat.hpp)"
#endif

// PG15 table_tuple_update() reports index maintenance as a bool; PG16 (commit 19d8e2308b,
// summarizing indexes) turned it into TU_UpdateIndexes. hotplus code speaks in terms of
// the PG16 enum and converts here.
enum class IndexUpdate { None, All, Summarizing };

inline void
compat_set_update_indexes(bool *update_indexes, IndexUpdate value)
{
	*update_indexes = (value != IndexUpdate::None);
}

inline IndexUpdate
compat_get_update_indexes(const bool *update_indexes)
{
	return *update_indexes ? IndexUpdate::All : IndexUpdate::None;
}

using CompatUpdateIndexesOut = bool;
