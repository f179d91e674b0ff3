/* The sets jobs live in (see jobset.h). Whatever changes a set or a
 * weight says so (set->rebalance): jobs_balance looks again. */
#include "master/jobset.h"
#include "lib/siphash.h"
#include "lib/heap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- the index: jobs by digest and range ------------------------------- */

/* SipHash under the index's own key: the peer chooses every byte of k. */
static uint64_t hash_of(const struct jobset *set, const struct ring_key *k)
{
	uint8_t bytes[sizeof k->digest + 16];

	memcpy(bytes, k->digest, sizeof k->digest);
	memcpy(bytes + sizeof k->digest, &k->start, 8);
	memcpy(bytes + sizeof k->digest + 8, &k->end, 8);
	return siphash(set->hash_key, bytes, sizeof bytes);
}

static int same_key(const struct ring_key *a, const struct ring_key *b)
{
	return a->start == b->start && a->end == b->end &&
	       memcmp(a->digest, b->digest, sizeof a->digest) == 0;
}

static struct job **bucket(const struct jobset *set, uint64_t hash)
{
	return &set->index[hash & (set->index_size - 1)];
}

static struct job *find(const struct jobset *set, const struct ring_key *k, uint64_t hash)
{
	for (struct job *j = *bucket(set, hash); j; j = j->hnext)
		if (j->hash == hash && same_key(&j->key, k))
			return j;
	return NULL;
}

/* Double the buckets when they average more than one job. */
static void grow(struct jobset *set)
{
	size_t old = set->index_size;
	struct job **prev = set->index, **grown = calloc(2 * old, sizeof *grown);

	if (!grown)
		return; /* longer chains, still correct */
	set->index = grown;
	set->index_size = 2 * old;
	for (size_t i = 0; i < old; i++) {
		for (struct job *j = prev[i], *next; j; j = next) {
			next = j->hnext;
			j->hnext = *bucket(set, j->hash);
			*bucket(set, j->hash) = j;
		}
	}
	free(prev);
}

static void index_add(struct jobset *set, struct job *j)
{
	if (set->indexed >= set->index_size)
		grow(set);
	j->hnext = *bucket(set, j->hash);
	*bucket(set, j->hash) = j;
	set->indexed++;
}

static void index_remove(struct jobset *set, struct job *j)
{
	for (struct job **p = bucket(set, j->hash); *p; p = &(*p)->hnext) {
		if (*p == j) {
			*p = j->hnext;
			set->indexed--;
			return;
		}
	}
}

/* ---- the backlog: a heap, best-ranked first ---------------------------- */

static int backlog_before(const void *sets, uint32_t a, uint32_t b)
{
	const struct jobset *set = sets;

	return policy_outranks(&set->policy, &set->backlog[a]->rank, &set->backlog[b]->rank);
}

static void backlog_swap(void *sets, uint32_t a, uint32_t b)
{
	struct jobset *set = sets;
	struct job *t = set->backlog[a];

	set->backlog[a] = set->backlog[b];
	set->backlog[b] = t;
	set->backlog[a]->backlog_pos = a;
	set->backlog[b]->backlog_pos = b;
}

static const struct heap_ops backlog_heap = { backlog_before, backlog_swap };

/* j (out, in the backlog) ranks afresh: put it in its place. */
static void rerank(struct jobset *set, struct job *j)
{
	j->rank = ring_rank_of(j->weight, j->seq, &j->key, j->out);
	heap_fix(&backlog_heap, set, set->nbacklog, j->backlog_pos);
	set->rebalance = 1;
}

