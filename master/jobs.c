/* The master's side of jobs: a complete request is answered from the cache,
 * joins the identical search in flight (the waiting priorities add up to the
 * job's weight), or becomes a new job in the ring; what the workers report is
 * turned into replies, cache entries and freed job entries here. Requests
 * that find the job table full wait in arrival order. */
#include "master/log.h"
#include "master/server.h"

#include <string.h>

static struct mjob *find_job(struct server *s, const struct proto_request *q,
			     uint32_t *idx)
{
	for (uint32_t i = 0; i < s->nlive; i++) {
		struct mjob *mj = &s->jobs[s->live[i]];
		if (!mj->replied && mj->start == q->start && mj->end == q->end &&
		    memcmp(mj->digest, q->digest, 32) == 0) {
			*idx = s->live[i];
			return mj;
		}
	}
	return NULL;
}

static void attach(struct server *s, struct conn *c, uint32_t idx)
{
	struct mjob *mj = &s->jobs[idx];

	c->state = CONN_WAITING;
	c->job = idx;
	conn_list_push(&mj->waiters, c);
	mj->weight += c->prio;
}

static void free_job(struct server *s, uint32_t idx)
{
	s->jobs[idx].in_use = 0;
	for (uint32_t i = 0; i < s->nlive; i++) {
		if (s->live[i] == idx) {
			s->live[i] = s->live[--s->nlive];
			break;
		}
	}
}

/* Start a search for c. When the job table is full, or others already wait
 * for an entry (and c is not one of them, admitted), c waits in arrival
 * order: jobs_admit_pending lets it in once an entry frees. */
static void new_job(struct server *s, struct conn *c, int admitted)
{
	uint32_t idx;
	struct mjob *mj;

	if ((s->pending.head && !admitted) ||
	    ring_submit(s->seg.ring, c->req.digest, c->req.start, c->req.end,
			c->prio, &idx) < 0) {
		c->state = CONN_WAITING;
		c->job = CONN_NO_JOB;
		conn_list_push(&s->pending, c);
		return;
	}
	mj = &s->jobs[idx];
	memset(mj, 0, sizeof *mj);
	mj->in_use = 1;
	memcpy(mj->digest, c->req.digest, 32);
	mj->start = c->req.start;
	mj->end = c->req.end;
	s->live[s->nlive++] = idx;
	server_stats(s)->jobs++;
	attach(s, c, idx);
	ring_wake(s->seg.ring, s->target);
}

/* A complete request: answer from the cache, join the same search, or start
 * a new one (admitted: c comes off the pending list). */
/* --verbose: what became of a request, logged before its reply. */
static void note(const struct conn *c, const char *how)
{
	log_debug("request %llu..%llu prio %u: %s",
		  (unsigned long long)c->req.start, (unsigned long long)c->req.end,
		  c->prio, how);
}

void jobs_dispatch(struct server *s, struct conn *c, int admitted)
{
	const struct proto_request *q = &c->req;
	uint64_t x;
	uint32_t idx;

	if (q->start > q->end) {
		note(c, "empty range");
		server_reply(s, c, 0);
	} else if (cache_get(s->seg.cache, q->digest, &x) && x >= q->start &&
		   x <= q->end) {
		note(c, "cache hit");
		server_stats(s)->cache_hits++;
		server_reply(s, c, x);
	} else if (find_job(s, q, &idx)) {
		note(c, "joins the search in flight");
		server_stats(s)->attached++;
		attach(s, c, idx);
		ring_set_weight(s->seg.ring, idx, s->jobs[idx].weight);
	} else {
		new_job(s, c, admitted);
		note(c, c->job == CONN_NO_JOB ? "waits for a free job entry" : "new job");
	}
}

/* Let requests waiting for a job entry in, oldest first (after each batch). */
void jobs_admit_pending(struct server *s)
{
	while (s->pending.head && s->seg.ring->nfree > 0) {
		struct conn *c = s->pending.head;
		conn_list_remove(c);
		jobs_dispatch(s, c, 1);
	}
}

/* Act on what the workers did to one job: cache a found answer, reply to
 * its waiters, and free its entry once no worker leases it. 1 when freed. */
int jobs_settle(struct server *s, uint32_t idx)
{
	struct mjob *mj = &s->jobs[idx];
	uint64_t x = 0;
	enum ring_outcome out = ring_check(s->seg.ring, idx, &x);

	if (out == RING_FOUND && !mj->cached) {
		cache_put(s->seg.cache, mj->digest, x);
		mj->cached = 1;
	}
	if (!mj->replied && out != RING_RUNNING) {
		if (out == RING_EXHAUSTED)
			server_stats(s)->not_found++;
		while (mj->waiters.head)
			server_reply(s, mj->waiters.head, out == RING_FOUND ? x : 0);
		mj->replied = 1;
	}
	if (mj->replied && ring_release(s->seg.ring, idx)) {
		free_job(s, idx);
		return 1;
	}
	return 0;
}

/* Look at every job the workers may have moved on. */
void jobs_scan(struct server *s)
{
	for (uint32_t i = 0; i < s->nlive;)
		if (!jobs_settle(s, s->live[i]))
			i++; /* when freed, the last entry moved into i */
}

/* The client of c left before its answer. */
void jobs_client_gone(struct server *s, struct conn *c)
{
	uint32_t idx = c->job;

	if (c->state == CONN_WAITING && idx != CONN_NO_JOB) {
		struct mjob *mj = &s->jobs[idx];
		conn_list_remove(c);
		mj->weight -= c->prio;
		if (mj->waiters.n == 0) {
			/* Nobody waits: stop searching. An answer found by
			 * now, or later, still goes into the cache. */
			mj->replied = 1;
			server_stats(s)->cancelled++;
			jobs_settle(s, idx);
		} else {
			ring_set_weight(s->seg.ring, idx, mj->weight);
		}
	}
	server_drop(s, c);
}
