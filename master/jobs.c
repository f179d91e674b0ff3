/* The master's side of jobs (see jobs.h). A new job starts in the
 * backlog, as a parked one does, and jobs_balance() gives free entries to
 * the backlog's best. One flag ends a job: the master replies to its
 * waiters, caches the answer, frees the job and the entry in one turn of
 * its loop. A cancelled job is forgotten at once; its entry comes back
 * when the workers have dropped it (CLOSED). */
#include "master/jobs.h"
#include "master/jobs_entry.h"
#include "shm/segment_create.h"
#include "lib/clock.h"
#include "lib/digest.h"
#include "lib/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The stages of j's first request, answered now; heard_ns: when the master
 * heard of the answer (enum seg_stage). */
static void time_stages(struct jobs *js, const struct job *j, uint64_t heard_ns)
{
	struct seg_stages *st = &js->stats->stages;
	struct seg_hist *hist = js->stats->latency.stage;
	uint64_t submitted, leased, found, now = clock_ns();
	uint64_t t[STAGE_COUNT];

	ring_job_times(js->ring, jobset_entry_of(j), &submitted, &leased, &found);
	if (!leased || !found || leased < submitted || found < leased ||
	    heard_ns < found)
		return; /* not found, or the clock says something odd */
	t[STAGE_READ] = j->request_ns - j->accept_ns;
	t[STAGE_DISPATCH] = submitted - j->request_ns;
	t[STAGE_WAKE] = leased - submitted;
	t[STAGE_HASH] = found - leased;
	t[STAGE_NOTIFY] = heard_ns - found;
	t[STAGE_REPLY] = now - heard_ns;
	for (int i = 0; i < STAGE_COUNT; i++) {
		shm_count(st->ns[i], t[i]);
		hist_add(&hist[i], t[i]);
	}
	shm_count(st->timed, 1);
	log_debug("request %llu..%llu: read %.1f, dispatch %.1f, wake %.1f, hash %.1f, "
		  "notify %.1f, reply %.1f us", (unsigned long long)j->key.start,
		  (unsigned long long)j->key.end, t[0] / 1e3, t[1] / 1e3,
		  t[2] / 1e3, t[3] / 1e3, t[4] / 1e3, t[5] / 1e3);
}

/* --verbose: what became of a request. */
static void note(const struct conn *c, const char *how)
{
	log_debug("request %llu..%llu prio %u: %s",
		  (unsigned long long)c->req.start, (unsigned long long)c->req.end,
		  c->prio, how);
}

/* ---- life and death of a job --------------------------------------------- */

/* Where a job is has one record: each entry's holder (ring_holder): its
 * job, RING_HELD_ALONE for a job let go, NULL when free. jobset_entry_of
 * reads it the other way (j->entry); the functions below write both. */
struct job *jobs_job_in(const struct jobs *js, uint32_t e)
{
	void *h = ring_holder(&js->table, e);

	return h == RING_HELD_ALONE(&js->table) ? NULL : h;
}

/* Entry e's job, if any, is no longer in it: returned, j->entry undone
 * (the entry's side is the caller's). */
static struct job *leave_table(struct jobs *js, uint32_t e)
{
	struct job *j = jobs_job_in(js, e);

	if (j)
		j->entry = RING_NONE;
	return j;
}

/* j is let go: its entry stays the master's, held by no job, until the
 * workers drop it (CLOSED) or RELEASE_WAIT_MS passes. */
static void let_go(struct jobs *js, struct job *j)
{
	uint32_t e = jobset_entry_of(j);

	js->rec[e].since_ms = clock_ms();
	ring_release(js->ring, e);
	leave_table(js, e);
	ring_hold_alone(&js->table, e);
}

/* A job's weight changed while it is in the table (jobset_publish_fn);
 * not into a NEW a worker wrote over the running job, which the mark
 * would have the workers take in (the audit takes it back instead). */
static void publish_weight(void *ctx, const struct job *j)
{
	struct jobs *js = ctx;
	uint32_t e = jobset_entry_of(j);

	if (ring_phase(js->ring, e) == PHASE_NEW && !ring_untouched(&js->table, e))
		return;
	ring_set_weight(js->ring, e, j->weight);
}

/* Entry e is done with: free again. The one place such an entry is freed. */
static void free_entry(struct jobs *js, uint32_t e, struct ring_progress *p)
{
	leave_table(js, e);
	ring_free_entry(&js->table, e, p);
	js->set.rebalance = 1;
}

/* Reply *x to every connection waiting on j, under outcome (enum
 * seg_outcome); x NULL: close them unanswered. */
static void tell_waiters(struct jobs *js, struct job *j, const uint64_t *x, unsigned outcome)
{
	struct conn *c;

	while ((c = TAILQ_FIRST(&j->waiters.q))) {
		c->job = NULL;
		if (x)
			clients_reply(js->clients, c, *x, outcome);
		else
			clients_drop(js->clients, c);
	}
}

