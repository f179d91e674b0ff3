/* The master's record of a job, and the sets it lives in: the index a
 * repeat attaches through (hashed on digest and range), the backlog of
 * jobs waiting for an entry (a heap, best first), and the weight each peer
 * gives a job. Below jobs.c, which alone moves a job into the ring's table
 * and out: the set never calls the ring; a weight that changes for a job
 * in the table goes up through one callback. A job's progress lives in
 * its entry while in the table, in j->out while out. */
#ifndef REVHASH_JOBSET_H
#define REVHASH_JOBSET_H

#include <stddef.h>
#include <stdint.h>

#include "shm/policy.h"
#include "shm/ring.h"
#include "master/conn.h"
#include "master/peers.h"

/* A job's weight counts in 1/2^JOBSET_UNIT_SHIFT of a priority: room for
 * a peer's fair share to scale it down. */
#define JOBSET_UNIT_SHIFT 16
#define JOBSET_UNIT (1ull << JOBSET_UNIT_SHIFT)

/* What connections from one peer address give a job. */
struct job_share {
	uint8_t peer[16];
	uint64_t sum; /* their priorities, of which at most the cap counts */
	uint32_t at;  /* the job's place in its peer's list of jobs */
};

struct job {
	struct conn_list waiters;
	struct job_share *shares;
	uint32_t nshares, shares_cap;
	uint64_t weight;        /* its peers' shares, capped, fair-scaled */
	uint64_t seq;           /* arrival order */
	struct ring_key key;    /* the master's own copy */
	uint64_t hash;          /* of the key, for the index */
	struct job *hnext;      /* index chain */
	uint32_t entry;         /* its ring entry, or RING_NONE (jobs.c's) */
	uint32_t backlog_pos;   /* in the backlog, while out; else RING_NONE */
	struct ring_progress *out; /* while out (in the backlog, or on its way) */
	struct rank rank;       /* its rank in the backlog, while out */
	uint32_t rewritten;     /* times its entry was found written over */
	uint32_t unsure;        /* taken back since its pass began */
	uint64_t accept_ns, request_ns; /* its first request's times */
};

/* Which entry holds j: RING_NONE while it is out of the table (the other
 * way: jobs_job_in). */
static inline uint32_t jobset_entry_of(const struct job *j)
{
	return j->entry;
}

/* The weight of j, which is in the ring's table, changed: publish it. */
typedef void jobset_publish_fn(void *ctx, const struct job *j);

/* The sets. */
struct jobset {
	struct policy policy;       /* the master's own copy, not the ring's */
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

/* Empty sets over the peers' table, one peer's searches and weight capped
 * at peer_searches and peer_weight; a weight that changes for a job in
 * the table goes to publish(ctx, job). 0 or -ENOMEM. */
int jobset_init(struct jobset *set, const struct policy *policy, int attach_repeats,
		struct peers *peers, uint64_t peer_searches, uint64_t peer_weight,
		jobset_publish_fn *publish, void *ctx);
/* Free every job still in the sets, none of them in the ring's table any
 * more (its weight published nowhere), and the sets. */
void jobset_destroy(struct jobset *set);
/* The job c's request waits on, in *out: the one in flight for the same
 * question (when repeats attach), or a new one in the backlog (*fresh);
 * c's priority counts in its weight. 0; or, nothing changed, -ENOMEM, or
 * -EBUSY when c's peer has as many searches as it may. */
int jobset_job_for(struct jobset *set, const struct conn *c, struct job **out, int *fresh);
/* j is over, and out of the table: out of the sets, freed. */
void jobset_free(struct jobset *set, struct job *j);
/* Add delta (negative: take away) to what peer gives j; j's weight (and,
 * when the peer's fair share moved, its other jobs') follows, published
 * where j ranks. 0, or nothing changed: -ENOMEM, or -EBUSY when the peer
 * has no part in j yet and as many searches as it may. */
int jobset_share(struct jobset *set, struct job *j, const uint8_t peer[16], int64_t delta);
/* j, out of the table with its progress in j->out, joins the backlog. 0
 * or -ENOMEM. */
int jobset_come_back(struct jobset *set, struct job *j);
/* The best-ranked job of the backlog, or NULL. */
struct job *jobset_best(const struct jobset *set);
/* j, the backlog's best, has an entry now: it leaves the backlog. */
void jobset_admitted(struct jobset *set, struct job *j);

#endif
