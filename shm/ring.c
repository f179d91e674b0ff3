/* The job table and priority ring (see ring.h): the workers' side, which
 * owns the schedule. A job's phase, progress and heap place are in
 * ring_job.c; the master's side is in ring_master.c.
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
 * The master's changes travel as per-job bits in pending[] and the workers'
 * news as bits in changed[]; neither side ever waits for the other. */
#include "shm/ring.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "shm/ring_private.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* A job shared among n workers goes out in pieces of at most 1/(n *
 * SPLIT_ROUNDS) of its range (see lease_size). */
#define SPLIT_ROUNDS 16

static void fail(const char *what, int err)
{
	log_error("ring: %s: %s", what, strerror(err));
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
	if (rc) {
		log_error("pthread_mutex_init: %s", strerror(rc));
		return -rc;
	}
	if (sem_init(&r->work, 1, 0) < 0) {
		rc = -errno;
		log_error("sem_init: %s", strerror(-rc));
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

/* ---- a job's ends --------------------------------------------------------- */

/* j, of generation gen, has just reached an end: its leases are void
 * (those out may stop), it leaves the heap, and the master hears of it.
 * The entry is the master's now, which may already have reused it: gen is
 * the one read before the move. */
static int end(struct ring *r, struct ring_job *j, uint32_t gen)
{
	uint32_t idx = (uint32_t)(j - r->jobs);

	ring_stop_leases(r, idx, gen);
	j->nleases = 0;
	ring_reposition(r, j);
	flag(r->changed, idx);
	return 1;
}

/* After a lease of j came back or a change of the master's was taken in:
 * move j to the end it has reached, if any. 1 when it got there. */
static int conclude(struct ring *r, struct ring_job *j)
{
	uint32_t gen = peek(j->gen); /* a live job's: it cannot change under us */

	for (;;) {
		enum ring_phase now = peek(j->phase), to;

		if (j->nleases)
			return 0; /* its leases are its progress, or its answer */
		if (now == PHASE_RUNNING && j->rem == 0)
			to = PHASE_EXHAUSTED;
		else if (now == PHASE_PARKING)
			to = j->rem ? PHASE_PARKED : PHASE_EXHAUSTED;
		else if (now == PHASE_RELEASING)
			to = PHASE_CLOSED;
		else
			return 0;
		if (ring_move(j, now, to))
			return end(r, j, gen);
	}
}

/* A lease of j holds its answer x: the job is FOUND, whatever else the
 * master asked of it meanwhile (a released job's late answer still goes to
 * the cache). 1 when this made it so. */
static int found(struct ring *r, struct ring_job *j, uint64_t x)
{
	uint32_t gen = peek(j->gen);
	enum ring_phase now;

	j->answer = x;
	publish(j->found_ns, clock_ns());
	do {
		now = peek(j->phase);
		if (!ring_live(now))
			return 0;
	} while (!ring_move(j, now, PHASE_FOUND));
	return end(r, j, gen);
}

/* ---- taking in what the master changed ------------------------------------ */

/* Bring job idx up to date with the master: take a NEW job in, rank it by
 * its weight, stop a released one's leases, and conclude. Idempotent:
 * running it twice, or again after a holder died half-way through it,
 * changes nothing. 1 when the job reached an end. */
static int apply(struct ring *r, uint32_t idx)
{
	struct ring_job *j = &r->jobs[idx];
	enum ring_phase now = peek(j->phase);

	if (now == PHASE_NEW) {
		j->nleases = 0;
		j->rem = ring_job_remaining(j);
		now = ring_move(j, PHASE_NEW, PHASE_RUNNING) ? PHASE_RUNNING
							     : peek(j->phase);
	}
	if (!ring_live(now))
		return 0;
	if (now == PHASE_RELEASING) /* a parking job's run on: progress */
		ring_stop_leases(r, idx, peek(j->gen));
	ring_reposition(r, j);
	return conclude(r, j);
}

/* The job of s's lease while the lease still counts: the job is live and
 * the entry holds the same job (gen). NULL when the lease is void. The
 * phase is read first: once the job has ended, the master may take the
 * entry back, fill it with another job (a new gen, published before its
 * phase) and release it, all between two reads; a live phase read first
 * brings the gen of the job it belongs to, and a job live under the lock
 * cannot end, so its gen cannot change, before the lock is dropped. */
static struct ring_job *lease_job(struct ring *r, const struct ring_slot *s)
{
	struct ring_job *j = &r->jobs[s->lease_job % RING_JOBS];

	if (!s->has_lease || !ring_live(peek(j->phase)) || peek(j->gen) != s->lease_gen)
		return NULL;
	return j;
}

/* The lease in slot s is no longer its worker's: give it back. */
static int reclaim(struct ring *r, struct ring_slot *s)
{
	struct ring_job *j = lease_job(r, s);

	if (!j) {
		publish(s->has_lease, 0);
		return 0;
	}
	if (peek(j->phase) != PHASE_RELEASING)
		ring_give_back(j, s->lease_lo, s->lease_hi);
	publish(s->has_lease, 0);
	j->nleases--;
	ring_reposition(r, j);
	return conclude(r, j);
}

/* Leases whose worker is no longer in its slot (the master cleared the pid
 * when it reaped it, or a new worker has taken the slot). */
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
 * derived field from the authoritative ones, apply every change again (its
 * bits may have been taken and lost) and let the master look at all. */
static void repair(struct ring *r)
{
	r->nheap = 0;
	for (uint32_t i = 0; i < RING_JOBS; i++) {
		struct ring_job *j = &r->jobs[i];
		j->heap_pos = RING_NONE;
		j->nleases = 0;
		if (ring_live(peek(j->phase)))
			j->rem = ring_job_remaining(j);
	}
	for (unsigned s = 0; s < RING_WORKERS; s++) {
		struct ring_job *j = lease_job(r, &r->slots[s]);
		if (j)
			j->nleases++;
	}
	for (uint32_t i = 0; i < RING_JOBS; i++) {
		apply(r, i);
		if (peek(r->jobs[i].phase) != PHASE_FREE)
			flag(r->changed, i);
	}
	publish(r->reclaim, 1);
}

void ring_lock(struct ring *r)
{
	int rc = pthread_mutex_lock(&r->lock);

	if (rc != 0 && rc != EOWNERDEAD)
		fail("pthread_mutex_lock", rc);
	if (rc == EOWNERDEAD) {
		pthread_mutex_consistent(&r->lock);
		r->repairs++;
		repair(r);
	}
}

void ring_unlock(struct ring *r)
{
	int rc = pthread_mutex_unlock(&r->lock);

	if (rc)
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

int ring_hook_fire(struct ring *r, enum ring_hook hook)
{
	uint32_t n = peek(r->hook[hook]);

	if (!peek(r->hooks))
		return 0;
	while (n && !__atomic_compare_exchange_n(&r->hook[hook], &n, n - 1, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	return n != 0;
}

/* Die or freeze inside the lock, at the worst place: a lease published in
 * the slot, the job's cursor not yet moved past it. */
static void misbehave_here(struct ring *r)
{
	if (ring_hook_fire(r, HOOK_DIE_IN_LOCK))
		raise(SIGKILL);
	if (ring_hook_fire(r, HOOK_STOP_IN_LOCK))
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

/* What the live workers hash at, for sharing a job among them: the rate
 * each measured, or, while a worker has none yet, the mean of those
 * known (all alike while none is known). */
struct rates {
	unsigned n;             /* live workers */
	uint64_t mine;          /* the leasing worker's */
	uint64_t fastest;       /* the fastest one's */
	unsigned __int128 all;  /* all of them together */
};

static void weigh(const struct ring *r, const struct ring_slot *self, struct rates *w)
{
	uint64_t known = 0, fill;
	unsigned nknown = 0;

	w->n = 0;
	w->fastest = 0;
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		uint64_t rate = peek(r->slots[i].rate);
		if (!peek(r->slots[i].pid))
			continue;
		w->n++;
		known += rate;
		nknown += rate != 0;
		w->fastest = rate > w->fastest ? rate : w->fastest;
	}
	fill = nknown ? known / nknown : 1;
	w->all = known + (unsigned __int128)fill * (w->n - nknown);
	w->mine = peek(self->rate) ? peek(self->rate) : fill;
	w->fastest = w->fastest > fill ? w->fastest : fill;
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

/* j's work: what it has left to lease, and what the workers on it have left
 * of their leases. */
static unsigned __int128 work_left(const struct ring *r, const struct ring_job *j,
				   uint64_t now)
{
	unsigned __int128 work = j->rem;

	for (unsigned i = 0; i < RING_WORKERS && j->nleases; i++) {
		const struct ring_slot *o = &r->slots[i];
		if (peek(o->has_lease) && o->lease_gen == j->gen &&
		    &r->jobs[o->lease_job] == j)
			work += lease_left(o, now);
	}
	return work;
}

/* chunk, cut down to limit where that is smaller, but not below min_chunk. */
static uint64_t cut(uint64_t chunk, unsigned __int128 limit, uint64_t min_chunk)
{
	if (limit >= chunk)
		return chunk;
	return limit > min_chunk ? (uint64_t)limit : min_chunk;
}

/* The size of the next lease of j for a worker of s: chunk (about 2 ms of
 * its own rate), or less when j is shared among the live workers, each by
 * its rate (never below min_chunk, nor 1); 0 when the worker had better
 * leave j to the others:
 *  - j goes out in pieces of at most 1/SPLIT_ROUNDS of its range for all
 *    the workers together, each worker's piece by its share of their rate
 *    (unless that is below min_chunk), so they sweep the range side by
 *    side, close to the order of one worker as fast as all of them. In
 *    halves, an answer near the end of the first half came as late as if
 *    one worker hashed the whole; the mean is the same, but a request's
 *    latency (and a run's score) then depends on where its answer lies;
 *  - its tail is shared by expected finish time: each worker's share of
 *    what is left, counting what those on j have left of their leases, is
 *    by its rate, so that they end together; a tail less than a piece each
 *    is shared with the worker about to finish its last piece instead of
 *    going whole to the first one back;
 *  - a worker whose piece would end after the others could have hashed
 *    all the work without it, while a worker at least SPLIT_ROUNDS times
 *    as fast is there to take it (a CPU beside a GPU a hundred times as
 *    fast, on a small job), leaves j to them: its piece would hold the job
 *    up. The fastest worker never leaves a job, nor do equals. */
static uint64_t lease_size(const struct ring *r, const struct ring_slot *s,
			   const struct ring_job *j, uint64_t chunk,
			   uint64_t min_chunk, uint64_t now)
{
	unsigned __int128 work, piece, share, size;
	struct rates w;

	if (chunk == 0)
		chunk = 1;
	if (min_chunk == 0)
		min_chunk = 1;
	weigh(r, s, &w);
	if (!r->policy.split || w.n < 2)
		return chunk;
	piece = span(j->key.start, j->key.end) * w.mine / (w.all * SPLIT_ROUNDS);
	work = work_left(r, j, now);
	share = (work * w.mine + w.all - 1) / w.all;
	size = cut(cut(chunk, piece, min_chunk), share, min_chunk);
	if (size > j->rem)
		size = j->rem;
	if (w.fastest / SPLIT_ROUNDS >= w.mine &&
	    size * (w.all - w.mine) > work * w.mine)
		return 0;
	return (uint64_t)size;
}

/* The job the worker of s should lease from, and the size of its lease:
 * without preemption the one it was on, while there is more of it; else
 * the best-ranked, or the second best (the better child of the heap's top)
 * where the best is better left to faster workers. NULL when none. */
static struct ring_job *pick(struct ring *r, const struct ring_slot *s,
			     uint64_t chunk, uint64_t min_chunk, uint64_t now,
			     uint64_t *size)
{
	struct ring_job *j;
	uint32_t second;

	if (!r->policy.preempt && s->keep_job < RING_JOBS) {
		j = &r->jobs[s->keep_job];
		if (j->gen == s->keep_gen && j->heap_pos != RING_NONE &&
		    (*size = lease_size(r, s, j, chunk, min_chunk, now)))
			return j;
	}
	if (r->nheap == 0)
		return NULL;
	j = &r->jobs[r->heap[0].job];
	if ((*size = lease_size(r, s, j, chunk, min_chunk, now)) || r->nheap < 2)
		return *size ? j : NULL;
	second = r->nheap > 2 && ring_heap_before(r, 2, 1) ? 2 : 1;
	j = &r->jobs[r->heap[second].job];
	return (*size = lease_size(r, s, j, chunk, min_chunk, now)) ? j : NULL;
}

/* Where the next lease of j starts, and how far it may go: the last range
 * given back first, else the cursor. */
static void next_range(const struct ring_job *j, uint64_t *lo, uint64_t *limit)
{
	if (j->p.nreturned) {
		*lo = j->p.returned[j->p.nreturned - 1].lo;
		*limit = j->p.returned[j->p.nreturned - 1].hi;
	} else {
		*lo = j->p.next;
		*limit = j->key.end;
	}
}

/* Write the lease [lo, hi] of j into slot s, has_lease last: from here on
 * the range is the slot's, and goes back if its worker dies. */
static void record(struct ring *r, struct ring_slot *s, const struct ring_job *j,
		   uint64_t lo, uint64_t hi, uint64_t now)
{
	publish(s->stop, 0);
	s->lease_pid = peek(s->pid);
	s->lease_job = (uint32_t)(j - r->jobs);
	s->lease_gen = j->gen;
	s->lease_lo = lo;
	s->lease_hi = hi;
	s->lease_ns = now;
	publish(s->has_lease, 1);
}

/* Move j's progress past the lease that a slot now holds, from where
 * next_range() starts to hi. */
static void advance(struct ring *r, struct ring_job *j, uint64_t hi, uint64_t now)
{
	uint64_t lo, limit;

	next_range(j, &lo, &limit);
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
}

/* The worker's copy of the lease in slot s. */
static void fill(struct ring_lease *out, struct ring_slot *s, const struct ring_job *j)
{
	out->job = s->lease_job;
	out->gen = s->lease_gen;
	out->lo = s->lease_lo;
	out->hi = s->lease_hi;
	out->stop = &s->stop;
	memcpy(out->digest, j->key.digest, sizeof out->digest);
}

int ring_lease(struct ring *r, unsigned slot, uint64_t chunk,
	       uint64_t min_chunk, struct ring_lease *out)
{
	struct ring_slot *s = &r->slots[slot];
	struct ring_job *j;
	uint64_t lo, limit, size, now;

	out->tell = enter(r, s);
	now = clock_ns(); /* after the lock: its wait may be long */
	if (!(j = pick(r, s, chunk, min_chunk, now, &size))) {
		ring_unlock(r);
		return -EAGAIN;
	}
	next_range(j, &lo, &limit);
	record(r, s, j, lo, limit - lo < size ? limit : lo + size - 1, now);
	misbehave_here(r);
	advance(r, j, s->lease_hi, now);
	s->keep_job = s->lease_job;
	s->keep_gen = s->lease_gen;
	fill(out, s, j);
	ring_unlock(r);
	return 0;
}

int ring_finish(struct ring *r, unsigned slot, enum search_result result,
		uint64_t x)
{
	struct ring_slot *s = &r->slots[slot];
	int tell = enter(r, s);
	struct ring_job *j = lease_job(r, s);

	if (j && result == SEARCH_FOUND) {
		tell |= found(r, j, x);
		j = NULL; /* it ended: the entry is the master's, maybe reused */
	} else if (j && result == SEARCH_STOPPED && peek(j->phase) != PHASE_RELEASING &&
		   x >= s->lease_lo && x <= s->lease_hi) {
		ring_give_back(j, x, s->lease_hi); /* stopped early: the rest is owed */
	}
	publish(s->has_lease, 0);
	s->chunks++;
	if (j && ring_live(peek(j->phase))) {
		j->nleases--;
		ring_reposition(r, j);
		tell |= conclude(r, j);
	}
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

/* ---- the slot's own accounting ------------------------------------------- */

void ring_slot_account(struct ring *r, unsigned slot, uint64_t hashed,
		       uint64_t ns, uint64_t rate)
{
	struct ring_slot *s = &r->slots[slot];

	/* Time first: a --status read in between sees a rate too low, never
	 * one too high. */
	__atomic_fetch_add(&s->hash_ns, ns, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->hashes, hashed, __ATOMIC_RELAXED);
	if (rate)
		__atomic_store_n(&s->rate, rate, __ATOMIC_RELAXED);
}

void ring_slot_set_state(struct ring *r, unsigned slot, enum ring_slot_state state)
{
	__atomic_store_n(&r->slots[slot].state, (uint32_t)state, __ATOMIC_RELAXED);
}

uint64_t ring_slot_rate(const struct ring *r, unsigned slot)
{
	return __atomic_load_n(&r->slots[slot].rate, __ATOMIC_RELAXED);
}
