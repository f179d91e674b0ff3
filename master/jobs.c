/* The master's side of jobs (see jobs.h).
 *
 * A new job starts out parked, with fresh progress, and jobs_balance() puts
 * parked jobs into free entries best-ranked first; so a new job and one that
 * waited behind a full table take the same path. An index hashed on the key
 * finds the job a repeated request may join without looking at the others.
 * A job struct is freed once it has no entry and no connection waits on it. */
#include "master/jobs.h"
#include "master/log.h"
#include "proto/proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What connections from one peer address give a job. */
struct share {
	uint8_t peer[16];
	uint64_t sum; /* their priorities, of which at most the cap counts */
};

/* A job's identity and progress while it has no entry in the ring. */
struct parked {
	struct ring_key key;
	struct ring_progress p;
};

struct job {
	struct conn_list waiters;
	struct share *shares;
	uint32_t nshares, shares_cap;
	uint64_t weight;        /* the sum of the capped shares */
	uint64_t seq;           /* arrival order */
	uint64_t hash;          /* of the key, for the index */
	struct job *hnext;      /* index chain */
	uint32_t entry;         /* its ring entry, or RING_NONE */
	size_t heap_pos;        /* in js->parked, while parked */
	struct parked *parked;  /* while parked (and while being parked) */
	unsigned closing : 1;   /* the ring was asked to release or park it */
	unsigned parking : 1;   /* ... to park it */
	unsigned done : 1;      /* answered or cancelled: out of the index */
	unsigned cached : 1;    /* its answer is in the cache */
};

/* --verbose: what became of a request. */
static void note(const struct conn *c, const char *how)
{
	log_debug("request %llu..%llu prio %u: %s",
		  (unsigned long long)c->req.start, (unsigned long long)c->req.end,
		  c->prio, how);
}

static const struct ring_key *key_of(const struct jobs *js, const struct job *j)
{
	return j->entry != RING_NONE ? ring_key_of(js->ring, j->entry) : &j->parked->key;
}

/* ---- the index: jobs by digest and range ------------------------------- */

static uint64_t key_hash(const struct ring_key *k)
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

