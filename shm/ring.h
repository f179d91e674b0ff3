/* The job table and priority ring, shared by the master and the workers.
 *
 * A job is one digest searched over one range. The table holds each job
 * once; workers lease chunks of the best-ranked job (shm/rank.h) and record
 * every lease in their own slot before taking it, so a worker killed at any
 * instruction leaves enough behind for its range to be given back.
 *
 * The master never takes the lock. It writes what it wants of a job (to
 * exist, its weight, to be released or parked) into fields of its own and
 * flags the job; the workers, who own the schedule, apply those wishes under
 * the lock at their next ring call, and flag back what the master must see
 * (found, exhausted, closed). A worker stopped inside the lock can therefore
 * stall only the other workers, never the master, which sees it go silent
 * and kills it; the robust mutex then recovers the lock.
 *
 * A job entry's life:
 *   FREE     the master's: it fills it in and asks for it (want ACTIVE);
 *   ACTIVE   the workers': leased from until found or exhausted;
 *   CLOSING  the master asked to release or park it; leases still out;
 *   CLOSED   no lease left: the master reads what it needs and frees it. */
#ifndef REVHASH_RING_H
#define REVHASH_RING_H

#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <sys/types.h>

#include "shm/rank.h"

#define RING_JOBS 4096     /* jobs in the table at once; the master parks more */
#define RING_WORKERS 64    /* worker slots */
#define RING_RETURNED 16   /* ranges given back per job before rewinding */
#define RING_NONE UINT32_MAX

enum ring_job_state { JOB_FREE = 0, JOB_ACTIVE, JOB_CLOSING, JOB_CLOSED };
enum ring_want { WANT_NONE = 0, WANT_ACTIVE, WANT_RELEASE, WANT_PARK };
enum ring_slot_state { SLOT_EMPTY = 0, SLOT_IDLE, SLOT_HASHING, SLOT_RETIRING };
enum ring_outcome { RING_RUNNING = 0, RING_FOUND, RING_EXHAUSTED };
enum ring_hook { HOOK_DIE_IN_LOCK = 0, HOOK_STOP_IN_LOCK, HOOK_DIE_AT_START, HOOK_COUNT };
enum ring_exit { EXIT_RETIRED = 0, EXIT_DIED, EXIT_STALLED };

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
	/* The master's, written while the entry is FREE (want last). */
	struct ring_key key;
	uint64_t seq;          /* arrival order, for ties and fifo */
	uint32_t gen;          /* bumped at each reuse of the entry */
	uint32_t want;         /* enum ring_want: changed at any time */
	uint64_t want_weight;  /* the weight the master wants it ranked by */
	/* The workers', under the lock, while ACTIVE or CLOSING. */
	uint32_t state;        /* enum ring_job_state */
	uint32_t found;        /* answer holds the match */
	uint32_t exhausted;    /* every value hashed, no match */
	uint32_t pad;
	uint64_t weight;       /* want_weight, as applied */
	uint64_t answer;
	uint64_t first_lease_ns, found_ns; /* clock_ns(), for the stage times */
	struct ring_progress p;
	/* Derived from the fields above; rebuilt when a lock holder died. */
	unsigned __int128 rem; /* values left to lease */
	uint32_t nleases;      /* slots holding a lease on it */
	uint32_t heap_pos;     /* index in heap[], RING_NONE when not in it */
};

struct ring_slot {
	int32_t pid;          /* the worker in the slot, 0 for none */
	uint32_t retire;      /* master: exit after this chunk */
	uint32_t state;       /* enum ring_slot_state, for status */
	uint32_t has_lease;   /* lease_* below is a range its worker owns */
	int32_t lease_pid;    /* the worker that took the lease */
	uint32_t lease_job, lease_gen;
	uint32_t keep_job, keep_gen; /* without preemption: the job it stays on */
	uint32_t stop;        /* its chunk may stop now: the job is found or
	                         released, or a better one came (the kernel
	                         watches it; the rest of the chunk goes back) */
	uint64_t lease_lo, lease_hi;
	uint64_t lease_ns;    /* clock_ns() when it was leased */
	uint64_t beat;        /* bumped by every ring call: a sign of life */
	uint64_t hashes;      /* values hashed by this worker process */
	uint64_t chunks;      /* chunks finished by this worker process */
	uint64_t rate;        /* hashes per second over its last chunks */
	uint64_t hash_ns;     /* CPU time this worker process spent hashing */
	uint64_t started_ns;  /* clock_ns() at fork */
	uint32_t deaths;      /* workers that died in this slot */
	uint32_t stalls;      /* of which: killed for showing no progress */
};

