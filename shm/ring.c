/* The job table and priority ring (see ring.h).
 *
 * Crash safety rests on store order inside the critical sections: a worker
 * publishes a lease in its slot (has_lease last) before it advances the job's
 * cursor, and publishes an answer before it drops its lease. Whatever prefix of
 * those stores a killed worker managed, every unhashed value is still ahead of
 * a cursor, in a returned range, or in a slot lease that the master gives back
 * (ring_reclaim). The worst a death can cause is a range hashed twice. */
#include "shm/ring.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Keep the compiler from reordering the stores that crash safety depends on;
 * x86 and the kernel keep the hardware order. */
#define publish(lhs, v) __atomic_store_n(&(lhs), (v), __ATOMIC_RELEASE)

int ring_init(struct ring *r)
{
	pthread_mutexattr_t a;
	int rc;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	rc = pthread_mutex_init(&r->lock, &a);
	pthread_mutexattr_destroy(&a);
	if (rc)
		return -rc;
	if (sem_init(&r->work, 1, 0) < 0) {
		rc = -errno;
		pthread_mutex_destroy(&r->lock);
		return rc;
	}
	for (uint32_t i = 0; i < RING_JOBS; i++)
		r->freelist[i] = RING_JOBS - 1 - i;
	r->nfree = RING_JOBS;
	return 0;
}

void ring_free(struct ring *r)
{
	sem_destroy(&r->work);
	pthread_mutex_destroy(&r->lock);
}

void ring_lock(struct ring *r)
{
	int rc = pthread_mutex_lock(&r->lock);

	if (rc == EOWNERDEAD) {
		/* The holder died mid-section. Store order keeps the data
		 * consistent (see the top of this file); the master gives the
		 * dead worker's lease back when it reaps it. */
		pthread_mutex_consistent(&r->lock);
		r->repairs++;
	}
	r->lock_owner = getpid();
}

void ring_unlock(struct ring *r)
{
	r->lock_owner = 0;
	pthread_mutex_unlock(&r->lock);
}

static void offer_best(struct ring *r, struct ring_job *j);

int ring_submit(struct ring *r, const uint8_t digest[32], uint64_t start,
		uint64_t end, uint64_t weight, uint32_t *job)
{
	struct ring_job *j;

	ring_lock(r);
	if (r->nfree == 0) {
		ring_unlock(r);
		return -ENOSPC;
	}
	*job = r->freelist[--r->nfree];
	j = &r->jobs[*job];
	j->gen++;
	j->seq = r->seq++;
	memcpy(j->digest, digest, 32);
	j->start = start;
	j->end = end;
	j->next = start;
	j->cursor_done = 0;
	j->nreturned = 0;
	j->weight = weight ? weight : 1;
	j->found = 0;
	j->answer = 0;
	r->active[r->nactive++] = *job;
	publish(j->state, JOB_ACTIVE);
	offer_best(r, j);
	ring_unlock(r);
	return 0;
}

void ring_set_weight(struct ring *r, uint32_t job, uint64_t weight)
{
	ring_lock(r);
	r->jobs[job].weight = weight ? weight : 1;
	r->best_valid = 0;
	ring_unlock(r);
}

/* Is any slot leasing the job? */
static int leased(const struct ring *r, uint32_t job)
{
	for (unsigned s = 0; s < RING_WORKERS; s++) {
		const struct ring_slot *sl = &r->slots[s];
		if (sl->has_lease && sl->lease_job == job &&
		    sl->lease_gen == r->jobs[job].gen)
			return 1;
	}
	return 0;
}

enum ring_outcome ring_check(struct ring *r, uint32_t job, uint64_t *answer)
{
	struct ring_job *j = &r->jobs[job];
	enum ring_outcome out = RING_RUNNING;

	ring_lock(r);
	if (j->found) {
		*answer = j->answer;
		out = RING_FOUND;
	} else if (j->state == JOB_ACTIVE && j->cursor_done &&
		   j->nreturned == 0 && !leased(r, job)) {
		out = RING_EXHAUSTED;
	}
	ring_unlock(r);
	return out;
}

