/* The third layer of the ring (see ring.h): the schedule, run by the
 * workers under the lock (ring_sched.c). Not for use outside shm/. */
#ifndef REVHASH_RING_SCHED_H
#define REVHASH_RING_SCHED_H

#include "shm/ring_slot.h"

/* Rank j afresh (the master changed it, or it was just taken in) and put
 * it where that says in the heap, or out of it. */
void sched_update(struct ring *r, struct ring_job *j);
/* A slot recorded a lease of j up to hi: j's progress moves past it, and
 * the lease counts. */
void sched_leased(struct ring *r, struct ring_job *j, uint64_t hi, uint64_t now);
/* The worker of s stays on j (NULL: on none) where the policy keeps a
 * worker on its job; sched_pick offers it j first while j is leasable. */
void sched_keep(const struct ring *r, struct ring_slot *s, const struct ring_job *j);
/* [lo, hi] of j goes back to be leased again (not hashed), unless j is
 * being released: nobody waits for its values. */
void sched_give_back(struct ring *r, struct ring_job *j, uint64_t lo, uint64_t hi);
/* One lease of j is back (hashed, stopped, or its worker gone). */
void sched_lease_back(struct ring *r, struct ring_job *j);
/* j's progress is none of its key's (a worker wrote over it): j starts
 * again from its start; values are hashed twice, none is skipped. */
void sched_restart(struct ring *r, struct ring_job *j);
/* j's entry holds a new use (gen): only leases of it count, the count of
 * an earlier use taken back with leases out is forgotten. */
void sched_recount(struct ring *r, struct ring_job *j);
/* j reached an end: its leases no longer count, it leaves the heap. */
void sched_ended(struct ring *r, struct ring_job *j);
/* Rebuild every derived field from the authoritative ones (a lock holder
 * died half-way through changing them). */
void sched_rebuild(struct ring *r);
/* The job the worker of s should lease from (the one it is kept on, the
 * best-ranked, or the second best, the better child of the heap's top,
 * where the policy leaves the best to faster workers) and the size of its
 * lease; NULL when none. */
struct ring_job *sched_pick(struct ring *r, const struct ring_slot *s,
			    uint64_t chunk, uint64_t min_chunk, uint64_t now,
			    uint64_t *size);

#endif
