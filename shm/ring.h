/* The job table and priority ring: the layout the master and the workers
 * share in the segment, and what either side reads of an entry without
 * the ring. Each side includes its own calls' header (ring_master.h,
 * ring_worker.h); a worker's code never sees the master's.
 *
 * The master never takes the lock (but in ring_reset, once no worker is
 * left): it fills a free entry in, moves a phase or a weight with atomic
 * stores and marks the entry pending; the workers take pending changes in
 * under the lock at their next call, and flag a job that reached an end
 * in changed[]. A worker stopped inside the lock stalls only the other
 * workers, never the master. Inside, the ring is cut in layers, a file
 * each, each calling only those before it: ring_job.c (job_), ring_slot.c
 * (slot_), ring_sched.c (sched_), then ring_worker.c and ring_master.c,
 * and ring_reset.c, the master's one call that takes the lock, over
 * ring_worker.c's repair (docs/architecture.md: shm/, "A job's life"). */
#ifndef REVHASH_RING_H
#define REVHASH_RING_H

#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <sys/types.h>

#include "shm/policy.h"

#define RING_JOBS 4096     /* jobs in the table at once; the master parks more */
#define RING_WORKERS 64    /* worker slots */
#define RING_RETURNED 16   /* ranges given back per job before rewinding */
#define RING_NONE UINT32_MAX
/* ring_queued's buckets: weight w up to RING_QUEUED_TOP (a request's top
 * priority) in bucket w, heavier ones together in the last. */
#define RING_QUEUED_TOP 16
#define RING_QUEUED_BUCKETS (RING_QUEUED_TOP + 2)

/* Where a job stands (the moves: shm/ring_job.c): XX(phase, name, the
 * side that moves a job on from it). */
#define RING_PHASE_MAP(XX)                                                                              \
	XX(FREE, "free", MASTER)             /* nothing in it */                                        \
	XX(NEW, "new", WORKERS)              /* submitted; the workers take it in at their next call */ \
	XX(RUNNING, "running", WORKERS)      /* leased from */                                          \
	XX(RELEASING, "releasing", WORKERS)  /* the master let it go; its leases are coming back */     \
	XX(PARKING, "parking", WORKERS)      /* the master takes it out; its leases are coming back */  \
	XX(FOUND, "found", MASTER)           /* end: the answer is in the entry */                      \
	XX(EXHAUSTED, "exhausted", MASTER)   /* end: every value hashed, none matched */                \
	XX(PARKED, "parked", MASTER)         /* end: out of the schedule, its progress in the entry */  \
	XX(CLOSED, "closed", MASTER)         /* end: released, every lease back */

enum ring_phase {
#define XX(phase, name, owner) PHASE_##phase,
	RING_PHASE_MAP(XX)
#undef XX
	PHASE_COUNT
};

/* What a slot's worker is doing: XX(state, name in --status). */
#define RING_SLOT_STATE_MAP(XX)                                               \
	XX(EMPTY, "empty")                                                    \
	XX(IDLE, "idle")                                                      \
	XX(HASHING, "hashing")                                                \
	XX(RETIRING, "retiring")

enum ring_slot_state {
#define XX(state, name) SLOT_##state,
	RING_SLOT_STATE_MAP(XX)
#undef XX
	SLOT_STATE_COUNT
};

/* The test hooks (fired in ring_worker.c, armed in ring_master.c):
 * XX(hook, name master --hook takes). */
#define RING_HOOK_MAP(XX)                                                     \
	XX(DIE_IN_LOCK, "die-in-lock")                                        \
	XX(STOP_IN_LOCK, "stop-in-lock")                                      \
	XX(DIE_AT_START, "die-at-start")                                      \
	XX(SIGNAL_MASTER, "signal-master")                                    \
	XX(TRUNCATE_SEGMENT, "truncate-segment")

enum ring_hook {
#define XX(hook, name) HOOK_##hook,
	RING_HOOK_MAP(XX)
#undef XX
	HOOK_COUNT
};

struct ring_range {
	uint64_t lo, hi; /* inclusive */
};

/* What a job is: one digest over one range; fixed while the job lives. */
struct ring_key {
	uint8_t digest[32];
	uint64_t start, end; /* inclusive */
};

/* How far a job has got: everything not yet leased. */
struct ring_progress {
	uint64_t next;        /* first value never leased (unless cursor_done) */
	uint32_t cursor_done; /* every value from next to end has been leased */
	uint32_t nreturned;   /* ranges given back, leased before the cursor */
	struct ring_range returned[RING_RETURNED];
	uint32_t started;     /* some of it has been leased */
	uint32_t pad;
};

