/* The master's side of jobs (see jobs.h).
 *
 * A new job starts out in the backlog, with fresh progress, and
 * jobs_balance() gives free entries to the backlog's best; so a new job
 * and one that waited behind a full table take the same path. The sets a
 * job lives in and its weight are jobset.c's; this file decides what
 * becomes of a request and of a job.
 *
 * One notification ends a job: the worker that moves it to FOUND or
 * EXHAUSTED flags its entry, and the master replies to every connection
 * waiting on it, caches the answer, frees the job and the entry, all in
 * that one turn of its loop. A cancelled job is forgotten at once; its
 * entry comes back when the workers have dropped it (CLOSED). */
#include "master/jobs.h"
#include "master/jobs_entry.h"
#include "lib/clock.h"
#include "lib/digest.h"
#include "lib/log.h"
#include "shm/hist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The stages of j's first request, answered now; heard_ns: when the master
 * heard of the answer (see enum seg_stage). Summed, and each into its
 * histogram. */
static void time_stages(struct jobs *js, const struct job *j, uint64_t heard_ns)
{
	struct seg_stages *st = &js->stats->stages;
	struct seg_hist *hist = js->stats->latency.stage;
	uint64_t submitted, leased, found, now = clock_ns();
	uint64_t t[STAGE_COUNT];

	ring_job_times(js->ring, jobs_entry_of(j), &submitted, &leased, &found);
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

/* A cache hit's two stages. */
static void time_hit(struct jobs *js, const struct conn *c)
{
	struct seg_stages *st = &js->stats->stages;

	shm_count(st->hit_read_ns, c->request_ns - c->accept_ns);
	shm_count(st->hit_reply_ns, clock_ns() - c->request_ns);
	shm_count(st->hits_timed, 1);
}

/* --verbose: what became of a request. */
static void note(const struct conn *c, const char *how)
{
	log_debug("request %llu..%llu prio %u: %s",
		  (unsigned long long)c->req.start, (unsigned long long)c->req.end,
		  c->prio, how);
}

/* ---- life and death of a job --------------------------------------------- */

/* Where a job is has one record: who holds each entry, in the master's
 * record of the table (ring_holder): the job; the table itself
 * (RING_HELD_ALONE) for an entry whose job was let go and which the
 * workers are yet to drop; NULL for a free one. j->entry reads it the
 * other way; the functions below write both. */
struct job *jobs_job_in(const struct jobs *js, uint32_t e)
{
	void *h = ring_holder(&js->table, e);

	return h == RING_HELD_ALONE(&js->table) ? NULL : h;
}

uint32_t jobs_entry_of(const struct job *j)
{
	return j->entry;
}

/* j, submitted to entry e (which ring_submit recorded j holds), with its
 * progress there from: the master's record of the entry begun (its
 * cursor as it gave it). */
static void enter_table(struct jobs *js, struct job *j, uint32_t e,
			const struct ring_progress *from)
{
	j->entry = e;
	js->rec[e] = (struct entry_rec){ .next = from->next, .done = from->cursor_done != 0 };
}

/* Entry e's job, if any, is no longer in it: returned, its j->entry
 * undone. The entry's side goes with the call that frees the entry
 * (ring_free_entry, ring_take_back) or lets the job go (let_go). */
static struct job *leave_table(struct jobs *js, uint32_t e)
{
	struct job *j = jobs_job_in(js, e);

	if (j)
		j->entry = RING_NONE;
	return j;
}

/* j, in entry e, is let go: the entry stays the master's, held by no job,
 * until the workers drop it (CLOSED) or RELEASE_WAIT_MS passes. */
static void let_go(struct jobs *js, struct job *j)
{
	uint32_t e = jobs_entry_of(j);

	js->rec[e].since_ms = clock_ms();
	ring_release(js->ring, e);
	leave_table(js, e);
	ring_hold(&js->table, e, RING_HELD_ALONE(&js->table));
}

/* A job's weight changed while it is in the table (jobset_publish_fn).
 * Not while its entry says NEW and is no longer as the master gave it:
 * the mark would have the workers take in a NEW that a worker wrote over
 * the running job, which the audit would then never see; it takes the
 * entry back instead, and the weight goes with the job's next entry. */
static void publish_weight(void *ctx, const struct job *j)
{
	struct jobs *js = ctx;
	uint32_t e = jobs_entry_of(j);

	if (ring_phase(js->ring, e) == PHASE_NEW && !ring_untouched(&js->table, e))
		return;
	ring_set_weight(js->ring, e, j->weight);
}

/* Entry e is done with: free again, its job (if any) no longer in it. The
 * one place an entry the workers are done with is freed. */
static void free_entry(struct jobs *js, uint32_t e, struct ring_progress *p)
{
	leave_table(js, e);
	ring_free_entry(&js->table, e, p);
	js->set.rebalance = 1;
}

/* Nobody waits on j any more: forget it. Its entry, if it has one, comes
 * back once the workers have dropped it (RELEASE_WAIT_MS at most). */
static void cancel(struct jobs *js, struct job *j)
{
	shm_count(js->stats->cancelled, 1);
	if (jobs_entry_of(j) != RING_NONE)
		let_go(js, j);
	jobset_free(&js->set, j);
}

/* Reply x to every connection waiting on j, which the search's outcome
 * (enum seg_outcome) gave. */
static void tell_waiters(struct jobs *js, struct job *j, uint64_t x, unsigned outcome)
{
	struct conn *c;

	while ((c = j->waiters.head)) {
		c->job = NULL;
		clients_reply(js->clients, c, x, outcome);
	}
}

/* Close every connection waiting on j without an answer. */
static void drop_waiters(struct jobs *js, struct job *j)
{
	struct conn *c;

	while ((c = j->waiters.head)) {
		c->job = NULL;
		clients_drop(js->clients, c);
	}
}

/* j, its entry freed and j->out its progress (NULL: no memory for it),
 * waits in the backlog again; out of memory, its clients are dropped and
 * it is forgotten (what: which search, for the log). */
static void back_to_backlog(struct jobs *js, struct job *j, const char *what)
{
	if (j->out && jobset_come_back(&js->set, j) == 0)
		return;
	log_error("out of memory: cancelling %s", what);
	drop_waiters(js, j);
	jobset_free(&js->set, j);
}

/* p: j's progress from its start. A pass begun now covers whatever an
 * earlier one lost, so its "not found" is believed (j->unsure). */
static void from_the_start(struct job *j, struct ring_progress *p)
{
	memset(p, 0, sizeof *p);
	p->next = j->key.start;
	j->unsure = 0;
}

/* j's entry e is PARKED, as the master asked: j's progress comes to the
 * master, the entry is freed, and j waits in the backlog. Progress that
 * cannot be (the bytes a worker wrote) is not kept: j starts again. */
static void come_back(struct jobs *js, struct job *j, uint32_t e)
{
	free_entry(js, e, &j->out->p);
	if (ring_progress_check(&j->key, &j->out->p) < 0) {
		if (log_every_due(&js->broken_said))
			log_error("a parked search of %llu..%llu came back with progress out of "
				  "its range: searching it again", (unsigned long long)j->key.start,
				  (unsigned long long)j->key.end);
		from_the_start(j, &j->out->p);
	}
	back_to_backlog(js, j, "a parked search");
}

/* j's entry e says every value hashed, none matched, and j is unsure: its
 * record may lack ranges that no worker hashed. The entry is freed and j
 * searched again from its start; a pass without a take-back answers it
 * (a worker that keeps lying keeps it from ending, never makes it end
 * wrong). */
static void search_again(struct jobs *js, struct job *j, uint32_t e)
{
	uint64_t n;

	free_entry(js, e, NULL);
	if (j->out || (j->out = calloc(1, sizeof *j->out)))
		from_the_start(j, &j->out->p);
	if ((n = log_every_due(&js->broken_said)))
		log_error("a search of %llu..%llu ended with nothing found after its entry was "
			  "taken back: searching it again from its start (%llu such searches)",
			  (unsigned long long)j->key.start, (unsigned long long)j->key.end,
			  (unsigned long long)n);
	back_to_backlog(js, j, "a search searched again");
}

/* The master takes entry e back from the workers without waiting for them
 * (see ring_take_back): its job, if any, waits in the backlog with the
 * progress the entry shows, the leases out on it given back; or, where
 * that progress is none of the job's, from its start. What the workers
 * did meanwhile may be missing from what the master read (a lease a
 * worker dropped when the phase a liar wrote said its job had ended, a
 * range given back between two reads), so the job is unsure from then
 * on: it is searched on, but its "not found" is searched again. 0, or
 * -EAGAIN when the entry's phase moved meanwhile (its news is looked at
 * then: by the loop, or the next audit). */
int entry_take_back(struct jobs *js, uint32_t e)
{
	struct job *j = jobs_job_in(js, e);
	struct ring_progress p;

	if (ring_take_back(&js->table, e, &p) < 0)
		return -EAGAIN;
	if (j)
		j->entry = RING_NONE; /* the entry, free: jobs_job_in says none now */
	js->set.rebalance = 1;
	if (!j)
		return 0;
	j->unsure = 1;
	if (ring_progress_check(&j->key, &p) < 0)
		from_the_start(j, &p);
	if (j->out || (j->out = calloc(1, sizeof *j->out)))
		j->out->p = p;
	back_to_backlog(js, j, "a search taken back");
	return 0;
}

/* Entry e, the master's, holds what the master did not write and the
 * workers do not (what: how, for the log): a worker wrote it. Nobody is
 * blamed (the segment says who, and any worker can write that too); the
 * entry is taken back and its job searched on from where it got, so that
 * a worker that lies again and again costs time but cannot keep a search
 * with an answer from ending; what was searched under a word written over
 * is not known, so a "not found" is searched again (entry_take_back).
 * Said at most once a second; never an abort. */
void entry_written_over(struct jobs *js, uint32_t e, const char *what)
{
	struct job *j = jobs_job_in(js, e);
	uint64_t n;

	if (entry_take_back(js, e) < 0)
		return;
	if (j)
		j->rewritten++;
	if ((n = log_every_due(&js->broken_said)))
		log_error("job entry %u %s: taken back, its search gone on from where it got "
			  "(%llu such entries)", (unsigned)e, what, (unsigned long long)n);
}

/* x answers k: in its range, and its SHA-256 is k's digest. */
static int answers(const struct ring_key *k, uint64_t x)
{
	return digest_answers(x, k->digest, k->start, k->end);
}

#define BIT(phase) (1u << PHASE_##phase)

/* The phases entry e may show by the master's own record of it, a bit
 * each: its job's (NEW and RUNNING, then an answer or every value
 * hashed), the same while the master parks it (PARKING, then PARKED), or
 * those of a job let go (RELEASING, then CLOSED, or a late answer). NEW
 * only while no worker has leased from the entry: a NEW written over a
 * running job had the workers drop its leases unhashed. */
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

/* Entry e says phase, which the master did not ask for. */
static void unasked_phase(struct jobs *js, uint32_t e, uint32_t phase)
{
	char what[64];

	snprintf(what, sizeof what, "says %s (phase %u), which was not asked",
		 ring_phase_name((enum ring_phase)phase), (unsigned)phase);
	entry_written_over(js, e, what);
}

int entry_holds_key(const struct jobs *js, uint32_t e, const struct job *j)
{
	return memcmp(ring_key(js->ring, e), &j->key, sizeof j->key) == 0;
}

/* Why job j's entry e cannot be at the end it says, one that says every
 * lease of it is back (PARKED; EXHAUSTED, where exhausted: and nothing
 * left to lease); NULL when it can. Values hashed under another key than
 * j's count for nothing, and a lease out is values not hashed yet. */
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
	/* A cursor word written to anything but 0 or 1 reads as "none left":
	 * the workers end such a job EXHAUSTED, every value leased or not. */
	ring_progress_now(js->ring, e, &p);
	if (ring_progress_check(&j->key, &p) < 0)
		return "its progress out of its range";
	if (ring_remaining(&j->key, &p))
		return "values left to hash";
	return NULL;
}

