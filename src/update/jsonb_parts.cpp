// Standard headers before PostgreSQL's (port.h redefines printf and friends).
#include <algorithm>
#include <type_traits>

#include "update/jsonb_parts.hpp"

extern "C" {
#include "access/sysattr.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "port/pg_bitutils.h"
#include "utils/fmgroids.h"
#include "utils/jsonb.h"
}

namespace hotplus {

namespace {

struct WalkState
{
	Bitmapset **columns;
	Bitmapset **parts;
	JsonbPartRegistry *registry;
};
static_assert(std::is_trivially_destructible_v<WalkState>); // on frames an ERROR may unwind

int
register_part(JsonbPartRegistry *registry, AttrNumber column, text *key)
{
	for (int i = 0; i < registry->nparts; i++)
	{
		const JsonbPart &p = registry->parts[i];
		if (p.column == column && VARSIZE_ANY_EXHDR(p.key) == VARSIZE_ANY_EXHDR(key) &&
			memcmp(VARDATA_ANY(p.key), VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key)) == 0)
			return i;
	}
	if (registry->nparts == registry->capacity)
	{
		registry->capacity = Max(8, 2 * registry->capacity);
		registry->parts = registry->parts == nullptr
							  ? static_cast<JsonbPart *>(palloc(sizeof(JsonbPart) * registry->capacity))
							  : static_cast<JsonbPart *>(repalloc(registry->parts, sizeof(JsonbPart) * registry->capacity));
	}
	registry->parts[registry->nparts] = JsonbPart{column, reinterpret_cast<text *>(PG_DETOAST_DATUM_COPY(PointerGetDatum(key)))};
	return registry->nparts++;
}

// `col -> 'k'` or `col ->> 'k'` on a column of the scanned relation with a constant,
// non-null text key: returns the column and the key.
bool
is_field_access(Node *node, AttrNumber *column, text **key)
{
	Oid funcid;
	List *args;
	if (IsA(node, OpExpr))
	{
		funcid = reinterpret_cast<OpExpr *>(node)->opfuncid;
		args = reinterpret_cast<OpExpr *>(node)->args;
	}
	else if (IsA(node, FuncExpr))
	{
		funcid = reinterpret_cast<FuncExpr *>(node)->funcid;
		args = reinterpret_cast<FuncExpr *>(node)->args;
	}
	else
		return false;
	if ((funcid != F_JSONB_OBJECT_FIELD && funcid != F_JSONB_OBJECT_FIELD_TEXT) || list_length(args) != 2)
		return false;
	Node *target = static_cast<Node *>(linitial(args));
	Node *name = static_cast<Node *>(lsecond(args));
	if (!IsA(target, Var) || !IsA(name, Const))
		return false;
	Var *var = reinterpret_cast<Var *>(target);
	Const *c = reinterpret_cast<Const *>(name);
	if (var->varno != 1 || var->varlevelsup != 0 || var->varattno <= 0 || var->vartype != JSONBOID ||
		c->constisnull || c->consttype != TEXTOID)
		return false;
	*column = var->varattno;
	*key = reinterpret_cast<text *>(DatumGetPointer(c->constvalue));
	return true;
}

bool
walk(Node *node, void *context)
{
	WalkState *state = static_cast<WalkState *>(context);
	if (node == nullptr)
		return false;
	AttrNumber column;
	text *key;
	if (is_field_access(node, &column, &key))
	{
		int part = register_part(state->registry, column, key);
		*state->parts = bms_add_member(*state->parts, part + 1);
		return false; // the Var inside is read only through this access
	}
	if (IsA(node, Var))
	{
		Var *var = reinterpret_cast<Var *>(node);
		if (var->varlevelsup == 0)
			*state->columns = bms_add_member(*state->columns, var->varattno - FirstLowInvalidHeapAttributeNumber);
		return false;
	}
	// PG15's walker takes bool (*)(); going through void (*)(void) is the sanctioned way
	// to convert between function pointer types without -Wcast-function-type.
	return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(walk)), state);
}

// jsonb's order of object keys: shorter first, then bytewise (lengthCompareJsonbString).
int
compare_keys(const char *a, uint32 alen, const char *b, uint32 blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return memcmp(a, b, alen);
}

