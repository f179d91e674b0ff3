/* The job table and priority ring (see ring.h): the master's side, and what
 * --status reads. Every function here returns at once: the master fills
 * free entries in, moves a phase with a compare-and-swap, flags what it
 * changed in pending[], reads what the workers flagged in changed[], and
 * never takes the lock. The master is one thread, so the free list needs
 * no lock either. */
#include "lib/clock.h"
#include "shm/ring.h"
#include "shm/ring_private.h"

#include <errno.h>
#include <semaphore.h>
#include <string.h>

#define FUTEX_TID_MASK 0x3fffffff /* the holder's thread id in a futex word */

enum ring_phase ring_phase(const struct ring *r, uint32_t job)
{
	return (enum ring_phase)peek(r->jobs[job].phase);
}

unsigned ring_workers(const struct ring *r)
{
	unsigned n = 0;

	for (unsigned i = 0; i < RING_WORKERS; i++)
		n += peek(r->slots[i].pid) != 0;
	return n;
}

/* The workers should take job in at their next call. */
static void wish(struct ring *r, uint32_t job)
{
	flag(r->pending, job);
	__atomic_fetch_or(&r->pending_any, 1ull << (job / 64), __ATOMIC_RELEASE);
}

static uint64_t clamp_weight(uint64_t w)
{
	return w == 0 ? 1 : w > UINT32_MAX ? UINT32_MAX : w;
}

int ring_submit(struct ring *r, const struct ring_key *key,
		const struct ring_progress *from, uint64_t weight, uint64_t seq,
		uint32_t *job)
{
	struct ring_job *j;

	if (r->nfree == 0)
		return -ENOSPC;
	*job = r->freelist[--r->nfree];
	j = &r->jobs[*job];
	publish(j->gen, j->gen + 1); /* first: leases of its last use are void */
	j->key = *key;
	j->seq = seq;
	j->answer = j->first_lease_ns = j->found_ns = 0;
	if (from) {
		j->p = *from;
	} else {
		memset(&j->p, 0, sizeof j->p);
		j->p.next = key->start;
	}
	publish(j->weight, clamp_weight(weight));
	ring_move(j, PHASE_FREE, PHASE_NEW);
	wish(r, *job);
	return 0;
}

int ring_has_room(const struct ring *r)
{
	return r->nfree > 0;
}

unsigned ring_in_use(const struct ring *r)
{
	return RING_JOBS - peek(r->nfree);
}

void ring_preempt(struct ring *r, uint32_t job)
{
	struct rank_key k, other;

	if (!r->policy.preempt)
		return;
	ring_rank_key(r, job, &k);
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct ring_slot *s = &r->slots[i];
		uint32_t on = peek(s->lease_job);

		if (!peek(s->has_lease) || on >= RING_JOBS || on == job)
			continue;
		ring_rank_key(r, on, &other);
		if (rank_outranks(&r->policy, &k, &other))
			publish(s->stop, 1);
	}
}

void ring_set_weight(struct ring *r, uint32_t job, uint64_t weight)
{
	publish(r->jobs[job].weight, clamp_weight(weight));
	wish(r, job);
}

int ring_release(struct ring *r, uint32_t job)
{
	struct ring_job *j = &r->jobs[job];
	enum ring_phase now;

	do {
		now = peek(j->phase);
		if (now != PHASE_NEW && now != PHASE_RUNNING && now != PHASE_PARKING)
			return 0;
	} while (!ring_move(j, now, PHASE_RELEASING));
	/* Its leases stop now, not when a worker next looks: the worker on
	 * it would hash on for nothing. */
	ring_stop_leases(r, job, peek(j->gen));
	wish(r, job);
	return 1;
}

int ring_park(struct ring *r, uint32_t job)
{
	if (!ring_move(&r->jobs[job], PHASE_RUNNING, PHASE_PARKING))
		return 0;
	wish(r, job);
	return 1;
}

uint64_t ring_answer(const struct ring *r, uint32_t job)
{
	return r->jobs[job].answer;
}

void ring_take_back(struct ring *r, uint32_t job, struct ring_progress *p)
{
	struct ring_job *j = &r->jobs[job];

	if (p)
		*p = j->p;
	ring_move(j, (enum ring_phase)peek(j->phase), PHASE_FREE);
	r->freelist[r->nfree++] = job;
}

const struct ring_key *ring_key(const struct ring *r, uint32_t job)
{
	return &r->jobs[job].key;
}