/* What the workers did to the job in entry e, which its phase says: an
 * answer, none, or its leases back after a park or a release. The phase
 * must be one the master asked for, an answer one that the master's own
 * copy of the key confirms, before anyone is told or the cache keeps it. */
void entry_end(struct jobs *js, uint32_t e)
{
	struct job *j = jobs_job_in(js, e);
	uint64_t heard = clock_ns(), x = 0;
	/* The phase and the answer are read once: what is checked is what is
	 * told (a worker can write both at any time). */
	enum ring_phase phase = ring_phase(js->ring, e);
	struct ring_key k;
	const char *why;
	char what[96];

	if (!ring_holder(&js->table, e))
		return; /* free: a late flag (a repair flags every entry) */
	if (phase >= PHASE_COUNT || !(phases_asked(js, e, phase) >> phase & 1)) {
		unasked_phase(js, e, phase);
		return;
	}
	if (ring_phase_workers(phase))
		return; /* still the workers' */
	switch (phase) {
	case PHASE_FOUND:
		x = ring_answer(js->ring, e);
		if (j && !answers(&j->key, x)) {
			shm_count(js->stats->wrong_answers, 1);
			snprintf(what, sizeof what, "says found %llu, which does not hash to its "
				 "digest", (unsigned long long)x);
			entry_written_over(js, e, what);
			return;
		}
		/* A search nobody waits for: the pair is kept only if it is one
		 * (the cache confirms its hits too). */
		k = j ? j->key : *ring_key(js->ring, e);
		if (j || answers(&k, x))
			cache_put(js->cache, k.digest, x);
		break;
	case PHASE_EXHAUSTED:
		if (j && (why = end_denied(js, j, e, 1))) {
			snprintf(what, sizeof what, "says exhausted with %s", why);
			entry_written_over(js, e, what);
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
			snprintf(what, sizeof what, "says parked with %s", why);
			entry_written_over(js, e, what);
			return;
		}
		come_back(js, j, e);
		return;
	default: /* CLOSED: a job let go (phases_asked) */
		break;
	}
	if (j) {
		tell_waiters(js, j, x, phase == PHASE_FOUND ? OUTCOME_FOUND : OUTCOME_NOT_FOUND);
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
	memset(js, 0, sizeof *js);
	js->ring = ring;
	js->cache = cache;
	js->clients = clients;
	js->stats = stats;
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
		time_hit(js, c);
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
	if (j->waiters.n == 0)
		cancel(js, j);
	else
		jobset_share(&js->set, j, c->peer, -(int64_t)c->prio);
}

void jobs_news(struct jobs *js)
{
	unsigned n = ring_changed(js->ring, js->changed);

	for (unsigned i = 0; i < n; i++)
		entry_end(js, js->changed[i]);
}

/* May an entry the master has taken be in phase? */
static int in_table(enum ring_phase phase)
{
	return phase > PHASE_FREE && phase < PHASE_COUNT;
}

/* The table is full: park its worst running job if the backlog's best
 * outranks it. One at a time: none while another of the master's parks
 * is under way (PARK_WAIT_MS at most: then the audit completes it). An
 * entry whose phase a worker made out of the table is taken back on the
 * way, flagged or not: so no worker can keep the table full, nor stop
 * the parking by writing PARKING into an entry. */
static void park_worst(struct jobs *js)
{
	struct rank best = jobset_best(&js->set)->rank, worst = { 0 }, k;
	uint32_t victim = RING_NONE;
	uint64_t now_ms = clock_ms();
	struct job *j;

	for (uint32_t e = 0; e < RING_JOBS; e++) {
		enum ring_phase now = ring_phase(js->ring, e);

		if (!in_table(now) && ring_holder(&js->table, e))
			unasked_phase(js, e, now);
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

/* The backlog's best job into a free entry of the table: 1, or 0 when
 * the backlog is empty or the table full. The one way into the table. */
static int admit(struct jobs *js)
{
	struct job *j = jobset_best(&js->set);
	uint32_t e;

	if (!j || !ring_has_room(&js->table) ||
	    ring_submit(&js->table, &j->key, &j->out->p, j->weight, j->seq, j, &e) < 0)
		return 0;
	enter_table(js, j, e, &j->out->p);
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
			drop_waiters(js, jobs_job_in(js, e));
	for (uint32_t i = 0; i < js->set.nbacklog; i++)
		drop_waiters(js, js->set.backlog[i]);
}

unsigned jobs_in_flight(const struct jobs *js)
{
	return js->set.njobs;
}
