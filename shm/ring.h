/* The job table and priority ring, shared by the master and the workers.
 *
 * A job is one distinct digest+range being searched. Workers lease chunks of
 * the best-ranked job (highest weight / remaining range) and record every lease
 * in their own slot before taking it, so that a worker killed at any
 * instruction leaves behind enough for the master to give its range back.
 * Everything here is guarded by one robust, process-shared mutex whose holder
 * is recorded; a holder that dies is recovered by the next locker. */
#ifndef REVHASH_RING_H
#define REVHASH_RING_H

#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <sys/types.h>

#define RING_JOBS 4096     /* jobs in flight at once; more wait in the master */
#define RING_WORKERS 64    /* worker slots */
#define RING_RETURNED 16   /* ranges given back per job before rewinding */

enum ring_job_state { JOB_FREE = 0, JOB_ACTIVE = 1, JOB_DONE = 2 };
enum ring_slot_state { SLOT_EMPTY = 0, SLOT_IDLE, SLOT_HASHING, SLOT_RETIRING };
enum ring_outcome { RING_RUNNING = 0, RING_FOUND, RING_EXHAUSTED };

struct ring_range {
	uint64_t lo, hi; /* inclusive */
};

struct ring_job {
	uint32_t state;       /* enum ring_job_state */
	uint32_t gen;         /* bumped each time the entry is reused */
	uint64_t seq;         /* arrival order: ties go to the older job */
	uint8_t digest[32];
	uint64_t start, end;  /* the range searched, inclusive */
	uint64_t next;        /* first value never leased (unless cursor_done) */
	uint32_t cursor_done; /* every value from next to end has been leased */
	uint32_t nreturned;   /* ranges of dead workers, leased before the cursor */
	struct ring_range returned[RING_RETURNED];
	uint64_t weight;      /* sum of the priorities waiting on the job */
	uint32_t found;       /* a worker found the answer */
	uint32_t pad;
	uint64_t answer;
};

struct ring_slot {
	int32_t pid;          /* 0 when no worker owns the slot */
	uint32_t state;       /* enum ring_slot_state, for status */
	uint32_t retire;      /* set by the master: exit after this chunk */
	uint32_t has_lease;   /* lease_* below is a range this worker owns */
	uint32_t lease_job, lease_gen;
	uint64_t lease_lo, lease_hi;
	uint64_t hashes;      /* values hashed by this worker process */
	uint64_t chunks;      /* chunks finished by this worker process */
	uint64_t rate;        /* hashes per second over the last chunk */
	uint64_t started_ns;  /* CLOCK_MONOTONIC at fork */
	uint32_t restarts;    /* workers that died in this slot */
	uint32_t pad;
};

struct ring {
	pthread_mutex_t lock; /* robust, process-shared */
	int32_t lock_owner;   /* pid of the holder, 0 when free */
	uint32_t repairs;     /* locks recovered from a dead holder */
	sem_t work;           /* posted when work appears */
	uint32_t shutdown;    /* workers exit at the next chunk boundary */
	uint32_t die_in_lock; /* test hook: leases that SIGKILL their worker */
	uint32_t die_at_start; /* test hook: workers that die as they start */
	uint32_t hooks;       /* test hooks allowed (set by the master) */
	uint32_t nactive;     /* entries of active[] in use */
	uint32_t nfree;       /* entries of freelist[] in use */
	uint32_t pad;
	uint64_t seq;
	uint32_t best;        /* the best-ranked job, while best_valid */
	uint32_t best_valid;  /* cleared by anything that can change the order */
	uint64_t changed[RING_JOBS / 64]; /* jobs the master should look at */
	uint32_t active[RING_JOBS];   /* indices of jobs that are not FREE */
	uint32_t freelist[RING_JOBS]; /* indices of FREE jobs */
	struct ring_job jobs[RING_JOBS];
	struct ring_slot slots[RING_WORKERS];
};

/* A leased chunk, as the worker sees it. */
struct ring_lease {
	uint32_t job, gen;
	uint64_t lo, hi;
	uint8_t digest[32];
};

/* Initialise a ring in zeroed shared memory. 0 or -errno. */
int ring_init(struct ring *r);
/* Release the ring's semaphore and mutex (master, at exit). */
void ring_free(struct ring *r);

/* Take and drop the lock; a dead holder's lock is recovered (and counted). */
void ring_lock(struct ring *r);
void ring_unlock(struct ring *r);

/* Master: add a job with the given weight; *job receives its index.
 * 0, or -ENOSPC when the table is full. */
int ring_submit(struct ring *r, const uint8_t digest[32], uint64_t start,
		uint64_t end, uint64_t weight, uint32_t *job);
/* Master: change the weight of a job (connections attached or gone). */
void ring_set_weight(struct ring *r, uint32_t job, uint64_t weight);
/* Master: how a job stands; *answer is set when RING_FOUND. */
enum ring_outcome ring_check(struct ring *r, uint32_t job, uint64_t *answer);
/* Master: stop leasing a job; free its entry once no worker holds a lease on
 * it. Returns 1 when freed, 0 when leases remain (call again when told). */
int ring_release(struct ring *r, uint32_t job);
/* Master: give a dead worker's lease back to its job and empty its slot. */
void ring_reclaim(struct ring *r, unsigned slot);
/* Master: take the jobs workers flagged for attention (found, exhausted,
 * drained) since the last call; returns how many were stored in jobs. */
unsigned ring_changed(struct ring *r, uint32_t jobs[RING_JOBS]);
/* Master: wake up to n idle workers. */
void ring_wake(struct ring *r, unsigned n);

/* Worker: lease up to chunk values of the best-ranked job for slot.
 * 0, or -EAGAIN when there is no work. */
int ring_lease(struct ring *r, unsigned slot, uint64_t chunk,
	       struct ring_lease *out);
/* Worker: the slot's lease is hashed; found says whether answer matched.
 * Returns 1 when the master should be told (answer, exhaustion, drain). */
int ring_finish(struct ring *r, unsigned slot, int found, uint64_t answer);
/* Worker: sleep until work may exist or timeout_ms pass. */
void ring_wait(struct ring *r, unsigned timeout_ms);

#endif
