/* The worker loop. Chunks are sized from the worker's own measured rate so
 * that one chunk is about CHUNK_NS of hashing: short enough that a more
 * urgent job is taken up within milliseconds, long enough that the two lock
 * round trips per chunk cost well under 1%. */
#include "worker/worker.h"
#include "shm/clock.h"

#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define CHUNK_NS 2000000ull     /* 2 ms of hashing */
#define CHUNK_MIN 256ull
#define CHUNK_MAX (1ull << 26)
#define IDLE_WAIT_MS 200        /* re-check the master and retire flag */

static void notify(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof one) < 0) {
		/* Counter full (cannot happen) or master gone: nothing to do. */
	}
}

/* Next chunk size from the last one: aim at CHUNK_NS, move half-way. */
static uint64_t next_chunk(uint64_t chunk, uint64_t hashed, uint64_t ns)
{
	uint64_t ideal;

	if (ns == 0 || hashed < CHUNK_MIN)
		return chunk;
	ideal = (uint64_t)((unsigned __int128)hashed * CHUNK_NS / ns);
	chunk = (chunk + ideal) / 2;
	if (chunk < CHUNK_MIN)
		chunk = CHUNK_MIN;
	if (chunk > CHUNK_MAX)
		chunk = CHUNK_MAX;
	return chunk;
}

static int should_stop(struct ring *r, struct ring_slot *s, pid_t master)
{
	return __atomic_load_n(&r->shutdown, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&s->retire, __ATOMIC_ACQUIRE) ||
	       getppid() != master;
}

/* Test hook (REVHASH_TEST_HOOKS): die before doing anything, as a worker
 * that cannot run would, to exercise the master's restart back-off. */
static void maybe_die_at_start(struct ring *r)
{
	int die = 0;

	if (!r->hooks)
		return;
	ring_lock(r);
	if (r->die_at_start) {
		r->die_at_start--;
		die = 1;
	}
	ring_unlock(r);
	if (die)
		raise(SIGKILL);
}

int worker_run(struct seg *seg, unsigned slot, const struct kernel *k,
	       pid_t master, int notify_fd)
{
	struct ring *r = seg->ring;
	struct ring_slot *s = &r->slots[slot];
	uint64_t chunk = 16384ull * k->lanes;

	maybe_die_at_start(r);
	while (!should_stop(r, s, master)) {
		struct ring_lease l;
		uint64_t x = 0, t0, hashed;
		int found;

		if (ring_lease(r, slot, chunk, &l) < 0) {
			__atomic_store_n(&s->state, SLOT_IDLE, __ATOMIC_RELAXED);
			ring_wait(r, IDLE_WAIT_MS);
			continue;
		}
		__atomic_store_n(&s->state, SLOT_HASHING, __ATOMIC_RELAXED);
		t0 = clock_ns();
		found = k->search(l.digest, l.lo, l.hi, &x, NULL);
		t0 = clock_ns() - t0;
		/* On a stop (no flag yet), x is the first value not hashed. */
		hashed = (found == KERNEL_STOPPED ? x - 1 : found ? x : l.hi) - l.lo + 1;
		__atomic_fetch_add(&s->hashes, hashed, __ATOMIC_RELAXED);
		if (t0)
			s->rate = (uint64_t)((unsigned __int128)hashed * 1000000000u / t0);
		chunk = next_chunk(chunk, hashed, t0);
		if (ring_finish(r, slot, found == KERNEL_FOUND, x))
			notify(notify_fd);
	}
	__atomic_store_n(&s->state, SLOT_RETIRING, __ATOMIC_RELAXED);
	return 0;
}