// The key/value pairs of a jsonb object in stored (key) order. Each entry's place is kept as
// a running end offset, so a pass over n pairs reads each JEntry once, where a lookup
// (getJsonbOffset) walks back up to JB_OFFSET_STRIDE entries. A container that is not an
// object has no pairs: `->` and `->>` give NULL for every key there, as for an absent key.
class PairCursor
{
public:
	explicit PairCursor(const Jsonb *doc)
		: container_(&doc->root), count_(JB_ROOT_IS_OBJECT(doc) ? JB_ROOT_COUNT(doc) : 0),
		  base_(reinterpret_cast<const char *>(&doc->root.children[2 * count_]))
	{
		// Values follow the keys: the first value starts where the last key ends.
		for (int i = static_cast<int>(count_) - 1; i >= 0; i--)
		{
			value_end_ += JBE_OFFLENFLD(container_->children[i]);
			if (JBE_HAS_OFF(container_->children[i]))
				break;
		}
		keys_len_ = value_end_;
		if (count_ > 0)
			load();
	}

	// Whether both objects have the same keys in the same places: the same key entries over
	// the same key bytes. Then a key is at the same index in both.
	bool same_keys_as(const PairCursor &other) const
	{
		return count_ == other.count_ && keys_len_ == other.keys_len_ &&
			   memcmp(container_->children, other.container_->children, sizeof(JEntry) * count_) == 0 &&
			   memcmp(base_, other.base_, keys_len_) == 0;
	}

	// Moves to the pair at index `to` (not before the current one) without comparing keys.
	void move_to(uint32 to)
	{
		while (index_ < to && index_ < count_)
			next();
	}

	uint32 index() const { return index_; }

	// Moves to the first pair whose key is not below key; returns whether it is that key.
	bool seek(const char *key, uint32 len)
	{
		while (index_ < count_)
		{
			const int c = compare_keys(key_, key_len_, key, len);
			if (c >= 0)
				return c == 0;
			next();
		}
		return false;
	}

	// Whether the current values of two cursors are the same bytes of the same type.
	bool same_value_as(const PairCursor &other) const
	{
		const JEntry a = value_entry(), b = other.value_entry();
		if ((a & JENTRY_TYPEMASK) != (b & JENTRY_TYPEMASK))
			return false;
		if (JBE_ISNULL(a) || JBE_ISBOOL_TRUE(a) || JBE_ISBOOL_FALSE(a))
			return true;
		const char *x, *y;
		uint32 xlen, ylen;
		value_bytes(&x, &xlen);
		other.value_bytes(&y, &ylen);
		return xlen == ylen && memcmp(x, y, xlen) == 0;
	}

private:
	JEntry value_entry() const { return container_->children[count_ + index_]; }

	// Numerics and containers are int-aligned after padding counted in the entry's length
	// (fillJsonbValue): compare from the aligned start, so the padding never counts.
	void value_bytes(const char **data, uint32 *len) const
	{
		uint32 start = value_start_;
		if (JBE_ISNUMERIC(value_entry()) || JBE_ISCONTAINER(value_entry()))
			start = INTALIGN(start);
		*data = base_ + start;
		*len = value_end_ > start ? value_end_ - start : 0;
	}

	static uint32 end_of(JEntry entry, uint32 start)
	{
		return JBE_HAS_OFF(entry) ? JBE_OFFLENFLD(entry) : start + JBE_OFFLENFLD(entry);
	}

	void load()
	{
		const uint32 key_start = key_end_;
		key_end_ = end_of(container_->children[index_], key_start);
		key_ = base_ + key_start;
		key_len_ = key_end_ - key_start;
		value_start_ = value_end_;
		value_end_ = end_of(value_entry(), value_start_);
	}

	void next()
	{
		if (++index_ < count_)
			load();
	}

	const JsonbContainer *container_;
	uint32 count_;
	const char *base_;
	uint32 index_ = 0;
	uint32 key_end_ = 0;
	uint32 value_start_ = 0;
	uint32 value_end_ = 0;
	const char *key_ = nullptr;
	uint32 key_len_ = 0;
	uint32 keys_len_ = 0; // bytes of all keys (where the values start)
};
// Lives in frames an ERROR may unwind (detoasting can fail around it).
static_assert(std::is_trivially_destructible_v<PairCursor>);

} // namespace

void
collect_inputs(Node *expr, Bitmapset **columns, Bitmapset **parts, JsonbPartRegistry *registry)
{
	WalkState state{columns, parts, registry};
	walk(expr, &state);
}

void
order_parts(JsonbPartRegistry *registry)
{
	registry->by_column = static_cast<int *>(palloc(sizeof(int) * Max(registry->nparts, 1)));
	for (int i = 0; i < registry->nparts; i++)
		registry->by_column[i] = i;
	const JsonbPart *parts = registry->parts;
	std::sort(registry->by_column, registry->by_column + registry->nparts, [parts](int a, int b) {
		if (parts[a].column != parts[b].column)
			return parts[a].column < parts[b].column;
		return compare_keys(VARDATA_ANY(parts[a].key), VARSIZE_ANY_EXHDR(parts[a].key), VARDATA_ANY(parts[b].key),
							VARSIZE_ANY_EXHDR(parts[b].key)) < 0;
	});
}

