/* The ring's master side (see ring_master.h). Every call returns at once
 * and none takes the lock, so it builds on the entries and the slots
 * (ring_slot.h), never on the schedule: it preempts on a snapshot of the
 * ranks instead. Its record is its own (struct ring_master), and it is
 * one thread: the record needs no lock either. */
#include "lib/clock.h"
#include "shm/ring_master.h"
#include "shm/ring_slot.h"
#include "shm/ring_worker.h"
#include "shm/word.h"

#include <errno.h>
#include <linux/futex.h>
#include <semaphore.h>
#include <stddef.h>
#include <string.h>

/* ---- the ring's life ------------------------------------------------------ */

int ring_init(struct ring *r, const struct policy *policy)
{
	int rc = ring_make_sync(r);

	if (rc)
		return rc;
	r->policy = *policy;
	/* This process's hook switch, shown to --hook (ring_arm_hook) */
	publish(r->hooks, (uint32_t)ring_hooks_allowed());
	for (uint32_t i = 0; i < RING_JOBS; i++)
		r->jobs[i].heap_pos = RING_NONE;
	return 0;
}

void ring_free(struct ring *r)
{
	for (unsigned i = 0; i < RING_WORKERS; i++)
		sem_destroy(&r->slots[i].wake);
	pthread_mutex_destroy(&r->lock);
}

/* ---- jobs ----------------------------------------------------------------- */

enum ring_phase ring_phase(const struct ring *r, uint32_t job)
{
	return (enum ring_phase)peek(r->jobs[job].phase);
}

static uint64_t clamp_weight(uint64_t w)
{
	return w == 0 ? 1 : w > UINT32_MAX ? UINT32_MAX : w;
}

void ring_master_init(struct ring_master *m, struct ring *r)
{
	memset(m, 0, sizeof *m);
	m->ring = r;
	for (uint32_t i = 0; i < RING_JOBS; i++)
		m->freelist[i] = RING_JOBS - 1 - i;
	m->nfree = RING_JOBS;
}

int ring_submit(struct ring_master *m, const struct ring_key *key,
		const struct ring_progress *from, uint64_t weight, uint64_t seq,
		void *holder, uint32_t *job)
{
	struct ring *r = m->ring;
	struct ring_job *j;

	if (m->nfree == 0)
		return -ENOSPC;
	*job = m->freelist[--m->nfree];
	m->holder[*job] = holder;
	j = &r->jobs[*job];
	publish(j->gen, ++m->gen[*job]); /* first: leases of its last use are void */
	j->key = *key;
	j->seq = seq;
	j->answer = j->first_lease_ns = j->found_ns = 0;
	j->submit_ns = clock_ns(); /* before the workers are woken: the wake's
	                              stage starts here */
	j->p = *from;
	m->given[*job] = job_mark(&j->p);
	publish(j->weight, clamp_weight(weight));
	job_own_move(j, PHASE_NEW);
	mark_pending(r, *job);
	ring_preempt(r, *job); /* stores: before the wake's system calls */
	ring_wake(r);
	return 0;
}

void *ring_holder(const struct ring_master *m, uint32_t job)
{
	return job < RING_JOBS ? m->holder[job] : NULL;
}

void ring_hold_alone(struct ring_master *m, uint32_t job)
{
	if (ring_holder(m, job))
		m->holder[job] = RING_HELD_ALONE(m);
}

unsigned ring_in_use(const struct ring *r)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < RING_JOBS; i++)
		n += peek(r->jobs[i].phase) != PHASE_FREE;
	return n;
}

void ring_set_weight(struct ring *r, uint32_t job, uint64_t weight)
{
	publish(r->jobs[job].weight, clamp_weight(weight));
	mark_pending(r, job);
}

int ring_weight_is(const struct ring *r, uint32_t job, uint64_t weight)
{
	return peek(r->jobs[job].weight) == clamp_weight(weight);
}

int ring_release(struct ring *r, uint32_t job)
{
	struct ring_job *j = &r->jobs[job];
	enum ring_phase now;

	do {
		now = peek(j->phase);
		if (now != PHASE_NEW && now != PHASE_RUNNING && now != PHASE_PARKING)
			return 0;
	} while (!job_move(j, now, PHASE_RELEASING));
	/* Its leases stop now, not when a worker next looks: the worker on
	 * it would hash on for nothing. */
	slot_stop_leases(r, job, peek(j->gen));
	mark_pending(r, job);
	return 1;
}

