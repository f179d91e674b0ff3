/* What the job bookkeeping (jobs.c, jobset.c) keeps of a job; private to
 * those two files.
 *
 * A job's key and progress live in one place: in its ring entry while it
 * is in the table, in the master (parked) while it waits for one; where it
 * stands is its entry's phase (shm/ring.h), never a bit of the master's.
 * Its weight is the sum of the shares its peers give it (at most
 * RANK_PEER_WEIGHT_MAX each), published to its entry for the workers. The
 * master keeps besides only what is its own: the connections waiting on
 * the job, and when its first request came. */
#ifndef REVHASH_JOB_H
#define REVHASH_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "shm/rank.h"
#include "shm/ring.h"
#include "master/conn.h"
#include "master/jobs.h"

/* What connections from one peer address give a job. */
struct job_share {
	uint8_t peer[16];
	uint64_t sum; /* their priorities, of which at most the cap counts */
};

/* A job's key and progress while it has no entry in the ring. */
struct job_parked {
	struct ring_key key;
	struct ring_progress p;
};

struct job {
	struct conn_list waiters;
	struct job_share *shares;
	uint32_t nshares, shares_cap;
	uint64_t seq;           /* arrival order */
	uint64_t hash;          /* of the key, for the index */
	struct job *hnext;      /* index chain */
	uint32_t entry;         /* its ring entry, or RING_NONE while parked */
	uint32_t heap_pos;      /* in js->parked, while parked */
	struct job_parked *parked; /* while parked */
	uint64_t accept_ns, request_ns, submit_ns; /* its first request's times */
};

/* The key of j, in the ring or parked. */
static inline const struct ring_key *job_key(const struct jobs *js, const struct job *j)
{
	return j->entry != RING_NONE ? ring_key(js->ring, j->entry) : &j->parked->key;
}

/* ---- jobset.c: the index, the parked heap, the weight ----------------------- */

/* The hash of a job's key, for the index. */
uint64_t jobset_hash(const struct ring_key *k);
/* The job in the index with key k (and its hash), or NULL. */
struct job *jobset_find(const struct jobs *js, const struct ring_key *k,
			uint64_t hash);
/* Put j in the index: repeats of it may join it. */
void jobset_index(struct jobs *js, struct job *j);
/* Take j out of the index (it is over). */
void jobset_unindex(struct jobs *js, struct job *j);
/* Add j (it has j->parked) to the parked jobs. 0 or -ENOMEM. */
int jobset_park(struct jobs *js, struct job *j);
/* Take j out of the parked jobs. */
void jobset_unpark(struct jobs *js, struct job *j);
/* j's rank changed while parked: put it in its place. */
void jobset_rerank(struct jobs *js, struct job *j);
/* What ranks the parked job j. */
struct rank_key jobset_parked_rank(const struct job *j);
/* Add delta (negative: take away) to what peer gives j. 0 or -ENOMEM. */
int jobset_share(struct job *j, const uint8_t peer[16], int64_t delta);
/* j's weight: the sum of its peers' shares, each capped at
 * RANK_PEER_WEIGHT_MAX. */
uint64_t jobset_weight(const struct job *j);

#endif