namespace {

// Whether the values under one key in two objects are the same bytes of the same type, as
// getKeyJsonValueFromContainer returns them (nullptr: the key is absent).
bool
same_found_value(const JsonbValue *a, const JsonbValue *b)
{
	if (a == nullptr || b == nullptr)
		return a == b;
	if (a->type != b->type)
		return false;
	switch (a->type)
	{
		case jbvNull:
			return true;
		case jbvBool:
			return a->val.boolean == b->val.boolean;
		case jbvString:
			return a->val.string.len == b->val.string.len &&
				   memcmp(a->val.string.val, b->val.string.val, a->val.string.len) == 0;
		case jbvNumeric:
		{
			const Size len = VARSIZE_ANY(a->val.numeric);
			return len == VARSIZE_ANY(b->val.numeric) && memcmp(a->val.numeric, b->val.numeric, len) == 0;
		}
		case jbvBinary:
			return a->val.binary.len == b->val.binary.len &&
				   memcmp(a->val.binary.data, b->val.binary.data, a->val.binary.len) == 0;
		default:
			return false; // not produced by a container lookup; be safe
	}
}

const JsonbValue *
lookup(const Jsonb *doc, const char *key, uint32 len, JsonbValue *out)
{
	if (!JB_ROOT_IS_OBJECT(doc))
		return nullptr; // -> and ->> give NULL for anything but an object
	return getKeyJsonValueFromContainer(const_cast<JsonbContainer *>(&doc->root), key, len, out);
}

uint32
object_pairs(const Jsonb *doc)
{
	return JB_ROOT_IS_OBJECT(doc) ? JB_ROOT_COUNT(doc) : 0;
}

// Whether one pass over both objects' pairs costs less than a binary search per part in
// each. A pass reads at most every pair of both; a search probes about log2(pairs) + 1 keys,
// and a probe costs several pass steps (getJsonbOffset walks back up to JB_OFFSET_STRIDE
// entries): 8 is an estimate. Both ways give the same answer; only the cost differs.
bool
one_pass_is_cheaper(const Jsonb *old_doc, const Jsonb *new_doc, int nparts)
{
	const uint32 old_pairs = object_pairs(old_doc), new_pairs = object_pairs(new_doc);
	const uint32 probes = pg_leftmost_one_pos32(Max(old_pairs, new_pairs) | 1) + 2;
	return old_pairs + new_pairs <= static_cast<uint32>(nparts) * 8 * probes;
}

} // namespace

void
compare_parts(Datum old_value, Datum new_value, const JsonbPartRegistry *registry, int first, int n, bool *same)
{
	// 4-byte headers for VARDATA-based access (a short inline value is copied).
	const Jsonb *old_doc = reinterpret_cast<Jsonb *>(pg_detoast_datum(reinterpret_cast<struct varlena *>(DatumGetPointer(old_value))));
	const Jsonb *new_doc = reinterpret_cast<Jsonb *>(pg_detoast_datum(reinterpret_cast<struct varlena *>(DatumGetPointer(new_value))));
	if (!one_pass_is_cheaper(old_doc, new_doc, n))
	{
		for (int k = 0; k < n; k++)
		{
			const text *key = registry->parts[registry->by_column[first + k]].key;
			JsonbValue old_found, new_found;
			same[k] = same_found_value(lookup(old_doc, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key), &old_found),
									   lookup(new_doc, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key), &new_found));
		}
		return;
	}
	PairCursor old_pairs(old_doc), new_pairs(new_doc);
	// The common update changes values, not keys: then the keys are sought in one object
	// only and the other follows by index.
	const bool same_keys = old_pairs.same_keys_as(new_pairs);
	for (int k = 0; k < n; k++)
	{
		const text *key = registry->parts[registry->by_column[first + k]].key;
		const char *data = VARDATA_ANY(key);
		const uint32 len = VARSIZE_ANY_EXHDR(key);
		const bool in_old = old_pairs.seek(data, len);
		bool in_new;
		if (same_keys)
		{
			new_pairs.move_to(old_pairs.index());
			in_new = in_old;
		}
		else
			in_new = new_pairs.seek(data, len);
		same[k] = in_old == in_new && (!in_old || old_pairs.same_value_as(new_pairs));
	}
}

} // namespace hotplus