int ring_park(struct ring *r, uint32_t job)
{
	if (!job_move(&r->jobs[job], PHASE_RUNNING, PHASE_PARKING))
		return 0;
	mark_pending(r, job);
	return 1;
}

uint64_t ring_answer(const struct ring *r, uint32_t job)
{
	return peek(r->jobs[job].answer);
}

/* Entry job is the master's again: no lease of the use just over (still
 * in a slot) counts again, whatever phase a worker writes there next. */
static void void_leases(struct ring_master *m, uint32_t job)
{
	publish(m->ring->jobs[job].gen, ++m->gen[job]);
}

int ring_free_entry(struct ring_master *m, uint32_t job, struct ring_progress *p)
{
	struct ring_job *j;

	if (!ring_holder(m, job))
		return -ENOENT;
	j = &m->ring->jobs[job];
	if (p)
		*p = j->p;
	void_leases(m, job);
	job_own_move(j, PHASE_FREE);
	m->holder[job] = NULL;
	m->freelist[m->nfree++] = job;
	return 0;
}

int ring_has_taken(const struct ring_master *m)
{
	return m->nfree < RING_JOBS;
}

/* A copy of j's progress, read without the lock: each field as the
 * workers last published it (a lease may move it meanwhile). */
static void snapshot(const struct ring_job *j, struct ring_progress *p)
{
	p->next = peek(j->p.next);
	p->cursor_done = peek(j->p.cursor_done);
	p->nreturned = peek(j->p.nreturned);
	if (p->nreturned > RING_RETURNED)
		p->nreturned = RING_RETURNED;
	for (uint32_t i = 0; i < p->nreturned; i++) {
		p->returned[i].lo = peek(j->p.returned[i].lo);
		p->returned[i].hi = peek(j->p.returned[i].hi);
	}
	p->started = peek(j->p.started);
}

void ring_progress_now(const struct ring *r, uint32_t job, struct ring_progress *p)
{
	memset(p, 0, sizeof *p);
	snapshot(&r->jobs[job], p);
}

int ring_take_back(struct ring_master *m, uint32_t job, struct ring_progress *p)
{
	struct ring *r = m->ring;
	struct ring_job *j;
	uint32_t phase, gen;

	if (!ring_holder(m, job))
		return -ENOENT;
	j = &r->jobs[job];
	gen = m->gen[job];
	/* The phase first, then the progress, then the leases: a lease taken
	 * after the progress was read lies ahead of its cursor; one taken
	 * before is still in its slot, or hashed, or its answer moved the
	 * phase and the move below fails. */
	phase = peek(j->phase);
	ring_progress_now(r, job, p);
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		const struct ring_slot *s = &r->slots[i];

		if (slot_holds(s, job, gen))
			ring_progress_give_back(p, peek(s->lease_lo), peek(s->lease_hi));
	}
	if (!job_take_back(j, phase))
		return -EAGAIN;
	slot_stop_leases(r, job, gen);
	void_leases(m, job); /* and those of a gen a worker wrote */
	mark_pending(r, job);
	m->holder[job] = NULL;
	m->freelist[m->nfree++] = job;
	return 0;
}

int ring_gen_given(const struct ring_master *m, uint32_t job)
{
	return peek(m->ring->jobs[job].gen) == m->gen[job];
}

int ring_leases_back(const struct ring_master *m, uint32_t job)
{
	const struct ring *r = m->ring;
	uint32_t gen = m->gen[job];

	if (!ring_gen_given(m, job))
		return 0; /* a lease of it may carry the gen written there */
	for (unsigned i = 0; i < RING_WORKERS; i++)
		if (slot_holds(&r->slots[i], job, gen))
			return 0;
	return 1;
}

int ring_untouched(const struct ring_master *m, uint32_t job)
{
	struct ring_progress p;
	struct ring_mark now;

	ring_progress_now(m->ring, job, &p);
	now = job_mark(&p);
	return memcmp(&now, &m->given[job], sizeof now) == 0 && ring_leases_back(m, job);
}

/* Entry e, if the master has not taken it but the workers would lease
 * from it, made FREE again (see ring_reclaim_phantoms): 1, else 0. */
