/* The master's side of jobs (see jobs.h).
 *
 * A new job starts out parked, with fresh progress, and jobs_balance() puts
 * parked jobs into free entries best-ranked first; so a new job and one that
 * waited behind a full table take the same path. An index hashed on the key
 * finds the job a repeated request may join without looking at the others.
 *
 * One notification ends a job: the worker that moves it to FOUND or
 * EXHAUSTED flags its entry, and the master replies to every connection
 * waiting on it, caches the answer, frees the job and takes the entry back,
 * all in that one turn of its loop. A cancelled job is forgotten at once;
 * its entry comes back when the workers have dropped it (CLOSED). */
#include "master/jobs.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "master/job.h"

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
		  "notify %.1f, reply %.1f us", (unsigned long long)job_key(js, j)->start,
		  (unsigned long long)job_key(js, j)->end, t[0] / 1e3, t[1] / 1e3,
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

/* j's weight changed: publish it where the job is ranked. */
static void reweigh(struct jobs *js, struct job *j)
{
	if (j->entry != RING_NONE)
		ring_set_weight(js->ring, j->entry, jobset_weight(j));
	else
		jobset_rerank(js, j);
	js->rebalance = 1;
}

/* ---- life and death of a job --------------------------------------------- */

/* c waits on j. 0, or -ENOMEM (c is then not attached). */
static int attach(struct job *j, struct conn *c)
{
	if (jobset_share(j, c->peer, c->prio) < 0)
		return -ENOMEM;
	conn_list_push(&j->waiters, c);
	c->job = j;
	return 0;
}

/* c no longer waits on its job. */
static void detach(struct conn *c)
{
	conn_list_remove(c);
	c->job = NULL;
}

/* The job is over: out of the index, its memory freed. */
static void job_free(struct jobs *js, struct job *j)
{
	jobset_unindex(js, j);
	js->njobs--;
	free(j->shares);
	free(j->parked);
	free(j);
}

/* A new job for the request of c, whose key is k, waited on by c and
 * parked with fresh progress (jobs_balance gives it an entry), or NULL
 * when memory ran out (c is then untouched). */
static struct job *job_new(struct jobs *js, struct conn *c,
			   const struct ring_key *k, uint64_t hash)
{
	struct job *j = calloc(1, sizeof *j);

	if (!j || !(j->parked = calloc(1, sizeof *j->parked)))
		goto fail;
	j->parked->key = *k;
	j->parked->p.next = k->start;
	j->entry = RING_NONE;
	j->seq = js->seq++;
	j->hash = hash;
	j->accept_ns = c->accept_ns;
	j->request_ns = c->request_ns;
	if (attach(j, c) < 0)
		goto fail;
	if (jobset_park(js, j) < 0) {
		detach(c);
		goto fail;
	}
	jobset_index(js, j);
	js->njobs++;
	return j;
fail:
	if (j) {
		free(j->shares);
		free(j->parked);
	}
	free(j);
	return NULL;
}

/* Nobody waits on j any more: forget it. Its entry, if it has one, comes
 * back once the workers have dropped it. */
static void cancel(struct jobs *js, struct job *j)
{
	js->stats->cancelled++;
	if (j->entry == RING_NONE) {
		jobset_unpark(js, j);
	} else {
		ring_release(js->ring, j->entry);
		js->by_entry[j->entry] = NULL;
	}
	job_free(js, j);
}

/* j, in the table, is answered with x: reply to every connection waiting
 * on it; it is over. */
static void answer(struct jobs *js, struct job *j, uint64_t x, uint64_t settled)
{
	struct conn *c;

	while ((c = j->waiters.head)) {
		detach(c);
		clients_reply(js->clients, c, x);
	}
	time_stages(js, j, settled);
	js->by_entry[j->entry] = NULL;
	job_free(js, j);
}

/* Close the connections waiting on j without an answer. */
static void drop_waiters(struct jobs *js, struct job *j)
{
	struct conn *c;

	while ((c = j->waiters.head)) {
		detach(c);
		clients_drop(js->clients, c);
	}
}

/* j's entry is PARKED: its key and progress come to the master (into the
 * j->parked that park_worst made ready), the entry goes back, and j waits
 * with the parked jobs. */
static void park(struct jobs *js, struct job *j)
{
	uint32_t e = j->entry;

	js->by_entry[e] = NULL;
	j->entry = RING_NONE;
	j->parked->key = *ring_key(js->ring, e);
	ring_take_back(js->ring, e, &j->parked->p);
	js->rebalance = 1;
	if (jobset_park(js, j) == 0)
		return;
	log_error("out of memory: cancelling a parked search");
	drop_waiters(js, j);
	job_free(js, j);
}

/* What the workers did to the job in entry e, which its phase says: an
 * answer, none, or its leases back after a park or a release. */
