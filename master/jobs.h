/* The master's side of jobs. A complete request is answered from the
 * cache, attaches to the identical search in flight, or becomes a new job;
 * the news the workers flag (a job at one of its ends) becomes replies,
 * cache entries and free entries, all at once.
 *
 * A job's identity (digest, range) and progress live once: in the ring's
 * table while the job is there, in the master while it waits in the
 * backlog. The master itself keeps only what is its own: the connections
 * waiting on a job and the weight they give it (at most
 * POLICY_PEER_WEIGHT_MAX from one peer address). When the table is full,
 * the worst-ranked job is parked (taken out with its progress, back to
 * the backlog) for a better one, and comes back when it ranks high enough
 * again; every job out has a waiting connection, so the memory the
 * backlog takes is bounded by the connections. */
#ifndef REVHASH_JOBS_H
#define REVHASH_JOBS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/log.h"
#include "shm/cache.h"
#include "shm/policy.h"
#include "shm/ring.h"
#include "master/clients.h"
#include "master/jobset.h"

struct jobs {
	struct ring *ring;
	struct ring_master table;         /* the master's record of the ring's
	                                     table: which entries are its own */
	struct cache *cache;
	struct clients *clients;
	struct seg_stats *stats;
	struct jobset set;                /* the index, the backlog, the weights */
	struct job *by_entry[RING_JOBS];  /* the job in each ring entry (with
	                                     j->entry, set by enter_table and
	                                     leave_table alone) */
	uint32_t changed[RING_JOBS];      /* scratch for ring_changed */
	uint64_t liars;                   /* bit s: slot s's worker wrote what
	                                     cannot be: a wrong answer, a phase
	                                     out of the table (jobs_take_liars) */
	struct log_every lies_said;       /* their log lines */
	uint64_t audit_ms;                /* when jobs_audit looks again */
	struct log_every broken_said;
};

/* Set up, with one peer's searches and its weight over them capped at
 * peer_searches and peer_weight (jobset.c); 0 or -ENOMEM. */
int jobs_init(struct jobs *js, struct ring *ring, struct cache *cache,
	      struct clients *clients, struct seg_stats *stats,
	      const struct policy *policy, int attach_repeats,
	      uint64_t peer_searches, uint64_t peer_weight);
/* Free every job (at exit, after jobs_drop_all). */
void jobs_free(struct jobs *js);
/* c's request is complete: answer it, attach it, or start a job. */
void jobs_dispatch(struct jobs *js, struct conn *c);
/* c waited on a job and its client is gone: detach, maybe cancel, drop. */
void jobs_client_gone(struct jobs *js, struct conn *c);
/* Act on the jobs the workers flagged: each at one of its ends. */
void jobs_news(struct jobs *js);
/* The slots whose workers reported a wrong answer, or held a lease on an
 * entry whose phase is out of the table, since the last call, a bit each
 * (the master's own record; the segment only said which slot). */
uint64_t jobs_take_liars(struct jobs *js);
/* Every 250 ms while jobs are in flight (now_ms: clock_ms()): look at each entry of the master's
 * as a worker may have written it, unflagged: a key that is not its job's
 * (searched again, its workers killed), a phase at an end or out of the
 * table (taken as news), a weight that is not the one published (published
 * again). When to call again: UINT64_MAX when no job is in flight. */
uint64_t jobs_audit(struct jobs *js, uint64_t now_ms);
/* After each batch of events: give free entries to the backlog's best,
 * and park the worst job of a full table for a better one out. */
void jobs_balance(struct jobs *js);
/* Jobs not yet done with: in the ring's table or out. */
unsigned jobs_in_flight(const struct jobs *js);
/* Drop every waiting connection (at exit). */
void jobs_drop_all(struct jobs *js);

#endif