struct ring {
	pthread_mutex_t lock; /* robust, process-shared; workers only */
	int32_t lock_owner;   /* pid of the holder, 0 when free */
	uint32_t repairs;     /* locks recovered from a dead holder */
	sem_t work;           /* posted when work appears */
	struct rank_policy policy;
	uint32_t shutdown;    /* workers exit at the next chunk boundary */
	uint32_t nworkers;    /* live workers, to split small jobs among */
	uint32_t reclaim;     /* a worker died: give its lease back */
	uint32_t hooks;       /* test hooks allowed */
	uint32_t hook[HOOK_COUNT]; /* test hooks armed, a count each */
	uint32_t nfree;       /* the master's: entries of freelist[] in use */
	uint32_t nheap;       /* entries of heap[] in use */
	uint64_t pending_any;  /* bit w: pending[w] has bits */
	uint64_t pending[RING_JOBS / 64]; /* jobs with wishes to apply */
	uint64_t changed[RING_JOBS / 64]; /* jobs the master should look at */
	uint32_t freelist[RING_JOBS];
	uint32_t heap[RING_JOBS]; /* leasable jobs, best first (a binary heap) */
	struct ring_job jobs[RING_JOBS];
	struct ring_slot slots[RING_WORKERS];
};

/* A leased chunk, as the worker sees it. */
struct ring_lease {
	uint32_t job, gen;
	uint64_t lo, hi;
	uint8_t digest[32];
	const uint32_t *stop; /* the slot's stop word, for the kernel */
	int tell;             /* the master should be told (see ring_finish) */
};

/* What the master watches of a worker slot. */
struct ring_slot_view {
	pid_t pid;
	uint64_t beat;
	int has_lease;
	uint64_t lease_values; /* size of the lease held */
	uint64_t rate;         /* hashes per second, 0 while unknown */
	uint64_t hashes, chunks;
	uint64_t hash_ns;      /* CPU time spent hashing them */
};

/* ---- both ------------------------------------------------------------ */

/* Initialise a ring in zeroed shared memory. 0 or -errno. */
int ring_init(struct ring *r, const struct rank_policy *policy);
/* Release the ring's semaphore and mutex (master, at exit). */
void ring_free(struct ring *r);

/* ---- the master (one thread; never blocks) ---------------------------- */

/* Start a job for key (progress from a parked job, or NULL for a fresh one)
 * with weight and arrival order seq; *job receives its entry. 0, or -ENOSPC
 * when every entry is taken. */
int ring_submit(struct ring *r, const struct ring_key *key,
		const struct ring_progress *from, uint64_t weight, uint64_t seq,
		uint32_t *job);
/* Is an entry free for ring_submit? */
int ring_has_room(const struct ring *r);
/* Entries taken (submitted and not yet taken back). */
unsigned ring_in_use(const struct ring *r);
/* job just came into the table: workers hashing a job it outranks stop
 * their chunk and come for it (nothing without preemption). */
void ring_preempt(struct ring *r, uint32_t job);
/* Rank job by weight from now on. */
void ring_set_weight(struct ring *r, uint32_t job, uint64_t weight);
/* Stop the job: no more leases; chunks out may stop early. It closes once
 * they are back (ring_closed). */
void ring_release(struct ring *r, uint32_t job);
/* Take the job out of the schedule keeping its progress: it closes once
 * its chunks are back, and ring_take_back hands the progress over. */
void ring_park(struct ring *r, uint32_t job);
/* How the job stands; *answer is set when RING_FOUND. */
enum ring_outcome ring_check(const struct ring *r, uint32_t job,
			     uint64_t *answer);
/* Has the job closed (released or parked, no lease left)? */
int ring_closed(const struct ring *r, uint32_t job);
/* Free a closed job's entry; its progress goes to *p (may be NULL). */
void ring_take_back(struct ring *r, uint32_t job, struct ring_progress *p);
/* The key of a job in the table. */
const struct ring_key *ring_key_of(const struct ring *r, uint32_t job);
/* Values still to lease of a job with key k that got as far as p. */
unsigned __int128 ring_remaining(const struct ring_key *k,
				 const struct ring_progress *p);
