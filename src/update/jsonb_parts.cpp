// Standard headers before PostgreSQL's (port.h redefines printf and friends).
#include <algorithm>
#include <type_traits>

#include "update/jsonb_parts.hpp"

extern "C" {
#include "access/detoast.h"
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
// Short keys (the common field names) are compared in place, without a call.
inline int
compare_keys(const char *a, uint32 alen, const char *b, uint32 blen)
{
	if (alen != blen)
		return alen < blen ? -1 : 1;
	if (alen <= 8)
	{
		for (uint32 i = 0; i < alen; i++)
			if (a[i] != b[i])
				return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]) ? -1 : 1;
		return 0;
	}
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

namespace {

// A jsonb value's data (what follows the varlena header: the root container), read only as
// far as asked. An in-line uncompressed value is read where it is; a compressed or
// out-of-line one is decompressed or fetched as a prefix (detoast_attr_slice, per-tuple
// memory), longer as needed. Every read is bounds-checked against what is there.
class JsonbPrefix
{
  public:
	explicit JsonbPrefix(Datum value)
		: value_(reinterpret_cast<struct varlena *>(DatumGetPointer(value))),
		  in_place_(!VARATT_IS_EXTERNAL(value_) && !VARATT_IS_COMPRESSED(value_))
	{
		if (in_place_)
		{
			data_ = VARDATA_ANY(value_);
			have_ = total_ = VARSIZE_ANY_EXHDR(value_);
		}
		else
			total_ = static_cast<uint32>(toast_raw_datum_size(PointerGetDatum(value_)) - VARHDRSZ);
	}

	// Whether the first n bytes are there (made so if the value has them).
	bool ensure(uint32 n)
	{
		if (n <= have_)
			return true;
		if (n > total_)
			return false;
		// Each slice decompresses from the start again: ask for some room beyond n.
		const uint32 want = Min(total_, Max(n + n / 2, kFirstSlice));
		slice_ = detoast_attr_slice(value_, 0, static_cast<int32>(want));
		data_ = VARDATA_ANY(slice_);
		have_ = VARSIZE_ANY_EXHDR(slice_);
		return n <= have_;
	}

	// The uint32 at offset (false if the value is shorter).
	bool word(uint32 offset, uint32 *out)
	{
		if (!ensure(offset + sizeof(uint32)))
			return false;
		memcpy(out, data_ + offset, sizeof(uint32)); // a short header leaves it unaligned
		return true;
	}

	const char *at(uint32 offset) const { return data_ + offset; }

	// Whether the value is read where it is (in line, not compressed): no prefix costs more
	// than another.
	bool in_place() const { return in_place_; }

	uint32 total() const { return total_; }

	// The whole value detoasted, if this prefix made it so (a slice of all of it is what
	// detoast_attr() returns: a 4-byte header and the raw data); else 0.
	Datum detoasted_in_full() const
	{
		return slice_ != nullptr && have_ == total_ ? PointerGetDatum(slice_) : Datum(0);
	}

  private:
	static constexpr uint32 kFirstSlice = 512;
	struct varlena *value_;
	bool in_place_;
	struct varlena *slice_ = nullptr;
	const char *data_ = nullptr;
	uint32 have_ = 0;
	uint32 total_ = 0;
};
static_assert(std::is_trivially_destructible_v<JsonbPrefix>); // ERRORs may unwind its frame

// What a prefix says about the value under one key of the root object.
struct PrefixValue
{
	enum Status : uint8
	{
		Unknown, // not readable as expected: prove nothing
		Absent,	 // no such key, or the root is not an object (-> and ->> give NULL)
		Found,
	} status = Unknown;
	JEntry entry = 0; // its type bits
	uint32 start = 0; // its bytes, as offsets into the prefix
	uint32 end = 0;
};

// The root object of a document prefix, as jsonb lays it out (utils/jsonb.h): the entries of
// the `count` keys, then of the `count` values; then the keys' bytes and the values' bytes
// (from `base` on), each child ending where its entry's offset or length says.
struct RootObject
{
	static constexpr uint32 kEndsOnStack = 64;
	JsonbPrefix *doc;
	uint32 count;
	uint32 base;
	uint32 keys_end; // where the last key's bytes end (read_root_object)
	// For objects of up to kEndsOnStack pairs the keys' ends are found in one pass over their
	// entries (read_root_object).
	bool keys_known;
	uint32 key_ends[kEndsOnStack];

	JEntry entry(uint32 child) const
	{
		JEntry e;
		memcpy(&e, doc->at(sizeof(uint32) + child * sizeof(JEntry)), sizeof(JEntry));
		return e;
	}

