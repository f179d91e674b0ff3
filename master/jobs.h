/* The master's side of jobs: a complete request is answered from the
 * cache, attaches to the same search in flight, or becomes a new job; the
 * ends the workers flag become replies, cache entries and free entries.
 * A full table parks its worst job for a better one of the backlog; every
 * job has a waiting connection, so the connections bound the backlog
 * (docs/architecture.md). */
#ifndef REVHASH_JOBS_H
#define REVHASH_JOBS_H

#include <stdint.h>

#include "lib/log.h"
#include "shm/cache.h"
#include "shm/policy.h"
#include "shm/ring_master.h"
#include "master/clients.h"
#include "master/jobset.h"

/* The master's own record of an entry it gave out: its cursor at the last
 * look (it never goes back), and when the master let it go or parked it. */
struct entry_rec {
	uint64_t next;
	uint64_t since_ms;
	int done;
};

struct jobs {
	struct ring *ring;
	struct ring_master table;         /* its entries, and their jobs */
	struct cache *cache;
	struct clients *clients;
	struct seg_stats *stats;
	struct jobset set;                /* the index, the backlog, the weights */
	struct entry_rec rec[RING_JOBS];
	uint32_t changed[RING_JOBS];      /* scratch for ring_changed */
	uint64_t audit_ms;                /* when jobs_audit looks again */
	struct log_every broken_said;     /* entries written over */
};

/* Set up, one peer's searches and weight capped at peer_searches and
 * peer_weight (jobset.c). 0 or -ENOMEM. */
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
/* Every 250 ms while the master holds entries: compare each, unflagged,
 * with the master's own record, and take back what does not agree
 * (audit.c). When to call again (clock_ms()), UINT64_MAX when it holds
 * none. */
uint64_t jobs_audit(struct jobs *js, uint64_t now_ms);
/* After each batch of events: free entries to the backlog's best, and
 * park the worst job of a full table for a better one. */
void jobs_balance(struct jobs *js);
/* Which job is in entry e: NULL when none (free, or its job let go).
 * The other way: jobset_entry_of (jobset.h). */
struct job *jobs_job_in(const struct jobs *js, uint32_t e);
/* Jobs not yet done with: in the ring's table or out. */
unsigned jobs_in_flight(const struct jobs *js);
/* Drop every waiting connection (at exit). */
void jobs_drop_all(struct jobs *js);

#endif
