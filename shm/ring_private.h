/* What the parts of the ring share beyond ring.h, layer by layer (each
 * calls only those above it in this file). Not for use outside shm/. */
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

/* ---- ring_job.c: one entry, its phase and its progress ------------------- */

/* Move j from phase `from` to `to`, the one way a phase changes: 1, or 0
 * when j was no longer in `from` (the other side moved it first). A move
 * the table of ring_job.c does not have is a bug, and aborts. */
int ring_move(struct ring_job *j, enum ring_phase from, enum ring_phase to);
/* The master sets the phase of an entry that is its own (FREE, or at an
 * end) to `to` (FREE, or NEW from FREE): a store, not a compare-and-swap,
 * since no worker may move it from there; what one wrote there anyway is
 * overruled. */
void ring_own_move(struct ring_job *j, enum ring_phase to);
/* Is a job in phase p being worked on (its leases count)? */
int ring_live(enum ring_phase p);
/* Values j has left to lease. */
unsigned __int128 job_left(const struct ring_job *j);
/* Where the next lease of j starts, and how far it may go. */
void job_next_range(const struct ring_job *j, uint64_t *lo, uint64_t *limit);
/* Move j's progress past a lease from where job_next_range starts to hi,
 * leased at now. */
void job_take(struct ring_job *j, uint64_t hi, uint64_t now);
/* Put [lo, hi] of j back to be leased again. */
void job_give_back(struct ring_job *j, uint64_t lo, uint64_t hi);
/* The end j has reached with none of its leases out, from its phase now
 * (as the caller read it once, to move it from there) and what it has
 * left; PHASE_COUNT when it has reached none. */
enum ring_phase job_end_of(const struct ring_job *j, enum ring_phase now);

/* ---- ring_slot.c: the slots and their leases ---------------------------- */

/* Does slot s hold a lease on job (entry) of generation gen? The one test
 * of "this lease is on that job". */
int slot_holds(const struct ring_slot *s, uint32_t job, uint32_t gen);
/* The job of s's lease while the lease still counts: the job is live and
 * the entry holds the same job. NULL when the lease is void. */
struct ring_job *slot_lease_job(struct ring *r, const struct ring_slot *s);
/* Write the lease [lo, hi] of j into slot s, has_lease last: from here on
 * the range is the slot's, and goes back if its worker dies. */
void slot_record(struct ring *r, struct ring_slot *s, const struct ring_job *j,
		 uint64_t lo, uint64_t hi, uint64_t now);
/* The lease in s is over (back, or void). */
void slot_drop_lease(struct ring_slot *s);
/* Set the stop word of every lease on job of generation gen. */
void ring_stop_leases(struct ring *r, uint32_t job, uint32_t gen);
/* The live workers' rates into a: workers, mine (self's), fastest, all
 * (while a worker has no rate yet, the mean of those known stands in). */
void slot_rates(const struct ring *r, const struct ring_slot *self,
		struct lease_ask *a);
/* What the leases on job of generation gen still have to hash at now, as
 * far as their workers' rates tell. */
unsigned __int128 slot_work_on(const struct ring *r, uint32_t job, uint32_t gen,
			       uint64_t now);

/* ---- ring_sched.c: the schedule, and every derived field ---------------- */

/* The master changed j (its weight, its phase), or it was just taken in:
 * rank it again and put it where it belongs in the heap (or out). */
void sched_update(struct ring *r, struct ring_job *j);
/* A slot recorded a lease of j up to hi: j's progress moves past it, and
 * the lease counts. */
void sched_leased(struct ring *r, struct ring_job *j, uint64_t hi, uint64_t now);
/* [lo, hi] of j goes back to be leased again (not hashed). */
void sched_give_back(struct ring *r, struct ring_job *j, uint64_t lo, uint64_t hi);
/* One lease of j is back (hashed, stopped, or its worker gone). */
void sched_lease_back(struct ring *r, struct ring_job *j);
/* j's progress is none of its key's (a worker wrote over it): j starts
 * again from its start; values are hashed twice, none is skipped. */
void sched_restart(struct ring *r, struct ring_job *j);
/* j reached an end: its leases no longer count, it leaves the heap. */
void sched_ended(struct ring *r, struct ring_job *j);
/* Rebuild every derived field from the authoritative ones (a lock holder
 * died half-way through changing them). */
void sched_rebuild(struct ring *r);
/* The job the worker of s should lease from, and the size of its lease;
 * NULL when none. */
struct ring_job *sched_pick(struct ring *r, const struct ring_slot *s,
			    uint64_t chunk, uint64_t min_chunk, uint64_t now,
			    uint64_t *size);

#endif
