/* The sets jobs live in (see jobset.h): the index, hashed on digest and
 * range, that finds the job a repeat may attach to without looking at the
 * others; the backlog, a heap (lib/heap.c) of the jobs waiting for an
 * entry, ranked by the policy on the rank ring_rank_of gives them; and the
 * weight each peer address gives a job.
 *
 * Whatever changes a set or a weight here says so (js->rebalance), so that
 * jobs_balance looks again at what the table holds. */
#include "master/jobset.h"
#include "lib/siphash.h"
#include "lib/heap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- the index: jobs by digest and range ------------------------------- */

/* The key's SipHash under the index's own key: every byte of it is the
 * peer's to choose, and must not let the peer choose one bucket for all. */
static uint64_t hash_of(const struct jobs *js, const struct ring_key *k)
{
	uint8_t bytes[sizeof k->digest + 16];

	memcpy(bytes, k->digest, sizeof k->digest);
	memcpy(bytes + sizeof k->digest, &k->start, 8);
	memcpy(bytes + sizeof k->digest + 8, &k->end, 8);
	return siphash(js->hash_key, bytes, sizeof bytes);
}

static int same_key(const struct ring_key *a, const struct ring_key *b)
{
	return a->start == b->start && a->end == b->end &&
	       memcmp(a->digest, b->digest, sizeof a->digest) == 0;
}

static struct job **bucket(const struct jobs *js, uint64_t hash)
{
	return &js->index[hash & (js->index_size - 1)];
}

static struct job *find(const struct jobs *js, const struct ring_key *k, uint64_t hash)
{
	for (struct job *j = *bucket(js, hash); j; j = j->hnext)
		if (j->hash == hash && same_key(&j->key, k))
			return j;
	return NULL;
}

/* Double the buckets when they average more than one job. */
static void grow(struct jobs *js)
{
	size_t old = js->index_size;
	struct job **prev = js->index, **grown = calloc(2 * old, sizeof *grown);

	if (!grown)
		return; /* longer chains, still correct */
	js->index = grown;
	js->index_size = 2 * old;
	for (size_t i = 0; i < old; i++) {
		for (struct job *j = prev[i], *next; j; j = next) {
			next = j->hnext;
			j->hnext = *bucket(js, j->hash);
			*bucket(js, j->hash) = j;
		}
	}
	free(prev);
}

static void index_add(struct jobs *js, struct job *j)
{
	if (js->indexed >= js->index_size)
		grow(js);
	j->hnext = *bucket(js, j->hash);
	*bucket(js, j->hash) = j;
	js->indexed++;
}

static void index_remove(struct jobs *js, struct job *j)
{
	for (struct job **p = bucket(js, j->hash); *p; p = &(*p)->hnext) {
		if (*p == j) {
			*p = j->hnext;
			js->indexed--;
			return;
		}
	}
}

/* ---- the backlog: a heap, best-ranked first ---------------------------- */

static int backlog_before(const void *set, uint32_t a, uint32_t b)
{
	const struct jobs *js = set;

	return policy_outranks(&js->policy, &js->backlog[a]->rank, &js->backlog[b]->rank);
}

static void backlog_swap(void *set, uint32_t a, uint32_t b)
{
	struct jobs *js = set;
	struct job *t = js->backlog[a];

	js->backlog[a] = js->backlog[b];
	js->backlog[b] = t;
	js->backlog[a]->backlog_pos = a;
	js->backlog[b]->backlog_pos = b;
}

static const struct heap_ops backlog_heap = { backlog_before, backlog_swap };

/* j (out, in the backlog) ranks afresh: put it in its place. */
static void rerank(struct jobs *js, struct job *j)
{
	j->rank = ring_rank_of(j->weight, j->seq, &j->key, &j->out->p);
	heap_fix(&backlog_heap, js, js->nbacklog, j->backlog_pos);
	js->rebalance = 1;
}

