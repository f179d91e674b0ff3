/* Choosing a device's kernel variant (lib/pick.c measures, as it does for
 * the CPU kernels): what wins on an H100 need not win on an RTX 4090 or an
 * A100. */
#include "worker/gpu/device.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Is name one of the CPU kernels compiled in? */
static int cpu_kernel(const char *name)
{
	size_t n;
	const struct kernel *const *all = kernel_all(&n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(all[i]->name, name) == 0)
			return 1;
	return 0;
}

int device_pick(struct pick *p, size_t measured, const char *want, pick_run_fn run, void *ctx,
		char *err, size_t len)
{
	size_t at;

	if (!want || strcmp(want, "auto") == 0 || cpu_kernel(want)) {
		p->n = measured;
		pick_measure(p, run, ctx);
		return 0;
	}
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->names[i], want) == 0) {
			p->chosen = i;
			p->forced = 1;
			return 0;
		}
	at = (size_t)snprintf(err, len, "unknown kernel %s (this device's:", want);
	for (size_t i = 0; i < p->n && at < len; i++)
		at += (size_t)snprintf(err + at, len - at, "%s %s", i ? "," : "", p->names[i]);
	if (at < len)
		snprintf(err + at, len - at, "; or auto)");
	return -EINVAL;
}
