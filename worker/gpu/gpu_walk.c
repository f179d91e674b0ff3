/* The GPU search's walk over a range, with the device behind a launcher.
 *
 * Launches go out in order and stay queued, up to the launcher's depth, so
 * the device never waits for the host between two of them; the host waits
 * only for the oldest. All launches of a search share one lowest-candidate
 * word (*best in gpu_search.h): once launch k is done, a candidate at or
 * below its last value is the lowest of everything hashed so far, since a
 * thread skips only values above a candidate already found. A candidate the
 * full check turns down (one in 2^32 values) also cut short the launches
 * after it, so the walk drops them and starts again just past it. */
#include "worker/gpu/gpu_walk.h"

#include <string.h>

#include "worker/kernel.h"
#include "worker/sha256_ref.h"

struct walk {
	struct gpu_launcher *l;
	const uint8_t *digest;
	uint64_t next, hi;   /* the first value not yet launched; the last */
	int more;            /* next <= hi (next wraps after 2^64-1) */
	uint64_t ends[GPU_WALK_DEPTH]; /* the last value of each launch in
					* flight, oldest first from head */
	unsigned head, n;
};

/* Queue launches until depth are in flight or the range is all out. */
static int fill(struct walk *w)
{
	while (w->more && w->n < w->l->depth) {
		uint64_t chunk = w->l->chunk(w->l->ctx);
		uint64_t last = w->next | 0xffffffff;
		int r;

		if (last > w->hi)
			last = w->hi;
		if (last - w->next >= chunk)
			last = w->next + chunk - 1;
		r = w->l->launch(w->l->ctx, w->digest, w->next,
				 (uint32_t)(last - w->next + 1));
		if (r)
			return r;
		w->ends[(w->head + w->n++) % GPU_WALK_DEPTH] = last;
		w->more = last < w->hi;
		w->next = last + 1;
	}
	return 0;
}

/* Forget the launches in flight; launch from next on where more. */
static int restart(struct walk *w, uint64_t next, int more)
{
	w->n = 0;
	w->next = next;
	w->more = more;
	return w->l->reset(w->l->ctx);
}

/* 1 when x's digest is the one searched. */
static int matches(const uint8_t digest[32], uint64_t x)
{
	uint8_t out[32];

	sha256_le64(x, out);
	return memcmp(out, digest, sizeof out) == 0;
}

/* Wait for the oldest launch; 1 and *found for a match, 0 to go on (past a
 * rejected candidate, or with *last the launch's last value), or < 0. */
static int settle(struct walk *w, uint64_t *last, uint64_t *found)
{
	uint64_t best;
	int r = w->l->wait(w->l->ctx, &best);

	if (r)
		return r;
	*last = w->ends[w->head];
	w->head = (w->head + 1) % GPU_WALK_DEPTH;
	w->n--;
	if (best > *last)
		return 0;
	if (matches(w->digest, best)) {
		*found = best;
		return 1;
	}
	w->l->rejected++;
	*last = best;
	return restart(w, best + 1, best < w->hi);
}

int gpu_walk(struct gpu_launcher *l, const uint8_t digest[32], uint64_t lo,
	     uint64_t hi, uint64_t *found, const uint32_t *stop)
{
	struct walk w = { .l = l, .digest = digest, .hi = hi };
	int r;

	if (lo > hi)
		return SEARCH_NONE;
	r = restart(&w, lo, 1);
	if (r)
		return r;
	if (kernel_stopped(stop)) {
		*found = lo;
		return SEARCH_STOPPED;
	}
	for (;;) {
		uint64_t last;

		r = fill(&w);
		if (r || w.n == 0)
			return r ? r : SEARCH_NONE;
		r = settle(&w, &last, found);
		if (r)
			return r;
		if (last < hi && kernel_stopped(stop)) {
			*found = last + 1;
			return SEARCH_STOPPED;
		}
	}
}