static struct job *index_find(const struct jobs *js, const struct ring_key *k,
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

static void index_add(struct jobs *js, struct job *j)
{
	if (js->indexed >= js->index_size)
		index_grow(js);
	j->hnext = *bucket(js, j->hash);
	*bucket(js, j->hash) = j;
	js->indexed++;
}

/* The job is answered or cancelled: a new request for it starts afresh. */
static void index_remove(struct jobs *js, struct job *j)
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

static struct rank_key parked_key(const struct job *j)
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

static void heap_fix(struct jobs *js, size_t pos)
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

static int park_push(struct jobs *js, struct job *j)
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

static void park_remove(struct jobs *js, struct job *j)
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
static int share(struct job *j, const uint8_t peer[16], int64_t delta)
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

/* j's weight changed: rank it by the new one. */
static void reweigh(struct jobs *js, struct job *j)
{
	if (j->entry != RING_NONE) {
		if (!j->closing)
			ring_set_weight(js->ring, j->entry, j->weight);
	} else {
		heap_fix(js, j->heap_pos);
	}
	js->rebalance = 1;
}

/* ---- life and death of a job --------------------------------------------- */

static struct job *job_new(struct jobs *js, const struct ring_key *k,
			   uint64_t hash)
{
	struct job *j = calloc(1, sizeof *j);

	if (!j || !(j->parked = calloc(1, sizeof *j->parked))) {
		free(j);
		return NULL;
	}
	j->parked->key = *k;
	j->parked->p.next = k->start;
	j->entry = RING_NONE;
	j->seq = js->seq++;
	j->hash = hash;
	return j;
}

static void job_free(struct job *j)
{
	free(j->shares);
	free(j->parked);
	free(j);
}

/* c waits on j. 0, or -ENOMEM (c is then not attached). */
static int attach(struct jobs *js, struct job *j, struct conn *c)
{
	if (share(j, c->peer, c->prio) < 0)
		return -ENOMEM;
	conn_list_push(&j->waiters, c);
	c->job = j;
	clients_wait(js->clients, c);
	return 0;
}

/* Stop j's search in the ring: it closes once its chunks are back. */
static void release(struct jobs *js, struct job *j)
{
	if (j->parking)
		js->parking--;
	ring_release(js->ring, j->entry);
	j->closing = 1;
	j->parking = 0;
}

/* Nobody waits on j any more. */
static void cancel(struct jobs *js, struct job *j)
{
	js->stats->cancelled++;
	index_remove(js, j);
	if (j->entry == RING_NONE) {
		park_remove(js, j);
		job_free(j);
	} else if (!j->closing || j->parking) {
		release(js, j);
	}
}

static void reply_all(struct jobs *js, struct job *j, uint64_t answer)
{
	struct conn *c;

	while ((c = j->waiters.head))
		clients_reply(js->clients, c, answer);
}

/* A closed job's entry goes back to the ring: the job follows it into the
 * parked set when it was being parked, else it is over. */
static void take_back(struct jobs *js, struct job *j)
{
	uint32_t e = j->entry;

	js->by_entry[e] = NULL;
	js->rebalance = 1;
	j->entry = RING_NONE;
	if (j->parking) {
		j->parked->key = *ring_key_of(js->ring, e);
		ring_take_back(js->ring, e, &j->parked->p);
		j->closing = j->parking = 0;
		js->parking--;
		if (park_push(js, j) == 0)
			return;
		log_error("out of memory: cancelling a parked search");
		while (j->waiters.head)
			clients_drop(js->clients, j->waiters.head);
		index_remove(js, j);
	} else {
		ring_take_back(js->ring, e, NULL);
	}
	job_free(j);
}

/* Act on what the workers did to j. */
static void settle(struct jobs *js, struct job *j)
{
	uint64_t x = 0;
	enum ring_outcome out = ring_check(js->ring, j->entry, &x);

	if (out == RING_FOUND && !j->cached) {
		cache_put(js->cache, key_of(js, j)->digest, x);
		j->cached = 1;
	}
	if (out != RING_RUNNING) {
		if (!j->done) {
			if (out == RING_EXHAUSTED)
				js->stats->not_found++;
			reply_all(js, j, out == RING_FOUND ? x : 0);
			index_remove(js, j);
		}
		if (!j->closing || j->parking)
			release(js, j);
	}
	if (ring_closed(js->ring, j->entry))
		take_back(js, j);
}

/* ---- the interface -------------------------------------------------------- */

int jobs_init(struct jobs *js, struct ring *ring, struct cache *cache,
	      struct clients *clients, struct seg_stats *stats,
	      const struct rank_policy *policy, int attach)
{
	memset(js, 0, sizeof *js);
	js->ring = ring;
	js->cache = cache;
	js->clients = clients;
	js->stats = stats;
	js->policy = *policy;
	js->attach = attach;
	js->wake = 1;
	js->index_size = 1024;
	js->index = calloc(js->index_size, sizeof *js->index);
	return js->index ? 0 : -ENOMEM;
}

void jobs_free(struct jobs *js)
{
	for (uint32_t e = 0; e < RING_JOBS; e++)
		if (js->by_entry[e])
			job_free(js->by_entry[e]);
	for (size_t i = 0; i < js->nparked; i++)
		job_free(js->parked[i]);
	free(js->parked);
	free(js->index);
	memset(js, 0, sizeof *js);
}

void jobs_set_wake(struct jobs *js, unsigned n)
{
	js->wake = n ? n : 1;
}

void jobs_dispatch(struct jobs *js, struct conn *c)
{
	const struct proto_request *q = &c->req;
	struct ring_key k;
	struct job *j = NULL;
	uint64_t x, hash;

	if (q->start > q->end) {
		note(c, "empty range");
		clients_reply(js->clients, c, 0);
		return;
	}
	if (cache_get(js->cache, q->digest, &x) && x >= q->start && x <= q->end) {
		note(c, "cache hit");
		js->stats->cache_hits++;
		clients_reply(js->clients, c, x);
		return;
	}
	memcpy(k.digest, q->digest, sizeof k.digest);
	k.start = q->start;
	k.end = q->end;
	hash = key_hash(&k);
	if (js->attach && (j = index_find(js, &k, hash)) && attach(js, j, c) == 0) {
		note(c, "joins the search in flight");
		js->stats->attached++;
		reweigh(js, j);
		return;
	}
	if (!(j = job_new(js, &k, hash)) || attach(js, j, c) < 0 ||
	    park_push(js, j) < 0) {
		log_error("out of memory: dropping a request");
		if (j && c->job == j)
			conn_list_remove(c);
		if (j)
			job_free(j);
		clients_drop(js->clients, c);
		return;
	}
	note(c, "new job");
	js->stats->jobs++;
	if (js->attach)
		index_add(js, j);
}

void jobs_client_gone(struct jobs *js, struct conn *c)
{
	struct job *j = c->job;

	conn_list_remove(c);
	c->job = NULL;
	share(j, c->peer, -(int64_t)c->prio);
	if (j->waiters.n == 0)
		cancel(js, j);
	else
		reweigh(js, j);
	clients_drop(js->clients, c);
}

void jobs_changed(struct jobs *js)
{
	unsigned n = ring_changed(js->ring, js->changed);

	for (unsigned i = 0; i < n; i++) {
		struct job *j = js->by_entry[js->changed[i]];
		if (j)
			settle(js, j);
	}
}

/* Put the best parked job into a free entry. */
static void unpark(struct jobs *js)
{
	struct job *j = js->parked[0];
	uint32_t e;

	if (ring_submit(js->ring, &j->parked->key, &j->parked->p, j->weight,
			j->seq, &e) < 0)
		return;
	park_remove(js, j);
	free(j->parked);
	j->parked = NULL;
	j->entry = e;
	js->by_entry[e] = j;
	ring_wake(js->ring, js->wake);
}

/* The table is full: park its worst job if the best parked one outranks
 * it. One at a time; the next when this one is out. */
static void park_worst(struct jobs *js)
{
	struct rank_key best = parked_key(js->parked[0]), worst = { 0 }, k;
	struct job *victim = NULL;

	for (uint32_t e = 0; e < RING_JOBS; e++) {
		struct job *j = js->by_entry[e];
		if (!j || j->closing)
			continue;
		ring_rank_key(js->ring, e, &k);
		if (!victim || rank_outranks(&js->policy, &worst, &k)) {
			victim = j;
			worst = k;
		}
	}
	if (!victim || !rank_outranks(&js->policy, &best, &worst) ||
	    !(victim->parked = calloc(1, sizeof *victim->parked)))
		return;
	ring_park(js->ring, victim->entry);
	victim->closing = victim->parking = 1;
	js->parking++;
	js->stats->parked++;
}

void jobs_balance(struct jobs *js)
{
	if (!js->rebalance)
		return;
	js->rebalance = 0;
	while (js->nparked && ring_has_room(js->ring))
		unpark(js);
	if (js->nparked > js->parking && js->parking == 0)
		park_worst(js);
}

void jobs_drop_all(struct jobs *js)
{
	for (uint32_t e = 0; e < RING_JOBS; e++) {
		struct job *j = js->by_entry[e];
		while (j && j->waiters.head)
			clients_drop(js->clients, j->waiters.head);
	}
	for (size_t i = 0; i < js->nparked; i++)
		while (js->parked[i]->waiters.head)
			clients_drop(js->clients, js->parked[i]->waiters.head);
}