int ring_release(struct ring *r, uint32_t job)
{
	struct ring_job *j = &r->jobs[job];
	int freed = 0;

	ring_lock(r);
	if (j->state == JOB_ACTIVE)
		publish(j->state, JOB_DONE);
	r->best_valid = 0;
	if (j->state == JOB_DONE && !leased(r, job)) {
		for (uint32_t i = 0; i < r->nactive; i++) {
			if (r->active[i] == job) {
				r->active[i] = r->active[--r->nactive];
				break;
			}
		}
		j->state = JOB_FREE;
		j->gen++;
		r->freelist[r->nfree++] = job;
		freed = 1;
	}
	ring_unlock(r);
	return freed;
}

/* Put [lo, hi] of an active job back to be leased again. */
static void give_back(struct ring_job *j, uint64_t lo, uint64_t hi)
{
	if (j->nreturned < RING_RETURNED) {
		j->returned[j->nreturned].lo = lo;
		j->returned[j->nreturned].hi = hi;
		publish(j->nreturned, j->nreturned + 1);
		return;
	}
	/* No room: rewind the cursor instead. Values between lo and the old
	 * cursor are hashed twice, which costs time but loses nothing. */
	if (j->cursor_done || lo < j->next) {
		j->next = lo;
		j->cursor_done = 0;
	}
}

void ring_reclaim(struct ring *r, unsigned slot)
{
	struct ring_slot *s = &r->slots[slot];

	ring_lock(r);
	if (s->has_lease) {
		struct ring_job *j = &r->jobs[s->lease_job];
		if (j->gen == s->lease_gen && j->state == JOB_ACTIVE && !j->found)
			give_back(j, s->lease_lo, s->lease_hi);
		s->has_lease = 0;
		r->best_valid = 0; /* more work: its rank fell */
	}
	s->pid = 0;
	s->state = SLOT_EMPTY;
	s->retire = 0;
	ring_unlock(r);
}

void ring_wake(struct ring *r, unsigned n)
{
	int v = 0;

	sem_getvalue(&r->work, &v);
	for (; v < (int)n; v++)
		sem_post(&r->work);
}

/* Values left to lease in a job, as a 128-bit count (a whole 2^64 range fits). */
static unsigned __int128 remaining(const struct ring_job *j)
{
	unsigned __int128 n = 0;

	if (!j->cursor_done)
		n = (unsigned __int128)(j->end - j->next) + 1;
	for (uint32_t i = 0; i < j->nreturned; i++)
		n += (unsigned __int128)(j->returned[i].hi - j->returned[i].lo) + 1;
	return n;
}

/* Weighted shortest remaining work first: a outranks b when
 * weight_a / rem_a > weight_b / rem_b; ties go to the older job. */
static int outranks(const struct ring_job *a, unsigned __int128 rem_a,
		    const struct ring_job *b, unsigned __int128 rem_b)
{
	unsigned __int128 lhs = a->weight * rem_b, rhs = b->weight * rem_a;

	if (lhs != rhs)
		return lhs > rhs;
	return a->seq < b->seq;
}

/* Can the job be leased from? Then *rem is what is left of it. */
static int leasable(const struct ring_job *j, unsigned __int128 *rem)
{
	if (j->state != JOB_ACTIVE || j->found)
		return 0;
	*rem = remaining(j);
	return *rem != 0;
}

/* The best-ranked job. Leasing only raises the leased job's rank, so the
 * best stays best until something clears best_valid; only then are all
 * jobs compared, which keeps a lease O(1) with thousands of jobs queued. */
static struct ring_job *best_job(struct ring *r)
{
	struct ring_job *best = NULL;
	unsigned __int128 best_rem = 0, rem;

	if (r->best_valid && leasable(&r->jobs[r->best], &rem))
		return &r->jobs[r->best];
	for (uint32_t i = 0; i < r->nactive; i++) {
		struct ring_job *j = &r->jobs[r->active[i]];

		if (!leasable(j, &rem))
			continue;
		if (!best || outranks(j, rem, best, best_rem)) {
			best = j;
			best_rem = rem;
		}
	}
	if (best) {
		r->best = (uint32_t)(best - r->jobs);
		r->best_valid = 1;
	}
	return best;
}

