#include "glue/jsonb_parts.hpp"

extern "C" {
#include "access/sysattr.h"
#include "catalog/pg_type_d.h"
#include "fmgr.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
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

bool
same_value(const JsonbValue *a, const JsonbValue *b)
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
lookup(Jsonb *doc, const text *key, JsonbValue *out)
{
	if (!JB_ROOT_IS_OBJECT(doc))
		return nullptr; // -> and ->> give NULL for anything but an object
	return getKeyJsonValueFromContainer(&doc->root, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key), out);
}

} // namespace

void
collect_inputs(Node *expr, Bitmapset **columns, Bitmapset **parts, JsonbPartRegistry *registry)
{
	WalkState state{columns, parts, registry};
	walk(expr, &state);
}

bool
jsonb_part_equal(Datum old_value, Datum new_value, const text *key)
{
	// 4-byte headers for VARDATA-based access (a short inline value is copied).
	Jsonb *old_doc = reinterpret_cast<Jsonb *>(pg_detoast_datum(reinterpret_cast<struct varlena *>(DatumGetPointer(old_value))));
	Jsonb *new_doc = reinterpret_cast<Jsonb *>(pg_detoast_datum(reinterpret_cast<struct varlena *>(DatumGetPointer(new_value))));
	JsonbValue old_out, new_out;
	return same_value(lookup(old_doc, key, &old_out), lookup(new_doc, key, &new_out));
}

} // namespace hotplus
