/* The second layer of the ring (see ring.h): the worker slots and the
 * leases they hold (ring_slot.c). Not for use outside shm/. */
#ifndef REVHASH_RING_SLOT_H
#define REVHASH_RING_SLOT_H

#include "shm/ring_job.h"

/* Make r's lock (process-shared, robust) and every slot's semaphore over
 * whatever their words hold: 0, or -errno (logged) with none left made. */
int ring_make_sync(struct ring *r);
/* Does slot s hold a lease on job (entry) of generation gen? */
int slot_holds(const struct ring_slot *s, uint32_t job, uint32_t gen);
/* The job of s's lease while the lease still counts: the job is live and
 * the entry holds the same job. NULL when the lease is void. */
struct ring_job *slot_lease_job(struct ring *r, const struct ring_slot *s);
/* Write the lease [lo, hi] of j into slot s, has_lease last: from here on
 * the range is the slot's, and goes back if its worker dies. */
void slot_record(struct ring *r, struct ring_slot *s, const struct ring_job *j,
		 uint64_t lo, uint64_t hi, uint64_t now);
/* Set the stop word of every lease on job of generation gen. */
void slot_stop_leases(struct ring *r, uint32_t job, uint32_t gen);
/* The live workers' rates into a: workers, mine (self's), fastest, all
 * (while a worker has no rate yet, the mean of those known stands in). */
void slot_rates(const struct ring *r, const struct ring_slot *self,
		struct lease_ask *a);
/* What the leases on job of generation gen still have to hash at now, as
 * far as their workers' rates tell. */
unsigned __int128 slot_work_on(const struct ring *r, uint32_t job, uint32_t gen,
			       uint64_t now);

#endif