/* A new job j: it becomes the best if it outranks the cached best. A cached
 * best that can no longer be leased (its last range just went) says nothing
 * of the other jobs: then all are compared at the next lease. */
static void offer_best(struct ring *r, struct ring_job *j)
{
	struct ring_job *b = &r->jobs[r->best];
	unsigned __int128 rem_j, rem_b;

	if (!r->best_valid || !leasable(j, &rem_j))
		return;
	if (!leasable(b, &rem_b))
		r->best_valid = 0;
	else if (outranks(j, rem_j, b, rem_b))
		r->best = (uint32_t)(j - r->jobs);
}

/* Test hook: die while holding the lock, half-way through a lease. */
static void maybe_die(struct ring *r)
{
	if (r->hooks && r->die_in_lock) {
		r->die_in_lock--;
		raise(SIGKILL);
	}
}

int ring_lease(struct ring *r, unsigned slot, uint64_t chunk,
	       struct ring_lease *out)
{
	struct ring_slot *s = &r->slots[slot];
	struct ring_job *j;
	uint64_t lo, hi, limit;

	if (chunk == 0)
		chunk = 1;
	ring_lock(r);
	j = best_job(r);
	if (!j) {
		ring_unlock(r);
		return -EAGAIN;
	}
	if (j->nreturned) {
		lo = j->returned[j->nreturned - 1].lo;
		limit = j->returned[j->nreturned - 1].hi;
	} else {
		lo = j->next;
		limit = j->end;
	}
	hi = limit - lo < chunk ? limit : lo + chunk - 1;

	s->lease_job = (uint32_t)(j - r->jobs);
	s->lease_gen = j->gen;
	s->lease_lo = lo;
	s->lease_hi = hi;
	publish(s->has_lease, 1);
	maybe_die(r);

	if (j->nreturned) {
		if (hi == limit)
			publish(j->nreturned, j->nreturned - 1);
		else
			j->returned[j->nreturned - 1].lo = hi + 1;
	} else if (hi == limit) {
		publish(j->cursor_done, 1);
	} else {
		j->next = hi + 1;
	}
	out->job = s->lease_job;
	out->gen = j->gen;
	out->lo = lo;
	out->hi = hi;
	memcpy(out->digest, j->digest, 32);
	ring_unlock(r);
	return 0;
}

int ring_finish(struct ring *r, unsigned slot, int found, uint64_t answer)
{
	struct ring_slot *s = &r->slots[slot];
	struct ring_job *j = &r->jobs[s->lease_job];
	int tell = 0;

	ring_lock(r);
	if (s->has_lease && j->gen == s->lease_gen && j->state != JOB_FREE) {
		if (found && !j->found) {
			j->answer = answer;
			publish(j->found, 1);
			r->best_valid = 0;
			tell = 1;
		}
		publish(s->has_lease, 0);
		if (j->state != JOB_ACTIVE)
			tell = 1; /* the master waits for leases to drain */
		else if (!j->found && j->cursor_done && j->nreturned == 0 &&
			 !leased(r, s->lease_job))
			tell = 1; /* exhausted: nothing found anywhere */
	} else {
		publish(s->has_lease, 0);
	}
	s->chunks++;
	if (tell)
		__atomic_fetch_or(&r->changed[s->lease_job / 64],
				  1ull << (s->lease_job % 64), __ATOMIC_RELEASE);
	ring_unlock(r);
	return tell;
}

unsigned ring_changed(struct ring *r, uint32_t jobs[RING_JOBS])
{
	unsigned n = 0;

	for (unsigned w = 0; w < RING_JOBS / 64; w++) {
		uint64_t bits;

		if (!__atomic_load_n(&r->changed[w], __ATOMIC_RELAXED))
			continue;
		bits = __atomic_exchange_n(&r->changed[w], 0, __ATOMIC_ACQUIRE);
		while (bits) {
			jobs[n++] = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
		}
	}
	return n;
}

void ring_wait(struct ring *r, unsigned timeout_ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (sem_clockwait(&r->work, CLOCK_MONOTONIC, &ts) < 0 && errno == EINTR)
		;
}
