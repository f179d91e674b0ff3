/* The master's side of jobs (see jobs.h).
 *
 * A new job starts out parked, with fresh progress, and jobs_balance() puts
 * parked jobs into free entries best-ranked first; so a new job and one that
 * waited behind a full table take the same path. An index hashed on the key
 * finds the job a repeated request may join without looking at the others.
 * A job struct is freed once it has no entry and no connection waits on it. */
#include "master/jobs.h"
#include "master/job.h"
#include "master/log.h"
#include "shm/clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The stages of j's first request, answered now (see enum seg_stage). */
static void time_stages(struct jobs *js, const struct job *j, uint64_t settled)
{
	struct seg_stages *st = &js->stats->stages;
	uint64_t leased, found, now = clock_ns();
	uint64_t t[STAGE_COUNT];

	ring_job_times(js->ring, j->entry, &leased, &found);
	if (!leased || !found || leased < j->submit_ns || found < leased ||
	    settled < found)
		return; /* not found, or the clock says something odd */
	t[STAGE_READ] = j->request_ns - j->accept_ns;
	t[STAGE_DISPATCH] = j->submit_ns - j->request_ns;
	t[STAGE_WAKE] = leased - j->submit_ns;
	t[STAGE_HASH] = found - leased;
	t[STAGE_NOTIFY] = settled - found;
	t[STAGE_REPLY] = now - settled;
	for (int i = 0; i < STAGE_COUNT; i++)
		st->ns[i] += t[i];
	st->timed++;
	log_debug("request %llu..%llu: read %.1f, dispatch %.1f, wake %.1f, hash %.1f, "
		  "notify %.1f, reply %.1f us", (unsigned long long)key_of(js, j)->start,
		  (unsigned long long)key_of(js, j)->end, t[0] / 1e3, t[1] / 1e3,
		  t[2] / 1e3, t[3] / 1e3, t[4] / 1e3, t[5] / 1e3);
}

/* A cache hit's two stages. */
static void time_hit(struct jobs *js, const struct conn *c)
{
	struct seg_stages *st = &js->stats->stages;

	st->hit_read_ns += c->request_ns - c->accept_ns;
	st->hit_reply_ns += clock_ns() - c->request_ns;
	st->hits_timed++;
}

/* --verbose: what became of a request. */
static void note(const struct conn *c, const char *how)
{
	log_debug("request %llu..%llu prio %u: %s",
		  (unsigned long long)c->req.start, (unsigned long long)c->req.end,
		  c->prio, how);
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

/* A new job for the request of c, whose key is k. */
static struct job *job_new(struct jobs *js, const struct conn *c,
			   const struct ring_key *k, uint64_t hash)
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
	j->accept_ns = c->accept_ns;
	j->request_ns = c->request_ns;
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
			uint64_t settled = clock_ns();

			if (out == RING_EXHAUSTED)
				js->stats->not_found++;
			reply_all(js, j, out == RING_FOUND ? x : 0);
			time_stages(js, j, settled);
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
		time_hit(js, c);
		return;
	}
	memcpy(k.digest, q->digest, sizeof k.digest);
	k.start = q->start;
	k.end = q->end;
	hash = job_key_hash(&k);
	if (js->attach && (j = index_find(js, &k, hash)) && attach(js, j, c) == 0) {
		note(c, "joins the search in flight");
		js->stats->attached++;
		reweigh(js, j);
		return;
	}
	if (!(j = job_new(js, c, &k, hash)) || attach(js, j, c) < 0 ||
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
	jobs_balance(js); /* into the table now, not after the whole batch */
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
	j->submit_ns = clock_ns();
	js->by_entry[e] = j;
	ring_wake(js->ring, js->wake);
	ring_preempt(js->ring, e);
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

unsigned jobs_in_flight(const struct jobs *js)
{
	return ring_in_use(js->ring) + (unsigned)js->nparked;
}
