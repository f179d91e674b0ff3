/* What a kind of worker does (kind.h): a kind without a program is forked
 * and runs the worker loop in the master's image; one with a program is
 * probed and exec'd (kind_exec.c). */
#include "worker/kind.h"
#include "worker/worker.h"

#include "lib/log.h"

#include <stdlib.h>
#include <unistd.h>

/* Are k's workers found by probing its program, not counted (the CPU's:
 * --workers, re-read on HUP)? The one place that asks. */
static int found(const struct worker_kind *k)
{
	return k->binary != NULL;
}

int kind_find(const struct worker_kind *k, const char *spec, const char *path,
	      const char *kernel, struct kind_found *out)
{
	if (!found(k)) {
		*out = (struct kind_found){ .fd = -1 };
		return 0;
	}
	return kind_exec_find(k, spec, path, kernel, out);
}

void kind_plan(const struct kind_found f[KINDS_MAX], unsigned target, unsigned nslots,
	       int kind[], unsigned unit[])
{
	unsigned top = nslots, counted = 0;

	for (unsigned i = 0; i < nslots; i++)
		kind[i] = -1;
	for (unsigned k = 0; k < kind_count(); k++)
		for (unsigned u = 0; found(kind_at(k)) && u < f[k].n && top; u++) {
			top--;
			kind[top] = (int)k;
			unit[top] = (unsigned)f[k].unit[u];
		}
	for (unsigned k = 0; k < kind_count(); k++) {
		if (found(kind_at(k)))
			continue;
		for (unsigned u = 0; u < target && u < top; u++) {
			kind[u] = (int)k;
			unit[u] = u;
		}
		counted++;
	}
	if (counted != 1) { /* the table is wrong: a bug */
		log_error("kinds: %u counted by --workers, not 1", counted);
		abort();
	}
}

void kind_become(const struct worker_kind *k, const struct worker_start *start)
{
	struct worker_start w = *start;

	if (found(k))
		kind_exec_become(k, start);
	kind_fill(k, &w);
	_exit(worker_main(&w));
}

void kind_fill(const struct worker_kind *k, struct worker_start *w)
{
	w->wall_clock = k->wall_clock;
	w->batch = !k->wall_clock;
	if (!w->lease_ns)
		w->lease_ns = k->lease_ns;
	if (!w->min_lease_ns)
		w->min_lease_ns = k->min_lease_ns;
}
