/* The worker loop. Chunks are sized from the worker's own measured rate so
 * that one chunk is about CHUNK_NS of hashing: short enough that a more
 * urgent job is taken up within milliseconds, long enough that the two lock
 * round trips per chunk cost well under 1%. A job that several workers
 * share goes out in smaller pieces (ring_lease), down to MIN_CHUNK_NS of
 * hashing, below which the leases would cost more than about 1%. */
#include "worker/worker.h"
#include "shm/clock.h"

#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#define CHUNK_NS 2000000ull     /* 2 ms of hashing */
#define MIN_CHUNK_NS 100000ull  /* 0.1 ms: a lease costs about 1 us */
#define CHUNK_MIN 256ull
#define CHUNK_MAX (1ull << 26)
#define IDLE_WAIT_MS 100        /* re-check the master, retire flag; a sign of life */

static void notify(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof one) < 0) {
		/* Counter full (cannot happen) or master gone: nothing to do. */
	}
}

static uint64_t clamp_chunk(uint64_t chunk)
{
	return chunk < CHUNK_MIN ? CHUNK_MIN : chunk > CHUNK_MAX ? CHUNK_MAX : chunk;
}

/* Next chunk size from the last one (hashed values in ns > 0, a chunk's
 * worth at least): aim at CHUNK_NS, move half-way. */
static uint64_t next_chunk(uint64_t chunk, uint64_t hashed, uint64_t ns)
{
	return clamp_chunk((chunk + (uint64_t)((unsigned __int128)hashed * CHUNK_NS / ns)) / 2);
}

/* The smallest piece worth a lease at this worker's rate. */
static uint64_t min_chunk(const struct ring_slot *s, uint64_t chunk)
{
	uint64_t rate = __atomic_load_n(&s->rate, __ATOMIC_RELAXED);

	return rate ? clamp_chunk(rate / (1000000000ull / MIN_CHUNK_NS)) : chunk / 20;
}

/* Told to retire, or the master is gone. PR_SET_PDEATHSIG kills a worker
 * whose master dies; the parent is looked at too (a system call), when
 * idle, for a master that died before the worker could ask for that. */
static int should_stop(const struct ring *r, unsigned slot, pid_t master,
		       int idle)
{
	return ring_slot_retiring(r, slot) || (idle && getppid() != master);
}

/* Hash one lease, until the slot's stop word is set (its job's answer
 * found elsewhere, the job cancelled, or a better job came); account for
 * it in the slot: values, and CPU time, so that the rate it gives leaves
 * out whatever else ran on this CPU meanwhile. Returns the kernel's
 * result, and in *x the answer or the first value not hashed (the ring
 * takes back the rest). */
static int hash_lease(const struct kernel *k, struct ring_slot *s,
		      const struct ring_lease *l, uint64_t *chunk, uint64_t *x)
{
	uint64_t cpu0 = clock_ns_of(CLOCK_THREAD_CPUTIME_ID), t0 = clock_ns();
	uint64_t ns, hashed;
	int rc = k->search(l->digest, l->lo, l->hi, x, l->stop);

	ns = clock_ns() - t0;
	hashed = rc == KERNEL_FOUND ? *x - l->lo + 1 :
		 rc == KERNEL_NONE ? l->hi - l->lo + 1 : *x - l->lo;
	/* Time first: a --status read in between sees a rate too low, never
	 * one too high. */
	__atomic_fetch_add(&s->hash_ns, clock_ns_of(CLOCK_THREAD_CPUTIME_ID) - cpu0,
			   __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->hashes, hashed, __ATOMIC_RELAXED);
	if (ns && hashed >= CHUNK_MIN) {
		__atomic_store_n(&s->rate,
				 (uint64_t)((unsigned __int128)hashed * 1000000000u / ns),
				 __ATOMIC_RELAXED);
		*chunk = next_chunk(*chunk, hashed, ns);
	}
	return rc;
}

int worker_run(struct seg *seg, unsigned slot, const struct kernel *k,
	       pid_t master, int notify_fd)
{
	struct ring *r = seg->ring;
	struct ring_slot *s = &r->slots[slot];
	uint64_t chunk = 16384ull * k->lanes;

	if (ring_hook_fire(r, HOOK_DIE_AT_START))
		raise(SIGKILL); /* test hook: a worker that cannot start */
	if (ring_worker_start(r, slot, getpid()))
		notify(notify_fd);
	for (int idle = 1; !should_stop(r, slot, master, idle);) {
		struct ring_lease l;
		uint64_t x = 0;
		int rc = ring_lease(r, slot, chunk, min_chunk(s, chunk), &l);

		if (l.tell)
			notify(notify_fd);
		idle = rc < 0;
		if (idle) {
			__atomic_store_n(&s->state, SLOT_IDLE, __ATOMIC_RELAXED);
			ring_wait(r, IDLE_WAIT_MS);
			continue;
		}
		__atomic_store_n(&s->state, SLOT_HASHING, __ATOMIC_RELAXED);
		rc = hash_lease(k, s, &l, &chunk, &x);
		if (ring_finish(r, slot, rc, x))
			notify(notify_fd);
	}
	__atomic_store_n(&s->state, SLOT_RETIRING, __ATOMIC_RELAXED);
	return 0;
}