struct ring_job {
	/* The master's, written while the entry is FREE (phase last). */
	struct ring_key key;
	uint64_t seq;          /* arrival order, for ties and fifo */
	uint64_t submit_ns;    /* clock_ns() when it was submitted */
	uint32_t gen;          /* bumped at each use of the entry: a lease
	                          of an earlier use is void */
	uint32_t phase;        /* enum ring_phase: moved by ring_job.c alone */
	uint64_t weight;       /* what the master ranks it by: any time */
	/* The workers', under the lock, while they own the phase. */
	uint64_t answer;       /* in FOUND */
	uint32_t found_slot;   /* in FOUND: the slot whose worker said so */
	uint32_t pad[3];
	uint64_t first_lease_ns, found_ns; /* clock_ns(), for the stage times */
	struct ring_progress p;
	/* Derived, kept by ring_sched.c alone; rebuilt after a holder's death. */
	struct rank rank;      /* as the heap ranks it */
	uint32_t nleases;      /* live leases on it (0 once it has ended) */
	uint32_t heap_pos;     /* index in heap[], RING_NONE when not in it */
};

struct ring_slot {
	int32_t pid;          /* the worker in the slot, 0 for none */
	uint32_t retire;      /* master: exit after this lease */
	uint32_t state;       /* enum ring_slot_state, for status */
	uint32_t has_lease;   /* lease_* below is a range its worker owns */
	int32_t lease_pid;    /* the worker that took the lease */
	uint32_t lease_job, lease_gen;
	uint32_t keep_job, keep_gen; /* the job it stays on (sched_keep) */
	uint32_t stop;        /* its lease may stop now: the kernel watches it */
	uint64_t lease_lo, lease_hi;
	uint64_t lease_ns;    /* clock_ns() when it was leased */
	uint64_t beat;        /* bumped by every ring call: a sign of life */
	uint64_t hashes;      /* values hashed by this worker process */
	uint64_t chunks;      /* leases finished by this worker process */
	uint64_t rate;        /* hashes per second over its last leases */
	uint64_t hash_ns;     /* time this worker process spent hashing */
	uint64_t started_ns;  /* clock_ns() at fork */
	uint32_t deaths;      /* workers that died in this slot */
	uint32_t stalls;      /* of which: killed for showing no progress */
	uint32_t kind;        /* its kind (worker/kind.h), set by the master */
	uint32_t unit;        /* which one of its kind: a CPU, a device */
	sem_t wake;           /* posted when work appears (ring_wake) */
};

struct ring {
	pthread_mutex_t lock; /* robust, process-shared; workers only */
	int32_t lock_owner;   /* the holder's pid, as it says: only shown */
	uint32_t repairs;     /* locks recovered from a dead holder */
	uint32_t shutdown;    /* workers exit at the next lease boundary */
	uint32_t dead_leases; /* a worker died: its lease is to be given back */
	struct policy policy;
	uint32_t hooks;       /* the master's hooks switch, shown */
	uint32_t hook[HOOK_COUNT]; /* test hooks armed, a count each */
	uint32_t nheap;       /* entries of heap[] in use */
	uint32_t pad;
	uint64_t pending_any; /* bit w: pending[w] has bits */
	uint64_t pending[RING_JOBS / 64]; /* jobs the master changed */
	uint64_t changed[RING_JOBS / 64]; /* jobs that reached an end */
	uint32_t heap[RING_JOBS]; /* leasable jobs, best first */
	struct ring_job jobs[RING_JOBS];
	struct ring_slot slots[RING_WORKERS];
};

/* The shared layout's sizes and alignments, checked (see segment.h). */
_Static_assert(sizeof(struct ring_progress) == 16 + 16 * RING_RETURNED + 8, "progress");
_Static_assert(sizeof(struct ring_job) % 16 == 0, "job entries stay aligned");
_Static_assert(sizeof(struct ring_slot) % 8 == 0, "slots");
_Static_assert(RING_JOBS % 64 == 0, "bitmaps of whole words");

/* What every lease moves of a progress (the cursor, or the last returned
 * range): the same mark, no lease taken between. Compared whole. */
struct ring_mark {
	uint64_t next, last_lo;
	uint32_t cursor_done, nreturned;
};
_Static_assert(sizeof(struct ring_mark) == 24, "a mark has no padding");

/* ---- read by both sides, taking no ring (ring_job.c) --------------------- */

/* The name of a phase ("running", ...). */
const char *ring_phase_name(enum ring_phase phase);
/* Is phase one the workers move a job on from? 0 for the master's (FREE
 * and the ends), and for a value no phase has. */
int ring_phase_workers(enum ring_phase phase);
/* Values still to lease of a job with key k that got as far as p. */
unsigned __int128 ring_remaining(const struct ring_key *k,
				 const struct ring_progress *p);
/* A ring job's rank (by policy_rank): its weight, its arrival order and
 * what its key and progress leave to hash. */
struct rank ring_rank_of(uint64_t weight, uint64_t seq, const struct ring_key *k,
			 const struct ring_progress *p);
/* Is p a progress of a job with key k (every count within its table,
 * every range within the key's)? 0, or -EINVAL. */
int ring_progress_check(const struct ring_key *k, const struct ring_progress *p);
/* Put [lo, hi], leased from p, back to be leased again: a returned range,
 * or the nearest one widened over it. The cursor never goes back. */
void ring_progress_give_back(struct ring_progress *p, uint64_t lo, uint64_t hi);

#endif
