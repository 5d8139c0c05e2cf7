#include <initializer_list>

#include "core/stats_eviction.hpp"

#include "stats/stats.hpp"

#include "stats/entries.hpp"
#include "stats/flush_schedule.hpp"
#include "stats/stats_file.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_authid_d.h"
#include "catalog/pg_class_d.h"
#include "catalog/pg_database_d.h"
#include "catalog/pg_type_d.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"
}

namespace hotplus {

namespace {

int max_tracked_tables = 1000;

// Backend-local counts: the store in backend mode, pending counts in shared mode.
HTAB *local_tables = nullptr;
HTAB *local_indexes = nullptr;
bool local_pending = false;
// The entry of the table counted last: consecutive updates of one table skip the lookup.
// Reset whenever local_tables is destroyed.
TableEntry *last_entry = nullptr;
// The same for the index counted last as blocking HOT; reset with last_entry.
IndexEntry *last_index_entry = nullptr;

// Before local entries are removed or their tables destroyed.
void
forget_last_entries()
{
	last_entry = nullptr;
	last_index_entry = nullptr;
}

SharedState *shared = nullptr;
HTAB *shared_tables = nullptr;
HTAB *shared_indexes = nullptr;

shmem_request_hook_type previous_shmem_request = nullptr;
shmem_startup_hook_type previous_shmem_startup = nullptr;

bool
shared_mode()
{
	return shared != nullptr;
}

HTAB *
make_local(const char *name, Size entry_size)
{
	HASHCTL ctl;
	ctl.keysize = sizeof(StatKey);
	ctl.entrysize = entry_size;
	ctl.hcxt = TopMemoryContext;
	return hash_create(name, 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

void
ensure_local()
{
	if (local_tables == nullptr)
	{
		local_tables = make_local("hotplus table stats", sizeof(TableEntry));
		local_indexes = make_local("hotplus index stats", sizeof(IndexEntry));
	}
}

Size
shared_size()
{
	Size size = MAXALIGN(sizeof(SharedState));
	size = add_size(size, hash_estimate_size(max_tracked_tables, sizeof(SharedTableEntry)));
	size = add_size(size, hash_estimate_size(4 * max_tracked_tables, sizeof(SharedIndexEntry)));
	return size;
}

void
shmem_request()
{
	if (previous_shmem_request)
		previous_shmem_request();
	RequestAddinShmemSpace(shared_size());
	RequestNamedLWLockTranche("hotplus", 1);
}

void
shmem_startup()
{
	if (previous_shmem_startup)
		previous_shmem_startup();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	bool found;
	shared = static_cast<SharedState *>(ShmemInitStruct("hotplus", sizeof(SharedState), &found));
	if (!found)
	{
		shared->lock = &(GetNamedLWLockTranche("hotplus"))->lock;
		shared->untracked = 0;
		shared->evicted_tables = shared->evicted_indexes = 0;
	}
	HASHCTL ctl;
	ctl.keysize = sizeof(StatKey);
	ctl.entrysize = sizeof(SharedTableEntry);
	shared_tables = compat_shmem_init_hash("hotplus table stats", max_tracked_tables, max_tracked_tables,
										   &ctl, HASH_ELEM | HASH_BLOBS);
	ctl.entrysize = sizeof(SharedIndexEntry);
	shared_indexes = compat_shmem_init_hash("hotplus index stats", 4 * max_tracked_tables,
											4 * max_tracked_tables, &ctl, HASH_ELEM | HASH_BLOBS);
	// Made here, by the postmaster (or a single-user backend): the counts of the last clean
	// shutdown come back, and this process's exit saves them again (stats_file.hpp).
	if (!found)
		stats_file_restore_and_save_at_exit(
			SharedStats{shared, shared_tables, shared_indexes, max_tracked_tables, 4L * max_tracked_tables});
	LWLockRelease(AddinShmemInitLock);
}

// The usage a flush of a table's local counts adds (core/stats_eviction.hpp).
uint64
usage_of(const TableEntry &local)
{
	return core::usage_of(local.counters[kUpdates] + local.counters[kReadScans]);
}

void
add_into(SharedTableEntry *entry, const TableEntry &local)
{
	for (int i = 0; i < kTableCounters; i++)
		if (local.counters[i] != 0)
			pg_atomic_fetch_add_u64(&entry->counters[i], local.counters[i]);
	if (local.check_time_ns != 0)
		pg_atomic_fetch_add_u64(&entry->check_time_ns, local.check_time_ns);
	pg_atomic_fetch_add_u64(&entry->usage, usage_of(local));
}

// Removes the least used entries of a full shared table (lock held exclusively), as
// pg_stat_statements' entry_dealloc() does: every entry's usage decays, and
// core::eviction_count() of the least used go. Returns how many went.
template <typename Entry>
long
evict_least_used(HTAB *table, long bound)
{
	const long n = hash_get_num_entries(table);
	auto *candidates = static_cast<core::EvictionCandidate *>(palloc(Max(n, 1L) * sizeof(core::EvictionCandidate)));
	long count = 0;
	HASH_SEQ_STATUS status;
	hash_seq_init(&status, table);
	while (auto *entry = static_cast<Entry *>(hash_seq_search(&status)))
		candidates[count++] = core::EvictionCandidate{pg_atomic_read_u64(&entry->usage), entry};
	const long victims = core::select_victims(candidates, count, bound);
	for (long i = 0; i < count; i++)
		pg_atomic_write_u64(&static_cast<Entry *>(candidates[i].entry)->usage, candidates[i].usage);
	// An entry's key is its first member: the entry is its own key.
	for (long i = 0; i < victims; i++)
		hash_search(table, candidates[i].entry, HASH_REMOVE, nullptr);
	pfree(candidates);
	return victims;
}

// A new entry of a shared table for key (lock held exclusively), the least used making room
// at the bound; nullptr only when shared memory is exhausted. Its counters are the caller's to
// set.
template <typename Entry>
Entry *
enter_evicting(HTAB *table, long bound, const StatKey &key, int64 &evicted)
{
	// Shared dynahash tables are not bounded by their size hint (they grow into spare shared
	// memory), so the bound is enforced here, as pg_stat_statements does.
	if (hash_get_num_entries(table) >= bound)
		evicted += evict_least_used<Entry>(table, bound);
	bool found;
	return static_cast<Entry *>(hash_search(table, &key, HASH_ENTER_NULL, &found));
}

// Adds the local entries whose shared entry exists (lock held in either mode); with
// `create` (lock held exclusively), makes the missing ones first. Returns whether some were
// missing (not created). Flushed local entries are removed.
bool
flush_entries(bool create)
{
	bool missing = false;
	HASH_SEQ_STATUS status;
	hash_seq_init(&status, local_tables);
	while (auto *local = static_cast<TableEntry *>(hash_seq_search(&status)))
	{
		bool found;
		auto *entry = static_cast<SharedTableEntry *>(hash_search(shared_tables, &local->key, HASH_FIND, &found));
		if (entry == nullptr && !create)
		{
			missing = true;
			continue;
		}
		if (entry == nullptr)
		{
			entry = enter_evicting<SharedTableEntry>(shared_tables, max_tracked_tables, local->key,
													 shared->evicted_tables);
			if (entry != nullptr)
			{
				for (auto &counter : entry->counters)
					pg_atomic_init_u64(&counter, 0);
				pg_atomic_init_u64(&entry->check_time_ns, 0);
				pg_atomic_init_u64(&entry->usage, 0);
			}
		}
		if (entry == nullptr)
			shared->untracked += local->counters[kUpdates];
		else
			add_into(entry, *local);
		hash_search(local_tables, &local->key, HASH_REMOVE, nullptr);
	}
	hash_seq_init(&status, local_indexes);
	while (auto *local = static_cast<IndexEntry *>(hash_seq_search(&status)))
	{
		bool found;
		auto *entry =
			static_cast<SharedIndexEntry *>(hash_search(shared_indexes, &local->id.key, HASH_FIND, &found));
		if (entry == nullptr && !create)
		{
			missing = true;
			continue;
		}
		if (entry == nullptr)
		{
			entry = enter_evicting<SharedIndexEntry>(shared_indexes, 4L * max_tracked_tables, local->id.key,
													 shared->evicted_indexes);
			if (entry != nullptr)
			{
				entry->id.table_relid = local->id.table_relid;
				pg_atomic_init_u64(&entry->blocked_hot, 0);
				pg_atomic_init_u64(&entry->usage, 0);
			}
		}
		if (entry != nullptr)
		{
			pg_atomic_fetch_add_u64(&entry->blocked_hot, local->blocked_hot);
			pg_atomic_fetch_add_u64(&entry->usage, core::usage_of(local->blocked_hot));
		}
		hash_search(local_indexes, &local->id.key, HASH_REMOVE, nullptr);
	}
	return missing;
}

bool
acquire(LWLockMode mode, bool wait)
{
	if (wait)
	{
		LWLockAcquire(shared->lock, mode);
		return true;
	}
	return LWLockConditionalAcquire(shared->lock, mode);
}

// Moves the pending local counts into shared memory: under the lock in shared mode for
// entries that exist (the common case), exclusively only when some must be made. Without
// wait, gives up where the lock is not free at once (what was added stays added; the rest
// stays pending). Returns whether nothing is pending any more (flush_schedule.hpp).
bool
flush(bool wait)
{
	if (!local_pending || !shared_mode())
		return true;
	forget_last_entries(); // flushed entries are removed
	if (!acquire(LW_SHARED, wait))
		return false;
	bool missing = flush_entries(false);
	LWLockRelease(shared->lock);
	if (missing)
	{
		if (!acquire(LW_EXCLUSIVE, wait))
			return false;
		flush_entries(true);
		LWLockRelease(shared->lock);
	}
	local_pending = false;
	return true;
}

// A flush now, waiting for the lock (the views, hotplus_stat_info(), hotplus_stat_flush()).
void
flush_now()
{
	if (local_pending && shared_mode())
	{
		flush(true);
		flush_schedule_note_flushed();
	}
}

// Relations and databases dropped by the running transaction: their entries go when it
// commits (so a table whose DROP rolls back keeps its counts, and a later table that
// reuses the OID starts from zero). Kept in TopTransactionContext, with the subtransaction
// level that dropped them (a rolled-back savepoint takes its drops back).
struct PendingDrop
{
	Oid dbid;
	Oid relid; // InvalidOid: every relation of the database
	int level;
};
List *pending_drops = NIL;
object_access_hook_type previous_object_access = nullptr;

pg_noinline void
remember_drop(Oid class_id, Oid object_id)
{
	MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
	auto *drop = static_cast<PendingDrop *>(palloc(sizeof(PendingDrop)));
	*drop = class_id == RelationRelationId ? PendingDrop{MyDatabaseId, object_id, 0} : PendingDrop{object_id, InvalidOid, 0};
	drop->level = GetCurrentTransactionNestLevel();
	pending_drops = lappend(pending_drops, drop);
	MemoryContextSwitchTo(old);
}

// Called for every function an expression initializes (OAT_FUNCTION_EXECUTE), so a few
// times per statement: the drops are out of line.
void
object_access(ObjectAccessType access, Oid class_id, Oid object_id, int sub_id, void *arg)
{
	if (previous_object_access)
		previous_object_access(access, class_id, object_id, sub_id, arg);
	if (access == OAT_DROP && sub_id == 0 && (class_id == RelationRelationId || class_id == DatabaseRelationId))
		remember_drop(class_id, object_id);
}

// Whether an entry of relation key (of a table, or an index of table_relid) belongs to a
// dropped object.
bool
dropped(const StatKey &key, Oid table_relid, const PendingDrop &drop)
{
	return key.dbid == drop.dbid &&
		   (drop.relid == InvalidOid || key.relid == drop.relid || table_relid == drop.relid);
}

// Removes the entries of the committed drops from one hash table (tables: is_index false).
void
forget_in(HTAB *table, bool is_index)
{
	if (table == nullptr)
		return;
	HASH_SEQ_STATUS status;
	hash_seq_init(&status, table);
	while (auto *key = static_cast<StatKey *>(hash_seq_search(&status)))
	{
		const Oid table_relid = is_index ? reinterpret_cast<IndexKey *>(key)->table_relid : InvalidOid;
		ListCell *cell;
		foreach (cell, pending_drops)
			if (dropped(*key, table_relid, *static_cast<PendingDrop *>(lfirst(cell))))
			{
				hash_search(table, key, HASH_REMOVE, nullptr); // allowed during a seq scan
				break;
			}
	}
}

void
forget_dropped()
{
	if (pending_drops == NIL)
		return;
	forget_last_entries();
	forget_in(local_tables, false);
	forget_in(local_indexes, true);
	if (shared_mode())
	{
		LWLockAcquire(shared->lock, LW_EXCLUSIVE);
		forget_in(shared_tables, false);
		forget_in(shared_indexes, true);
		LWLockRelease(shared->lock);
	}
}

void
subxact_callback(SubXactEvent event, SubTransactionId, SubTransactionId, void *)
{
	const int level = GetCurrentTransactionNestLevel();
	if (event == SUBXACT_EVENT_ABORT_SUB)
	{
		// In place: nothing is allocated while aborting.
		ListCell *cell;
		foreach (cell, pending_drops)
			if (static_cast<PendingDrop *>(lfirst(cell))->level >= level)
				pending_drops = foreach_delete_current(pending_drops, cell);
	}
	else if (event == SUBXACT_EVENT_COMMIT_SUB)
	{
		ListCell *cell;
		foreach (cell, pending_drops)
		{
			auto *drop = static_cast<PendingDrop *>(lfirst(cell));
			drop->level = Min(drop->level, level - 1);
		}
	}
}

void
xact_callback(XactEvent event, void *)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT || event == XACT_EVENT_PREPARE)
		flush_schedule_at_transaction_end(local_pending);
	else if (event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT)
		flush(true); // a parallel worker's own transaction: it exits right after
	if (event == XACT_EVENT_COMMIT)
		forget_dropped();
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT || event == XACT_EVENT_PREPARE)
		pending_drops = NIL; // TopTransactionContext goes
}

int
counter_for(UpdateOutcome outcome)
{
	switch (outcome)
	{
		case UpdateOutcome::HotStock:
			return kHotStock;
		case UpdateOutcome::HotByExpression:
			return kHotByExpression;
		case UpdateOutcome::HotByPartial:
			return kHotByPartial;
		case UpdateOutcome::HotByImage:
			return kHotByImage;
		case UpdateOutcome::NonHotIndexChanged:
			return kNonHotIndexChanged;
		case UpdateOutcome::NonHotPageFull:
			return kNonHotPageFull;
		case UpdateOutcome::NonHotPageFullUnchecked:
			return kNonHotPageFullUnchecked;
		case UpdateOutcome::NonHotOther:
			break;
	}
	return kNonHotOther;
}

} // namespace

