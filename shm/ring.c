/* The job table and priority ring (see ring.h): the workers' side, which
 * owns the schedule. The master's side is in ring_master.c, the heap of
 * leasable jobs in ring_heap.c.
 *
 * Crash safety rests on store order inside the critical sections: a worker
 * publishes a lease in its slot (has_lease last) before it advances the job's
 * cursor, and publishes an answer before it drops its lease. Whatever prefix
 * of those stores a killed worker managed, every unhashed value is still
 * ahead of a cursor, in a returned range, or in a slot lease that is given
 * back (reclaim). The worst a death can cause is a range hashed twice.
 * Everything else the workers keep (the heap, the remaining counts, the
 * lease counts) is derived, and rebuilt from scratch by whoever recovers
 * the lock of a dead holder.
 *
 * The master's wishes travel as per-job bits in pending[] and the workers'
 * news as bits in changed[]; neither side ever waits for the other. */
#include "shm/ring.h"
#include "shm/ring_private.h"
#include "shm/clock.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A job shared among n workers goes out in pieces of at most 1/(n *
 * SPLIT_ROUNDS) of its range (see lease_size). */
#define SPLIT_ROUNDS 16

static void fail(const char *what, int err)
{
	fprintf(stderr, "revhash ring: %s: %s\n", what, strerror(err));
	abort();
}

int ring_init(struct ring *r, const struct rank_policy *policy)
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
	r->policy = *policy;
	for (uint32_t i = 0; i < RING_JOBS; i++) {
		r->freelist[i] = RING_JOBS - 1 - i;
		r->jobs[i].heap_pos = RING_NONE;
	}
	r->nfree = RING_JOBS;
	return 0;
}

void ring_free(struct ring *r)
{
	sem_destroy(&r->work);
	pthread_mutex_destroy(&r->lock);
}

/* ---- progress ------------------------------------------------------------ */

/* Values left to lease, as a 128-bit count (a whole 2^64 range fits). */
static unsigned __int128 remaining(const struct ring_job *j)
{
	return ring_remaining(&j->key, &j->p);
}

/* Put [lo, hi] of j back to be leased again. */
static void give_back(struct ring_job *j, uint64_t lo, uint64_t hi)
{
	if (j->p.nreturned < RING_RETURNED) {
		j->p.returned[j->p.nreturned].lo = lo;
		j->p.returned[j->p.nreturned].hi = hi;
		publish(j->p.nreturned, j->p.nreturned + 1);
	} else if (j->p.cursor_done || lo < j->p.next) {
		/* No room: rewind the cursor instead. Values between lo and
		 * the old cursor are hashed twice, which costs time but loses
		 * nothing. */
		j->p.next = lo;
		publish(j->p.cursor_done, 0);
	}
	j->rem = remaining(j);
}

/* ---- news for the master ------------------------------------------------- */

/* A lease on j just ended (or j just came in): close a closing job with
 * no lease left, or say a running one is exhausted. 1 when the master
 * should hear of it. */
static int settle(struct ring *r, struct ring_job *j)
{
	uint32_t idx = (uint32_t)(j - r->jobs);

	if (j->state == JOB_CLOSING && j->nleases == 0) {
		/* Parked with nothing left to hash: it is done, not parked. */
		if (!j->found && j->rem == 0 && peek(j->want) == WANT_PARK)
			publish(j->exhausted, 1);
		publish(j->state, JOB_CLOSED);
		flag(r->changed, idx);
		return 1;
	}
	if (j->state == JOB_ACTIVE && !j->found && !j->exhausted &&
	    j->rem == 0 && j->nleases == 0) {
		publish(j->exhausted, 1);
		flag(r->changed, idx);
		return 1;
	}
	return 0;
}

/* Every chunk of job idx out now may stop: its result no longer matters. */
static void stop_chunks(struct ring *r, uint32_t idx)
{
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct ring_slot *s = &r->slots[i];
		if (s->has_lease && s->lease_job == idx)
			publish(s->stop, 1);
	}
}

/* ---- applying the master's wishes ---------------------------------------- */

