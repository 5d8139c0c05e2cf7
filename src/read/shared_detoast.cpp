// Core headers first, before any PostgreSQL header (they #error after postgres.h).
#include "core/shared_copy.hpp"

#include "read/shared_detoast.hpp"

#include "am/live_copies.hpp"
#include "am/settings.hpp"
#include "am/stored_form.hpp"

extern "C" {
#include "access/detoast.h"
#include "access/htup_details.h"
#include "catalog/pg_am.h"
#include "commands/defrem.h"
#include "catalog/pg_language_d.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type_d.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/memnodes.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
}

extern "C" {
PGDLLEXPORT Datum hotplus_shared_value(PG_FUNCTION_ARGS);
PG_FUNCTION_INFO_V1(hotplus_shared_value);
PGDLLEXPORT Datum hotplus_shared_detoast_counts(PG_FUNCTION_ARGS);
PG_FUNCTION_INFO_V1(hotplus_shared_detoast_counts);
}

namespace hotplus {

namespace {

constexpr const char *kFunctionName = "hotplus_shared_value";

// The ticket: the table in bits 0-31, the column in 32-42 (MaxHeapAttributeNumber is 1600),
// the group in 43-62, whether the consumer aliases in 63.
constexpr int kTicketAttnoShift = 32;
constexpr uint64 kTicketAttnoMask = 0x7FF;
constexpr int kTicketGroupShift = 43;
constexpr uint64 kTicketAliases = uint64{1} << 63;
static_assert(MaxHeapAttributeNumber <= kTicketAttnoMask);

MarkerTicket
ticket_of(uint64 ticket)
{
	MarkerTicket t;
	t.group = static_cast<uint32>((ticket >> kTicketGroupShift) & kMaxMarkerGroups);
	t.use.result_may_alias = (ticket & kTicketAliases) != 0;
	t.use.relid = static_cast<Oid>(ticket & 0xFFFFFFFF);
	t.use.attno = static_cast<AttrNumber>((ticket >> kTicketAttnoShift) & kTicketAttnoMask);
	return t;
}

SharedDetoastCounts counts;

struct SharedGroup;

// A copy, in the memory context it was made in (invariant 2), with the reset callback that
// forgets it there; registered with the backend's live copies (am/live_copies.hpp), where
// another group (core::CopyView::other_matches) and the update check find it.
struct SharedCopy
{
	MemoryContextCallback callback;
	MemoryContext context;
	SharedGroup *group; // whose current copy it is; nullptr once left behind
	bool released;		// core::CopyView::own_released
	LiveCopy live;		// the stored bytes it was made from, its value; owner: this
};
static_assert(std::is_trivially_destructible_v<SharedCopy>); // on frames an ERROR may unwind

// One column as one plan node reads it: the markers with the same ticket in the executor's
// per-query memory (`home`, the markers' FmgrInfos' memory), which holds it.
struct SharedGroup
{
	uint32 id;
	MemoryContext home;
	SharedCopy *current;
	bool noted; // its column was noted as met stored so (invariant 5)
};
static_assert(std::is_trivially_destructible_v<SharedGroup>);

// The groups of one home, found through the reset callback it registers there.
struct Shelf
{
	MemoryContextCallback callback;
	SharedGroup **groups;
	int ngroups;
	int capacity;
};

// The copy's memory context is being reset or deleted (invariant 2).
void
forget_copy(void *arg)
{
	auto *copy = static_cast<SharedCopy *>(arg);
	if (copy->group != nullptr && copy->group->current == copy)
		copy->group->current = nullptr;
	unregister_live_copy(&copy->live);
}

void
forget_shelf(void *)
{
	// The shelf and its groups go with their memory; the copies below it were forgotten first
	// (MemoryContextDelete deletes the children, then calls the context's own callbacks).
}

SharedGroup *
group_of(FmgrInfo *flinfo, uint32 id)
{
	if (flinfo->fn_extra != nullptr)
		return static_cast<SharedGroup *>(flinfo->fn_extra);
	MemoryContext home = flinfo->fn_mcxt;
	Shelf *shelf = nullptr;
	for (MemoryContextCallback *cb = home->reset_cbs; cb != nullptr; cb = cb->next)
		if (cb->func == forget_shelf)
			shelf = static_cast<Shelf *>(cb->arg);
	if (shelf == nullptr)
	{
		shelf = static_cast<Shelf *>(MemoryContextAllocZero(home, sizeof(Shelf)));
		shelf->callback.func = forget_shelf;
		shelf->callback.arg = shelf;
		MemoryContextRegisterResetCallback(home, &shelf->callback);
	}
	SharedGroup *group = nullptr;
	for (int i = 0; i < shelf->ngroups && group == nullptr; ++i)
		if (shelf->groups[i]->id == id)
			group = shelf->groups[i];
	if (group == nullptr)
	{
		if (shelf->ngroups == shelf->capacity)
		{
			const int capacity = Max(8, shelf->capacity * 2);
			auto **groups = static_cast<SharedGroup **>(MemoryContextAlloc(home, sizeof(SharedGroup *) * capacity));
			if (shelf->ngroups > 0)
				memcpy(groups, shelf->groups, sizeof(SharedGroup *) * shelf->ngroups);
			shelf->groups = groups;
			shelf->capacity = capacity;
		}
		group = static_cast<SharedGroup *>(MemoryContextAllocZero(home, sizeof(SharedGroup)));
		group->id = id;
		group->home = home;
		shelf->groups[shelf->ngroups++] = group;
	}
	flinfo->fn_extra = group;
	return group;
}

// Whether a copy made in `context` is one the group can watch (invariant 2).
bool
watched(MemoryContext context, MemoryContext home)
{
	for (MemoryContext c = context; c != nullptr; c = c->parent)
		if (c == home)
			return true;
	return false;
}

// Frees the group's current copy (core::CopyDecision::free_own). Its struct is unlinked from
// its context's callbacks, then freed with the bytes.
void
free_copy(SharedCopy *copy)
{
	unregister_live_copy(&copy->live);
	for (MemoryContextCallback **cb = &copy->context->reset_cbs; *cb != nullptr; cb = &(*cb)->next)
		if (*cb == &copy->callback)
		{
			*cb = copy->callback.next;
			break;
		}
	if (copy->group != nullptr && copy->group->current == copy)
		copy->group->current = nullptr;
	pfree(DatumGetPointer(copy->live.value));
	pfree(copy->live.stored);
	pfree(copy);
}

pg_noinline Datum
shared_value(FunctionCallInfo fcinfo, struct varlena *stored)
{
	// Invariant 4.
	if (!settings.read_path)
	{
		++counts.passed_stored;
		return PointerGetDatum(stored);
	}
	const MarkerTicket ticket = ticket_of(static_cast<uint64>(PG_GETARG_INT64(1)));
	SharedGroup *group = group_of(fcinfo->flinfo, ticket.group);
	MemoryContext here = CurrentMemoryContext;

	core::CopyRequest request;
	request.result_may_alias = ticket.use.result_may_alias;
	core::CopyView view;
	SharedCopy *own = group->current;
	if (own != nullptr)
	{
		view.own_alive = true;
		view.own_matches = live_copy_made_from(&own->live, stored);
		view.own_in_context = own->context == here;
		view.own_released = own->released;
	}
	// Another group's: of this group's copies only its current one is registered (a copy
	// left behind is no longer the group's), and it does not match.
	SharedCopy *other = nullptr;
	if (!view.own_matches && !request.result_may_alias)
		if (LiveCopy *live = live_copy_of(stored))
			other = static_cast<SharedCopy *>(live->owner);
	view.other_matches = other != nullptr;
	view.context_watched = watched(here, group->home);
	const core::CopyDecision decision = core::decide_copy(view, request);

	switch (decision.action)
	{
		case core::CopyAction::ServeOwn:
			own->released |= decision.release_served;
			++counts.copies_served;
			return own->live.value;
		case core::CopyAction::ServeOther:
			other->released = true;
			++counts.copies_served;
			return other->live.value;
		case core::CopyAction::PassStored:
			++counts.passed_stored;
			return PointerGetDatum(stored);
		case core::CopyAction::MakeNew:
			break;
	}

	// Detoast first: an ERROR (a missing chunk) leaves the group as it was.
	struct varlena *value = detoast_attr(stored);
	if (!group->noted && OidIsValid(ticket.use.relid))
	{
		note_extended_value(ticket.use.relid, ticket.use.attno);
		group->noted = true;
	}
	const Size size = stored_identity_size(stored);
	auto *key = static_cast<struct varlena *>(palloc(size));
	memcpy(key, stored, size);
	SharedCopy *copy;
	if (own != nullptr && decision.free_own && own->context == here)
	{
		// The freed copy's struct is already registered with this context: reused.
		unregister_live_copy(&own->live);
		pfree(DatumGetPointer(own->live.value));
		pfree(own->live.stored);
		copy = own;
	}
	else
	{
		if (own != nullptr)
		{
			if (decision.free_own)
				free_copy(own);
			else
				own->group = nullptr; // released: it lives until its context is reset
		}
		copy = static_cast<SharedCopy *>(palloc0(sizeof(SharedCopy)));
		copy->callback.func = forget_copy;
		copy->callback.arg = copy;
		copy->context = here;
		MemoryContextRegisterResetCallback(here, &copy->callback);
	}
	copy->group = group;
	copy->released = decision.release_served;
	copy->live.stored = key;
	copy->live.value = PointerGetDatum(value);
	copy->live.owner = copy;
	group->current = copy;
	register_live_copy(&copy->live);
	++counts.copies_made;
	return copy->live.value;
}

// The cached marker function (shared_value_function()), forgotten with any change to pg_proc.
Oid cached_function = InvalidOid;
bool function_looked_up = false;

void
forget_function(Datum, CompatSysCacheId, uint32)
{
	function_looked_up = false;
	cached_function = InvalidOid;
}

// The marker function in the schema of hotheap's handler (the extension's schema), checked to
// be this library's C function.
Oid
look_up_function()
{
	const Oid relam = get_am_oid("hotheap", true);
	if (!OidIsValid(relam))
		return InvalidOid;
	HeapTuple am = SearchSysCache1(AMOID, ObjectIdGetDatum(relam));
	if (!HeapTupleIsValid(am))
		return InvalidOid;
	const Oid handler = reinterpret_cast<Form_pg_am>(GETSTRUCT(am))->amhandler;
	ReleaseSysCache(am);
	const Oid schema = get_func_namespace(handler);
	if (!OidIsValid(schema))
		return InvalidOid;
	Oid args[2] = {INTERNALOID, INTERNALOID};
	oidvector *signature = buildoidvector(args, 2);
	HeapTuple proc = SearchSysCache3(PROCNAMEARGSNSP, CStringGetDatum(kFunctionName), PointerGetDatum(signature),
									 ObjectIdGetDatum(schema));
	if (!HeapTupleIsValid(proc))
		return InvalidOid;
	auto *form = reinterpret_cast<Form_pg_proc>(GETSTRUCT(proc));
	Oid function = form->oid;
	bool isnull = false;
	const Datum source = SysCacheGetAttr(PROCOID, proc, Anum_pg_proc_prosrc, &isnull);
	if (form->prolang != ClanguageId || form->proretset || !form->proisstrict || isnull ||
		strcmp(TextDatumGetCString(source), kFunctionName) != 0)
		function = InvalidOid;
	ReleaseSysCache(proc);
	return function;
}

} // namespace

Oid
shared_value_function()
{
	if (!function_looked_up)
	{
		cached_function = look_up_function();
		function_looked_up = true;
	}
	return cached_function;
}

bool
is_marker(Node *node)
{
	return node != nullptr && IsA(node, FuncExpr) && OidIsValid(cached_function) &&
		   reinterpret_cast<FuncExpr *>(node)->funcid == cached_function;
}

Node *
make_marker(Oid function, Var *var, uint32 group, const MarkerUse &use)
{
	Assert(group <= kMaxMarkerGroups);
	uint64 ticket = (static_cast<uint64>(group) << kTicketGroupShift) |
					(static_cast<uint64>(use.attno) & kTicketAttnoMask) << kTicketAttnoShift | use.relid;
	if (use.result_may_alias)
		ticket |= kTicketAliases;
	Const *argument = makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(static_cast<int64>(ticket)),
								false, FLOAT8PASSBYVAL);
	// Shown as its first argument alone (ruleutils' get_func_expr: an implicit coercion).
	FuncExpr *call = makeFuncExpr(function, var->vartype, list_make2(var, argument), InvalidOid, var->varcollid,
								  COERCE_IMPLICIT_CAST);
	return reinterpret_cast<Node *>(call);
}

