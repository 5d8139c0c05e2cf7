#include "glue/settings.hpp"

#include "glue/pg.hpp"

extern "C" {
#include "utils/guc.h"
}

namespace hotplus {

Settings settings;

void
define_settings()
{
	DefineCustomBoolVariable(
		"hotplus.enabled", "Lets hotheap decide per index whether an UPDATE may be HOT.",
		"Off: hotheap tables update exactly like heap tables.", &settings.enabled, true,
		PGC_USERSET, 0, nullptr, nullptr, nullptr);
	DefineCustomBoolVariable(
		"hotplus.check_expressions",
		"Evaluates index predicates and expressions on the old and new row version.",
		"Off: any change to a column read by an index expression or predicate changes that "
		"index, as in heap; only image equality of stored columns is used.",
		&settings.check_expressions, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
	DefineCustomBoolVariable(
		"hotplus.reuse_toast",
		"Stores the old TOAST datum again when a value is written back unchanged.",
		"A new value equal after detoasting to the old one keeps the old compressed or "
		"out-of-line datum: nothing is toasted again and no TOAST rows change.",
		&settings.reuse_toast, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
}

void
reserve_settings_prefix()
{
	// After every hotplus.* variable is defined: this drops the placeholders left, which
	// would otherwise swallow a definition that comes later (and its configured value).
	MarkGUCPrefixReserved("hotplus");
}

} // namespace hotplus