void ring_rank_key(const struct ring *r, uint32_t job, struct rank_key *k)
{
	const struct ring_job *j = &r->jobs[job];
	uint32_t n = peek(j->p.nreturned);

	k->weight = peek(j->weight);
	k->seq = j->seq;
	k->started = peek(j->p.started);
	k->remaining = peek(j->p.cursor_done) ? 0 : span(peek(j->p.next), j->key.end);
	for (uint32_t i = 0; i < n && i < RING_RETURNED; i++) {
		uint64_t lo = peek(j->p.returned[i].lo), hi = peek(j->p.returned[i].hi);
		if (lo <= hi)
			k->remaining += span(lo, hi);
	}
}

void ring_job_times(const struct ring *r, uint32_t job, uint64_t *leased_ns,
		    uint64_t *found_ns)
{
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

/* Post the work semaphore up to n (never past: a worker that wakes with
 * nothing to do only sleeps again). */
static void wake(struct ring *r, unsigned n)
{
	int v = 0;

	sem_getvalue(&r->work, &v);
	for (; v < (int)n; v++)
		sem_post(&r->work);
}

void ring_wake(struct ring *r)
{
	unsigned n = ring_workers(r);

	wake(r, n ? n : 1);
}

void ring_shutdown(struct ring *r)
{
	publish(r->shutdown, 1);
	wake(r, RING_WORKERS);
}

int ring_is_shutdown(const struct ring *r)
{
	return peek(r->shutdown) != 0;
}

void ring_slot_prepare(struct ring *r, unsigned slot, enum ring_worker_kind kind)
{
	struct ring_slot *s = &r->slots[slot];

	s->hashes = s->chunks = s->rate = s->hash_ns = 0;
	publish(s->kind, (uint32_t)kind);
	s->started_ns = clock_ns();
	publish(s->retire, 0);
	publish(s->state, SLOT_IDLE);
}

void ring_slot_retire(struct ring *r, unsigned slot)
{
	publish(r->slots[slot].retire, 1);
	wake(r, RING_WORKERS);
}

int ring_slot_retiring(const struct ring *r, unsigned slot)
{
	return peek(r->slots[slot].retire) || peek(r->shutdown);
}

void ring_slot_dead(struct ring *r, unsigned slot, enum ring_exit how,
		    uint64_t *hashes, uint64_t *chunks)
{
	struct ring_slot *s = &r->slots[slot];

	*hashes = peek(s->hashes);
	*chunks = peek(s->chunks);
	publish(s->pid, 0);
	publish(s->state, SLOT_EMPTY);
	s->deaths += how != EXIT_RETIRED;
	s->stalls += how == EXIT_STALLED;
	publish(r->reclaim, 1);
	wake(r, 1);
}

void ring_slot_view(const struct ring *r, unsigned slot, struct ring_slot_view *v)
{
	const struct ring_slot *s = &r->slots[slot];

	v->pid = peek(s->pid);
	v->state = (enum ring_slot_state)peek(s->state);
	v->beat = peek(s->beat);
	v->has_lease = (int)peek(s->has_lease);
	v->lease_job = peek(s->lease_job);
	v->lease_lo = peek(s->lease_lo);
	v->lease_hi = peek(s->lease_hi);
	v->lease_values = v->has_lease ? v->lease_hi - v->lease_lo + 1 : 0;
	v->rate = peek(s->rate);
	v->hashes = peek(s->hashes);
	v->chunks = peek(s->chunks);
	v->hash_ns = peek(s->hash_ns);
	v->deaths = peek(s->deaths);
	v->stalls = peek(s->stalls);
	v->kind = (enum ring_worker_kind)peek(s->kind);
}

unsigned ring_queued(const struct ring *r, unsigned counts[18])
{
	unsigned n = 0;

	memset(counts, 0, 18 * sizeof counts[0]);
	for (uint32_t i = 0; i < RING_JOBS; i++) {
		const struct ring_job *j = &r->jobs[i];
		uint64_t w = peek(j->weight);

		if (peek(j->phase) != PHASE_RUNNING)
			continue;
		counts[w > 16 ? 17 : w]++;
		n++;
	}
	return n;
}

unsigned ring_repairs(const struct ring *r)
{
	return peek(r->repairs);
}

pid_t ring_lock_holder(const struct ring *r)
{
	/* glibc keeps the holder's thread id in the robust mutex's futex word
	 * (the kernel needs it there to recover the lock when the holder
	 * dies); a worker is single-threaded, so that is its pid. It is right
	 * even for a holder stopped one instruction after taking the lock. */
	int word = __atomic_load_n(&r->lock.__data.__lock, __ATOMIC_RELAXED);

	return (pid_t)(word & FUTEX_TID_MASK);
}

void ring_allow_hooks(struct ring *r, int on)
{
	publish(r->hooks, on ? 1u : 0u);
}

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
