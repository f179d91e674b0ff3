/* The audit (see jobs.h): every AUDIT_MS while the master holds entries,
 * each of them is compared with the master's own record of it, unflagged
 * as a worker may have written it; and the entries the workers would
 * lease from are compared with the master's list of those it gave out.
 * What does not agree is taken back (jobs.c: entry_written_over), and
 * nobody is blamed: the segment, which every worker can write, is no
 * witness of who wrote it. Cost: a pass over the entries the master
 * holds (its own bytes first), the heap's indices and the slots, four
 * times a second while busy; none idle. */
#include "master/jobs.h"
#include "master/jobs_entry.h"
#include "lib/log.h"

#define AUDIT_MS 250

/* Has entry e's cursor gone back since the master last looked? (It only
 * goes forward: a range given back goes to the entry's returned ranges,
 * ring_progress_give_back.) The look is recorded. */
static int went_back(struct jobs *js, uint32_t e)
{
	struct entry_rec *rec = &js->rec[e];
	struct ring_progress p;
	int back;

	ring_progress_now(js->ring, e, &p);
	back = rec->done ? !p.cursor_done : !p.cursor_done && p.next < rec->next;
	if (!back) {
		rec->next = p.next;
		rec->done = p.cursor_done != 0;
	}
	return back;
}

/* Entry e, job j's, as the master left it? Its key must be j's own (the
 * workers search what the entry says), its generation the one the master
 * gave it (the master finds its leases by it), its cursor never behind
 * where it was, its phase one the master asked for (an end that nobody
 * flagged is taken now), its weight the one published and taken in; a
 * park of the master's is done within PARK_WAIT_MS. */
static void audit_entry(struct jobs *js, uint32_t e, struct job *j, uint64_t now_ms)
{
	if (!entry_holds_key(js, e, j)) {
		entry_written_over(js, e, "holds another key than its job's");
		return;
	}
	if (!ring_gen_given(&js->table, e)) {
		entry_written_over(js, e, "holds another generation than its own");
		return;
	}
	if (went_back(js, e)) {
		entry_written_over(js, e, "has its cursor behind where it was");
		return;
	}
	if (j->out && now_ms - js->rec[e].since_ms >= PARK_WAIT_MS &&
	    ring_phase(js->ring, e) == PHASE_PARKING && entry_take_back(js, e) == 0)
		return;
	entry_end(js, e); /* an end, or a phase not asked, that came unflagged */
	if (jobs_job_in(js, e) != j)
		return; /* it ended, or was taken back */
	/* A weight not the one published is published again; so is one of
	 * an entry still NEW a period after it was submitted, which marks it
	 * for the workers again (their mark may have been lost with a lock
	 * holder that died). After entry_end: a NEW written over a running
	 * job is taken back there, not taken in. */
	if (!ring_weight_is(js->ring, e, j->weight) || ring_phase(js->ring, e) == PHASE_NEW)
		ring_set_weight(js->ring, e, j->weight);
}

/* Entry e, let go: its end, or, past RELEASE_WAIT_MS, taken back. */
static void audit_let_go(struct jobs *js, uint32_t e, uint64_t now_ms)
{
	if (now_ms - js->rec[e].since_ms >= RELEASE_WAIT_MS &&
	    ring_phase_workers(ring_phase(js->ring, e)) && entry_take_back(js, e) == 0)
		return;
	entry_end(js, e);
}

uint64_t jobs_audit(struct jobs *js, uint64_t now_ms)
{
	unsigned phantoms;
	uint64_t n;

	if (!ring_has_taken(&js->table)) { /* nothing to look at: no wake-up for it */
		js->audit_ms = 0;
		return UINT64_MAX;
	}
	if (!js->audit_ms)
		js->audit_ms = now_ms + AUDIT_MS; /* the first look a period on */
	if (now_ms < js->audit_ms)
		return js->audit_ms;
	for (uint32_t e = 0; e < RING_JOBS; e++) {
		struct job *j = jobs_job_in(js, e);

		if (j)
			audit_entry(js, e, j, now_ms);
		else if (ring_holder(&js->table, e))
			audit_let_go(js, e, now_ms);
	}
	if ((phantoms = ring_reclaim_phantoms(&js->table)) &&
	    (n = log_every_due(&js->broken_said)))
		log_error("%u job entr%s the master never gave out %s being searched: taken "
			  "back (%llu such entries)", phantoms, phantoms == 1 ? "y" : "ies",
			  phantoms == 1 ? "was" : "were", (unsigned long long)n);
	js->audit_ms = now_ms + AUDIT_MS;
	return js->audit_ms;
}
