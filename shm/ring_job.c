/* One job entry of the ring (see ring_job.h), the bottom layer: its phase
 * and the one function that moves it, its progress, and its rank. Nothing
 * here knows the heap or the slots. A job's phase is the one record of
 * where it stands:
 *
 *          submit        take in             an answer
 *   FREE ────────> NEW ─────────> RUNNING ───────────────> FOUND
 *                   │              │   │  └──────────────> EXHAUSTED
 *                   │              │   │     all hashed
 *           release │      release │   │ park
 *                   v              v   v
 *                  RELEASING <──────  PARKING
 *                   │       release     │
 *       leases back │                   │ leases back
 *                   v                   v
 *                 CLOSED              PARKED
 *
 * submit, release, park: the master; take in, an answer, all hashed,
 * leases back: the workers. An answer also ends a RELEASING or a PARKING
 * job (FOUND: it goes to the cache), and a PARKING job with nothing left
 * to lease ends EXHAUSTED. The master frees an entry at one of the four
 * ends: FREE. Who owns which phase, and why: docs/architecture.md ("A
 * job's life"). */
#include "lib/log.h"
#include "shm/ring_job.h"

#include <errno.h>
#include <stdlib.h>

/* The diagram above: the phases each phase may move to. */
static const uint32_t moves[PHASE_COUNT] = {
	[PHASE_FREE] = 1u << PHASE_NEW,
	[PHASE_NEW] = (1u << PHASE_RUNNING) | (1u << PHASE_RELEASING),
	[PHASE_RUNNING] = (1u << PHASE_RELEASING) | (1u << PHASE_PARKING) |
			  (1u << PHASE_FOUND) | (1u << PHASE_EXHAUSTED),
	[PHASE_RELEASING] = (1u << PHASE_CLOSED) | (1u << PHASE_FOUND),
	[PHASE_PARKING] = (1u << PHASE_RELEASING) | (1u << PHASE_PARKED) |
			  (1u << PHASE_FOUND) | (1u << PHASE_EXHAUSTED),
	[PHASE_FOUND] = 1u << PHASE_FREE,
	[PHASE_EXHAUSTED] = 1u << PHASE_FREE,
	[PHASE_PARKED] = 1u << PHASE_FREE,
	[PHASE_CLOSED] = 1u << PHASE_FREE,
};

