#include "am/relcache_callback.hpp"

namespace hotplus {

namespace {

// As many as hotplus's modules add (as_heap, relation_info, verifier, hot_blocking_override,
// contrib_as_heap, stored_form, and repack on 19).
constexpr int max_callbacks = 7;
RelcacheCallbackFunction callbacks[max_callbacks];
int ncallbacks = 0;

void
dispatch(Datum arg, Oid relid)
{
	for (int i = 0; i < ncallbacks; i++)
		callbacks[i](arg, relid);
}

} // namespace

void
add_relcache_callback(RelcacheCallbackFunction callback)
{
	if (ncallbacks == max_callbacks)
		elog(FATAL, "hotplus: more than %d relcache callbacks", max_callbacks);
	if (ncallbacks == 0)
		CacheRegisterRelcacheCallback(dispatch, (Datum) 0);
	callbacks[ncallbacks++] = callback;
}

} // namespace hotplus
