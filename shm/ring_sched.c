/* The schedule of the ring (see ring_sched.h): which job a worker leases
 * and how much of it, each decision the policy's (shm/policy.h); this
 * file gathers what the policy looks at and carries its answer out. It
 * alone keeps the fields derived from an entry (rank, leases out, heap
 * place) and a slot's kept job, through the sched_* operations, each of
 * which leaves them true. The heap ranks a job by its rank at its last
 * operation: a weight the master changes is taken in at the next call. */
#include "lib/heap.h"
#include "lib/log.h"
#include "shm/ring_sched.h"

/* ---- the heap of leasable jobs (lib/heap.c over r->heap) ----------------- */

/* The job at heap place pos. The heap is in the segment, which any worker
 * can write: an index past the table is cut into it, so a write costs a
 * rebuild (below), never a read or a write out of the table. */
#define JOB_AT(r, pos) (&(r)->jobs[(r)->heap[pos] & (RING_JOBS - 1)])
_Static_assert((RING_JOBS & (RING_JOBS - 1)) == 0, "JOB_AT cuts by a mask");

static int heap_before(const void *set, uint32_t a, uint32_t b)
{
	const struct ring *r = set;

	return policy_outranks(&r->policy, &JOB_AT(r, a)->rank, &JOB_AT(r, b)->rank);
}

static void heap_swap(void *set, uint32_t a, uint32_t b)
{
	struct ring *r = set;
	uint32_t t = r->heap[a];

	r->heap[a] = r->heap[b];
	r->heap[b] = t;
	JOB_AT(r, a)->heap_pos = a;
	JOB_AT(r, b)->heap_pos = b;
}

static const struct heap_ops by_rank = { heap_before, heap_swap };

/* May a worker lease from j now? (j->rank as sched_update just built it.) */
static int leasable(const struct ring *r, const struct ring_job *j)
{
	return peek(j->phase) == PHASE_RUNNING && j->rank.remaining > 0 &&
	       policy_leasable(&r->policy, j->nleases);
}

/* Is j at the heap place it says it holds? The schedule's own fields live
 * in the segment, where any worker can write them: one that cannot be
 * true must cost a rebuild, never a job left out of the heap for ever, a
 * lease of a job that ended, or a write past the heap. */
static int in_heap_at(const struct ring *r, const struct ring_job *j, uint32_t pos)
{
	return pos < r->nheap && r->nheap <= RING_JOBS && r->heap[pos] == (uint32_t)(j - r->jobs);
}

/* The schedule's own fields were written over (what): rebuilt, and every
 * live job marked to be taken in again, as a dead holder's successor
 * does: a job whose last lease was lost to a write ends, and does not
 * wait for ever. Said at most once a second by each worker. */
static void rebuild_written_over(struct ring *r, const char *what)
{
	static struct log_every said;
	uint64_t n;

	if ((n = log_every_due(&said)))
		log_error("ring: %s written over: the schedule rebuilt (%llu such rebuilds)", what,
			  (unsigned long long)n);
	sched_rebuild(r);
	for (uint32_t i = 0; i < RING_JOBS; i++)
		if (job_live(peek(r->jobs[i].phase)))
			mark_pending(r, i);
}

void sched_update(struct ring *r, struct ring_job *j)
{
	uint32_t pos = j->heap_pos;

	if ((pos != RING_NONE && !in_heap_at(r, j, pos)) ||
	    (pos == RING_NONE && r->nheap >= RING_JOBS)) {
		rebuild_written_over(r, "a heap place");
		return; /* j placed again with the others */
	}
	j->rank = ring_rank_of(peek(j->weight), j->seq, &j->key, &j->p);
	if (!leasable(r, j)) {
		if (pos == RING_NONE)
			return;
		heap_remove(&by_rank, r, r->nheap, pos);
		r->nheap--;
		j->heap_pos = RING_NONE;
		return;
	}
	if (pos == RING_NONE) {
		pos = r->nheap++;
		r->heap[pos] = (uint32_t)(j - r->jobs);
		j->heap_pos = pos;
	}
	heap_fix(&by_rank, r, r->nheap, pos);
}

/* ---- the operations that keep the derived fields ------------------------- */

void sched_leased(struct ring *r, struct ring_job *j, uint64_t hi, uint64_t now)
{
	job_take(j, hi, now);
	j->nleases++;
	sched_update(r, j);
}

void sched_give_back(struct ring *r, struct ring_job *j, uint64_t lo, uint64_t hi)
{
	if (peek(j->phase) == PHASE_RELEASING)
		return; /* nobody waits for its values: its leases only come back */
	ring_progress_give_back(&j->p, lo, hi);
	sched_update(r, j);
}