MarkerTicket
marker_ticket(FuncExpr *marker)
{
	return ticket_of(static_cast<uint64>(DatumGetInt64(static_cast<Const *>(lsecond(marker->args))->constvalue)));
}

SharedDetoastCounts
shared_detoast_counts()
{
	SharedDetoastCounts c = counts;
	c.copies_served += live_copies_taken(); // the update checks'
	return c;
}

void
shared_detoast_init()
{
	CacheRegisterSyscacheCallback(PROCOID, forget_function, (Datum) 0);
}

} // namespace hotplus

// The marker (invariants above and core/shared_copy.hpp). Strict: a NULL never reaches it.
Datum
hotplus_shared_value(PG_FUNCTION_ARGS)
{
	auto *stored = reinterpret_cast<struct varlena *>(PG_GETARG_POINTER(0));
	// Invariant 1: only compressed and out-of-line values are copied.
	if (!VARATT_IS_EXTERNAL_ONDISK(stored) && !VARATT_IS_COMPRESSED(stored))
		return PointerGetDatum(stored);
	return hotplus::shared_value(fcinfo, stored);
}

Datum
hotplus_shared_detoast_counts(PG_FUNCTION_ARGS)
{
	TupleDesc desc;
	if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "hotplus_shared_detoast_counts: return type must be a row type");
	const hotplus::SharedDetoastCounts c = hotplus::shared_detoast_counts();
	Datum values[3] = {Int64GetDatum(c.copies_made), Int64GetDatum(c.copies_served), Int64GetDatum(c.passed_stored)};
	bool nulls[3] = {false, false, false};
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls));
}
