/* The heap of leasable jobs, kept by the workers under the ring's lock
 * (see ring.c): r->heap[0 .. nheap) holds job indices, best-ranked first by
 * the shared rank rule (shm/rank.h), and each job knows its place in it
 * (heap_pos, RING_NONE when out), so that a change of one job's key costs
 * O(log jobs) and choosing the next job costs nothing. The heap is derived
 * state: repair() in ring.c empties it and puts every job back. */
#include "shm/ring_private.h"

static struct rank_key key_of(const struct ring_job *j)
{
	return (struct rank_key){ j->weight, j->rem, j->seq, j->p.started };
}

static int before(const struct ring *r, uint32_t a, uint32_t b)
{
	struct rank_key ka = key_of(&r->jobs[a]), kb = key_of(&r->jobs[b]);

	return rank_outranks(&r->policy, &ka, &kb);
}

static void heap_put(struct ring *r, uint32_t pos, uint32_t job)
{
	r->heap[pos] = job;
	r->jobs[job].heap_pos = pos;
}

static void sift_up(struct ring *r, uint32_t pos)
{
	uint32_t job = r->heap[pos];

	while (pos > 0) {
		uint32_t parent = (pos - 1) / 2;
		if (!before(r, job, r->heap[parent]))
			break;
		heap_put(r, pos, r->heap[parent]);
		pos = parent;
	}
	heap_put(r, pos, job);
}

static void sift_down(struct ring *r, uint32_t pos)
{
	uint32_t job = r->heap[pos];

	for (;;) {
		uint32_t c = 2 * pos + 1;
		if (c >= r->nheap)
			break;
		if (c + 1 < r->nheap && before(r, r->heap[c + 1], r->heap[c]))
			c++;
		if (!before(r, r->heap[c], job))
			break;
		heap_put(r, pos, r->heap[c]);
		pos = c;
	}
	heap_put(r, pos, job);
}

static void heap_remove(struct ring *r, struct ring_job *j)
{
	uint32_t pos = j->heap_pos, last = r->heap[--r->nheap];

	j->heap_pos = RING_NONE;
	if (pos == r->nheap)
		return;
	heap_put(r, pos, last);
	sift_up(r, pos);
	sift_down(r, r->jobs[last].heap_pos);
}

/* May a worker lease from j now? */
int ring_leasable(const struct ring *r, const struct ring_job *j)
{
	return j->state == JOB_ACTIVE && !j->found && j->rem > 0 &&
	       (r->policy.split || j->nleases == 0);
}

/* j changed: put it where its rank says, or out of the heap. */
void ring_reposition(struct ring *r, struct ring_job *j)
{
	uint32_t idx = (uint32_t)(j - r->jobs);

	if (!ring_leasable(r, j)) {
		if (j->heap_pos != RING_NONE)
			heap_remove(r, j);
	} else if (j->heap_pos == RING_NONE) {
		heap_put(r, r->nheap++, idx);
		sift_up(r, r->nheap - 1);
	} else {
		sift_up(r, j->heap_pos);
		sift_down(r, j->heap_pos);
	}
}
