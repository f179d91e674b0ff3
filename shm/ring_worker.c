/* The ring's worker side (see ring_worker.h). A worker's start, a lease
 * and a finish each take the lock, take in what the master changed, work
 * through the schedule and the slots, and bring a job to its end when it
 * got there; the waits and the worker's own counters take no lock.
 *
 * Crash safety rests on store order inside the lock: a lease is published
 * in its slot (has_lease last) before the job's cursor moves, an answer
 * before the lease is dropped. A worker killed anywhere leaves every
 * unhashed value ahead of a cursor, in a returned range, or in a slot
 * lease that is given back; the rest is derived, and rebuilt by whoever
 * recovers a dead holder's lock (docs/architecture.md, "Crash safety"). */
#include "lib/clock.h"
#include "lib/log.h"
#include "shm/ring_worker.h"
#include "shm/ring_sched.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what, int err)
{
	log_error("ring: %s: %s", what, strerror(err));
	abort();
}

/* ---- a job's ends --------------------------------------------------------- */

/* j has just reached an end: its leases stop, it leaves the schedule, the
 * master hears of it. gen is the one read before the move: the entry is
 * the master's now, and may already be reused. */
static int end_job(struct ring *r, struct ring_job *j, uint32_t gen)
{
	uint32_t idx = (uint32_t)(j - r->jobs);

	slot_stop_leases(r, idx, gen);
	sched_ended(r, j);
	flag(r->changed, idx);
	return 1;
}

/* After a lease of j came back or a change of the master's was taken in:
 * move j to the end it has reached, if any. 1 when it got there. */
static int maybe_end(struct ring *r, struct ring_job *j)
{
	uint32_t gen = peek(j->gen); /* a live job's: it cannot change under us */

	for (;;) {
		enum ring_phase now = peek(j->phase), to;

		/* The end is chosen from this one reading of the phase: the
		 * master may release or park the job meanwhile, and then the
		 * move fails and the loop reads it again. */
		if (j->nleases || (to = job_end_of(j, now)) == PHASE_COUNT)
			return 0; /* its leases are its progress, or its answer */
		if (job_move(j, now, to))
			return end_job(r, j, gen);
	}
}

/* A lease of j holds its answer x: FOUND, whatever the master asked
 * meanwhile (a released job's answer still goes to the cache). 1 when
 * this made it so. */
static int found(struct ring *r, struct ring_job *j, uint64_t x)
{
	uint32_t gen = peek(j->gen);
	enum ring_phase now;

	publish(j->answer, x); /* before the phase: the master reads it at FOUND */
	publish(j->found_ns, clock_ns());
	do {
		now = peek(j->phase);
		if (!job_live(now))
			return 0;
	} while (!job_move(j, now, PHASE_FOUND));
	return end_job(r, j, gen);
}

/* ---- taking in what the master changed ------------------------------------ */

/* Bring job idx up to date with the master: take a NEW job in, rank it,
 * stop a released one's leases, end it if it is done, drop one taken back
 * (FREE). Idempotent, so a dead holder's successor may run it again. 1
 * when the job reached an end. */
static int take_in(struct ring *r, uint32_t idx)
{
	struct ring_job *j = &r->jobs[idx];
	enum ring_phase now = peek(j->phase);

	if (now == PHASE_NEW) {
		/* A new use of the entry: the master may have taken its last
		 * one back with leases out, whose count is still the entry's. */
		sched_recount(r, j);
		now = job_move(j, PHASE_NEW, PHASE_RUNNING) ? PHASE_RUNNING
							    : peek(j->phase);
	}
	if (now == PHASE_FREE) { /* taken back by the master: its leases are void */
		sched_ended(r, j);
		return 0;
	}
	if (!job_live(now))
		return 0;
	if (now == PHASE_RELEASING) /* a parking job's run on: progress */
		slot_stop_leases(r, idx, peek(j->gen));
	sched_update(r, j);
	return maybe_end(r, j);
}

/* The lease in slot s is no longer its worker's: give it back. */
static int give_back_lease(struct ring *r, struct ring_slot *s)
{
	struct ring_job *j = slot_lease_job(r, s);

	if (!j) {
		publish(s->has_lease, 0);
		return 0;
	}
	sched_give_back(r, j, s->lease_lo, s->lease_hi);
	publish(s->has_lease, 0);
	sched_lease_back(r, j);
	return maybe_end(r, j);
}