void
stats_init()
{
	// PGC_POSTMASTER variables can only be defined while preloading.
	if (process_shared_preload_libraries_in_progress)
	{
		DefineCustomIntVariable(
			"hotplus.max_tracked_tables",
			"Tables whose statistics shared memory can hold (with 4x as many indexes).",
			"Only exists when hotplus is in shared_preload_libraries.", &max_tracked_tables,
			1000, 10, 1000000, PGC_POSTMASTER, 0, nullptr, nullptr, nullptr);

		previous_shmem_request = shmem_request_hook;
		shmem_request_hook = shmem_request;
		previous_shmem_startup = shmem_startup_hook;
		shmem_startup_hook = shmem_startup;
		flush_schedule_init(flush);
	}
	RegisterXactCallback(xact_callback, nullptr);
	RegisterSubXactCallback(subxact_callback, nullptr);
	previous_object_access = object_access_hook;
	object_access_hook = object_access;
}

namespace {

// In backend mode the local tables are the store, bounded like the shared one (at
// max_tracked_tables' default, 1000, as the setting exists only when preloading): counts of
// further tables go to a scratch entry and are only counted as untracked.
TableEntry untracked_entry;
int64 local_untracked = 0;

bool
local_full(HTAB *table, long bound)
{
	return !shared_mode() && hash_get_num_entries(table) >= bound;
}

TableEntry *
local_entry_lookup(Oid relid)
{
	ensure_local();
	StatKey key{MyDatabaseId, relid};
	bool found;
	const HASHACTION action = local_full(local_tables, max_tracked_tables) ? HASH_FIND : HASH_ENTER;
	auto *entry = static_cast<TableEntry *>(hash_search(local_tables, &key, action, &found));
	if (entry == nullptr)
	{
		untracked_entry = TableEntry{key, {}, 0};
		return &untracked_entry; // not remembered as last_entry
	}
	if (!found)
	{
		memset(entry->counters, 0, sizeof(entry->counters));
		entry->check_time_ns = 0;
		flush_schedule_note_counting();
	}
	last_entry = entry;
	return entry;
}

// The entry of relid, the last one used checked first (inline: one per update).
inline TableEntry *
local_entry(Oid relid)
{
	TableEntry *entry = last_entry;
	if (entry != nullptr && entry->key.relid == relid && entry->key.dbid == MyDatabaseId)
		return entry;
	return local_entry_lookup(relid);
}

} // namespace