/* j (with j->out) joins the backlog. 0 or -ENOMEM. */
static int backlog_add(struct jobs *js, struct job *j)
{
	if (js->nbacklog == js->backlog_cap) {
		uint32_t cap = js->backlog_cap ? 2 * js->backlog_cap : 64;
		struct job **grown = realloc(js->backlog, cap * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		js->backlog = grown;
		js->backlog_cap = cap;
	}
	j->backlog_pos = js->nbacklog;
	js->backlog[js->nbacklog++] = j;
	rerank(js, j);
	return 0;
}

static void backlog_remove(struct jobs *js, struct job *j)
{
	heap_remove(&backlog_heap, js, js->nbacklog, j->backlog_pos);
	js->nbacklog--;
}

struct job *jobset_best(const struct jobs *js)
{
	return js->nbacklog ? js->backlog[0] : NULL;
}

struct job *jobset_admit(struct jobs *js)
{
	struct job *j = jobset_best(js);
	uint32_t e;

	if (!j || ring_submit(&js->table, &j->key, &j->out->p, j->weight, j->seq, &e) < 0)
		return NULL;
	backlog_remove(js, j);
	j->backlog_pos = RING_NONE;
	free(j->out);
	j->out = NULL;
	j->entry = e;
	return j;
}

int jobset_come_back(struct jobs *js, struct job *j)
{
	j->entry = RING_NONE;
	return backlog_add(js, j);
}

/* ---- a job's life in the sets ------------------------------------------ */

/* A new job for key k (of hash): in the index, and in the backlog with
 * fresh progress and no weight yet; NULL when memory ran out. */
static struct job *new_job(struct jobs *js, const struct ring_key *k, uint64_t hash)
{
	struct job *j = calloc(1, sizeof *j);

	if (!j || !(j->out = calloc(1, sizeof *j->out)))
		goto fail;
	j->key = *k;
	j->out->p.next = k->start;
	j->entry = j->backlog_pos = RING_NONE;
	j->seq = js->seq++;
	j->hash = hash;
	if (backlog_add(js, j) < 0)
		goto fail;
	index_add(js, j);
	js->njobs++;
	return j;
fail:
	if (j)
		free(j->out);
	free(j);
	return NULL;
}

void jobset_free(struct jobs *js, struct job *j)
{
	if (j->backlog_pos != RING_NONE)
		backlog_remove(js, j);
	index_remove(js, j);
	js->njobs--;
	free(j->shares);
	free(j->out);
	free(j);
}

struct job *jobset_job_for(struct jobs *js, const struct conn *c, int *fresh)
{
	const struct proto_request *q = &c->req;
	struct ring_key k;
	struct job *j;
	uint64_t hash;

	memcpy(k.digest, q->digest, sizeof k.digest);
	k.start = q->start;
	k.end = q->end;
	hash = hash_of(js, &k);
	*fresh = !js->attach_repeats || !(j = find(js, &k, hash));
	if (*fresh && !(j = new_job(js, &k, hash)))
		return NULL;
	if (jobset_share(js, j, c->peer, c->prio) == 0)
		return j;
	if (*fresh)
		jobset_free(js, j);
	return NULL;
}

/* ---- weight --------------------------------------------------------------- */

static uint64_t capped(uint64_t sum)
{
	return sum < POLICY_PEER_WEIGHT_MAX ? sum : POLICY_PEER_WEIGHT_MAX;
}

/* The share of peer in j, a new one (of 0) if it has none; NULL when
 * memory ran out. */
static struct job_share *share_of(struct job *j, const uint8_t peer[16])
{
	struct job_share *s;

	for (uint32_t i = 0; i < j->nshares; i++)
		if (memcmp(j->shares[i].peer, peer, 16) == 0)
			return &j->shares[i];
	if (j->nshares == j->shares_cap) {
		uint32_t cap = j->shares_cap ? 2 * j->shares_cap : 2;
		struct job_share *grown = realloc(j->shares, cap * sizeof *grown);
		if (!grown)
			return NULL;
		j->shares = grown;
		j->shares_cap = cap;
	}
	s = &j->shares[j->nshares++];
	memcpy(s->peer, peer, 16);
	s->sum = 0;
	return s;
}

int jobset_share(struct jobs *js, struct job *j, const uint8_t peer[16], int64_t delta)
{
	struct job_share *s = share_of(j, peer);

	if (!s)
		return -ENOMEM;
	j->weight -= capped(s->sum);
	s->sum += (uint64_t)delta;
	j->weight += capped(s->sum);
	if (s->sum == 0)
		*s = j->shares[--j->nshares];
	if (j->entry != RING_NONE) {
		ring_set_weight(js->ring, j->entry, j->weight);
		js->rebalance = 1;
	} else {
		rerank(js, j);
	}
	return 0;
}