	// Where a child starts: where the one before ends. A key of a small object from its
	// known end; otherwise, and for a value, as getJsonbOffset() does: summing lengths back
	// to the nearest entry holding an offset (or to the last key, whose end is known).
	uint32 start_of(uint32 child) const
	{
		if (keys_known && child <= count)
			return child == 0 ? 0 : key_ends[child - 1];
		uint32 offset = 0;
		for (uint32 i = child; i-- > 0;)
		{
			if (keys_known && i < count)
				return offset + key_ends[i];
			const JEntry e = entry(i);
			offset += JBE_OFFLENFLD(e);
			if (JBE_HAS_OFF(e))
				break;
		}
		return offset;
	}

	uint32 end_of(uint32 child, uint32 start) const
	{
		const JEntry e = entry(child);
		return JBE_HAS_OFF(e) ? JBE_OFFLENFLD(e) : start + JBE_OFFLENFLD(e);
	}
};
static_assert(std::is_trivially_destructible_v<RootObject>); // ERRORs may unwind its frame

// Reads the entries of doc's root object of count (> 0) pairs into *root, and every key's
// bytes (there once the last key's are); false if the prefix cannot hold them.
pg_attribute_always_inline bool
read_root_object(JsonbPrefix &doc, uint32 count, RootObject *root)
{
	const uint64 base64 = sizeof(uint32) + uint64{2} * count * sizeof(JEntry);
	if (base64 > PG_UINT32_MAX / 2 || !doc.ensure(static_cast<uint32>(base64)))
		return false;
	root->doc = &doc;
	root->count = count;
	root->base = static_cast<uint32>(base64);
	root->keys_known = count <= RootObject::kEndsOnStack;
	if (root->keys_known)
		for (uint32 child = 0, offset = 0; child < count; child++)
		{
			const JEntry e = root->entry(child);
			offset = root->key_ends[child] = JBE_HAS_OFF(e) ? JBE_OFFLENFLD(e) : offset + JBE_OFFLENFLD(e);
		}
	const uint32 last_key_start = root->start_of(count - 1);
	root->keys_end = root->end_of(count - 1, last_key_start);
	return root->keys_end >= last_key_start && root->keys_end <= PG_UINT32_MAX / 2 &&
		   doc.ensure(root->base + root->keys_end);
}

// The value of the pair whose key is at position `key`, read into the prefix. This and the
// two below, and read_root_object(), are inlined into part_difference's path as when they
// were one function (the calls cost 180 instructions per update in bench/instructions.py's
// i1, small documents).
pg_attribute_always_inline PrefixValue
value_of_pair(const RootObject &root, uint32 key)
{
	PrefixValue result;
	const uint32 child = root.count + key;
	result.entry = root.entry(child);
	result.start = root.start_of(child);
	result.end = root.end_of(child, result.start);
	// Numerics and containers start int-aligned, after padding counted in the length.
	if (JBE_ISNUMERIC(result.entry) || JBE_ISCONTAINER(result.entry))
		result.start = INTALIGN(result.start);
	if (result.start > result.end || result.end > PG_UINT32_MAX / 2 || !root.doc->ensure(root.base + result.end))
		return result;
	result.start += root.base;
	result.end += root.base;
	result.status = PrefixValue::Found;
	return result;
}

// Compares the key at position i of the root with key (compare_keys: shorter first, then
// bytewise) into *c; false if its bytes are not within the prefix's keys as jsonb lays them out.
pg_attribute_always_inline bool
compare_key_at(const RootObject &root, uint32 i, const char *key, uint32 key_len, int *c)
{
	const uint32 start = root.start_of(i);
	const uint32 end = root.end_of(i, start);
	if (end < start || end > root.keys_end)
		return false;
	*c = compare_keys(root.doc->at(root.base + start), end - start, key, key_len);
	return true;
}

// Where the key is among the root's pairs (sorted: shorter first, then bytewise, as
// getKeyJsonValueFromContainer() finds them), by a binary search: Found with *at its
// position, Absent, or Unknown if the prefix's keys are not as jsonb lays them out.
pg_attribute_always_inline PrefixValue::Status
find_key(const RootObject &root, const char *key, uint32 key_len, uint32 *at)
{
	uint32 low = 0, high = root.count;
	while (low < high)
	{
		const uint32 middle = low + (high - low) / 2;
		int c;
		if (!compare_key_at(root, middle, key, key_len, &c))
			return PrefixValue::Unknown;
		if (c == 0)
		{
			*at = middle;
			return PrefixValue::Found;
		}
		if (c < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return PrefixValue::Absent;
}

// The root object of doc, its entries and keys read into the prefix: Found, Absent (not an
// object, or an empty one: -> and ->> give NULL for every key) or Unknown.
pg_attribute_always_inline PrefixValue::Status
root_object_of(JsonbPrefix &doc, RootObject *root)
{
	uint32 header;
	if (!doc.word(0, &header))
		return PrefixValue::Unknown;
	const uint32 count = header & JB_CMASK;
	if ((header & JB_FOBJECT) == 0 || count == 0)
		return PrefixValue::Absent;
	return read_root_object(doc, count, root) ? PrefixValue::Found : PrefixValue::Unknown;
}

// The value under key in the root object of doc, reading the root header, its entries, the
// keys and that value's bytes. Asks the prefix for the entries, then for the keys, then for
// the value: at most three slices, usually one.
PrefixValue
value_in_prefix(JsonbPrefix &doc, const char *key, uint32 key_len)
{
	PrefixValue result;
	RootObject root;
	uint32 at = 0;
	result.status = root_object_of(doc, &root);
	if (result.status == PrefixValue::Found)
		result.status = find_key(root, key, key_len, &at);
	return result.status == PrefixValue::Found ? value_of_pair(root, at) : result;
}

// The value under key in doc, where `like` (another document's root object, in which the key
// is at position `like_at`, or Absent) may have the same keys in the same places: the same
// count, the same key entries over the same key bytes (the common update changes values
// only). Then the key is where it is in `like`, found without a search or a pass over the
// entries; otherwise value_in_prefix() finds it.
PrefixValue
value_in_prefix_like(JsonbPrefix &doc, const RootObject &like, PrefixValue::Status like_status, uint32 like_at,
					 const char *key, uint32 key_len)
{
	uint32 header;
	if (doc.word(0, &header) && (header & JB_FOBJECT) != 0 && (header & JB_CMASK) == like.count &&
		doc.ensure(like.base + like.keys_end) &&
		memcmp(doc.at(sizeof(uint32)), like.doc->at(sizeof(uint32)), like.count * sizeof(JEntry)) == 0 &&
		memcmp(doc.at(like.base), like.doc->at(like.base), like.keys_end) == 0)
	{
		if (like_status != PrefixValue::Found)
		{
			PrefixValue absent;
			absent.status = PrefixValue::Absent;
			return absent;
		}
		RootObject root = like;
		root.doc = &doc;
		return value_of_pair(root, like_at);
	}
	return value_in_prefix(doc, key, key_len);
}

// Whether two values found in prefixes are the same bytes of the same type: what
// PairCursor::same_value_as() and same_found_value() say of the same values read in full.
bool
same_prefix_value(const JsonbPrefix &a_doc, const PrefixValue &a, const JsonbPrefix &b_doc, const PrefixValue &b)
{
	if ((a.entry & JENTRY_TYPEMASK) != (b.entry & JENTRY_TYPEMASK))
		return false;
	return a.end - a.start == b.end - b.start && memcmp(a_doc.at(a.start), b_doc.at(b.start), a.end - a.start) == 0;
}

// Moves *cursor over the root's keys below key (the keys are sorted: shorter first, then
// bytewise) and says whether the key there is key: Found (*cursor its position), Absent, or
// Unknown if the prefix's keys are not as jsonb lays them out. Keys sought in ascending
// order find each its pair in one pass over the root's keys.
PrefixValue::Status
seek_key(const RootObject &root, const char *key, uint32 key_len, uint32 *cursor)
{
	for (; *cursor < root.count; ++*cursor)
	{
		int c;
		if (!compare_key_at(root, *cursor, key, key_len, &c))
			return PrefixValue::Unknown;
		if (c >= 0)
			return c == 0 ? PrefixValue::Found : PrefixValue::Absent;
	}
	return PrefixValue::Absent;
}

// Where the value of the pair at position `key` ends, as an offset into the document (its
// entries are in the prefix; its bytes may not be yet).
uint32
value_end_of(const RootObject &root, uint32 key)
{
	const uint32 child = root.count + key;
	return root.base + root.end_of(child, root.start_of(child));
}

} // namespace

bool
compare_parts_in_prefix(Datum old_value, Datum new_value, const JsonbPartRegistry *registry, const int *parts, int n,
						bool *same, Datum *old_in_full)
{
	*old_in_full = 0;
	JsonbPrefix old_doc(old_value), new_doc(new_value);
	RootObject roots[2];
	const PrefixValue::Status root_status[2] = {root_object_of(old_doc, &roots[0]), root_object_of(new_doc, &roots[1])};
	if (root_status[0] == PrefixValue::Unknown || root_status[1] == PrefixValue::Unknown)
		return false;
	// Each part's key in each root, in one pass per root (the run is in jsonb's key order).
	constexpr int kOnStack = 64;
	PrefixValue found_on_stack[2 * kOnStack];
	PrefixValue *found = n <= kOnStack ? found_on_stack : static_cast<PrefixValue *>(palloc(sizeof(PrefixValue) * 2 * n));
	uint32 cursor[2] = {0, 0};
	uint32 old_end = 0; // where the last value the old document must hold ends
	for (int k = 0; k < n; k++)
	{
		const text *key = registry->parts[parts[k]].key;
		for (int side : {0, 1})
		{
			PrefixValue &f = found[2 * k + side];
			f.status = root_status[side] == PrefixValue::Found
						   ? seek_key(roots[side], VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key), &cursor[side])
						   : PrefixValue::Absent;
			if (f.status == PrefixValue::Unknown)
				return false;
			f.start = cursor[side]; // the pair's position until its bytes are read
		}
		if (found[2 * k].status == PrefixValue::Found)
			old_end = value_end_of(roots[0], found[2 * k].start);
	}
	// Beyond half the value, the prefix saves little: the caller detoasts it in full, a copy
	// any later reader of this update (an expression, the verifier) shares.
	if (!old_doc.in_place() && old_end > old_doc.total() / 2)
		return false;
	// One slice for all of them (each slice decompresses from the start again).
	if (!old_doc.ensure(old_end))
		return false;
	for (int k = 0; k < n; k++)
	{
		PrefixValue &a = found[2 * k];
		PrefixValue &b = found[2 * k + 1];
		if (a.status == PrefixValue::Found)
			a = value_of_pair(roots[0], a.start);
		if (b.status == PrefixValue::Found)
			b = value_of_pair(roots[1], b.start);
		if (a.status == PrefixValue::Unknown || b.status == PrefixValue::Unknown)
			return false;
		same[k] = a.status == b.status && (a.status == PrefixValue::Absent || same_prefix_value(old_doc, a, new_doc, b));
	}
	*old_in_full = old_doc.detoasted_in_full();
	return true;
}

PartDifference
part_difference(Datum old_value, Datum new_value, const text *key, Datum *old_in_full)
{
	JsonbPrefix old_doc(old_value), new_doc(new_value);
	const char *k = VARDATA_ANY(key);
	const uint32 len = VARSIZE_ANY_EXHDR(key);
	RootObject old_root;
	uint32 at = 0;
	const PrefixValue::Status old_root_status = root_object_of(old_doc, &old_root);
	PrefixValue a;
	a.status = old_root_status == PrefixValue::Found ? find_key(old_root, k, len, &at) : old_root_status;
	if (a.status == PrefixValue::Found)
		a = value_of_pair(old_root, at);
	*old_in_full = old_doc.detoasted_in_full();
	if (a.status == PrefixValue::Unknown)
		return PartDifference::NoneFound;
	const PrefixValue b = old_root_status == PrefixValue::Found
							  ? value_in_prefix_like(new_doc, old_root, a.status, at, k, len)
							  : value_in_prefix(new_doc, k, len);
	if (b.status == PrefixValue::Unknown || (a.status == PrefixValue::Absent && b.status == PrefixValue::Absent))
		return PartDifference::NoneFound;
	if (a.status != b.status)
		return PartDifference::Differs; // present in one only
	const JEntry ta = a.entry & JENTRY_TYPEMASK, tb = b.entry & JENTRY_TYPEMASK;
	if (JBE_ISBOOL(ta) && JBE_ISBOOL(tb))
		return ta == tb ? PartDifference::NoneFound : PartDifference::DiffersAsScalars;
	if (ta != tb)
		return PartDifference::Differs;
	if (a.end - a.start == b.end - b.start && memcmp(old_doc.at(a.start), new_doc.at(b.start), a.end - a.start) == 0)
		return PartDifference::NoneFound;
	return JBE_ISSTRING(ta) ? PartDifference::DiffersAsScalars : PartDifference::Differs;
}

bool
is_part_access(Node *expr, const JsonbPartRegistry *registry, int *part)
{
	AttrNumber column;
	text *key;
	if (!is_field_access(expr, &column, &key))
		return false;
	for (int i = 0; i < registry->nparts; i++)
	{
		const JsonbPart &p = registry->parts[i];
		if (p.column == column && VARSIZE_ANY_EXHDR(p.key) == VARSIZE_ANY_EXHDR(key) &&
			memcmp(VARDATA_ANY(p.key), VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key)) == 0)
		{
			*part = i;
			return true;
		}
	}
	return false;
}

bool
part_is_same(Datum old_value, Datum new_value, const text *key)
{
	const Jsonb *old_doc = reinterpret_cast<Jsonb *>(pg_detoast_datum(reinterpret_cast<struct varlena *>(DatumGetPointer(old_value))));
	const Jsonb *new_doc = reinterpret_cast<Jsonb *>(pg_detoast_datum(reinterpret_cast<struct varlena *>(DatumGetPointer(new_value))));
	JsonbValue old_found, new_found;
	return same_found_value(lookup(old_doc, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key), &old_found),
							lookup(new_doc, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key), &new_found));
}

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
