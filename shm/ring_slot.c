/* The worker slots of the ring (see ring_slot.h) and the leases they
 * hold: what the layers above share of a slot. Whether a slot's lease is
 * on a given job is decided in one place, slot_holds(): a lease, on that
 * entry, of that job's generation (an entry is reused; a lease of its
 * earlier job is void). */
#include "shm/ring_slot.h"
#include "lib/log.h"

#include <errno.h>
#include <string.h>

int ring_make_sync(struct ring *r)
{
	pthread_mutexattr_t a;
	int rc;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	rc = pthread_mutex_init(&r->lock, &a);
	pthread_mutexattr_destroy(&a);
	if (rc) {
		log_error("pthread_mutex_init: %s", strerror(rc));
		return -rc;
	}
	for (unsigned i = 0; i < RING_WORKERS; i++)
		if (sem_init(&r->slots[i].wake, 1, 0) < 0) {
			rc = -errno;
			log_error("sem_init: %s", strerror(-rc));
			while (i--)
				sem_destroy(&r->slots[i].wake);
			pthread_mutex_destroy(&r->lock);
			return rc;
		}
	return 0;
}

int slot_holds(const struct ring_slot *s, uint32_t job, uint32_t gen)
{
	return peek(s->has_lease) && peek(s->lease_job) == job &&
	       peek(s->lease_gen) == gen;
}

/* The phase is read first: once the job has ended, the master may reuse
 * the entry (a new gen, published before its phase) between two reads; a
 * live phase read first brings its own job's gen, which cannot change
 * while the lock is held. The master calls this without the lock
 * (ring_preempt), but only the master bumps a gen. */
struct ring_job *slot_lease_job(struct ring *r, const struct ring_slot *s)
{
	uint32_t idx = peek(s->lease_job) % RING_JOBS;
	struct ring_job *j = &r->jobs[idx];

	if (!job_live(peek(j->phase)) || !slot_holds(s, idx, peek(j->gen)))
		return NULL;
	return j;
}

void slot_record(struct ring *r, struct ring_slot *s, const struct ring_job *j,
		 uint64_t lo, uint64_t hi, uint64_t now)
{
	/* Each word published: the master reads them without the lock. */
	publish(s->stop, 0);
	publish(s->lease_pid, peek(s->pid));
	publish(s->lease_job, (uint32_t)(j - r->jobs));
	publish(s->lease_gen, j->gen);
	publish(s->lease_lo, lo);
	publish(s->lease_hi, hi);
	publish(s->lease_ns, now);
	publish(s->has_lease, 1);
}

void slot_stop_leases(struct ring *r, uint32_t job, uint32_t gen)
{
	for (unsigned i = 0; i < RING_WORKERS; i++)
		if (slot_holds(&r->slots[i], job, gen))
			publish(r->slots[i].stop, 1);
}

void slot_rates(const struct ring *r, const struct ring_slot *self,
		struct lease_ask *a)
{
	uint64_t known = 0, fill;
	unsigned nknown = 0, unknown_other = 0;

	a->workers = 0;
	a->fastest = a->fastest_other = 0;
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		uint64_t rate = peek(r->slots[i].rate);
		if (!peek(r->slots[i].pid))
			continue;
		a->workers++;
		known += rate;
		nknown += rate != 0;
		a->fastest = rate > a->fastest ? rate : a->fastest;
		if (&r->slots[i] != self) {
			a->fastest_other = rate > a->fastest_other ? rate : a->fastest_other;
			unknown_other += rate == 0;
		}
	}
	fill = nknown ? known / nknown : 1;
	a->all = known + (unsigned __int128)fill * (a->workers - nknown);
	a->mine = peek(self->rate) ? peek(self->rate) : fill;
	a->fastest = a->fastest > fill ? a->fastest : fill;
	if (unknown_other && a->fastest_other < fill)
		a->fastest_other = fill;
}

/* What the worker in slot s has left of its lease at now, as far as its
 * rate tells: all of it while the rate is unknown. */
static unsigned __int128 lease_left(const struct ring_slot *s, uint64_t now)
{
	unsigned __int128 size = span(s->lease_lo, s->lease_hi);
	uint64_t rate = peek(s->rate), t = now > s->lease_ns ? now - s->lease_ns : 0;
	unsigned __int128 done = (unsigned __int128)t * rate / 1000000000u;

	return !rate ? size : done >= size ? 0 : size - done;
}

unsigned __int128 slot_work_on(const struct ring *r, uint32_t job, uint32_t gen,
			       uint64_t now)
{
	unsigned __int128 work = 0;

	for (unsigned i = 0; i < RING_WORKERS; i++)
		if (slot_holds(&r->slots[i], job, gen))
			work += lease_left(&r->slots[i], now);
	return work;
}
