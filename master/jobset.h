/* The master's record of a job, and the sets it lives in: the index that
 * finds the job a repeat may attach to (hashed on digest and range), the
 * backlog of jobs waiting for an entry in the ring's table (a heap,
 * best-ranked first), and the weight each peer address gives a job.
 * Private to the job bookkeeping (jobs.c, jobset.c).
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
#include "master/jobs.h"

/* A job's weight counts in 1/2^JOBSET_UNIT_SHIFT of a priority: room for
 * a peer's fair share to scale it down (jobset.c). */
#define JOBSET_UNIT_SHIFT 16
#define JOBSET_UNIT (1ull << JOBSET_UNIT_SHIFT)

/* What connections from one peer address give a job. */
struct job_share {
	uint8_t peer[16];
	uint64_t sum; /* their priorities, of which at most the cap counts */
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
	uint32_t entry;         /* its ring entry, or RING_NONE while out */
	uint32_t backlog_pos;   /* in js->backlog, while out */
	struct job_out *out;    /* while out (in the backlog, or on its way) */
	struct rank rank;       /* its rank in the backlog, while out */
	uint64_t accept_ns, request_ns; /* its first request's times */
};

/* The job the complete request of c waits on, in *out: the one in flight
 * for the same digest and range (when repeats attach), or else a new one,
 * in the index and in the backlog with fresh progress (*fresh says
 * which); c's priority counts in its weight. 0; or, nothing changed,
 * -ENOMEM when memory ran out, -EBUSY when c's peer has as many searches
 * as it may. */
int jobset_job_for(struct jobs *js, const struct conn *c, struct job **out, int *fresh);
/* j is over: out of the index (and the backlog), its memory freed. */
void jobset_free(struct jobs *js, struct job *j);
/* Add delta (negative: take away) to what peer gives j, keep j's weight
 * (and, when the peer's fair share moved, every job's), and publish it
 * where j ranks (its entry, or its backlog place). 0, or nothing changed:
 * -ENOMEM, or -EBUSY when the peer has no part in j yet and as many
 * searches as it may. */
int jobset_share(struct jobs *js, struct job *j, const uint8_t peer[16], int64_t delta);
/* j's parked entry came home: its key and progress (in j->out) rank it in
 * the backlog again. 0 or -ENOMEM. */
int jobset_come_back(struct jobs *js, struct job *j);
/* The best-ranked job of the backlog, or NULL. */
struct job *jobset_best(const struct jobs *js);
/* Give the backlog's best job a free entry of the ring's table (it leaves
 * the backlog, its key and progress go to the entry): that job, or NULL
 * when the backlog is empty or the table full. */
struct job *jobset_admit(struct jobs *js);

#endif
