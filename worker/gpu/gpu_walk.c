/* The GPU search's walk over a range (see gpu_walk.h). Launches stay
 * queued up to the launcher's depth, and the host waits only for the
 * oldest. What a launch left in the word (gpu_word.h) is its own outcome,
 * and the launches before it found nothing, so its candidate is the lowest
 * so far. A candidate the full check turns down cut its launch short: the
 * walk halts the launches after it, never waits for them, and starts
 * again just past it. A launch halted by the stop word leaves its values
 * owed; the stop word is read between launches too. */
#include "worker/gpu/gpu_walk.h"

#include "lib/digest.h"
#include "worker/kernel.h"

struct walk {
	struct gpu_launcher *l;
	const uint8_t *digest;
	uint64_t next, hi;   /* the first value not yet launched; the last */
	int more;            /* next <= hi (next wraps after 2^64-1) */
	struct gpu_job q[GPU_WALK_DEPTH]; /* the live launches, oldest first
					   * from head */
	unsigned head, n;
};

int gpu_walk_spins(const struct gpu_launcher *l, uint64_t count)
{
	return l->rate > 0 && (double)count / l->rate * 1e9 < (double)l->spin_ns;
}

/* Queue launches until depth are in flight or the range is all out. */
static int fill(struct walk *w)
{
	struct gpu_launcher *l = w->l;

	while (w->more && w->n < l->depth) {
		struct gpu_job *j = &w->q[(w->head + w->n) % GPU_WALK_DEPTH];
		uint64_t last = w->next | 0xffffffff;
		int r;

		/* After the last generation, the word starts afresh. */
		if (l->gen >= GPU_GEN_MAX) {
			if ((r = l->renew(l->ctx)))
				return r;
			l->gen = 0;
		}
		if (last > w->hi)
			last = w->hi;
		if (last - w->next >= l->chunk)
			last = w->next + l->chunk - 1;
		*j = (struct gpu_job){ .first = w->next, .count = last - w->next + 1,
				       .gen = ++l->gen };
		j->spin = (uint32_t)gpu_walk_spins(l, j->count);
		r = l->launch(l->ctx, w->digest, j);
		if (r)
			return r;
		l->launches++;
		w->n++;
		w->more = last < w->hi;
		w->next = last + 1;
	}
	return 0;
}

/* Count launch j's time; when it ran whole and was long enough to time,
 * size the next full launches from it: half-way from the size now to l's
 * launch_ns at its rate, within l's bounds. */
static void account(struct gpu_launcher *l, const struct gpu_job *j,
		    const struct gpu_outcome *o, enum gpu_found what)
{
	double want;

	l->busy_ns += o->ns;
	if (what != GPU_NOTHING || j->count < l->chunk_min || !o->ns)
		return;
	l->rate = (double)j->count * 1e9 / (double)o->ns;
	want = ((double)j->count * (double)l->launch_ns / (double)o->ns + (double)l->chunk) / 2;
	l->chunk = want < (double)l->chunk_min ? l->chunk_min :
		   want > (double)l->chunk_max ? l->chunk_max : (uint64_t)want;
}

/* Wait for the oldest launch. SEARCH_FOUND (*found), SEARCH_STOPPED (it
 * halted: *found its first value), 2 to go on with *last the last value
 * hashed, or < 0. A false candidate drops the launches after it. */
static int wait_oldest(struct walk *w, uint64_t *last, uint64_t *found)
{
	struct gpu_launcher *l = w->l;
	struct gpu_job *j = &w->q[w->head];
	struct gpu_outcome o = { 0, 0 };
	enum gpu_found what;
	uint32_t low = 0;
	uint64_t x;
	int r = l->wait(l->ctx, j, &o);

	if (r)
		return r;
	w->head = (w->head + 1) % GPU_WALK_DEPTH;
	w->n--;
	what = gpu_decode(o.word, j->gen, &low);
	account(l, j, &o, what);
	*last = j->first + j->count - 1;
	if (what == GPU_HALTED) {
		*found = j->first;
		return SEARCH_STOPPED;
	}
	if (what == GPU_NOTHING)
		return 2;
	x = j->first >> 32 << 32 | low;
	if (digest_answers(x, w->digest, x, x)) {
		*found = x;
		return SEARCH_FOUND;
	}
	l->rejected++;
	if (w->n)
		l->halt(l->ctx, l->gen);
	w->n = 0;
	w->next = x + 1;
	w->more = x < w->hi;
	*last = x;
	return 2;
}

/* The walk proper, from lo; launches it leaves live stay in w->n. */
static int walk(struct walk *w, uint64_t lo, uint64_t *found, const uint32_t *stop)
{
	w->next = lo;
	w->more = 1;
	for (;;) {
		uint64_t last = 0;
		int r = fill(w);

		if (r || w->n == 0)
			return r ? r : SEARCH_NONE;
		r = wait_oldest(w, &last, found);
		if (r != 2)
			return r;
		if (last < w->hi && kernel_stopped(stop)) {
			*found = last + 1;
			return SEARCH_STOPPED;
		}
	}
}

int gpu_walk(struct gpu_launcher *l, const uint8_t digest[32], uint64_t lo,
	     uint64_t hi, uint64_t *found, const uint32_t *stop)
{
	struct walk w = { .l = l, .digest = digest, .hi = hi };
	int r;

	if (lo > hi)
		return SEARCH_NONE;
	r = l->watch(l->ctx, stop);
	if (r)
		return r;
	if (kernel_stopped(stop)) {
		*found = lo;
		return SEARCH_STOPPED;
	}
	r = walk(&w, lo, found, stop);
	if (w.n)
		l->halt(l->ctx, l->gen);
	return r;
}
