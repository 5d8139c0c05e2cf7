// hotplus's GUCs. All are user-settable (PGC_USERSET): per session, per role, per
// database, or per transaction with SET LOCAL.
#pragma once

namespace hotplus {

struct Settings
{
	// hotplus.enabled: off makes hotheap behave exactly like heap (its update is heap's).
	bool enabled = true;
	// hotplus.check_expressions: evaluate index predicates and expressions on the old and
	// new row. Off: an index whose predicate or expression inputs changed counts as changed.
	bool check_expressions = true;
	// hotplus.reuse_toast: when a toastable column's new value is equal after detoasting to
	// the old one but stored differently, store the old datum again (no re-toasting).
	bool reuse_toast = true;
};

extern Settings settings;

void define_settings();
void reserve_settings_prefix(); // last, after every module defined its variables

} // namespace hotplus
