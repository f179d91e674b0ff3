/* One job entry of the ring (see ring.h): its phase and the one function
 * that moves it, what it has left to lease, and its place in the heap of
 * leasable jobs. Used by both sides: the master moves a phase and reads
 * what is left; the workers do everything else, under the lock. */
#include "lib/heap.h"
#include "lib/log.h"
#include "shm/ring_private.h"

#include <stdlib.h>

/* The diagram of ring.h: the phases each phase may move to. */
static const uint32_t arrows[PHASE_COUNT] = {
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

int ring_move(struct ring_job *j, enum ring_phase from, enum ring_phase to)
{
	uint32_t expect = from;
	int moved;

	if (from >= PHASE_COUNT || !(arrows[from] >> to & 1)) {
		log_error("ring: no move from %s to %s", ring_phase_name(from),
			  ring_phase_name(to));
		abort();
	}
	moved = __atomic_compare_exchange_n(&j->phase, &expect, (uint32_t)to, 0,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return moved;
}

const char *ring_phase_name(enum ring_phase phase)
{
	static const char *const names[PHASE_COUNT] = {
		"free", "new", "running", "releasing", "parking",
		"found", "exhausted", "parked", "closed",
	};

	return phase < PHASE_COUNT ? names[phase] : "?";
}

int ring_live(enum ring_phase p)
{
	return p == PHASE_RUNNING || p == PHASE_RELEASING || p == PHASE_PARKING;
}

/* ---- progress ------------------------------------------------------------ */

unsigned __int128 ring_remaining(const struct ring_key *k,
				 const struct ring_progress *p)
{
	unsigned __int128 n = p->cursor_done ? 0 : span(p->next, k->end);

	for (uint32_t i = 0; i < p->nreturned && i < RING_RETURNED; i++)
		n += span(p->returned[i].lo, p->returned[i].hi);
	return n;
}

unsigned __int128 ring_job_remaining(const struct ring_job *j)
{
	return ring_remaining(&j->key, &j->p);
}

void ring_give_back(struct ring_job *j, uint64_t lo, uint64_t hi)
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
	j->rem = ring_job_remaining(j);
}

void ring_stop_leases(struct ring *r, uint32_t idx, uint32_t gen)
{
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct ring_slot *s = &r->slots[i];
		if (peek(s->has_lease) && peek(s->lease_job) == idx &&
		    peek(s->lease_gen) == gen)
			publish(s->stop, 1);
	}
}

/* ---- the heap of leasable jobs (lib/heap.c over r->heap) ----------------- */

static struct rank_key rank_at(const struct ring *r, uint32_t pos)
{
	const struct ring_rank *h = &r->heap[pos];
	const struct ring_job *j = &r->jobs[h->job];

	return (struct rank_key){ h->weight, j->rem, j->seq, j->p.started };
}

int ring_heap_before(const struct ring *r, uint32_t a, uint32_t b)
{
	struct rank_key ka = rank_at(r, a), kb = rank_at(r, b);

	return rank_outranks(&r->policy, &ka, &kb);
}

static int heap_before(const void *set, uint32_t a, uint32_t b)
{
	return ring_heap_before(set, a, b);
}

static void heap_swap(void *set, uint32_t a, uint32_t b)
{
	struct ring *r = set;
	struct ring_rank t = r->heap[a];

	r->heap[a] = r->heap[b];
	r->heap[b] = t;
	r->jobs[r->heap[a].job].heap_pos = a;
	r->jobs[r->heap[b].job].heap_pos = b;
}

static const struct heap_ops ring_heap = { heap_before, heap_swap };

/* May a worker lease from j now? */
static int leasable(const struct ring *r, const struct ring_job *j)
{
	return peek(j->phase) == PHASE_RUNNING && j->rem > 0 &&
	       (r->policy.split || j->nleases == 0);
}

void ring_reposition(struct ring *r, struct ring_job *j)
{
	uint32_t pos = j->heap_pos;

	if (!leasable(r, j)) {
		if (pos == RING_NONE)
			return;
		heap_remove(&ring_heap, r, r->nheap, pos);
		r->nheap--;
		j->heap_pos = RING_NONE;
		return;
	}
	if (pos == RING_NONE) {
		pos = r->nheap++;
		r->heap[pos].job = (uint32_t)(j - r->jobs);
		j->heap_pos = pos;
	}
	r->heap[pos].weight = (uint32_t)peek(j->weight);
	heap_fix(&ring_heap, r, r->nheap, pos);
}