/* Make job idx what the master wants of it. Idempotent: running it twice,
 * or again after a holder died half-way through it, changes nothing. */
static int apply(struct ring *r, uint32_t idx)
{
	struct ring_job *j = &r->jobs[idx];
	uint32_t state = peek(j->state), want = peek(j->want);

	if (state == JOB_CLOSED)
		return 0; /* the master's again */
	if (state == JOB_FREE) {
		if (want == WANT_NONE)
			return 0;
		j->weight = j->want_weight;
		j->nleases = 0;
		j->rem = remaining(j);
		publish(j->state, want == WANT_ACTIVE ? JOB_ACTIVE : JOB_CLOSING);
	}
	/* A released job's chunks may stop (also one released while being
	 * parked); a parked one's are its progress and run to their end. */
	if (want == WANT_RELEASE)
		stop_chunks(r, idx);
	if (j->state == JOB_ACTIVE && want == WANT_ACTIVE)
		j->weight = j->want_weight;
	else if (j->state == JOB_ACTIVE)
		publish(j->state, JOB_CLOSING);
	ring_reposition(r, j);
	return settle(r, j);
}

/* The lease in slot s is no longer its worker's: give it back. */
static int reclaim(struct ring *r, struct ring_slot *s)
{
	struct ring_job *j = &r->jobs[s->lease_job];
	int tell = 0;

	if (j->gen == s->lease_gen && j->state != JOB_FREE && j->state != JOB_CLOSED) {
		if (!j->found && peek(j->want) != WANT_RELEASE)
			give_back(j, s->lease_lo, s->lease_hi);
		publish(s->has_lease, 0);
		j->nleases--;
		ring_reposition(r, j);
		tell = settle(r, j);
	} else {
		publish(s->has_lease, 0);
	}
	return tell;
}

/* Leases whose worker is no longer in its slot (the master cleared or
 * replaced the pid when it reaped it). */
static int reclaim_dead(struct ring *r)
{
	int tell = 0;

	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct ring_slot *s = &r->slots[i];
		int32_t pid = peek(s->pid);
		if (s->has_lease && (pid == 0 || s->lease_pid != pid))
			tell |= reclaim(r, s);
	}
	return tell;
}

/* Apply what the master flagged since the last look. */
static int apply_pending(struct ring *r)
{
	uint64_t words;
	int tell = 0;

	if (peek(r->reclaim) && __atomic_exchange_n(&r->reclaim, 0, __ATOMIC_ACQUIRE))
		tell |= reclaim_dead(r);
	if (!peek(r->pending_any))
		return tell;
	words = __atomic_exchange_n(&r->pending_any, 0, __ATOMIC_ACQUIRE);
	while (words) {
		unsigned w = (unsigned)__builtin_ctzll(words);
		uint64_t bits = __atomic_exchange_n(&r->pending[w], 0, __ATOMIC_ACQUIRE);

		words &= words - 1;
		while (bits) {
			tell |= apply(r, w * 64 + (unsigned)__builtin_ctzll(bits));
			bits &= bits - 1;
		}
	}
	return tell;
}

/* The holder of the lock died half-way through something: rebuild every
 * derived field from the authoritative ones, apply every wish again (its
 * bits may have been taken and lost) and let the master look at all. */
static void repair(struct ring *r)
{
	r->nheap = 0;
	for (uint32_t i = 0; i < RING_JOBS; i++) {
		struct ring_job *j = &r->jobs[i];
		j->heap_pos = RING_NONE;
		j->nleases = 0;
		if (j->state == JOB_ACTIVE || j->state == JOB_CLOSING)
			j->rem = remaining(j);
	}
	for (unsigned s = 0; s < RING_WORKERS; s++) {
		const struct ring_slot *sl = &r->slots[s];
		struct ring_job *j = &r->jobs[sl->lease_job % RING_JOBS];
		if (sl->has_lease && j->gen == sl->lease_gen)
			j->nleases++;
	}
	for (uint32_t i = 0; i < RING_JOBS; i++) {
		apply(r, i);
		if (peek(r->jobs[i].state) != JOB_FREE)
			flag(r->changed, i);
	}
	publish(r->reclaim, 1);
}

