/* The bottom layer of the ring (see ring.h): one job entry, its phase and
 * its progress (ring_job.c), and the stores and loads every layer above
 * builds on. Not for use outside shm/. */
#ifndef REVHASH_RING_JOB_H
#define REVHASH_RING_JOB_H

#include "shm/ring.h"

/* A word that hands data over: a release store keeps earlier stores before
 * it, and the fence keeps the compiler from moving later ones ahead (a
 * worker may be killed between any two: docs/architecture.md, "Memory
 * order"). */
#define publish(lhs, v)                                                      \
	do {                                                                 \
		__atomic_store_n(&(lhs), (v), __ATOMIC_RELEASE);              \
		__atomic_signal_fence(__ATOMIC_SEQ_CST);                      \
	} while (0)
/* Read a word the other side (or a dead worker) may have written. */
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

/* The workers should take job in at their next call. */
static inline void mark_pending(struct ring *r, uint32_t job)
{
	flag(r->pending, job);
	__atomic_fetch_or(&r->pending_any, 1ull << (job / 64), __ATOMIC_RELEASE);
}

/* Move j from phase `from` to `to`, the one way a phase changes: 1, or 0
 * when j was no longer in `from` (the other side moved it first). A move
 * the table of ring_job.c does not have is a bug, and aborts. */
int job_move(struct ring_job *j, enum ring_phase from, enum ring_phase to);
/* The master sets the phase of an entry that is its own to FREE, or NEW
 * from FREE: a store, since no worker may move it from there (what one
 * wrote anyway is overruled). */
void job_own_move(struct ring_job *j, enum ring_phase to);
/* The master takes an entry back from the workers, from phase `from` as
 * it read it (any value) to FREE: 1, or 0 when a worker moved it
 * meanwhile, to be looked at again. */
int job_take_back(struct ring_job *j, uint32_t from);
/* Is a job in phase p being worked on (its leases count)? */
int job_live(enum ring_phase p);
/* The end j has reached with none of its leases out, from its phase now
 * (read once by the caller) and what it has left; PHASE_COUNT for none. */
enum ring_phase job_end_of(const struct ring_job *j, enum ring_phase now);
/* Where the next lease of j starts, and how far it may go. */
void job_next_range(const struct ring_job *j, uint64_t *lo, uint64_t *limit);
/* Move j's progress past a lease from where job_next_range starts to hi,
 * leased at now. */
void job_take(struct ring_job *j, uint64_t hi, uint64_t now);
/* The mark of p that every lease moves (struct ring_mark). */
struct ring_mark job_mark(const struct ring_progress *p);

#endif
