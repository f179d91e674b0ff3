/* What the job bookkeeping (jobs.c, jobset.c) keeps of a job; private to
 * those two files. */
#ifndef REVHASH_JOB_H
#define REVHASH_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "master/conn.h"
#include "master/jobs.h"
#include "shm/rank.h"
#include "shm/ring.h"

/* What connections from one peer address give a job. */
struct share {
	uint8_t peer[16];
	uint64_t sum; /* their priorities, of which at most the cap counts */
};

/* A job's identity and progress while it has no entry in the ring. */
struct parked {
	struct ring_key key;
	struct ring_progress p;
};

struct job {
	struct conn_list waiters;
	struct share *shares;
	uint32_t nshares, shares_cap;
	uint64_t weight;        /* the sum of the capped shares */
	uint64_t seq;           /* arrival order */
	uint64_t hash;          /* of the key, for the index */
	struct job *hnext;      /* index chain */
	uint32_t entry;         /* its ring entry, or RING_NONE */
	uint64_t accept_ns, request_ns, submit_ns; /* its first request's times */
	size_t heap_pos;        /* in js->parked, while parked */
	struct parked *parked;  /* while parked (and while being parked) */
	unsigned closing : 1;   /* the ring was asked to release or park it */
	unsigned parking : 1;   /* ... to park it */
	unsigned done : 1;      /* answered or cancelled: out of the index */
	unsigned cached : 1;    /* its answer is in the cache */
};

/* The key of j, in the ring or parked. */
static inline const struct ring_key *key_of(const struct jobs *js, const struct job *j)
{
	return j->entry != RING_NONE ? ring_key_of(js->ring, j->entry) : &j->parked->key;
}

/* ---- jobset.c: the index, the parked heap, the weight ----------------------- */

/* The hash of a job's key, for the index. */
uint64_t job_key_hash(const struct ring_key *k);
/* The job in the index with key k (and its hash), or NULL. */
struct job *index_find(const struct jobs *js, const struct ring_key *k,
		       uint64_t hash);
/* Put j in the index: repeats of it may join it. */
void index_add(struct jobs *js, struct job *j);
/* j is answered or cancelled (done): out of the index for good. */
void index_remove(struct jobs *js, struct job *j);
/* What ranks a parked job. */
struct rank_key parked_key(const struct job *j);
/* Add j to the parked jobs (it has j->parked). 0 or -ENOMEM. */
int park_push(struct jobs *js, struct job *j);
/* Take j out of the parked jobs. */
void park_remove(struct jobs *js, struct job *j);
/* j's rank changed while parked: restore the heap's order. */
void heap_fix(struct jobs *js, size_t pos);
/* Add delta (negative: take away) to what peer gives j, capped per peer
 * at RANK_PEER_WEIGHT_MAX. 0 or -ENOMEM. */
int share(struct job *j, const uint8_t peer[16], int64_t delta);

#endif