void ring_lock(struct ring *r)
{
	int rc = pthread_mutex_lock(&r->lock);

	if (rc != 0 && rc != EOWNERDEAD)
		fail("pthread_mutex_lock", rc);
	/* Our own id, from the lock (see ring_lock_holder): no system call
	 * on the path of every lease. */
	r->lock_owner = ring_lock_holder(r);
	if (rc == EOWNERDEAD) {
		pthread_mutex_consistent(&r->lock);
		r->repairs++;
		repair(r);
	}
}

void ring_unlock(struct ring *r)
{
	int rc;

	r->lock_owner = 0;
	if ((rc = pthread_mutex_unlock(&r->lock)))
		fail("pthread_mutex_unlock", rc);
}

/* Lock and bring the ring up to date with the master. */
static int enter(struct ring *r, struct ring_slot *s)
{
	uint32_t repairs = r->repairs;
	int tell;

	ring_lock(r);
	tell = apply_pending(r) | (r->repairs != repairs);
	__atomic_fetch_add(&s->beat, 1, __ATOMIC_RELAXED);
	return tell;
}

/* ---- test hooks ---------------------------------------------------------- */

static int take_hook(struct ring *r, enum ring_hook hook)
{
	uint32_t n = peek(r->hook[hook]);

	if (!peek(r->hooks))
		return 0;
	while (n && !__atomic_compare_exchange_n(&r->hook[hook], &n, n - 1, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	return n != 0;
}

int ring_hook_fire(struct ring *r, enum ring_hook hook)
{
	return take_hook(r, hook);
}

/* Die or freeze while holding the lock, half-way through a lease. */
static void maybe_misbehave(struct ring *r)
{
	if (take_hook(r, HOOK_DIE_IN_LOCK))
		raise(SIGKILL);
	if (take_hook(r, HOOK_STOP_IN_LOCK))
		raise(SIGSTOP);
}

/* ---- the workers' side --------------------------------------------------- */

int ring_worker_start(struct ring *r, unsigned slot, pid_t self)
{
	struct ring_slot *s = &r->slots[slot];
	int tell;

	publish(s->pid, (int32_t)self);
	tell = enter(r, s);
	if (s->has_lease) /* a predecessor's, even if it had our pid */
		tell |= reclaim(r, s);
	s->keep_job = RING_NONE;
	ring_unlock(r);
	return tell;
}

/* The job slot s should lease from: without preemption the one it was on,
 * while there is more of it; else the best-ranked. */
static struct ring_job *pick(struct ring *r, const struct ring_slot *s)
{
	if (!r->policy.preempt && s->keep_job < RING_JOBS) {
		struct ring_job *j = &r->jobs[s->keep_job];
		if (j->gen == s->keep_gen && ring_leasable(r, j))
			return j;
	}
	return r->nheap ? &r->jobs[r->heap[0]] : NULL;
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

/* chunk, cut down to limit where that is smaller, but not below min_chunk. */
static uint64_t cut(uint64_t chunk, unsigned __int128 limit, uint64_t min_chunk)
{
	if (limit >= chunk)
		return chunk;
	return limit > min_chunk ? (uint64_t)limit : min_chunk;
}

/* The size of the next lease of j: chunk, or less when j is shared among
 * the n live workers (never below min_chunk, nor 1):
 *  - j goes out in pieces of at most 1/(n * SPLIT_ROUNDS) of its range
 *    (unless that is below min_chunk), so the workers sweep the range
 *    side by side, close to the order of one worker n times as fast. In
 *    halves, an answer near the end of the first half came as late as if
 *    one worker hashed the whole; the mean is the same, but a request's
 *    latency (and a run's score) then depends on where its answer lies;
 *  - its tail is shared evenly. The work counts what the workers on j
 *    have left of their leases: the tail of a job, less than a piece
 *    each, is shared with the worker about to finish its last piece
 *    instead of going whole to the first one back. */
static uint64_t lease_size(const struct ring *r, const struct ring_job *j,
			   uint64_t chunk, uint64_t min_chunk, uint64_t now)
{
	unsigned n = peek(r->nworkers);
	unsigned __int128 work = j->rem, share, piece;

	if (chunk == 0)
		chunk = 1;
	if (min_chunk == 0)
		min_chunk = 1;
	if (!r->policy.split || n < 2)
		return chunk;
	piece = span(j->key.start, j->key.end) / ((unsigned __int128)n * SPLIT_ROUNDS);
	chunk = cut(chunk, piece, min_chunk);
	for (unsigned i = 0; i < RING_WORKERS && j->nleases; i++) {
		const struct ring_slot *o = &r->slots[i];
		if (peek(o->has_lease) && o->lease_gen == j->gen &&
		    &r->jobs[o->lease_job] == j)
			work += lease_left(o, now);
	}
	share = (work + n - 1) / n;
	return cut(chunk, share, min_chunk);
}

int ring_lease(struct ring *r, unsigned slot, uint64_t chunk,
	       uint64_t min_chunk, struct ring_lease *out)
{
	struct ring_slot *s = &r->slots[slot];
	struct ring_job *j;
	uint64_t lo, hi, limit, size, now;

	out->tell = enter(r, s);
	now = clock_ns(); /* after the lock: its wait may be long */
	j = pick(r, s);
	if (!j) {
		ring_unlock(r);
		return -EAGAIN;
	}
	if (j->p.nreturned) {
		lo = j->p.returned[j->p.nreturned - 1].lo;
		limit = j->p.returned[j->p.nreturned - 1].hi;
	} else {
		lo = j->p.next;
		limit = j->key.end;
	}
	size = lease_size(r, j, chunk, min_chunk, now);
	hi = limit - lo < size ? limit : lo + size - 1;

	publish(s->stop, 0);
	s->lease_pid = peek(s->pid);
	s->lease_job = (uint32_t)(j - r->jobs);
	s->lease_gen = j->gen;
	s->lease_lo = lo;
	s->lease_hi = hi;
	s->lease_ns = now;
	publish(s->has_lease, 1);
	maybe_misbehave(r);

	if (j->p.nreturned) {
		if (hi == limit)
			publish(j->p.nreturned, j->p.nreturned - 1);
		else
			j->p.returned[j->p.nreturned - 1].lo = hi + 1;
	} else if (hi == limit) {
		publish(j->p.cursor_done, 1);
	} else {
		j->p.next = hi + 1;
	}
	if (!j->p.started) {
		publish(j->p.started, 1);
		publish(j->first_lease_ns, now);
	}
	j->nleases++;
	j->rem -= span(lo, hi);
	ring_reposition(r, j);
	s->keep_job = s->lease_job;
	s->keep_gen = j->gen;

	out->job = s->lease_job;
	out->gen = j->gen;
	out->lo = lo;
	out->hi = hi;
	out->stop = &s->stop;
	memcpy(out->digest, j->key.digest, 32);
	ring_unlock(r);
	return 0;
}

int ring_finish(struct ring *r, unsigned slot, int result, uint64_t x)
{
	struct ring_slot *s = &r->slots[slot];
	struct ring_job *j = &r->jobs[s->lease_job];
	int tell = enter(r, s);

	if (!s->has_lease || j->gen != s->lease_gen ||
	    peek(j->state) == JOB_FREE || peek(j->state) == JOB_CLOSED) {
		/* Reclaimed meanwhile (we were taken for dead): it is back. */
		publish(s->has_lease, 0);
		ring_unlock(r);
		return tell;
	}
	if (result == 1 && !j->found) {
		j->answer = x;
		publish(j->found, 1);
		publish(j->found_ns, clock_ns());
		stop_chunks(r, s->lease_job); /* the other chunks of it */
		flag(r->changed, s->lease_job);
		tell = 1;
	} else if (result < 0 && !j->found && peek(j->want) != WANT_RELEASE &&
		   x >= s->lease_lo && x <= s->lease_hi) {
		give_back(j, x, s->lease_hi); /* stopped early: the rest is owed */
	}
	publish(s->has_lease, 0);
	j->nleases--;
	s->chunks++;
	ring_reposition(r, j);
	tell |= settle(r, j);
	ring_unlock(r);
	return tell;
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