/* Give back the leases whose worker is no longer in its slot. */
static int give_back_dead(struct ring *r)
{
	int tell = 0;

	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct ring_slot *s = &r->slots[i];
		int32_t pid = peek(s->pid);
		if (s->has_lease && (pid == 0 || s->lease_pid != pid))
			tell |= give_back_lease(r, s);
	}
	return tell;
}

/* Take in what the master marked pending since the last look. */
static int take_pending(struct ring *r)
{
	uint64_t words;
	int tell = 0;

	if (peek(r->dead_leases) && __atomic_exchange_n(&r->dead_leases, 0, __ATOMIC_ACQUIRE))
		tell |= give_back_dead(r);
	if (!peek(r->pending_any))
		return tell;
	words = __atomic_exchange_n(&r->pending_any, 0, __ATOMIC_ACQUIRE);
	while (words) {
		unsigned w = (unsigned)__builtin_ctzll(words);
		uint64_t bits = __atomic_exchange_n(&r->pending[w], 0, __ATOMIC_ACQUIRE);

		words &= words - 1;
		while (bits) {
			tell |= take_in(r, w * 64 + (unsigned)__builtin_ctzll(bits));
			bits &= bits - 1;
		}
	}
	return tell;
}

void ring_repair(struct ring *r)
{
	sched_rebuild(r);
	for (uint32_t i = 0; i < RING_JOBS; i++) {
		take_in(r, i);
		if (peek(r->jobs[i].phase) != PHASE_FREE)
			flag(r->changed, i);
	}
	publish(r->dead_leases, 1);
}

/* ---- the lock ------------------------------------------------------------- */

void ring_lock(struct ring *r, pid_t self)
{
	int rc = pthread_mutex_lock(&r->lock);

	if (rc != 0 && rc != EOWNERDEAD)
		fail("pthread_mutex_lock", rc);
	publish(r->lock_owner, (int32_t)self);
	if (rc == EOWNERDEAD) {
		pthread_mutex_consistent(&r->lock);
		publish(r->repairs, r->repairs + 1); /* the lock's holder alone writes it */
		ring_repair(r);
	}
}

void ring_unlock(struct ring *r)
{
	int rc;

	publish(r->lock_owner, 0);
	if ((rc = pthread_mutex_unlock(&r->lock)))
		fail("pthread_mutex_unlock", rc);
}

/* Lock and bring the ring up to date with the master. */
static int enter(struct ring *r, struct ring_slot *s)
{
	uint32_t repairs = peek(r->repairs); /* before the lock: another's may move it */
	int tell;

	ring_lock(r, peek(s->pid));
	tell = take_pending(r) | (r->repairs != repairs);
	__atomic_fetch_add(&s->beat, 1, __ATOMIC_RELAXED);
	return tell;
}

/* ---- the workers' calls --------------------------------------------------- */

int ring_worker_start(struct ring *r, unsigned slot, pid_t self)
{
	struct ring_slot *s = &r->slots[slot];
	int tell;

	publish(s->pid, (int32_t)self);
	tell = enter(r, s);
	if (s->has_lease) /* a predecessor's, even if it had our pid */
		tell |= give_back_lease(r, s);
	sched_keep(r, s, NULL);
	ring_unlock(r);
	return tell;
}

int ring_lease(struct ring *r, unsigned slot, uint64_t chunk,
	       uint64_t min_chunk, struct ring_lease *out)
{
	struct ring_slot *s = &r->slots[slot];
	struct ring_job *j;
	uint64_t lo, limit, size, now;

	out->tell = enter(r, s);
	now = clock_ns(); /* after the lock: its wait may be long */
	if (!(j = sched_pick(r, s, chunk, min_chunk, now, &size))) {
		ring_unlock(r);
		return -EAGAIN;
	}
	if (ring_progress_check(&j->key, &j->p) < 0)
		sched_restart(r, j); /* written over: its counts index the entry */
	job_next_range(j, &lo, &limit);
	slot_record(r, s, j, lo, limit - lo < size ? limit : lo + size - 1, now);
	/* The test hooks' worst place: the lease in the slot, the cursor not
	 * yet past it. */
	if (ring_hook_fire(r, HOOK_DIE_IN_LOCK))
		raise(SIGKILL);
	if (ring_hook_fire(r, HOOK_STOP_IN_LOCK))
		raise(SIGSTOP);
	sched_leased(r, j, s->lease_hi, now);
	sched_keep(r, s, j);
	out->job = s->lease_job;
	out->gen = s->lease_gen;
	out->lo = s->lease_lo;
	out->hi = s->lease_hi;
	out->stop = &s->stop;
	memcpy(out->digest, j->key.digest, sizeof out->digest);
	ring_unlock(r);
	return 0;
}

