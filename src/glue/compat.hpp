// Everything that differs between PostgreSQL major versions, in one place.
//
// Each difference names the server change it follows. hotplus builds against 15 today;
// 16-18 are issue 7 and must only touch this file (plus tests).
#pragma once

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 160000
#error "hotplus supports PostgreSQL 15 only for now (see src/glue/compat.hpp)"
#endif

// PG15 table_tuple_update() reports index maintenance as a bool; PG16 (HOT updates that
// only change summarizing indexes such as BRIN) turned it into TU_UpdateIndexes. hotplus code speaks in terms of
// the PG16 enum and converts here.
enum class IndexUpdate { None, All, Summarizing };

inline IndexUpdate
compat_get_update_indexes(const bool *update_indexes)
{
	return *update_indexes ? IndexUpdate::All : IndexUpdate::None;
}

using CompatUpdateIndexesOut = bool;

// INSTR_TIME_GET_NANOSEC appeared in PG16 (instr_time became an int64 of nanoseconds). In
// PG15 on Linux instr_time is a struct timespec (clock_gettime).
extern "C" {
#include "portability/instr_time.h"
}
inline int64
compat_instr_time_ns(const instr_time &t)
{
	return static_cast<int64>(t.tv_sec) * 1000000000 + t.tv_nsec;
}