/* j, out of the table with its progress in j->out, waits in the backlog
 * again; out of memory (j->out NULL too), its clients are dropped (what:
 * which search, for the log). */
static void back_to_backlog(struct jobs *js, struct job *j, const char *what)
{
	if (j->out && jobset_come_back(&js->set, j) == 0)
		return;
	log_error("out of memory: cancelling %s", what);
	tell_waiters(js, j, NULL, 0);
	jobset_free(&js->set, j);
}

/* p: j's progress from its start, a pass whose "not found" is believed. */
static void from_the_start(struct job *j, struct ring_progress *p)
{
	memset(p, 0, sizeof *p);
	p->next = j->key.start;
	j->unsure = 0;
}

/* j's entry e is PARKED, as asked: j's progress comes to the master, the
 * entry is freed, j waits in the backlog; progress that cannot be (a
 * worker's bytes) is not kept. */
static void come_back(struct jobs *js, struct job *j, uint32_t e)
{
	free_entry(js, e, j->out);
	if (ring_progress_check(&j->key, j->out) < 0) {
		if (log_every_due(&js->broken_said))
			log_error("a parked search of %llu..%llu came back with progress out of "
				  "its range: searching it again", (unsigned long long)j->key.start,
				  (unsigned long long)j->key.end);
		from_the_start(j, j->out);
	}
	back_to_backlog(js, j, "a parked search");
}

/* j's entry e says nothing found, and j is unsure: its record may lack
 * ranges no worker hashed, so it is searched again from its start (a
 * liar keeps it from ending, never makes it end wrong). */
static void search_again(struct jobs *js, struct job *j, uint32_t e)
{
	uint64_t n;

	free_entry(js, e, NULL);
	if (j->out || (j->out = calloc(1, sizeof *j->out)))
		from_the_start(j, j->out);
	if ((n = log_every_due(&js->broken_said)))
		log_error("a search of %llu..%llu ended with nothing found after its entry was "
			  "taken back: searching it again from its start (%llu such searches)",
			  (unsigned long long)j->key.start, (unsigned long long)j->key.end,
			  (unsigned long long)n);
	back_to_backlog(js, j, "a search searched again");
}

/* What the workers did meanwhile may be missing from what the master
 * reads of a taken-back entry (a lease dropped when a liar's phase said
 * the job ended), so its job is unsure from then on (docs/architecture.md). */
int entry_take_back(struct jobs *js, uint32_t e)
{
	struct job *j = jobs_job_in(js, e);
	struct ring_progress p;

	if (ring_take_back(&js->table, e, &p) < 0)
		return -EAGAIN;
	js->set.rebalance = 1;
	if (!j)
		return 0;
	j->entry = RING_NONE;
	j->unsure = 1;
	if (ring_progress_check(&j->key, &p) < 0)
		from_the_start(j, &p);
	if (j->out || (j->out = calloc(1, sizeof *j->out)))
		*j->out = p;
	back_to_backlog(js, j, "a search taken back");
	return 0;
}

/* Nobody is blamed (any worker can write who it was), never an abort: a
 * liar costs time but cannot keep a search with an answer from ending. */
void entry_written_over(struct jobs *js, uint32_t e, const char *fmt, ...)
{
	struct job *j = jobs_job_in(js, e);
	char what[96];
	va_list ap;
	uint64_t n;

	if (entry_take_back(js, e) < 0)
		return;
	if (j)
		j->rewritten++;
	if (!(n = log_every_due(&js->broken_said)))
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	log_error("job entry %u %s: taken back, its search gone on from where it got "
		  "(%llu such entries)", (unsigned)e, what, (unsigned long long)n);
}

#define BIT(phase) (1u << PHASE_##phase)

/* The phases entry e may show by the master's own record, a bit each: a
 * job's, one being parked, or one let go. NEW only while no worker has
 * leased from it: a NEW over a running job drops its leases unhashed. */
static uint32_t phases_asked(const struct jobs *js, uint32_t e, uint32_t phase)
{
	const struct job *j = jobs_job_in(js, e);

	if (!j)
		return BIT(RELEASING) | BIT(CLOSED) | BIT(FOUND);
	if (j->out) /* parked by park_worst: its progress comes to j->out */
		return BIT(PARKING) | BIT(PARKED) | BIT(FOUND) | BIT(EXHAUSTED);
	if (phase == PHASE_NEW && !ring_untouched(&js->table, e))
		return BIT(RUNNING) | BIT(FOUND) | BIT(EXHAUSTED);
	return BIT(NEW) | BIT(RUNNING) | BIT(FOUND) | BIT(EXHAUSTED);
}

#define UNASKED "says %s (phase %u), which was not asked"