int jobset_come_back(struct jobset *set, struct job *j)
{
	if (set->nbacklog == set->backlog_cap) {
		uint32_t cap = set->backlog_cap ? 2 * set->backlog_cap : 64;
		struct job **grown = realloc(set->backlog, cap * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		set->backlog = grown;
		set->backlog_cap = cap;
	}
	j->backlog_pos = set->nbacklog;
	set->backlog[set->nbacklog++] = j;
	rerank(set, j);
	return 0;
}

static void backlog_remove(struct jobset *set, struct job *j)
{
	heap_remove(&backlog_heap, set, set->nbacklog, j->backlog_pos);
	set->nbacklog--;
}

struct job *jobset_best(const struct jobset *set)
{
	return set->nbacklog ? set->backlog[0] : NULL;
}

void jobset_admitted(struct jobset *set, struct job *j)
{
	backlog_remove(set, j);
	j->backlog_pos = RING_NONE;
	free(j->out);
	j->out = NULL;
}

/* ---- a job's life in the sets ------------------------------------------ */

/* A new job for key k (of hash), in the index and the backlog, no weight
 * yet; NULL when memory ran out. */
static struct job *new_job(struct jobset *set, const struct ring_key *k, uint64_t hash)
{
	struct job *j = calloc(1, sizeof *j);

	if (!j || !(j->out = calloc(1, sizeof *j->out)))
		goto fail;
	TAILQ_INIT(&j->waiters.q);
	j->key = *k;
	j->out->next = k->start;
	j->entry = j->backlog_pos = RING_NONE;
	j->seq = set->seq++;
	j->hash = hash;
	if (jobset_come_back(set, j) < 0)
		goto fail;
	index_add(set, j);
	set->njobs++;
	return j;
fail:
	if (j)
		free(j->out);
	free(j);
	return NULL;
}

static void release_shares(struct jobset *set, struct job *j);

void jobset_free(struct jobset *set, struct job *j)
{
	if (j->backlog_pos != RING_NONE)
		backlog_remove(set, j);
	index_remove(set, j);
	set->njobs--;
	release_shares(set, j);
	free(j->shares);
	free(j->out);
	free(j);
}

int jobset_job_for(struct jobset *set, const struct conn *c, struct job **out, int *fresh)
{
	const struct proto_request *q = &c->req;
	struct ring_key k;
	struct job *j;
	uint64_t hash;
	int rc;

	memcpy(k.digest, q->digest, sizeof k.digest);
	k.start = q->start;
	k.end = q->end;
	hash = hash_of(set, &k);
	*fresh = !set->attach_repeats || !(j = find(set, &k, hash));
	if (*fresh && !(j = new_job(set, &k, hash)))
		return -ENOMEM;
	if ((rc = jobset_share(set, j, c->peer, c->prio)) == 0) {
		*out = j;
		return 0;
	}
	if (*fresh)
		jobset_free(set, j);
	return rc;
}

/* ---- weight: each peer's part of a job, and its fair share ------------------
 *
 * One peer's part in a job is capped (policy_peer_part). Past
 * set->peer_weight in all, each of its jobs counts 1/2^shift of its part,
 * the least shift that brings it under: the peer shares the workers
 * instead of ranking ahead by number. The shift moves with hysteresis, at
 * most once per doubling or halving of the peer's weight. */

#define FAIR_SHIFT_MAX JOBSET_UNIT_SHIFT

/* What a part of a peer under shift weighs. */
static uint64_t scaled(uint64_t part, uint32_t shift)
{
	return (part << JOBSET_UNIT_SHIFT) >> shift;
}

/* The shift pe's weight asks for: up while over the budget, down only
 * while it would fit twice over. */
static uint32_t shift_for(const struct jobset *set, const struct peer *pe)
{
	uint32_t k = pe->shift;
	uint64_t budget = set->peer_weight;

	while (k < FAIR_SHIFT_MAX && pe->weight > budget << k)
		k++;
	while (k > 0 && pe->weight <= (budget << k) / 4)
		k--;
	return k;
}

/* j's weight changed: publish it where j ranks. */
static void publish(struct jobset *set, struct job *j)
{
	if (jobset_entry_of(j) != RING_NONE) {
		set->publish(set->ctx, j);
		set->rebalance = 1;
	} else if (j->backlog_pos != RING_NONE) {
		rerank(set, j);
	}
}

/* Add up j's weight afresh from its shares and their peers' shifts. */
static void reweigh(struct jobset *set, struct job *j)
{
	const struct peers *ps = set->peers;
	uint64_t w = 0;

	for (uint32_t i = 0; i < j->nshares; i++) {
		const struct peer *pe = peers_find(ps, j->shares[i].peer);

		w += scaled(policy_peer_part(j->shares[i].sum), pe ? pe->shift : 0);
	}
	j->weight = w;
	publish(set, j);
}

/* ---- each peer's jobs ---------------------------------------------------
 *
 * A peer lists the jobs it has a share in, and each share its place in
 * that list: a change of the peer's shift reweighs its own jobs alone
 * (docs/security.md). */

/* j, in which pe has share s, joins pe's list. 0 or -ENOMEM. */
static int peer_add(struct peer *pe, struct job *j, struct job_share *s)
{
	if (pe->njobs == pe->jobs_cap) {
		uint32_t cap = pe->jobs_cap ? 2 * pe->jobs_cap : 4;
		struct job **grown = realloc(pe->jobs, cap * sizeof *grown);

		if (!grown)
			return -ENOMEM;
		pe->jobs = grown;
		pe->jobs_cap = cap;
	}
	s->at = pe->njobs;
	pe->jobs[pe->njobs++] = j;
	return 0;
}

/* The share of peer in j, or NULL. */
static struct job_share *share_in(struct job *j, const uint8_t peer[16])
{
	for (uint32_t i = 0; i < j->nshares; i++)
		if (memcmp(j->shares[i].peer, peer, 16) == 0)
			return &j->shares[i];
	return NULL;
}

/* The job at place at leaves pe's list (the last takes its place); the
 * list goes with the last. */
static void peer_remove(struct peer *pe, uint32_t at)
{
	struct job *moved;

	if (at >= pe->njobs)
		return;
	moved = pe->jobs[--pe->njobs];
	if (at < pe->njobs) {
		pe->jobs[at] = moved;
		share_in(moved, pe->addr)->at = at;
	}
	if (!pe->njobs) {
		free(pe->jobs);
		pe->jobs = NULL;
		pe->jobs_cap = 0;
	}
}

/* pe's shift changed: each of its jobs weighs anew. */
static void reweigh_peer(struct jobset *set, const struct peer *pe)
{
	for (uint32_t i = 0; i < pe->njobs; i++)
		reweigh(set, pe->jobs[i]);
}

/* pe's part in j went from was to now (capped): j's weight follows (j
 * NULL: a job being freed), or all of pe's jobs' when its shift moved.
 * pe may be forgotten on return. */
static void peer_part(struct jobset *set, struct peer *pe, struct job *j, uint64_t was,
		      uint64_t now)
{
	uint32_t shift;

	pe->weight = pe->weight - was + now;
	shift = shift_for(set, pe);
	if (shift == pe->shift) {
		if (j) {
			j->weight = j->weight - scaled(was, shift) + scaled(now, shift);
			publish(set, j);
		}
	} else {
		pe->shift = shift;
		reweigh_peer(set, pe);
		if (j && !share_in(j, pe->addr)) /* its last share of j just went */
			reweigh(set, j);
	}
	peers_put(set->peers, pe);
}

/* The share of peer in j, a new one (of 0) if none; NULL out of memory. */
static struct job_share *share_of(struct job *j, const uint8_t peer[16])
{
	struct job_share *s = share_in(j, peer);

	if (s)
		return s;
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

int jobset_share(struct jobset *set, struct job *j, const uint8_t peer[16], int64_t delta)
{
	struct peer *pe = peers_get(set->peers, peer);
	struct job_share *s;
	uint64_t was;

	if (!pe)
		return -ENOMEM;
	if (!(s = share_of(j, peer)))
		return peers_put(set->peers, pe), -ENOMEM;
	if (s->sum == 0) { /* a new search of pe's */
		int rc = pe->searches >= set->peer_searches ? -EBUSY : peer_add(pe, j, s);

		if (rc < 0) {
			*s = j->shares[--j->nshares];
			peers_put(set->peers, pe);
			return rc;
		}
		pe->searches++;
	}
	was = policy_peer_part(s->sum);
	s->sum += (uint64_t)delta;
	if (s->sum == 0) {
		peer_remove(pe, s->at);
		*s = j->shares[--j->nshares];
		pe->searches--;
		peer_part(set, pe, j, was, 0);
	} else {
		peer_part(set, pe, j, was, policy_peer_part(s->sum));
	}
	return 0;
}

/* j is being freed: its peers' parts go. No reweighing must publish it,
 * so it leaves every peer's list and keeps no shares meanwhile. */
static void release_shares(struct jobset *set, struct job *j)
{
	struct peers *ps = set->peers;

	while (j->nshares) {
		struct job_share s = j->shares[--j->nshares];
		struct peer *pe = peers_find(ps, s.peer);

		if (!pe)
			continue;
		peer_remove(pe, s.at);
		pe->searches--;
		peer_part(set, pe, NULL, policy_peer_part(s.sum), 0);
	}
}

int jobset_init(struct jobset *set, const struct policy *policy, int attach_repeats,
		struct peers *peers, uint64_t peer_searches, uint64_t peer_weight,
		jobset_publish_fn *publish, void *ctx)
{
	*set = (struct jobset){ .policy = *policy, .attach_repeats = attach_repeats,
				.peers = peers, .peer_searches = peer_searches,
				.peer_weight = peer_weight, .publish = publish, .ctx = ctx,
				.index_size = 1024 };
	siphash_key(set->hash_key);
	set->index = calloc(set->index_size, sizeof *set->index);
	return set->index ? 0 : -ENOMEM;
}

void jobset_destroy(struct jobset *set)
{
	for (size_t b = 0; b < set->index_size; b++)
		while (set->index[b])
			jobset_free(set, set->index[b]);
	free(set->backlog);
	free(set->index);
	memset(set, 0, sizeof *set);
}
