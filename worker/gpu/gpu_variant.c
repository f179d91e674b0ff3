/* The names of the GPU kernel's variants, made from the table of their
 * savings (GPU_SAVINGS, gpu_variant.h): a name is never written beside
 * its number, so a new combination of savings needs no new name. */
#include "worker/gpu/gpu_variant.h"

#include <stddef.h>
#include <stdio.h>

#define LABELS 64 /* variants named in a process, at most */

static const struct saving {
	unsigned bits, value;
	const char *name;
} savings[] = {
#define X(bits, value, name) { bits, value, name },
	GPU_SAVINGS(X)
#undef X
};

/* v's name into out (GPU_NAME_LEN bytes): 0, or -1 when a bit of v is no
 * saving's or takes a value no saving names. */
static int name(unsigned v, char *out)
{
	unsigned named = 0;
	size_t at = 0;

	for (size_t i = 0; i < sizeof savings / sizeof savings[0]; i++) {
		if ((v & savings[i].bits) != savings[i].value)
			continue;
		at += (size_t)snprintf(out + at, GPU_NAME_LEN - at, "%s%s", at ? "-" : "",
				       savings[i].name);
		if (at >= GPU_NAME_LEN)
			return -1;
		named |= savings[i].bits;
	}
	if (!at)
		snprintf(out, GPU_NAME_LEN, "base");
	return v & ~named ? -1 : 0;
}

const char *gpu_variant_label(unsigned v)
{
	static struct {
		unsigned v;
		char name[GPU_NAME_LEN];
	} made[LABELS];
	static size_t n;

	for (size_t i = 0; i < n; i++)
		if (made[i].v == v)
			return made[i].name;
	if (n == LABELS || name(v, made[n].name) < 0)
		return NULL;
	made[n].v = v;
	return made[n++].name;
}