int ring_finish(struct ring *r, unsigned slot, enum search_result result,
		uint64_t x)
{
	struct ring_slot *s = &r->slots[slot];
	int tell = enter(r, s);
	struct ring_job *j = slot_lease_job(r, s);

	if (j && result == SEARCH_FOUND) {
		publish(j->found_slot, slot);
		tell |= found(r, j, x);
		j = NULL; /* it ended: the entry is the master's, maybe reused */
	} else if (j && result == SEARCH_STOPPED && x >= s->lease_lo && x <= s->lease_hi) {
		sched_give_back(r, j, x, s->lease_hi); /* stopped early: the rest is owed */
	}
	publish(s->has_lease, 0);
	publish(s->chunks, s->chunks + 1); /* its worker alone counts it */
	if (j && job_live(peek(j->phase))) {
		sched_lease_back(r, j);
		tell |= maybe_end(r, j);
	}
	ring_unlock(r);
	return tell;
}

/* A hint to the core that this is a spin (x86's pause). */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* A post was taken: the words it announced are read after the count's
 * change, on any CPU (the master's half: ring_wake). */
static void woken(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int ring_poll(struct ring *r, unsigned slot, uint64_t ns)
{
	uint64_t until = clock_ns() + ns;

	do {
		if (sem_trywait(&r->slots[slot].wake) == 0) {
			woken();
			return 1;
		}
		for (int i = 0; i < 64; i++)
			cpu_relax();
	} while (clock_ns() < until);
	return 0;
}

void ring_wait(struct ring *r, unsigned slot, unsigned timeout_ms)
{
	uint64_t until = clock_ns() + (uint64_t)timeout_ms * 1000000u;
	struct timespec ts = { (time_t)(until / 1000000000u), (long)(until % 1000000000u) };

	while (sem_clockwait(&r->slots[slot].wake, CLOCK_MONOTONIC, &ts) < 0 && errno == EINTR)
		;
	woken(); /* after a post, or the wait's end: a look at the words either way */
}

/* ---- the worker's own slot, without the lock ------------------------------ */

void ring_slot_account(struct ring *r, unsigned slot, uint64_t hashed,
		       uint64_t ns, uint64_t rate)
{
	struct ring_slot *s = &r->slots[slot];

	/* Time first: a reader in between sees a rate too low, never too high. */
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

int ring_slot_retiring(const struct ring *r, unsigned slot)
{
	return peek(r->slots[slot].retire) || peek(r->shutdown);
}

/* ---- the test hooks ------------------------------------------------------- */

/* Armed in the segment (a count each, RING_HOOK_MAP), a worker misbehaves
 * where one fires. They ship in every build (why, and their cost:
 * docs/testing.md), behind this process's own switch: REVHASH_TEST_HOOKS
 * in its environment, read once; a forked worker inherits the master's.
 * The switch is never the segment's word (one random store there once
 * armed a hook that killed every worker at its start, for ever), which
 * only shows the master's, so that --hook can refuse a master without it. */
static int allowed = -1; /* this process's switch; -1: not read yet */

int ring_hooks_allowed(void)
{
	if (allowed < 0)
		allowed = getenv("REVHASH_TEST_HOOKS") != NULL;
	return allowed;
}

void ring_hooks_here(int on)
{
	allowed = on != 0;
}

int ring_hook_fire(struct ring *r, enum ring_hook hook)
{
	uint32_t n;

	if (!ring_hooks_allowed())
		return 0;
	n = peek(r->hook[hook]);
	while (n && !__atomic_compare_exchange_n(&r->hook[hook], &n, n - 1, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	return n != 0;
}
