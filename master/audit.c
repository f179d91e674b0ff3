/* The audit (see jobs.h): every AUDIT_MS while the master holds entries,
 * each is compared with the master's own record, and the entries the
 * workers would lease from with those it gave out; what does not agree is
 * taken back (entry_written_over). Nothing while idle. */
#include "master/jobs.h"
#include "master/jobs_entry.h"
#include "lib/log.h"

#define AUDIT_MS 250

/* Has entry e's cursor gone back since the master last looked (given-back
 * ranges go elsewhere)? The look is recorded. */
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

/* Entry e, job j's, as the master left it: j's key, its generation, its
 * cursor never behind, a phase asked for (an unflagged end is taken now),
 * the weight published; a park done within PARK_WAIT_MS. */
static void audit_entry(struct jobs *js, uint32_t e, struct job *j, uint64_t now_ms)
{
	const char *why = !entry_holds_key(js, e, j) ? "holds another key than its job's" :
			  !ring_gen_given(&js->table, e) ? "holds another generation than its own" :
			  went_back(js, e) ? "has its cursor behind where it was" : NULL;

	if (why) {
		entry_written_over(js, e, "%s", why);
		return;
	}
	if (j->out && now_ms - js->rec[e].since_ms >= PARK_WAIT_MS &&
	    ring_phase(js->ring, e) == PHASE_PARKING && entry_take_back(js, e) == 0)
		return;
	entry_end(js, e);
	if (jobs_job_in(js, e) != j)
		return; /* it ended, or was taken back */
	/* Published again: a weight not the one published, or a NEW a period
	 * on (its mark may be lost with a holder that died). After entry_end,
	 * which takes back a NEW written over a running job. */
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

	if (!ring_has_taken(&js->table)) {
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