static void on_entry(struct jobs *js, uint32_t e)
{
	struct job *j = js->by_entry[e];
	uint64_t settled = clock_ns();

	switch (ring_phase(js->ring, e)) {
	case PHASE_FOUND:
		cache_put(js->cache, ring_key(js->ring, e)->digest, ring_answer(js->ring, e));
		if (j)
			answer(js, j, ring_answer(js->ring, e), settled);
		break;
	case PHASE_EXHAUSTED:
		if (j) {
			js->stats->not_found++;
			answer(js, j, 0, settled);
		}
		break;
	case PHASE_PARKED:
		if (j) {
			park(js, j);
			return;
		}
		break;
	case PHASE_CLOSED:
		break;
	default:
		return; /* still the workers' */
	}
	ring_take_back(js->ring, e, NULL);
	js->by_entry[e] = NULL;
	js->rebalance = 1;
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
	js->index_size = 1024;
	js->index = calloc(js->index_size, sizeof *js->index);
	return js->index ? 0 : -ENOMEM;
}

/* Call fn on every job: those in the table, then the parked ones (fn may
 * free the job, but not move it from where it is). */
static void each_job(struct jobs *js, void (*fn)(struct jobs *, struct job *))
{
	for (uint32_t e = 0; e < RING_JOBS; e++)
		if (js->by_entry[e])
			fn(js, js->by_entry[e]);
	for (uint32_t i = 0; i < js->nparked; i++)
		fn(js, js->parked[i]);
}

void jobs_free(struct jobs *js)
{
	each_job(js, job_free);
	free(js->parked);
	free(js->index);
	memset(js, 0, sizeof *js);
}

void jobs_dispatch(struct jobs *js, struct conn *c)
{
	const struct proto_request *q = &c->req;
	struct ring_key k;
	struct job *j;
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
	hash = jobset_hash(&k);
	if (js->attach && (j = jobset_find(js, &k, hash)) && attach(j, c) == 0) {
		note(c, "joins the search in flight");
		js->stats->attached++;
		clients_wait(js->clients, c);
		reweigh(js, j);
		return;
	}
	if (!job_new(js, c, &k, hash)) {
		log_error("out of memory: dropping a request");
		clients_drop(js->clients, c);
		return;
	}
	note(c, "new job");
	js->stats->jobs++;
	clients_wait(js->clients, c);
	jobs_balance(js); /* into the table now, not after the whole batch */
}

void jobs_client_gone(struct jobs *js, struct conn *c)
{
	struct job *j = c->job;

	detach(c);
	jobset_share(j, c->peer, -(int64_t)c->prio);
	if (j->waiters.n == 0)
		cancel(js, j);
	else
		reweigh(js, j);
	clients_drop(js->clients, c);
}

void jobs_news(struct jobs *js)
{
	unsigned n = ring_changed(js->ring, js->changed);

	for (unsigned i = 0; i < n; i++)
		on_entry(js, js->changed[i]);
}

/* Put the best parked job into a free entry. */
static void unpark(struct jobs *js)
{
	struct job *j = js->parked[0];
	uint32_t e;

	if (ring_submit(js->ring, &j->parked->key, &j->parked->p, jobset_weight(j),
			j->seq, &e) < 0)
		return;
	jobset_unpark(js, j);
	free(j->parked);
	j->parked = NULL;
	j->entry = e;
	j->submit_ns = clock_ns();
	js->by_entry[e] = j;
	ring_wake(js->ring);
	ring_preempt(js->ring, e);
}

/* The table is full: park its worst running job if the best parked one
 * outranks it. One at a time: none while another is being parked. */
static void park_worst(struct jobs *js)
{
	struct rank_key best = jobset_parked_rank(js->parked[0]), worst = { 0 }, k;
	uint32_t victim = RING_NONE;
	struct job *j;

	for (uint32_t e = 0; e < RING_JOBS; e++) {
		enum ring_phase now;

		if (!js->by_entry[e])
			continue;
		if ((now = ring_phase(js->ring, e)) == PHASE_PARKING)
			return;
		if (now != PHASE_RUNNING)
			continue;
		ring_rank_key(js->ring, e, &k);
		if (victim == RING_NONE || rank_outranks(&js->policy, &worst, &k)) {
			victim = e;
			worst = k;
		}
	}
	if (victim == RING_NONE || !rank_outranks(&js->policy, &best, &worst))
		return;
	j = js->by_entry[victim];
	if (!(j->parked = calloc(1, sizeof *j->parked)))
		return; /* no memory to keep its progress: it runs on */
	if (!ring_park(js->ring, victim)) {
		free(j->parked);
		j->parked = NULL;
		return;
	}
	js->stats->parked++;
	ring_wake(js->ring); /* a worker brings its leases back (rare: a full table) */
}

void jobs_balance(struct jobs *js)
{
	if (!js->rebalance)
		return;
	js->rebalance = 0;
	while (js->nparked && ring_has_room(js->ring))
		unpark(js);
	if (js->nparked)
		park_worst(js);
}

void jobs_drop_all(struct jobs *js)
{
	each_job(js, drop_waiters);
}

unsigned jobs_in_flight(const struct jobs *js)
{
	return js->njobs;
}
