/* What a kind of worker does (kind.h), by the way its workers run: a kind
 * without a program is forked and runs the worker loop in the master's
 * image; a kind with one is found by probing that program and exec'd
 * (kind_exec.c). The table (kind.c) stays data. */
#include "worker/kind.h"
#include "worker/worker.h"

#include <unistd.h>

int kind_find(const struct worker_kind *k, const char *spec, const char *path,
	      const char *kernel, struct kind_found *out)
{
	return kind_exec_find(k, spec, path, kernel, out);
}

void kind_become(const struct worker_kind *k, const struct worker_start *start)
{
	struct worker_start w = *start;

	if (kind_is_found(k))
		kind_exec_become(k, start);
	kind_fill(k, &w);
	_exit(worker_main(&w));
}

void kind_fill(const struct worker_kind *k, struct worker_start *w)
{
	w->wall_clock = k->wall_clock;
	if (!w->lease_ns)
		w->lease_ns = k->lease_ns;
	if (!w->min_lease_ns)
		w->min_lease_ns = k->min_lease_ns;
}
