/* What the parts of the ring (ring.c, the workers' side; ring_job.c, a job's
 * phase, progress and place in the heap; ring_master.c, the master's side)
 * share beyond ring.h. Not for use outside shm/. */
#ifndef REVHASH_RING_PRIVATE_H
#define REVHASH_RING_PRIVATE_H

#include "shm/ring.h"

/* Keep the compiler from reordering the stores that crash safety depends on:
 * a release store keeps earlier stores before it, and the fence keeps later
 * ones after it (a worker may be killed between any two). The CPU executes
 * them in program order as far as its own death is concerned. */
#define publish(lhs, v)                                                      \
	do {                                                                 \
		__atomic_store_n(&(lhs), (v), __ATOMIC_RELEASE);              \
		__atomic_signal_fence(__ATOMIC_SEQ_CST);                      \
	} while (0)
#define peek(lhs) __atomic_load_n(&(lhs), __ATOMIC_ACQUIRE)

/* Values from lo to hi inclusive, as a 128-bit count. */
static inline unsigned __int128 span(uint64_t lo, uint64_t hi)
{
	return (unsigned __int128)(hi - lo) + 1;
}

/* Set job's bit in a bitmap the other side takes from. */
static inline void flag(uint64_t *bits, uint32_t job)
{
	__atomic_fetch_or(&bits[job / 64], 1ull << (job % 64), __ATOMIC_RELEASE);
}

/* ---- ring_job.c ---------------------------------------------------------- */

/* Move j from phase `from` to `to`, the one way a phase changes: 1, or 0
 * when j was no longer in `from` (the other side moved it first). A move
 * the diagram in ring.h does not have is a bug, and aborts. */
int ring_move(struct ring_job *j, enum ring_phase from, enum ring_phase to);
/* Is a job in phase p being worked on (its leases count)? */
int ring_live(enum ring_phase p);
/* Values j has left to lease. */
unsigned __int128 ring_job_remaining(const struct ring_job *j);
/* Put [lo, hi] of j back to be leased again. */
void ring_give_back(struct ring_job *j, uint64_t lo, uint64_t hi);
/* Does the job at heap position a rank before the one at b? */
int ring_heap_before(const struct ring *r, uint32_t a, uint32_t b);
/* j changed (its weight, what it has left, its leases, its phase): put it
 * where its rank says in the heap of leasable jobs, or out of it. */
void ring_reposition(struct ring *r, struct ring_job *j);
/* Stop every lease on job idx of generation gen: its result no longer
 * matters. */
void ring_stop_leases(struct ring *r, uint32_t idx, uint32_t gen);

#endif