/* A snapshot of what ranks job, read without the lock (for parking
 * decisions: may lag the workers by a chunk). */
void ring_rank_key(const struct ring *r, uint32_t job, struct rank_key *k);
/* When the job was first leased and found (clock_ns(); 0 if not yet). */
void ring_job_times(const struct ring *r, uint32_t job, uint64_t *leased_ns,
		    uint64_t *found_ns);
/* Take the jobs workers flagged since the last call; returns how many
 * were stored in jobs. */
unsigned ring_changed(struct ring *r, uint32_t jobs[RING_JOBS]);
/* Wake up to n sleeping workers. */
void ring_wake(struct ring *r, unsigned n);
/* Tell every worker to exit at its next chunk boundary. */
void ring_shutdown(struct ring *r);
/* Workers are told to exit. */
int ring_is_shutdown(const struct ring *r);
/* n workers are alive: small jobs are split among that many. */
void ring_set_workers(struct ring *r, unsigned n);
/* Before forking a worker for slot: fresh counters, not retiring. */
void ring_slot_prepare(struct ring *r, unsigned slot);
/* After the fork: the slot's worker is pid (the worker says so too). */
void ring_slot_start(struct ring *r, unsigned slot, pid_t pid);
/* Ask the worker in slot to exit after its chunk. */
void ring_slot_retire(struct ring *r, unsigned slot);
/* Was the worker in slot asked to exit (retire or shutdown)? */
int ring_slot_retiring(const struct ring *r, unsigned slot);
/* The worker in slot is gone (how: enum ring_exit): its lease goes back
 * to its job (a worker does it at its next ring call). *hashes and *chunks
 * get what it did. */
void ring_slot_dead(struct ring *r, unsigned slot, enum ring_exit how,
		    uint64_t *hashes, uint64_t *chunks);
/* What the master watches of a slot. */
void ring_slot_view(const struct ring *r, unsigned slot,
		    struct ring_slot_view *v);
/* The pid holding the lock (from the mutex itself), 0 when none. */
pid_t ring_lock_holder(const struct ring *r);
/* Allow test hooks (the master sets it from REVHASH_TEST_HOOKS). */
void ring_allow_hooks(struct ring *r, int on);
/* Arm a test hook n more times; -EPERM when hooks are not allowed. */
int ring_arm_hook(struct ring *r, enum ring_hook hook, unsigned n);
/* How many times a hook is still armed. */
unsigned ring_hook_armed(const struct ring *r, enum ring_hook hook);

/* ---- the workers ------------------------------------------------------- */

/* Take and drop the lock. A dead holder's lock is recovered and the
 * ring's derived state rebuilt; any other failure aborts. */
void ring_lock(struct ring *r);
void ring_unlock(struct ring *r);
/* A new worker in slot (pid self) comes in: a lease left in its slot by a
 * dead predecessor goes back. Returns 1 when the master should be told. */
int ring_worker_start(struct ring *r, unsigned slot, pid_t self);
/* Lease at most chunk values of the best-ranked job for slot. With
 * several live workers and splitting on, a job goes out in pieces small
 * enough that they sweep its range side by side (at most 1/16 of its
 * range per worker), and its tail is shared evenly; no piece is below
 * min_chunk (nor 1).
 * 0, or -EAGAIN when there is no work; out->tell says whether the master
 * should be told either way. */
int ring_lease(struct ring *r, unsigned slot, uint64_t chunk,
	       uint64_t min_chunk, struct ring_lease *out);
/* The slot's lease is done. result is the kernel's: 1 found (x is the
 * answer), 0 all hashed, -1 stopped early (x is the first value not
 * hashed). Returns 1 when the master should be told (answer, exhausted,
 * closed). */
int ring_finish(struct ring *r, unsigned slot, int result, uint64_t x);
/* Sleep until work may exist or timeout_ms pass. */
void ring_wait(struct ring *r, unsigned timeout_ms);
/* Test hooks for the worker before it starts (die at start). */
int ring_hook_fire(struct ring *r, enum ring_hook hook);

#endif
