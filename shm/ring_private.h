/* What the parts of the ring (ring.c, the workers' side; ring_heap.c, its
 * heap; ring_master.c, the master's side) share beyond ring.h. Not for use
 * outside shm/. */
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

/* The heap of leasable jobs (ring_heap.c), kept under the lock.
 * ring_leasable: may a worker lease from j now? */
int ring_leasable(const struct ring *r, const struct ring_job *j);
/* j changed: put it where its rank says, or out of the heap. */
void ring_reposition(struct ring *r, struct ring_job *j);

#endif