int entry_holds_key(const struct jobs *js, uint32_t e, const struct job *j)
{
	return memcmp(ring_key(js->ring, e), &j->key, sizeof j->key) == 0;
}

/* Why job j's entry e cannot be at the end it says (PARKED; EXHAUSTED
 * where exhausted, with nothing left to lease), or NULL. */
static const char *end_denied(const struct jobs *js, const struct job *j, uint32_t e,
			      int exhausted)
{
	struct ring_progress p;

	if (!entry_holds_key(js, e, j))
		return "another key than its job's";
	if (!ring_leases_back(&js->table, e))
		return "a lease still out";
	if (!exhausted)
		return NULL;
	/* A cursor word written to anything but 0 or 1 reads "none left". */
	ring_progress_now(js->ring, e, &p);
	if (ring_progress_check(&j->key, &p) < 0)
		return "its progress out of its range";
	if (ring_remaining(&j->key, &p))
		return "values left to hash";
	return NULL;
}

/* The phase must be one the master asked for, an answer one its own copy
 * of the key confirms, before anyone is told or the cache keeps it. */
void entry_end(struct jobs *js, uint32_t e)
{
	struct job *j = jobs_job_in(js, e);
	uint64_t heard = clock_ns(), x = 0;
	/* Read once: what is checked is what is told. */
	enum ring_phase phase = ring_phase(js->ring, e);
	struct ring_key k;
	const char *why;

	if (!ring_holder(&js->table, e))
		return; /* free: a late flag (a repair flags every entry) */
	if (phase >= PHASE_COUNT || !(phases_asked(js, e, phase) >> phase & 1)) {
		entry_written_over(js, e, UNASKED, ring_phase_name(phase), (unsigned)phase);
		return;
	}
	if (ring_phase_workers(phase))
		return; /* still the workers' */
	switch (phase) {
	case PHASE_FOUND:
		x = ring_answer(js->ring, e);
		if (j && !digest_answers(x, j->key.digest, j->key.start, j->key.end)) {
			shm_count(js->stats->wrong_answers, 1);
			entry_written_over(js, e, "says found %llu, which does not hash to its "
					   "digest", (unsigned long long)x);
			return;
		}
		/* A search nobody waits for: kept only if the pair is one. */
		k = j ? j->key : *ring_key(js->ring, e);
		if (j || digest_answers(x, k.digest, k.start, k.end))
			cache_put(js->cache, k.digest, x);
		break;
	case PHASE_EXHAUSTED:
		if (j && (why = end_denied(js, j, e, 1))) {
			entry_written_over(js, e, "says exhausted with %s", why);
			return;
		}
		if (j && j->unsure) {
			search_again(js, j, e);
			return;
		}
		shm_count(js->stats->not_found, j != NULL);
		break;
	case PHASE_PARKED: /* phases_asked: j was being parked, j->out is set */
		if ((why = end_denied(js, j, e, 0))) {
			entry_written_over(js, e, "says parked with %s", why);
			return;
		}
		come_back(js, j, e);
		return;
	default: /* CLOSED: a job let go (phases_asked) */
		break;
	}
	if (j) {
		tell_waiters(js, j, &x, phase == PHASE_FOUND ? OUTCOME_FOUND : OUTCOME_NOT_FOUND);
		time_stages(js, j, heard);
	}
	free_entry(js, e, NULL);
	if (j)
		jobset_free(&js->set, j);
}

/* ---- the interface -------------------------------------------------------- */

int jobs_init(struct jobs *js, struct ring *ring, struct cache *cache,
	      struct clients *clients, struct seg_stats *stats,
	      const struct policy *policy, int attach_repeats,
	      uint64_t peer_searches, uint64_t peer_weight)
{
	*js = (struct jobs){ .ring = ring, .cache = cache, .clients = clients, .stats = stats };
	ring_master_init(&js->table, ring);
	return jobset_init(&js->set, policy, attach_repeats, &clients->peers, peer_searches,
			   peer_weight, publish_weight, js);
}

void jobs_free(struct jobs *js)
{
	for (uint32_t e = 0; e < RING_JOBS; e++)
		leave_table(js, e);
	jobset_destroy(&js->set);
	memset(js, 0, sizeof *js);
}