void
stats_count_read(Oid relid, int64 rows)
{
	TableEntry *entry = local_entry(relid);
	if (entry == &untracked_entry)
		return;
	entry->counters[kReadScans]++;
	entry->counters[kReadRows] += rows;
	local_pending = true;
}

void
stats_count_unchecked(Oid relid, bool hot, bool nothing_changeable)
{
	TableEntry *entry = local_entry(relid);
	if (entry == &untracked_entry)
	{
		local_untracked++;
		return;
	}
	entry->counters[kUpdates]++;
	entry->counters[hot ? kHotStock : nothing_changeable ? kNonHotPageFull : kNonHotOther]++;
	entry->counters[kChecksSkipped]++;
	local_pending = true;
}

void
stats_count(Oid relid, const UpdateReport &report)
{
	TableEntry *entry = local_entry(relid);
	if (entry == &untracked_entry)
	{
		local_untracked++;
		return;
	}
	bool found;
	entry->counters[kUpdates]++;
	entry->counters[counter_for(report.outcome)]++;
	entry->counters[kToastReused] += report.toast_reused;
	if (!report.checked)
		entry->counters[kChecksSkipped]++;
	if (report.check_failed)
		entry->counters[kCheckFailures]++;
	entry->counters[kVerified] += report.verified;
	entry->counters[kVerifySampledOut] += report.verify_sampled_out;
	entry->counters[kUncheckedHotEstimate] += report.unchecked_hot_weight;
	entry->counters[kIndexHints] += report.index_hints;
	entry->check_time_ns += report.check_time_ns;

	if (OidIsValid(report.blocking_index))
	{
		IndexEntry *ientry = last_index_entry;
		if (ientry == nullptr || ientry->id.key.relid != report.blocking_index ||
			ientry->id.key.dbid != MyDatabaseId)
		{
			StatKey ikey{MyDatabaseId, report.blocking_index};
			const HASHACTION action = local_full(local_indexes, 4L * max_tracked_tables) ? HASH_FIND : HASH_ENTER;
			ientry = static_cast<IndexEntry *>(hash_search(local_indexes, &ikey, action, &found));
			if (ientry != nullptr && !found)
			{
				ientry->id.table_relid = relid;
				ientry->blocked_hot = 0;
			}
			last_index_entry = ientry;
		}
		if (ientry != nullptr)
			ientry->blocked_hot++;
	}
	local_pending = true;
}

} // namespace hotplus

