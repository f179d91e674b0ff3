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
#include "shm/ring_master.h"
#include "master/clients.h"
#include "master/jobset.h"

/* The master's own record of an entry it gave a job: how far its cursor
 * had got at the last look (it never goes back), and when the master let
 * it go or asked to park it. */
struct entry_rec {
	uint64_t next;
	uint64_t since_ms;
	int done;
};

struct jobs {
	struct ring *ring;
	struct ring_master table;         /* the master's record of the ring's
	                                     table: which entries are its own,
	                                     and the job each holds */
	struct cache *cache;
	struct clients *clients;
	struct seg_stats *stats;
	struct jobset set;                /* the index, the backlog, the weights */
	struct entry_rec rec[RING_JOBS];  /* what the master last saw of each
	                                     entry, and when it let it go */
	uint32_t changed[RING_JOBS];      /* scratch for ring_changed */
	uint64_t audit_ms;                /* when jobs_audit looks again */
	struct log_every broken_said;     /* entries written over: the log */
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
/* Every 250 ms while the master holds entries (now_ms: clock_ms()): look
 * at each of them as a worker may have written it, unflagged, against the
 * master's own record: a key that is not its job's, a cursor gone back, a
 * phase the master did not ask for (each taken back, its search done
 * again), an end (taken as news), a weight not the one published
 * (published again), a park or a release not done in a second (done by
 * the master); and at the entries the workers would lease from that the
 * master never gave out (taken back). Nobody is blamed: the segment is
 * no witness. When to call again: UINT64_MAX when it holds none. */
uint64_t jobs_audit(struct jobs *js, uint64_t now_ms);
/* After each batch of events: give free entries to the backlog's best,
 * and park the worst job of a full table for a better one out. */
void jobs_balance(struct jobs *js);
/* Which job is in entry e: NULL when none (a free entry, or one whose
 * job the master let go, which the workers are yet to drop). Read from
 * the one record of where jobs are: who holds each entry (js->table). */
struct job *jobs_job_in(const struct jobs *js, uint32_t e);
/* Which entry holds job j: RING_NONE while it is out of the table. The
 * same record, read the other way (j->entry, written with it). */
uint32_t jobs_entry_of(const struct job *j);
/* Jobs not yet done with: in the ring's table or out. */
unsigned jobs_in_flight(const struct jobs *js);
/* Drop every waiting connection (at exit). */
void jobs_drop_all(struct jobs *js);

#endif