static int reclaim(struct ring_master *m, uint32_t e)
{
	struct ring *r = m->ring;
	struct ring_job *j;

	if (e >= RING_JOBS || m->holder[e] || peek(r->jobs[e].phase) == PHASE_FREE)
		return 0;
	j = &r->jobs[e];
	slot_stop_leases(r, e, peek(j->gen));
	if (!job_take_back(j, peek(j->phase)))
		return 0; /* moved again: the next audit looks */
	void_leases(m, e);
	mark_pending(r, e);
	return 1;
}

unsigned ring_reclaim_phantoms(struct ring_master *m)
{
	struct ring *r = m->ring;
	uint32_t n = peek(r->nheap);
	unsigned found = 0;

	for (uint32_t i = 0; i < n && i < RING_JOBS; i++)
		found += (unsigned)reclaim(m, peek(r->heap[i]));
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		const struct ring_slot *s = &r->slots[i];

		if (peek(s->has_lease))
			found += (unsigned)reclaim(m, peek(s->lease_job));
		found += (unsigned)reclaim(m, peek(s->keep_job));
	}
	return found;
}

const struct ring_key *ring_key(const struct ring *r, uint32_t job)
{
	return &r->jobs[job].key;
}

void ring_job_times(const struct ring *r, uint32_t job, uint64_t *submit_ns,
		    uint64_t *leased_ns, uint64_t *found_ns)
{
	*submit_ns = r->jobs[job].submit_ns;
	*leased_ns = peek(r->jobs[job].first_lease_ns);
	*found_ns = peek(r->jobs[job].found_ns);
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

unsigned ring_queued(const struct ring *r, unsigned counts[RING_QUEUED_BUCKETS])
{
	unsigned n = 0;

	memset(counts, 0, RING_QUEUED_BUCKETS * sizeof counts[0]);
	for (uint32_t i = 0; i < RING_JOBS; i++) {
		const struct ring_job *j = &r->jobs[i];
		uint64_t w = peek(j->weight);

		if (peek(j->phase) != PHASE_RUNNING)
			continue;
		counts[w > RING_QUEUED_TOP ? RING_QUEUED_TOP + 1 : w]++;
		n++;
	}
	return n;
}

/* ---- preemption, on a snapshot of the ranks ------------------------------- */

struct rank ring_rank(const struct ring *r, uint32_t job)
{
	const struct ring_job *j = &r->jobs[job];
	struct ring_progress p;

	snapshot(j, &p);
	return ring_rank_of(peek(j->weight), j->seq, &j->key, &p);
}

void ring_preempt(struct ring *r, uint32_t job)
{
	struct rank better = ring_rank(r, job);

	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct ring_slot *s = &r->slots[i];
		struct ring_job *on = slot_lease_job(r, s);
		struct rank running;

		if (!on || on == &r->jobs[job])
			continue;
		running = ring_rank(r, (uint32_t)(on - r->jobs));
		if (policy_preempts(&r->policy, &better, &running))
			publish(s->stop, 1);
	}
}

/* ---- the workers ---------------------------------------------------------- */

/* Each worker its own post, the fastest first: why, and the figures, in
 * docs/architecture.md ("Pieces by rate"). A slot with no worker is left
 * alone (a worker looks for work before it first sleeps); one that lies
 * about its rate is woken sooner, which is all it gains. */
unsigned ring_wake_order(const struct ring *r, unsigned order[RING_WORKERS])
{
	uint64_t rate[RING_WORKERS];
	unsigned n = 0;

	for (unsigned i = 0; i < RING_WORKERS; i++) {
		uint64_t v;
		unsigned k;

		if (!peek(r->slots[i].pid))
			continue;
		v = peek(r->slots[i].rate);
		for (k = n++; k > 0 && rate[k - 1] < v; k--) { /* ties keep slot order */
			rate[k] = rate[k - 1];
			order[k] = order[k - 1];
		}
		rate[k] = v;
		order[k] = i;
	}
	return n;
}