// ---------------------------------------------------------------------------------------
// SQL-callable functions (hotplus--1.0.sql).

namespace {

// Reading one counter of a local or a shared entry.
int64
value_of(int64 counter)
{
	return counter;
}

int64
value_of(const pg_atomic_uint64 &counter)
{
	return static_cast<int64>(pg_atomic_read_u64(const_cast<pg_atomic_uint64 *>(&counter)));
}

template <typename Entry>
void
return_tables(ReturnSetInfo *rsinfo, HTAB *tables, bool shared)
{
	using namespace hotplus;
	if (tables == nullptr)
		return;
	HASH_SEQ_STATUS status;
	hash_seq_init(&status, tables);
	while (auto *entry = static_cast<Entry *>(hash_seq_search(&status)))
	{
		if (entry->key.dbid != MyDatabaseId)
			continue;
		Datum values[kTableCounters + 3];
		bool nulls[kTableCounters + 3] = {};
		int n = 0;
		values[n++] = ObjectIdGetDatum(entry->key.relid);
		values[n++] = CStringGetTextDatum(shared ? "shared" : "backend");
		for (int i = 0; i < kCountersBeforeCheckTime; i++)
			values[n++] = Int64GetDatum(value_of(entry->counters[i]));
		values[n++] = Float8GetDatum(value_of(entry->check_time_ns) / 1e6);
		for (int i = kCountersBeforeCheckTime; i < kTableCounters; i++)
			values[n++] = Int64GetDatum(value_of(entry->counters[i]));
		Assert(rsinfo->setDesc->natts <= n);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

template <typename Entry>
void
return_indexes(ReturnSetInfo *rsinfo, HTAB *indexes, bool shared)
{
	using namespace hotplus;
	if (indexes == nullptr)
		return;
	HASH_SEQ_STATUS status;
	hash_seq_init(&status, indexes);
	while (auto *entry = static_cast<Entry *>(hash_seq_search(&status)))
	{
		if (entry->id.key.dbid != MyDatabaseId)
			continue;
		Datum values[4];
		bool nulls[4] = {};
		values[0] = ObjectIdGetDatum(entry->id.key.relid);
		values[1] = ObjectIdGetDatum(entry->id.table_relid);
		values[2] = CStringGetTextDatum(shared ? "shared" : "backend");
		values[3] = Int64GetDatum(value_of(entry->blocked_hot));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

// Returns the rows of one statistics table: in shared mode the shared table (after adding
// this backend's pending counts), else this backend's own.
void
materialize(FunctionCallInfo fcinfo, void (*emit_local)(ReturnSetInfo *, HTAB *, bool),
			void (*emit_shared)(ReturnSetInfo *, HTAB *, bool), HTAB *shared_table, HTAB *const *local_table)
{
	using namespace hotplus;
	InitMaterializedSRF(fcinfo, 0);
	auto *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
	if (shared_mode())
	{
		flush_now(); // this backend's own counts are shown at once
		LWLockAcquire(shared->lock, LW_SHARED);
		emit_shared(rsinfo, shared_table, true);
		LWLockRelease(shared->lock);
	}
	else
		emit_local(rsinfo, *local_table, false);
}

} // namespace

extern "C" {

PG_FUNCTION_INFO_V1(hotplus_stat_tables_internal);
Datum
hotplus_stat_tables_internal(PG_FUNCTION_ARGS)
{
	materialize(fcinfo, return_tables<hotplus::TableEntry>, return_tables<hotplus::SharedTableEntry>, hotplus::shared_tables,
		&hotplus::local_tables);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(hotplus_stat_indexes_internal);
Datum
hotplus_stat_indexes_internal(PG_FUNCTION_ARGS)
{
	materialize(fcinfo, return_indexes<hotplus::IndexEntry>, return_indexes<hotplus::SharedIndexEntry>,
		hotplus::shared_indexes, &hotplus::local_indexes);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(hotplus_stat_reset);
Datum
hotplus_stat_reset(PG_FUNCTION_ARGS)
{
	using namespace hotplus;
	// 1.2 adds the argument; the 1.0 definition, installed until ALTER EXTENSION UPDATE,
	// calls this without one.
	const bool all_databases = PG_NARGS() > 0 && !PG_ARGISNULL(0) && PG_GETARG_BOOL(0);
	if (all_databases && !superuser())
		ereport(ERROR, (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						errmsg("only superusers may reset the statistics of every database")));
	if (local_tables != nullptr)
	{
		hash_destroy(local_tables);
		hash_destroy(local_indexes);
		local_tables = local_indexes = nullptr;
	}
	forget_last_entries();
	local_pending = false;
	flush_schedule_note_flushed();
	local_untracked = 0;
	if (shared_mode())
	{
		LWLockAcquire(shared->lock, LW_EXCLUSIVE);
		for (HTAB *table : {shared_tables, shared_indexes})
		{
			HASH_SEQ_STATUS status;
			hash_seq_init(&status, table);
			while (auto *entry = static_cast<StatKey *>(hash_seq_search(&status)))
				if (all_databases || entry->dbid == MyDatabaseId)
					hash_search(table, entry, HASH_REMOVE, nullptr);
		}
		if (all_databases)
			shared->untracked = shared->evicted_tables = shared->evicted_indexes = 0;
		LWLockRelease(shared->lock);
	}
	PG_RETURN_VOID();
}

// The statistics' own state: mode, bound, how many tables are tracked, how many updates went
// uncounted and how many entries were evicted to make room. In shared mode the counts of
// every database (tracked_tables, untracked_updates, evicted_*) are shown only to roles with
// the privileges of pg_read_all_stats, as pg_stat_statements shows other roles' queries;
// everyone sees the current database's tracked tables (database_tracked_tables, 1.6). The
// 1.2 to 1.5 definitions ask for the first four columns.
PG_FUNCTION_INFO_V1(hotplus_stat_info);
Datum
hotplus_stat_info(PG_FUNCTION_ARGS)
{
	using namespace hotplus;
	TupleDesc desc;
	if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "hotplus_stat_info: return type must be a row type");
	enum { kMode, kMax, kTracked, kUntracked, kDatabaseTracked, kEvictedTables, kEvictedIndexes, kColumns };
	Datum values[kColumns] = {};
	bool nulls[kColumns] = {};
	if (desc->natts > kColumns)
		elog(ERROR, "hotplus_stat_info: the function is defined with more columns than this library returns");
	values[kMode] = CStringGetTextDatum(shared_mode() ? "shared" : "backend");
	values[kMax] = Int32GetDatum(max_tracked_tables);
	if (shared_mode())
	{
		const bool sees_all = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
		flush_now();
		LWLockAcquire(shared->lock, LW_SHARED);
		int64 in_database = 0;
		HASH_SEQ_STATUS status;
		hash_seq_init(&status, shared_tables);
		while (auto *entry = static_cast<SharedTableEntry *>(hash_seq_search(&status)))
			in_database += entry->key.dbid == MyDatabaseId;
		values[kDatabaseTracked] = Int64GetDatum(in_database);
		values[kTracked] = Int64GetDatum(hash_get_num_entries(shared_tables));
		values[kUntracked] = Int64GetDatum(shared->untracked);
		values[kEvictedTables] = Int64GetDatum(shared->evicted_tables);
		values[kEvictedIndexes] = Int64GetDatum(shared->evicted_indexes);
		LWLockRelease(shared->lock);
		for (int column : {kTracked, kUntracked, kEvictedTables, kEvictedIndexes})
			nulls[column] = !sees_all;
	}
	else
	{
		// This backend's own counts: nothing of other roles' sessions.
		const int64 tracked = local_tables != nullptr ? hash_get_num_entries(local_tables) : 0;
		values[kTracked] = values[kDatabaseTracked] = Int64GetDatum(tracked);
		values[kUntracked] = Int64GetDatum(local_untracked);
		values[kEvictedTables] = values[kEvictedIndexes] = Int64GetDatum(0);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

// Moves this backend's pending counts into shared memory now (1.5): in shared mode they
// otherwise arrive at most once a second, and within 10 s of the backend going idle.
PG_FUNCTION_INFO_V1(hotplus_stat_flush);
Datum
hotplus_stat_flush(PG_FUNCTION_ARGS)
{
	hotplus::flush_now();
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(hotplus_stat_mode);
Datum
hotplus_stat_mode(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(hotplus::shared_mode() ? "shared" : "backend"));
}
}