void jobs_dispatch(struct jobs *js, struct conn *c)
{
	const struct proto_request *q = &c->req;
	struct job *j;
	uint64_t x;
	int fresh, rc;

	if (q->start > q->end) {
		note(c, "empty range");
		clients_reply(js->clients, c, 0, OUTCOME_NOT_FOUND);
		return;
	}
	if (cache_get(js->cache, q->digest, &x) && x >= q->start && x <= q->end) {
		note(c, "cache hit");
		shm_count(js->stats->cache_hits, 1);
		clients_reply(js->clients, c, x, OUTCOME_CACHE_HIT);
		shm_count(js->stats->stages.hit_read_ns, c->request_ns - c->accept_ns);
		shm_count(js->stats->stages.hit_reply_ns, clock_ns() - c->request_ns);
		shm_count(js->stats->stages.hits_timed, 1);
		return;
	}
	if ((rc = jobset_job_for(&js->set, c, &j, &fresh)) < 0) {
		if (rc == -EBUSY) {
			clients_refuse(js->clients, c);
			return;
		}
		log_error("out of memory: dropping a request");
		clients_drop(js->clients, c);
		return;
	}
	c->job = j;
	clients_wait(js->clients, c, &j->waiters);
	if (!fresh) {
		note(c, "attached to the search in flight");
		shm_count(js->stats->attached, 1);
		return;
	}
	note(c, "new job");
	j->accept_ns = c->accept_ns;
	j->request_ns = c->request_ns;
	shm_count(js->stats->jobs, 1);
	jobs_balance(js); /* into the table now, not after the whole batch */
}

void jobs_client_gone(struct jobs *js, struct conn *c)
{
	struct job *j = c->job;

	c->job = NULL;
	clients_drop(js->clients, c);
	if (TAILQ_EMPTY(&j->waiters.q)) { /* nobody waits: forget j, let its entry go */
		shm_count(js->stats->cancelled, 1);
		if (jobset_entry_of(j) != RING_NONE)
			let_go(js, j);
		jobset_free(&js->set, j);
	} else {
		jobset_share(&js->set, j, c->peer, -(int64_t)c->prio);
	}
}

void jobs_news(struct jobs *js)
{
	unsigned n = ring_changed(js->ring, js->changed);

	for (unsigned i = 0; i < n; i++)
		entry_end(js, js->changed[i]);
}

/* The table is full: park its worst running job if the backlog's best
 * outranks it, one park at a time. An entry whose phase a worker made out
 * of the table is taken back on the way: no worker can keep the table
 * full, nor stop the parking by writing PARKING. */
static void park_worst(struct jobs *js)
{
	struct rank best = jobset_best(&js->set)->rank, worst = { 0 }, k;
	uint32_t victim = RING_NONE;
	uint64_t now_ms = clock_ms();
	struct job *j;

	for (uint32_t e = 0; e < RING_JOBS; e++) {
		enum ring_phase now = ring_phase(js->ring, e);

		if ((now <= PHASE_FREE || now >= PHASE_COUNT) && ring_holder(&js->table, e))
			entry_written_over(js, e, UNASKED, ring_phase_name(now), (unsigned)now);
		if (!(j = jobs_job_in(js, e)))
			continue;
		if (j->out && now_ms - js->rec[e].since_ms < PARK_WAIT_MS)
			return;
		if (now != PHASE_RUNNING || j->out)
			continue;
		k = ring_rank(js->ring, e);
		if (victim == RING_NONE || policy_outranks(&js->set.policy, &worst, &k)) {
			victim = e;
			worst = k;
		}
	}
	if (victim == RING_NONE || !policy_outranks(&js->set.policy, &best, &worst))
		return;
	j = jobs_job_in(js, victim);
	if (!(j->out = calloc(1, sizeof *j->out)))
		return; /* no memory to keep its progress: it runs on */
	if (!ring_park(js->ring, victim)) {
		free(j->out);
		j->out = NULL;
		return;
	}
	js->rec[victim].since_ms = now_ms;
	shm_count(js->stats->parked, 1);
	ring_wake(js->ring); /* a worker brings its leases back (rare: a full table) */
}

/* The backlog's best job into a free entry: 1, or 0. The one way in. */
static int admit(struct jobs *js)
{
	struct job *j = jobset_best(&js->set);
	uint32_t e;

	if (!j || ring_submit(&js->table, &j->key, j->out, j->weight, j->seq, j, &e) < 0)
		return 0;
	j->entry = e;
	js->rec[e] = (struct entry_rec){ .next = j->out->next,
					 .done = j->out->cursor_done != 0 };
	jobset_admitted(&js->set, j);
	return 1;
}

void jobs_balance(struct jobs *js)
{
	if (!js->set.rebalance)
		return;
	js->set.rebalance = 0;
	while (admit(js))
		;
	if (js->set.nbacklog)
		park_worst(js);
	if (js->set.rebalance)
		jobs_balance(js); /* park_worst took broken entries back */
}

void jobs_drop_all(struct jobs *js)
{
	for (uint32_t e = 0; e < RING_JOBS; e++)
		if (jobs_job_in(js, e))
			tell_waiters(js, jobs_job_in(js, e), NULL, 0);
	for (uint32_t i = 0; i < js->set.nbacklog; i++)
		tell_waiters(js, js->set.backlog[i], NULL, 0);
}

unsigned jobs_in_flight(const struct jobs *js)
{
	return js->set.njobs;
}
