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

static void release_shares(struct jobs *js, struct job *j);

void jobset_free(struct jobs *js, struct job *j)
{
	if (j->backlog_pos != RING_NONE)
		backlog_remove(js, j);
	index_remove(js, j);
	js->njobs--;
	release_shares(js, j);
	free(j->shares);
	free(j->out);
	free(j);
}

int jobset_job_for(struct jobs *js, const struct conn *c, struct job **out, int *fresh)
{
	const struct proto_request *q = &c->req;
	struct ring_key k;
	struct job *j;
	uint64_t hash;
	int rc;

	memcpy(k.digest, q->digest, sizeof k.digest);
	k.start = q->start;
	k.end = q->end;
	hash = hash_of(js, &k);
	*fresh = !js->attach_repeats || !(j = find(js, &k, hash));
	if (*fresh && !(j = new_job(js, &k, hash)))
		return -ENOMEM;
	if ((rc = jobset_share(js, j, c->peer, c->prio)) == 0) {
		*out = j;
		return 0;
	}
	if (*fresh)
		jobset_free(js, j);
	return rc;
}

/* ---- weight: each peer's part of a job, and its fair share ------------------
 *
 * What one peer's connections give one job is capped (capped()): stacking
 * connections on one search buys nothing. What a peer gives all its jobs
 * is its weight (struct peer); past js->peer_weight, each of its jobs
 * counts 1/2^shift of its part, the least shift that brings the peer's
 * total under the budget: a peer that asks for much shares the workers
 * with the others instead of ranking ahead of them by number. Within one
 * peer the order stays as it was (all its jobs scale alike). The shift is
 * a power of two with hysteresis, so that a change of shift, which
 * reweighs every job, comes at most once per doubling or halving of a
 * peer's weight, not at every request. */

#define FAIR_SHIFT_MAX JOBSET_UNIT_SHIFT

static uint64_t capped(uint64_t sum)
{
	return sum < POLICY_PEER_WEIGHT_MAX ? sum : POLICY_PEER_WEIGHT_MAX;
}

/* What a part of a peer under shift weighs. */
static uint64_t scaled(uint64_t part, uint32_t shift)
{
	return (part << JOBSET_UNIT_SHIFT) >> shift;
}

/* The shift pe's weight asks for now, moving from the one it has: up while
 * it exceeds the budget, down only while it would fit twice over. */
static uint32_t shift_for(const struct jobs *js, const struct peer *pe)
{
	uint32_t k = pe->shift;
	uint64_t budget = js->peer_weight;

	while (k < FAIR_SHIFT_MAX && pe->weight > budget << k)
		k++;
	while (k > 0 && pe->weight <= (budget << k) / 4)
		k--;
	return k;
}

/* j's weight changed: publish it where j ranks (its entry, when it still
 * owns one, or its backlog place). */
static void publish(struct jobs *js, struct job *j)
{
	if (j->entry != RING_NONE) {
		if (js->by_entry[j->entry] == j)
			ring_set_weight(js->ring, j->entry, j->weight);
		js->rebalance = 1;
	} else if (j->backlog_pos != RING_NONE) {
		rerank(js, j);
	}
}

/* Add up j's weight afresh from its shares and their peers' shifts. */
static void reweigh(struct jobs *js, struct job *j)
{
	const struct peers *ps = &js->clients->peers;
	uint64_t w = 0;

	for (uint32_t i = 0; i < j->nshares; i++) {
		const struct peer *pe = peers_find(ps, j->shares[i].peer);

		w += scaled(capped(j->shares[i].sum), pe ? pe->shift : 0);
	}
	j->weight = w;
	publish(js, j);
}

/* A peer's shift changed: every job may hold a part of it. */
static void reweigh_all(struct jobs *js)
{
	for (uint32_t e = 0; e < RING_JOBS; e++)
		if (js->by_entry[e])
			reweigh(js, js->by_entry[e]);
	for (uint32_t i = 0; i < js->nbacklog; i++)
		reweigh(js, js->backlog[i]);
}

/* pe's weight changed by its part in j going from was to now (capped):
 * j's weight follows (j NULL: a job being freed), or every job's when pe's
 * shift moved. pe may be forgotten on return. */
static void peer_part(struct jobs *js, struct peer *pe, struct job *j, uint64_t was,
		      uint64_t now)
{
	uint32_t shift;

	pe->weight = pe->weight - was + now;
	shift = shift_for(js, pe);
	if (shift == pe->shift) {
		if (j) {
			j->weight = j->weight - scaled(was, shift) + scaled(now, shift);
			publish(js, j);
		}
	} else {
		pe->shift = shift;
		reweigh_all(js);
	}
	peers_put(&js->clients->peers, pe);
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
	struct peer *pe = peers_get(&js->clients->peers, peer);
	struct job_share *s;
	uint64_t was;

	if (!pe)
		return -ENOMEM;
	if (!(s = share_of(j, peer)))
		return peers_put(&js->clients->peers, pe), -ENOMEM;
	if (s->sum == 0) { /* a new search of pe's */
		if (pe->searches >= js->peer_searches) {
			*s = j->shares[--j->nshares];
			peers_put(&js->clients->peers, pe);
			return -EBUSY;
		}
		pe->searches++;
	}
	was = capped(s->sum);
	s->sum += (uint64_t)delta;
	if (s->sum == 0) {
		*s = j->shares[--j->nshares];
		pe->searches--;
		peer_part(js, pe, j, was, 0);
	} else {
		peer_part(js, pe, j, was, capped(s->sum));
	}
	return 0;
}

/* j is being freed: its peers' parts in it go. It is out of the backlog
 * already, and out of the table or about to be: no reweighing must publish
 * it, so it keeps no shares while the others are reweighed. */
static void release_shares(struct jobs *js, struct job *j)
{
	struct peers *ps = &js->clients->peers;

	while (j->nshares) {
		struct job_share s = j->shares[--j->nshares];
		struct peer *pe = peers_find(ps, s.peer);

		if (!pe)
			continue;
		pe->searches--;
		peer_part(js, pe, NULL, capped(s.sum), 0);
	}
}
