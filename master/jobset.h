/* The master's record of a job, and the sets it lives in: the index that
 * finds the job a repeat may attach to (hashed on digest and range), the
 * backlog of jobs waiting for an entry in the ring's table (a heap,
 * best-ranked first), and the weight each peer address gives a job.
 * Below the job bookkeeping (jobs.c), which alone moves a job into the
 * ring's table and out: the set never calls the ring. A weight that
 * changes for a job in the table goes up through one callback.
 *
 * A job's key and progress live in one place: in its ring entry while it
 * is in the table, in the master (out) while it waits in the backlog;
 * where it stands in the table is its entry's phase (shm/ring.h), never a
 * bit of the master's. Its weight is the sum of the shares its peers give
 * it (at most POLICY_PEER_WEIGHT_MAX each), kept here and published to its
 * entry for the workers. The master keeps besides only what is its own:
 * the connections waiting on the job, and when its first request came. */
#ifndef REVHASH_JOBSET_H
#define REVHASH_JOBSET_H

#include <stddef.h>
#include <stdint.h>

#include "shm/policy.h"
#include "shm/ring.h"
#include "master/conn.h"
#include "master/peers.h"

/* A job's weight counts in 1/2^JOBSET_UNIT_SHIFT of a priority: room for
 * a peer's fair share to scale it down (jobset.c). */
#define JOBSET_UNIT_SHIFT 16
#define JOBSET_UNIT (1ull << JOBSET_UNIT_SHIFT)

/* What connections from one peer address give a job. */
struct job_share {
	uint8_t peer[16];
	uint64_t sum; /* their priorities, of which at most the cap counts */
	uint32_t at;  /* the job's place in its peer's list of jobs */
};

/* A job's progress while it has no entry in the ring (its key is the job's). */
struct job_out {
	struct ring_progress p;
};

struct job {
	struct conn_list waiters;
	struct job_share *shares;
	uint32_t nshares, shares_cap;
	uint64_t weight;        /* its peers' shares, each capped and scaled by
	                           its peer's fair share (in 1/2^16):
	                           jobset_share keeps it, and publishes it
	                           where j ranks */
	uint64_t seq;           /* arrival order */
	struct ring_key key;    /* its digest and range: the master's own copy,
	                           never read back from the segment, which
	                           workers can write */
	uint64_t hash;          /* of the key, for the index */
	struct job *hnext;      /* index chain */
	uint32_t entry;         /* its ring entry, or RING_NONE while out:
	                           the entry's holder read the other way,
	                           written with it by jobs.c alone
	                           (jobs_entry_of) */
	uint32_t backlog_pos;   /* in the backlog, while out; else RING_NONE */
	struct job_out *out;    /* while out (in the backlog, or on its way) */
	struct rank rank;       /* its rank in the backlog, while out */
	uint32_t rewritten;     /* times its entry was found written over */
	uint32_t unsure;        /* its entry was taken back since its last
	                           pass from the start began: values may be
	                           missing from its record, so "not found"
	                           is searched again (jobs.c) */
	uint64_t accept_ns, request_ns; /* its first request's times */
};

struct jobset;
/* The weight of j, which is in the ring's table, changed: publish it. */
typedef void jobset_publish_fn(void *ctx, const struct job *j);

/* The sets. */
struct jobset {
	struct policy policy;       /* ranks the backlog: the master's own
	                               copy, not the ring's in the segment,
	                               which any worker can write */
	int attach_repeats;         /* a repeat attaches to the job in flight */
	struct peers *peers;        /* each peer's searches and weight */
	uint64_t peer_searches;     /* one peer's searches at most */
	uint64_t peer_weight;       /* one peer's fair share of weight */
	jobset_publish_fn *publish; /* for the jobs in the table */
	void *ctx;
	uint64_t seq;               /* jobs created, for arrival order */
	unsigned njobs;             /* jobs alive: in the table or out */
	struct job **index;         /* by digest and range (chained) */
	uint8_t hash_key[16];       /* the index's SipHash key */
	size_t index_size, indexed;
	struct job **backlog;       /* jobs out: a heap, best first */
	uint32_t nbacklog, backlog_cap;
	int rebalance;              /* the backlog or a weight changed */
};

/* Set up empty sets over the peers' table peers, one peer's searches and
 * weight capped at peer_searches and peer_weight; a weight that changes
 * for a job in the table goes to publish(ctx, job). 0 or -ENOMEM. */
int jobset_init(struct jobset *set, const struct policy *policy, int attach_repeats,
		struct peers *peers, uint64_t peer_searches, uint64_t peer_weight,
		jobset_publish_fn *publish, void *ctx);
/* Free every job still in the sets, and the sets. */
void jobset_destroy(struct jobset *set);
/* The job the complete request of c waits on, in *out: the one in flight
 * for the same digest and range (when repeats attach), or else a new one,
 * in the index and in the backlog with fresh progress (*fresh says
 * which); c's priority counts in its weight. 0; or, nothing changed,
 * -ENOMEM when memory ran out, -EBUSY when c's peer has as many searches
 * as it may. */
int jobset_job_for(struct jobset *set, const struct conn *c, struct job **out, int *fresh);
/* j is over: out of the index (and the backlog), its memory freed. It
 * must be out of the table (its entry no longer its own). */
void jobset_free(struct jobset *set, struct job *j);
/* Add delta (negative: take away) to what peer gives j, keep j's weight
 * (and, when the peer's fair share moved, that of every job of the
 * peer's: its own, never the others'), and publish it
 * where j ranks (through the callback, or its backlog place). 0, or
 * nothing changed: -ENOMEM, or -EBUSY when the peer has no part in j yet
 * and as many searches as it may. */
int jobset_share(struct jobset *set, struct job *j, const uint8_t peer[16], int64_t delta);
/* j, out of the table with its key and progress in j->out, ranks in the
 * backlog (again). 0 or -ENOMEM. */
int jobset_come_back(struct jobset *set, struct job *j);
/* The best-ranked job of the backlog, or NULL. */
struct job *jobset_best(const struct jobset *set);
/* j, the backlog's best, has been given an entry of the table (its
 * progress went there): it leaves the backlog, and its j->out is freed. */
void jobset_admitted(struct jobset *set, struct job *j);

#endif