int job_move(struct ring_job *j, enum ring_phase from, enum ring_phase to)
{
	uint32_t expect = from;
	int moved;

	if (from >= PHASE_COUNT || !(moves[from] >> to & 1)) {
		log_error("ring: no move from %s to %s", ring_phase_name(from),
			  ring_phase_name(to));
		abort();
	}
	moved = __atomic_compare_exchange_n(&j->phase, &expect, (uint32_t)to, 0,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return moved;
}

void job_own_move(struct ring_job *j, enum ring_phase to)
{
	if (to != PHASE_FREE && to != PHASE_NEW) { /* the master's own call: a bug */
		log_error("ring: the master cannot move a job to %s", ring_phase_name(to));
		abort();
	}
	__atomic_store_n(&j->phase, (uint32_t)to, __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

int job_take_back(struct ring_job *j, uint32_t from)
{
	int moved = __atomic_compare_exchange_n(&j->phase, &from, (uint32_t)PHASE_FREE, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return moved;
}

enum { OF_MASTER, OF_WORKERS };

static const struct {
	const char *name;
	int owner;
} phases[PHASE_COUNT] = {
#define XX(phase, name, side) [PHASE_##phase] = { name, OF_##side },
	RING_PHASE_MAP(XX)
#undef XX
};

const char *ring_phase_name(enum ring_phase phase)
{
	return phase < PHASE_COUNT ? phases[phase].name : "?";
}

int ring_phase_workers(enum ring_phase phase)
{
	return phase < PHASE_COUNT && phases[phase].owner == OF_WORKERS;
}

int job_live(enum ring_phase p)
{
	return p == PHASE_RUNNING || p == PHASE_RELEASING || p == PHASE_PARKING;
}

enum ring_phase job_end_of(const struct ring_job *j, enum ring_phase now)
{
	switch (now) {
	case PHASE_RUNNING:
		return ring_remaining(&j->key, &j->p) ? PHASE_COUNT : PHASE_EXHAUSTED;
	case PHASE_PARKING:
		return ring_remaining(&j->key, &j->p) ? PHASE_PARKED : PHASE_EXHAUSTED;
	case PHASE_RELEASING:
		return PHASE_CLOSED;
	default:
		return PHASE_COUNT;
	}
}

/* ---- progress: the master reads it without the lock, so every word of it
 * is written with publish() -------------------------------------------- */

unsigned __int128 ring_remaining(const struct ring_key *k,
				 const struct ring_progress *p)
{
	unsigned __int128 n = p->cursor_done ? 0 : span(p->next, k->end);

	for (uint32_t i = 0; i < p->nreturned && i < RING_RETURNED; i++)
		if (p->returned[i].lo <= p->returned[i].hi)
			n += span(p->returned[i].lo, p->returned[i].hi);
	return n;
}

int ring_progress_check(const struct ring_key *k, const struct ring_progress *p)
{
	if (p->nreturned > RING_RETURNED || p->cursor_done > 1 || p->started > 1 ||
	    (!p->cursor_done && (p->next < k->start || p->next > k->end)))
		return -EINVAL;
	for (uint32_t i = 0; i < p->nreturned; i++)
		if (p->returned[i].lo > p->returned[i].hi || p->returned[i].lo < k->start ||
		    p->returned[i].hi > k->end)
			return -EINVAL;
	return 0;
}

struct rank ring_rank_of(uint64_t weight, uint64_t seq, const struct ring_key *k,
			 const struct ring_progress *p)
{
	return policy_rank(weight, ring_remaining(k, p), seq, (int)p->started);
}

void job_next_range(const struct ring_job *j, uint64_t *lo, uint64_t *limit)
{
	if (j->p.nreturned) {
		*lo = j->p.returned[j->p.nreturned - 1].lo;
		*limit = j->p.returned[j->p.nreturned - 1].hi;
	} else {
		*lo = j->p.next;
		*limit = j->key.end;
	}
}

void job_take(struct ring_job *j, uint64_t hi, uint64_t now)
{
	uint64_t lo, limit;

	job_next_range(j, &lo, &limit);
	if (j->p.nreturned) {
		if (hi == limit)
			publish(j->p.nreturned, j->p.nreturned - 1);
		else
			publish(j->p.returned[j->p.nreturned - 1].lo, hi + 1);
	} else if (hi == limit) {
		publish(j->p.cursor_done, 1);
	} else {
		publish(j->p.next, hi + 1);
	}
	if (!j->p.started) {
		publish(j->p.started, 1);
		publish(j->first_lease_ns, now);
	}
}

struct ring_mark job_mark(const struct ring_progress *p)
{
	uint32_t n = p->nreturned < RING_RETURNED ? p->nreturned : RING_RETURNED;

	return (struct ring_mark){ .next = p->next, .cursor_done = p->cursor_done,
				   .nreturned = p->nreturned,
				   .last_lo = n ? p->returned[n - 1].lo : 0 };
}

/* The returned range of p nearest to [lo, hi] (0 values apart when they
 * meet). */
static uint32_t nearest(const struct ring_progress *p, uint64_t lo, uint64_t hi)
{
	uint64_t best_gap = UINT64_MAX;
	uint32_t best = 0;

	for (uint32_t i = 0; i < RING_RETURNED; i++) {
		const struct ring_range *r = &p->returned[i];
		uint64_t gap = r->hi < lo ? lo - r->hi : r->lo > hi ? r->lo - hi : 0;

		if (gap < best_gap) {
			best_gap = gap;
			best = i;
		}
	}
	return best;
}

void ring_progress_give_back(struct ring_progress *p, uint64_t lo, uint64_t hi)
{
	struct ring_range *r;

	if (!p->cursor_done && lo >= p->next)
		return; /* still ahead of the cursor */
	if (p->nreturned < RING_RETURNED) {
		publish(p->returned[p->nreturned].lo, lo);
		publish(p->returned[p->nreturned].hi, hi);
		publish(p->nreturned, p->nreturned + 1);
		return;
	}
	/* No room: the nearest returned range widens over it (values between
	 * are hashed twice; the cursor never goes back, as the audit expects).
	 * Each bound alone: a holder killed between leaves a range at least
	 * as wide, and its lease still in its slot. */
	r = &p->returned[nearest(p, lo, hi)];
	if (lo < r->lo)
		publish(r->lo, lo);
	if (hi > r->hi)
		publish(r->hi, hi);
}