void ring_wake(struct ring *r)
{
	unsigned order[RING_WORKERS], n = ring_wake_order(r, order);

	/* What the wake-up is for was stored before; a post is skipped where
	 * the count says "awake". A store then a load on each side, which
	 * only a full fence on both keeps in order (ring_worker.c's woken;
	 * docs/architecture.md, "Memory order"): without it a worker could
	 * sleep its whole wait with work there. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned k = 0; k < n; k++) {
		sem_t *wake = &r->slots[order[k]].wake;
		int v = 1;

		sem_getvalue(wake, &v);
		if (v <= 0)
			sem_post(wake);
	}
}

void ring_shutdown(struct ring *r)
{
	publish(r->shutdown, 1);
	ring_wake(r);
}

unsigned ring_workers(const struct ring *r)
{
	unsigned n = 0;

	for (unsigned i = 0; i < RING_WORKERS; i++)
		n += peek(r->slots[i].pid) != 0;
	return n;
}

void ring_slot_prepare(struct ring *r, unsigned slot, unsigned kind, unsigned unit)
{
	struct ring_slot *s = &r->slots[slot];

	publish(s->hashes, 0); /* the other workers and --status read them */
	publish(s->chunks, 0);
	publish(s->rate, 0);
	publish(s->hash_ns, 0);
	publish(s->kind, kind);
	publish(s->unit, unit);
	publish(s->started_ns, clock_ns());
	publish(s->retire, 0);
	publish(r->shutdown, 0);
	publish(s->state, SLOT_IDLE);
}

/* The words in address order, each by an acquire load: has_lease is read
 * before the range it vouches for. The semaphore is not copied. */
_Static_assert(offsetof(struct ring_slot, has_lease) < offsetof(struct ring_slot, lease_lo),
	       "a slot's view reads has_lease first");
_Static_assert(offsetof(struct ring_slot, wake) % sizeof(shm_word) == 0, "whole words");

void ring_slot_view(const struct ring *r, unsigned slot, struct ring_slot *v)
{
	const shm_word *from = (const shm_word *)&r->slots[slot];
	shm_word *to = (shm_word *)v;

	memset(&v->wake, 0, sizeof v->wake);
	for (size_t i = 0; i < offsetof(struct ring_slot, wake) / sizeof *to; i++)
		to[i] = peek(from[i]);
}

void ring_slot_retire(struct ring *r, unsigned slot)
{
	publish(r->slots[slot].retire, 1);
	ring_wake(r);
}

void ring_slot_dead(struct ring *r, unsigned slot, enum ring_exit how,
		    uint64_t *hashes, uint64_t *chunks)
{
	struct ring_slot *s = &r->slots[slot];

	*hashes = peek(s->hashes);
	*chunks = peek(s->chunks);
	publish(s->pid, 0);
	publish(s->state, SLOT_EMPTY);
	publish(s->deaths, s->deaths + (how != EXIT_RETIRED)); /* the master's alone */
	publish(s->stalls, s->stalls + (how == EXIT_STALLED));
	publish(r->dead_leases, 1);
	ring_wake(r);
}

int ring_slot_restore(struct ring *r, unsigned slot, pid_t pid)
{
	struct ring_slot *s = &r->slots[slot];
	int fixed = shm_restore(s->pid, (int32_t)pid);

	if (fixed && !pid)
		publish(s->state, SLOT_EMPTY);
	if (peek(s->rate) > RING_RATE_MAX) {
		publish(s->rate, 0); /* unknown: the mean of the others' */
		fixed = 1;
	}
	return fixed;
}

/* ---- the lock, and the ring-wide words ------------------------------------ */

pid_t ring_lock_holder(const struct ring *r)
{
#ifdef __GLIBC__
	/* A robust mutex's word holds its holder's thread id (linux/futex.h);
	 * lock_owner is only what a holder wrote after taking it. */
	uint32_t word = (uint32_t)__atomic_load_n(&r->lock.__data.__lock, __ATOMIC_RELAXED);

	return (pid_t)(word & FUTEX_TID_MASK);
#else
	return peek(r->lock_owner);
#endif
}

int ring_restore_words(struct ring *r, const struct policy *policy, int shutdown)
{
	return shm_restore(r->policy.order, policy->order) +
	       shm_restore(r->policy.rules, policy->rules) +
	       shm_restore(r->shutdown, shutdown ? 1u : 0u);
}

/* ---- the test hooks (the switch and the firing: ring_worker.c) ------------ */

int ring_arm_hook(struct ring *r, enum ring_hook hook, unsigned n)
{
	if (!peek(r->hooks) || hook >= HOOK_COUNT)
		return -EPERM;
	__atomic_fetch_add(&r->hook[hook], n, __ATOMIC_ACQ_REL);
	return 0;
}

unsigned ring_hook_armed(const struct ring *r, enum ring_hook hook)
{
	return hook < HOOK_COUNT ? peek(r->hook[hook]) : 0;
}