void sched_lease_back(struct ring *r, struct ring_job *j)
{
	if (!j->nleases) { /* written over: this lease is counted with the others */
		rebuild_written_over(r, "a lease count");
		return;
	}
	j->nleases--;
	sched_update(r, j);
}

void sched_restart(struct ring *r, struct ring_job *j)
{
	static struct log_every said;
	uint64_t n;

	if ((n = log_every_due(&said)))
		log_error("ring: job %u's progress is out of its range: searching it again "
			  "(%llu such restarts)", (unsigned)(j - r->jobs), (unsigned long long)n);
	/* Word by word, published: the master snapshots it without the lock. */
	publish(j->p.nreturned, 0);
	publish(j->p.cursor_done, 0);
	publish(j->p.started, 0);
	publish(j->p.next, j->key.start);
	sched_update(r, j);
}

void sched_recount(struct ring *r, struct ring_job *j)
{
	uint32_t idx = (uint32_t)(j - r->jobs), gen = peek(j->gen), n = 0;

	for (unsigned s = 0; s < RING_WORKERS; s++)
		n += (uint32_t)slot_holds(&r->slots[s], idx, gen);
	j->nleases = n;
}

void sched_ended(struct ring *r, struct ring_job *j)
{
	j->nleases = 0;
	sched_update(r, j);
}

void sched_rebuild(struct ring *r)
{
	r->nheap = 0;
	for (uint32_t i = 0; i < RING_JOBS; i++) {
		r->jobs[i].heap_pos = RING_NONE;
		r->jobs[i].nleases = 0;
	}
	for (unsigned s = 0; s < RING_WORKERS; s++) {
		struct ring_job *j = slot_lease_job(r, &r->slots[s]);
		if (j)
			j->nleases++;
	}
	for (uint32_t i = 0; i < RING_JOBS; i++)
		if (job_live(peek(r->jobs[i].phase)))
			sched_update(r, &r->jobs[i]);
}

/* ---- picking a job and sizing a lease ------------------------------------ */

/* How much of j the worker of s should lease (0: leave it to others). j is
 * in the heap, so its rank's remaining is its progress's, as of sched_update. */
static uint64_t size_for(const struct ring *r, const struct ring_slot *s,
			 const struct ring_job *j, uint64_t chunk,
			 uint64_t min_chunk, uint64_t now)
{
	struct lease_ask a = { .chunk = chunk, .min_chunk = min_chunk };
	uint32_t idx = (uint32_t)(j - r->jobs);

	slot_rates(r, s, &a);
	a.span = span(j->key.start, j->key.end);
	a.left = j->rank.remaining;
	a.work = a.left + (j->nleases ? slot_work_on(r, idx, j->gen, now) : 0);
	return policy_lease_size(&r->policy, &a);
}

void sched_keep(const struct ring *r, struct ring_slot *s, const struct ring_job *j)
{
	s->keep_job = j ? (uint32_t)(j - r->jobs) : RING_NONE;
	s->keep_gen = j ? j->gen : 0;
}

/* The job s stays on, where the policy keeps a worker on its job and that
 * job is still leasable; else NULL. */
static struct ring_job *kept(struct ring *r, const struct ring_slot *s)
{
	struct ring_job *j;

	if (!policy_keeps_job(&r->policy) || s->keep_job >= RING_JOBS)
		return NULL;
	j = &r->jobs[s->keep_job];
	/* The job may have ended since: the master may be reusing its entry. */
	return peek(j->gen) == s->keep_gen && in_heap_at(r, j, j->heap_pos) ? j : NULL;
}

struct ring_job *sched_pick(struct ring *r, const struct ring_slot *s,
			    uint64_t chunk, uint64_t min_chunk, uint64_t now,
			    uint64_t *size)
{
	struct ring_job *cand[3];
	unsigned n = 0;

	for (uint32_t pos = 0; pos < 3 && pos < r->nheap; pos++)
		if (!in_heap_at(r, JOB_AT(r, pos), pos)) {
			rebuild_written_over(r, "the heap");
			break;
		}
	if ((cand[n] = kept(r, s)))
		n++;
	if (r->nheap > 0)
		cand[n++] = JOB_AT(r, 0);
	if (r->nheap > 1)
		cand[n++] = JOB_AT(r, heap_second(&by_rank, r, r->nheap));
	for (unsigned i = 0; i < n; i++)
		if ((i == 0 || cand[i] != cand[0]) &&
		    (*size = size_for(r, s, cand[i], chunk, min_chunk, now)))
			return cand[i];
	return NULL;
}
