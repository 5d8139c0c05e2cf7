#include "am/live_copies.hpp"

#include "am/settings.hpp"

extern "C" {
#include "access/detoast.h"
#include "access/htup_details.h"
}

namespace hotplus {

namespace {

LiveCopy *registry[kLiveCopies]; // most recent last
int registered = 0;
int64 taken = 0;

} // namespace

void
unregister_live_copy(LiveCopy *copy)
{
	if (!copy->registered)
		return;
	copy->registered = false;
	for (int i = 0; i < registered; ++i)
		if (registry[i] == copy)
		{
			memmove(&registry[i], &registry[i + 1], sizeof(registry[0]) * (registered - i - 1));
			--registered;
			return;
		}
}

void
register_live_copy(LiveCopy *copy)
{
	if (registered == kLiveCopies)
	{
		registry[0]->registered = false;
		memmove(&registry[0], &registry[1], sizeof(registry[0]) * (kLiveCopies - 1));
		--registered;
	}
	registry[registered++] = copy;
	copy->registered = true;
}

bool
live_copy_made_from(const LiveCopy *copy, const struct varlena *stored)
{
	const struct varlena *key = copy->stored;
	if (VARATT_IS_EXTERNAL_ONDISK(stored))
		return VARATT_IS_EXTERNAL_ONDISK(key) && memcmp(key, stored, VARSIZE_EXTERNAL(stored)) == 0;
	return !VARATT_IS_EXTERNAL(key) && VARSIZE_ANY(key) == VARSIZE_ANY(stored) &&
		   memcmp(key, stored, VARSIZE_ANY(stored)) == 0;
}

LiveCopy *
live_copy_of(const struct varlena *stored)
{
	for (int i = registered - 1; i >= 0; --i)
		if (live_copy_made_from(registry[i], stored))
			return registry[i];
	return nullptr;
}

Size
stored_identity_size(const struct varlena *stored)
{
	return VARATT_IS_EXTERNAL_ONDISK(stored) ? VARSIZE_EXTERNAL(stored) : VARSIZE_ANY(stored);
}

struct varlena *
take_live_copy(const struct varlena *stored)
{
	// Only compressed and out-of-line values have copies.
	if (registered == 0 || !settings.read_path ||
		(!VARATT_IS_EXTERNAL_ONDISK(stored) && !VARATT_IS_COMPRESSED(stored)))
		return nullptr;
	const LiveCopy *copy = live_copy_of(stored);
	if (copy == nullptr)
		return nullptr;
	const auto *value = reinterpret_cast<const struct varlena *>(DatumGetPointer(copy->value));
	const Size size = VARSIZE_ANY(value);
	auto *result = static_cast<struct varlena *>(palloc(size));
	memcpy(result, value, size);
	++taken;
	return result;
}

int64
live_copies_taken()
{
	return taken;
}

} // namespace hotplus
