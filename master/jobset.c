/* The sets jobs live in: the index that finds the job a repeated request
 * may join without looking at the others (hashed on digest and range), the
 * heap of parked jobs (best-ranked first), and the weight each peer address
 * gives a job. */
#include "master/job.h"
#include "proto/proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- the index: jobs by digest and range ------------------------------- */

uint64_t job_key_hash(const struct ring_key *k)
{
	uint64_t h = proto_load_be64(k->digest) ^ k->start * 0x9e3779b97f4a7c15ull ^
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

struct job *index_find(const struct jobs *js, const struct ring_key *k,
			      uint64_t hash)
{
	for (struct job *j = *bucket(js, hash); j; j = j->hnext)
		if (j->hash == hash && same_key(key_of(js, j), k))
			return j;
	return NULL;
}

/* Double the buckets when they average more than one job. */
static void index_grow(struct jobs *js)
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

void index_add(struct jobs *js, struct job *j)
{
	if (js->indexed >= js->index_size)
		index_grow(js);
	j->hnext = *bucket(js, j->hash);
	*bucket(js, j->hash) = j;
	js->indexed++;
}

/* The job is answered or cancelled: a new request for it starts afresh. */
void index_remove(struct jobs *js, struct job *j)
{
	if (j->done)
		return;
	j->done = 1;
	if (!js->attach)
		return;
	for (struct job **p = bucket(js, j->hash); *p; p = &(*p)->hnext) {
		if (*p == j) {
			*p = j->hnext;
			js->indexed--;
			return;
		}
	}
}

/* ---- parked jobs: a heap, best-ranked first ---------------------------- */

struct rank_key parked_key(const struct job *j)
{
	return (struct rank_key){ j->weight,
				  ring_remaining(&j->parked->key, &j->parked->p),
				  j->seq, j->parked->p.started };
}

static int heap_before(const struct jobs *js, size_t a, size_t b)
{
	struct rank_key ka = parked_key(js->parked[a]), kb = parked_key(js->parked[b]);

	return rank_outranks(&js->policy, &ka, &kb);
}

static void heap_swap(struct jobs *js, size_t a, size_t b)
{
	struct job *t = js->parked[a];

	js->parked[a] = js->parked[b];
	js->parked[b] = t;
	js->parked[a]->heap_pos = a;
	js->parked[b]->heap_pos = b;
}

void heap_fix(struct jobs *js, size_t pos)
{
	while (pos > 0 && heap_before(js, pos, (pos - 1) / 2)) {
		heap_swap(js, pos, (pos - 1) / 2);
		pos = (pos - 1) / 2;
	}
	for (;;) {
		size_t c = 2 * pos + 1;
		if (c >= js->nparked)
			return;
		if (c + 1 < js->nparked && heap_before(js, c + 1, c))
			c++;
		if (!heap_before(js, c, pos))
			return;
		heap_swap(js, pos, c);
		pos = c;
	}
}

int park_push(struct jobs *js, struct job *j)
{
	if (js->nparked == js->parked_cap) {
		size_t cap = js->parked_cap ? 2 * js->parked_cap : 64;
		struct job **grown = realloc(js->parked, cap * sizeof *grown);
		if (!grown)
			return -ENOMEM;
		js->parked = grown;
		js->parked_cap = cap;
	}
	j->heap_pos = js->nparked;
	js->parked[js->nparked++] = j;
	heap_fix(js, j->heap_pos);
	js->rebalance = 1;
	return 0;
}

void park_remove(struct jobs *js, struct job *j)
{
	size_t pos = j->heap_pos;

	if (pos != --js->nparked) {
		heap_swap(js, pos, js->nparked);
		heap_fix(js, pos);
	}
}

/* ---- weight ------------------------------------------------------------- */

static uint64_t capped(uint64_t sum)
{
	return sum < RANK_PEER_WEIGHT_MAX ? sum : RANK_PEER_WEIGHT_MAX;
}

/* Add delta (negative: take away) to what peer gives j. 0 or -ENOMEM. */
int share(struct job *j, const uint8_t peer[16], int64_t delta)
{
	struct share *s = NULL;
	uint64_t before;

	for (uint32_t i = 0; i < j->nshares && !s; i++)
		if (memcmp(j->shares[i].peer, peer, 16) == 0)
			s = &j->shares[i];
	if (!s) {
		if (j->nshares == j->shares_cap) {
			uint32_t cap = j->shares_cap ? 2 * j->shares_cap : 2;
			struct share *grown = realloc(j->shares, cap * sizeof *grown);
			if (!grown)
				return -ENOMEM;
			j->shares = grown;
			j->shares_cap = cap;
		}
		s = &j->shares[j->nshares++];
		memcpy(s->peer, peer, 16);
		s->sum = 0;
	}
	before = capped(s->sum);
	s->sum += (uint64_t)delta;
	j->weight = j->weight - before + capped(s->sum);
	if (s->sum == 0)
		*s = j->shares[--j->nshares];
	return 0;
}

