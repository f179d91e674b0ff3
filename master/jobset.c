/* The sets jobs live in: the index that finds the job a repeated request
 * may join without looking at the others (hashed on digest and range), the
 * heap of parked jobs (best-ranked first, lib/heap.c), and the weight each
 * peer address gives a job. */
#include "lib/digest.h"
#include "lib/heap.h"
#include "master/job.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- the index: jobs by digest and range ------------------------------- */

uint64_t jobset_hash(const struct ring_key *k)
{
	uint64_t h = digest_key(k->digest) ^ k->start * 0x9e3779b97f4a7c15ull ^
		     k->end * 0xc2b2ae3d27d4eb4full;

	return h ^ h >> 31;
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

struct job *jobset_find(const struct jobs *js, const struct ring_key *k,
			uint64_t hash)
{
	for (struct job *j = *bucket(js, hash); j; j = j->hnext)
		if (j->hash == hash && same_key(job_key(js, j), k))
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

void jobset_index(struct jobs *js, struct job *j)
{
	if (js->indexed >= js->index_size)
		grow(js);
	j->hnext = *bucket(js, j->hash);
	*bucket(js, j->hash) = j;
	js->indexed++;
}

void jobset_unindex(struct jobs *js, struct job *j)
{
	for (struct job **p = bucket(js, j->hash); *p; p = &(*p)->hnext) {
		if (*p == j) {
			*p = j->hnext;
			js->indexed--;
			return;
		}
	}
}

/* ---- parked jobs: a heap, best-ranked first ---------------------------- */

struct rank_key jobset_parked_rank(const struct job *j)
{
	return (struct rank_key){ jobset_weight(j),
				  ring_remaining(&j->parked->key, &j->parked->p),
				  j->seq, j->parked->p.started };
}

static int parked_before(const void *set, uint32_t a, uint32_t b)
{
	const struct jobs *js = set;
	struct rank_key ka = jobset_parked_rank(js->parked[a]);
	struct rank_key kb = jobset_parked_rank(js->parked[b]);

	return rank_outranks(&js->policy, &ka, &kb);
}

static void parked_swap(void *set, uint32_t a, uint32_t b)
{
	struct jobs *js = set;
	struct job *t = js->parked[a];

	js->parked[a] = js->parked[b];
	js->parked[b] = t;
	js->parked[a]->heap_pos = a;
	js->parked[b]->heap_pos = b;
}

static const struct heap_ops parked_heap = { parked_before, parked_swap };

int jobset_park(struct jobs *js, struct job *j)
{
	if (js->nparked == js->parked_cap) {
		uint32_t cap = js->parked_cap ? 2 * js->parked_cap : 64;
		struct job **grown = realloc(js->parked, cap * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		js->parked = grown;
		js->parked_cap = cap;
	}
	j->heap_pos = js->nparked;
	js->parked[js->nparked++] = j;
	heap_fix(&parked_heap, js, js->nparked, j->heap_pos);
	js->rebalance = 1;
	return 0;
}

void jobset_unpark(struct jobs *js, struct job *j)
{
	heap_remove(&parked_heap, js, js->nparked, j->heap_pos);
	js->nparked--;
}

void jobset_rerank(struct jobs *js, struct job *j)
{
	heap_fix(&parked_heap, js, js->nparked, j->heap_pos);
}

/* ---- weight ------------------------------------------------------------- */

static uint64_t capped(uint64_t sum)
{
	return sum < RANK_PEER_WEIGHT_MAX ? sum : RANK_PEER_WEIGHT_MAX;
}

uint64_t jobset_weight(const struct job *j)
{
	uint64_t w = 0;

	for (uint32_t i = 0; i < j->nshares; i++)
		w += capped(j->shares[i].sum);
	return w;
}

int jobset_share(struct job *j, const uint8_t peer[16], int64_t delta)
{
	struct job_share *s = NULL;

	for (uint32_t i = 0; i < j->nshares && !s; i++)
		if (memcmp(j->shares[i].peer, peer, 16) == 0)
			s = &j->shares[i];
	if (!s) {
		if (j->nshares == j->shares_cap) {
			uint32_t cap = j->shares_cap ? 2 * j->shares_cap : 2;
			struct job_share *grown = realloc(j->shares, cap * sizeof *grown);
			if (!grown)
				return -ENOMEM;
			j->shares = grown;
			j->shares_cap = cap;
		}
		s = &j->shares[j->nshares++];
		memcpy(s->peer, peer, 16);
		s->sum = 0;
	}
	s->sum += (uint64_t)delta;
	if (s->sum == 0)
		*s = j->shares[--j->nshares];
	return 0;
}
