// PostgreSQL's headers, seen from C++.
//
// The server is C: its headers are only ever included inside extern "C", and only from the
// PostgreSQL-facing folders (am, update, read, stats). The pure core (src/core) must never
// include this file.
#pragma once

#include <type_traits> // static_assert(std::is_trivially_destructible_v<...>) everywhere

extern "C" {
#include "postgres.h"
#include "fmgr.h"
}

#include "am/compat.hpp"
