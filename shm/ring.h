/* The job table and priority ring, shared by the master and the workers.
 *
 * A job is one digest searched over one range. The table holds each job
 * once; workers lease pieces of the best-ranked job (the policy,
 * shm/policy.h) and record every lease in their own slot before taking it,
 * so a worker killed at any instruction leaves enough behind for its range
 * to be given back.
 *
 * The master never takes the lock (but to make it anew, ring_reset, once
 * no worker is left): it fills a free entry in, or moves a
 * job's phase (release, park) and changes its weight with atomic stores,
 * and marks the entry pending; the workers, who own the schedule, take
 * pending changes in under the lock at their next ring call. A worker that
 * brings a job to one of its ends flags it in changed[] and writes the
 * master's eventfd. A worker stopped inside the lock can therefore stall
 * only the other workers, never the master, which sees it go silent and
 * kills it; the robust mutex then recovers the lock.
 *
 * The ring is cut in layers, a file each, listed from the bottom up. The
 * three inner ones have a header and a prefix of their own, and each of
 * those headers includes only the one before it (ring_job.h: this one),
 * so the #include lines draw the layers:
 *   ring_job.c    (ring_job.h, job_) one entry: its phase and the one
 *                 function that moves it (the diagram and the table of
 *                 moves are there), and its progress: what is left to
 *                 lease, ranges given back;
 *   ring_slot.c   (ring_slot.h, slot_) the worker slots and the leases
 *                 they hold ("a slot holds a lease on a job" is one
 *                 predicate, slot_holds);
 *   ring_sched.c  (ring_sched.h, sched_) the schedule: the heap of
 *                 leasable jobs, which job a worker leases and how much of
 *                 it (asking the policy), the job a worker is kept on; it
 *                 keeps every derived field (a job's leases out, its rank,
 *                 its heap place) itself;
 *   ring_worker.c the workers' calls, built on ring_sched.h: the lock,
 *                 taking pending changes in, a job's ends, repair after a
 *                 dead lock holder, the worker's own slot;
 *   ring_master.c the master's calls, none of which waits, built on
 *                 ring_slot.h (never the schedule, which runs under the
 *                 lock): the ring's creation and end, jobs, preemption,
 *                 the workers' slots, and the views the master and
 *                 --status read.
 * Each file calls only those before it in this list. The ring_ prefix is
 * this header's alone, and every ring_ function is a call of ring_worker.c
 * or ring_master.c, but for six that take no ring and read, for both
 * sides, a phase or a key and a progress (ring_phase_name,
 * ring_phase_workers, ring_remaining, ring_rank_of, ring_progress_check,
 * ring_progress_give_back):
 * they are ring_job.c's, beside the
 * entry they describe, so that every layer reads them from below. No one
 * file is the ring, so none is named ring.c. */
#ifndef REVHASH_RING_H
#define REVHASH_RING_H

#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/search.h"
#include "shm/policy.h"

#define RING_JOBS 4096     /* jobs in the table at once; the master parks more */
#define RING_WORKERS 64    /* worker slots */
#define RING_RETURNED 16   /* ranges given back per job before rewinding */
#define RING_NONE UINT32_MAX
/* ring_queued's buckets: a running job of weight w up to RING_QUEUED_TOP
 * (a request's top priority, so a lone request's job has one of its own)
 * in bucket w, heavier ones together in the last. */
#define RING_QUEUED_TOP 16
#define RING_QUEUED_BUCKETS (RING_QUEUED_TOP + 2)

/* Where a job stands (the moves between them: shm/ring_job.c), the name
 * ring_phase_name gives it, and the side that moves a job on from it
 * (ring_phase_workers): XX(phase, name, owner), one line each. */
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

/* What a slot's worker is doing, and the name --status gives it:
 * XX(state, name). */
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

/* The test hooks (the worker misbehaves where one is armed), and the name
 * master --hook NAME takes: XX(hook, name). */
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
	/* The master's, written while the entry is FREE (phase last). */
	struct ring_key key;
	uint64_t seq;          /* arrival order, for ties and fifo */
	uint64_t submit_ns;    /* clock_ns() when it was submitted */
	uint32_t gen;          /* bumped at each use of the entry: a lease
	                          of an earlier use is void */
	uint32_t phase;        /* enum ring_phase: written by job_move() and
	                          job_own_move() alone */
	uint64_t weight;       /* what the master ranks it by: any time */
	/* The workers', under the lock, while they own the phase. */
	uint64_t answer;       /* in FOUND */
	uint32_t found_slot;   /* in FOUND: the slot whose worker said so */
	uint32_t pad[3];
	uint64_t first_lease_ns, found_ns; /* clock_ns(), for the stage times */
	struct ring_progress p;
	/* Derived, kept by ring_sched.c alone; rebuilt when a lock holder
	 * died. */
	struct rank rank;      /* as the heap ranks it */
	uint32_t nleases;      /* live leases on it (0 once it has ended) */
	uint32_t heap_pos;     /* index in heap[], RING_NONE when not in it */
};

struct ring_slot {
	int32_t pid;          /* the worker in the slot (it says so itself),
	                         0 for none (the master, on reaping it) */
	uint32_t retire;      /* master: exit after this lease */
	uint32_t state;       /* enum ring_slot_state, for status */
	uint32_t has_lease;   /* lease_* below is a range its worker owns */
	int32_t lease_pid;    /* the worker that took the lease */
	uint32_t lease_job, lease_gen;
	uint32_t keep_job, keep_gen; /* the job it stays on, where the policy
	                                keeps a worker on its job (written by
	                                sched_keep alone) */
	uint32_t stop;        /* the stop word: its lease may stop now (the job
	                         is found or released, or a better one came;
	                         the kernel watches it, the rest goes back) */
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
	sem_t wake;           /* posted when work appears: each worker its own,
	                         so that one the schedule passes over cannot
	                         take the wake-up meant for another */
};

struct ring {
	pthread_mutex_t lock; /* robust, process-shared; workers only */
	int32_t lock_owner;   /* the pid holding the lock: written just after
	                         taking it, cleared just before dropping it */
	uint32_t repairs;     /* locks recovered from a dead holder */
	uint32_t shutdown;    /* workers exit at the next lease boundary */
	uint32_t dead_leases; /* a worker died: its lease is to be given back */
	struct policy policy;
	uint32_t hooks;       /* the master's hooks switch, shown (ring_hook.h) */
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
 * range, which it leases from): the same mark, no lease taken between. */
struct ring_mark {
	uint64_t next, last_lo;
	uint32_t cursor_done, nreturned;
};

/* The master's own record of the table, in its private memory: which
 * entries it has taken, the free ones, and the generation of each. A
 * worker can write anything in the segment, so nothing the master
 * addresses memory with is read back from there. */
struct ring_master {
	struct ring *ring;
	uint32_t nfree;               /* entries of freelist[] in use */
	uint32_t freelist[RING_JOBS];
	uint32_t gen[RING_JOBS];      /* each entry's, as the master gave it */
	struct ring_mark given[RING_JOBS]; /* each entry's progress, as given */
	uint8_t taken[RING_JOBS];     /* submitted and not yet freed */
};

/* A leased range, as the worker sees it. */
struct ring_lease {
	uint32_t job, gen;
	uint64_t lo, hi;
	uint8_t digest[32];
	const uint32_t *stop; /* the slot's stop word, for the kernel */
	int tell;             /* the master should be told (see ring_finish) */
};

/* What the master and --status see of a worker slot. */
struct ring_slot_view {
	pid_t pid;
	enum ring_slot_state state;
	uint64_t beat;
	int has_lease;
	uint32_t lease_job;
	uint64_t lease_lo, lease_hi;
	uint64_t lease_values; /* size of the lease held */
	uint64_t rate;         /* hashes per second, 0 while unknown */
	uint64_t hashes, chunks;
	uint64_t hash_ns;      /* time spent hashing them, on its kind's clock */
	uint32_t deaths, stalls;
	uint32_t kind, unit;
};

/* ---- read by both sides, taking no ring (ring_job.c) --------------------- */

/* The name of a phase ("running", ...). */
const char *ring_phase_name(enum ring_phase phase);
/* Is phase one the workers move a job on from (a job not at an end yet)?
 * 0 for the master's (FREE and the ends), and for a value no phase has. */
int ring_phase_workers(enum ring_phase phase);
/* Values still to lease of a job with key k that got as far as p. */
unsigned __int128 ring_remaining(const struct ring_key *k,
				 const struct ring_progress *p);
/* A ring job's rank (policy_rank, the one builder): its weight and arrival
 * order, and what its key and progress leave to hash. The heap,
 * preemption and the master's backlog all rank with it. */
struct rank ring_rank_of(uint64_t weight, uint64_t seq, const struct ring_key *k,
			 const struct ring_progress *p);
/* Is p a progress of a job with key k (every count within its table,
 * every range within the key's)? 0, or -EINVAL when a worker wrote what
 * cannot be. */
int ring_progress_check(const struct ring_key *k, const struct ring_progress *p);
/* Put [lo, hi], leased from p (behind its cursor), back to be leased
 * again: a returned range, or, with none free, the nearest one widened
 * over it. The cursor never goes back. */
void ring_progress_give_back(struct ring_progress *p, uint64_t lo, uint64_t hi);

/* ---- the master (ring_master.c: one thread; never blocks) ---------------- */

/* Initialise a ring in zeroed shared memory. 0 or -errno (logged). */
int ring_init(struct ring *r, const struct policy *policy);
/* Release the ring's semaphores and mutex (at exit). */
void ring_free(struct ring *r);
/* The phase job is in now. */
enum ring_phase ring_phase(const struct ring *r, uint32_t job);
/* Live worker processes (slots with a pid). */
unsigned ring_workers(const struct ring *r);
/* The master's record of ring r: every entry free. */
void ring_master_init(struct ring_master *m, struct ring *r);
/* Start a job for key (progress from a parked job, or NULL for a fresh one)
 * with weight and arrival order seq; *job receives its entry (NEW). The
 * sleeping workers are woken to take it in, and the leases it preempts
 * stop (ring_preempt). 0, or -ENOSPC when every entry is taken. */
int ring_submit(struct ring_master *m, const struct ring_key *key,
		const struct ring_progress *from, uint64_t weight, uint64_t seq,
		uint32_t *job);
/* Is an entry free for ring_submit? */
int ring_has_room(const struct ring_master *m);
/* Is job an entry the master has taken (submitted, not yet freed)? */
int ring_taken(const struct ring_master *m, uint32_t job);
/* Entries in use, as the segment shows them (not FREE): for --status and
 * the tests; the master counts its own. */
unsigned ring_in_use(const struct ring *r);
/* job just came into the table: workers hashing a job it should preempt
 * (the policy says which) stop their lease and come for it. */
void ring_preempt(struct ring *r, uint32_t job);
/* Rank job by weight from now on. */
void ring_set_weight(struct ring *r, uint32_t job, uint64_t weight);
/* Does job's entry hold weight as ring_set_weight published it? (A
 * worker can write over it.) */
int ring_weight_is(const struct ring *r, uint32_t job, uint64_t weight);
/* Let the job go (nobody waits for it): no more leases, those out may stop;
 * it closes once they are back. 1, or 0 when it had already reached an end
 * (or was being released). */
int ring_release(struct ring *r, uint32_t job);
/* Take a running job out of the schedule, keeping its progress: it is
 * PARKED once its leases are back. 1, or 0 when it was not running. */
int ring_park(struct ring *r, uint32_t job);
/* The answer of a FOUND job. */
uint64_t ring_answer(const struct ring *r, uint32_t job);
/* Take back the entry of a job the master has taken, at one of its ends
 * or with a phase out of the table (what a worker wrote there since is
 * overruled: an end is the master's); its progress goes to *p (may be
 * NULL), to be checked with ring_progress_check, and its generation moves
 * on (no lease of the use just over counts again). 0, or -ENOENT when the
 * master had not taken it. */
int ring_free_entry(struct ring_master *m, uint32_t job, struct ring_progress *p);
/* Take back an entry the master has taken, from whatever phase it is in,
 * without waiting for its workers (a worker wrote over it, or a park or
 * release takes too long): into *p its progress, with every lease still
 * out on it given back (ring_progress_give_back), read in that order
 * while the entry is still the workers', so that no lease taken meanwhile
 * is lost; then the phase moves to FREE if no worker moved it meanwhile,
 * the leases out stop, its generation moves on, and the workers drop the
 * entry. What a worker dropped or gave back between the reads is not in
 * *p: the caller searches a "not found" again (jobs.c, unsure). 0,
 * -ENOENT when the master had not taken it, or -EAGAIN when a worker
 * moved its phase first (its news to be looked at: an answer is not to
 * be lost). */
int ring_take_back(struct ring_master *m, uint32_t job, struct ring_progress *p);
/* Has the master taken any entry? */
int ring_has_taken(const struct ring_master *m);
/* Does job's entry show the generation the master gave it (the one its
 * leases carry)? */
int ring_gen_given(const struct ring_master *m, uint32_t job);
/* Are the leases of job's use all back: its entry shows the generation
 * the master gave it, and no slot holds a lease of that? What an end
 * that says every lease is back (EXHAUSTED, PARKED) must show. */
int ring_leases_back(const struct ring_master *m, uint32_t job);
/* Is job as ring_submit gave it: its progress the one given, and no lease
 * of it out? What a job the workers are yet to take in (NEW) shows. */
int ring_untouched(const struct ring_master *m, uint32_t job);
/* A snapshot of job's progress, read without the lock (the number of its
 * returned ranges cut to the table's). */
void ring_progress_now(const struct ring *r, uint32_t job, struct ring_progress *p);
/* Entries the master has not given out that the workers would lease from
 * (in their heap, leased, or kept by a slot) with a phase other than
 * FREE: a job a worker wrote into a free entry, which they would search
 * for ever. Each is made FREE again, its leases stopped, and the workers
 * drop it at their next call. How many there were. */
unsigned ring_reclaim_phantoms(struct ring_master *m);/* The key of a job in the table. */
const struct ring_key *ring_key(const struct ring *r, uint32_t job);
/* The rank of job now (ring_rank_of on a snapshot read without the lock:
 * for the master's decisions, which may lag the workers by a lease). */
struct rank ring_rank(const struct ring *r, uint32_t job);
/* When the job was submitted, first leased and found (clock_ns(); 0 if
 * not yet). */
void ring_job_times(const struct ring *r, uint32_t job, uint64_t *submit_ns,
		    uint64_t *leased_ns, uint64_t *found_ns);
/* Take the jobs workers flagged since the last call; returns how many
 * were stored in jobs. */
unsigned ring_changed(struct ring *r, uint32_t jobs[RING_JOBS]);
/* Wake every worker (each slot's semaphore, posted once at most), in
 * ring_wake_order's order. */
void ring_wake(struct ring *r);
/* The slots with a worker into order, the fastest by its rate first (no
 * rate yet: last; equal rates: the lower slot first); returns how many. */
unsigned ring_wake_order(const struct ring *r, unsigned order[RING_WORKERS]);
/* Tell every worker to exit at its next lease boundary. */
void ring_shutdown(struct ring *r);
/* Before forking worker unit of kind for slot: fresh counters, not
 * retiring, and the workers not told to exit (the master forks none while
 * it shuts them down, so it says so again whatever a worker wrote). */
void ring_slot_prepare(struct ring *r, unsigned slot, unsigned kind, unsigned unit);
/* Ask the worker in slot to exit after its lease. */
void ring_slot_retire(struct ring *r, unsigned slot);
/* Put back what the segment says of slot against the master's own record,
 * pid (0: no worker there): a worker's pid written over, a pid in a slot
 * with no worker, a rate past RING_RATE_MAX. Any worker may write the
 * segment; a slot that showed a worker with no worker behind it counted
 * among the live ones, and one with an absurd rate had every real worker
 * leave each job to it (the fastest), so nothing was searched. 1 when
 * something was put back. */
int ring_slot_restore(struct ring *r, unsigned slot, pid_t pid);
/* More hashes per second than any machine's worker gives (an H100 gives
 * 1.7e10): a rate past it was written over. */
#define RING_RATE_MAX (UINT64_C(1) << 40)
/* The worker in slot is gone (how: enum ring_exit): its lease goes back
 * to its job (a worker does it at its next ring call). *hashes and *chunks
 * get what it did. */
void ring_slot_dead(struct ring *r, unsigned slot, enum ring_exit how,
		    uint64_t *hashes, uint64_t *chunks);
/* What the master and --status see of a slot. */
void ring_slot_view(const struct ring *r, unsigned slot,
		    struct ring_slot_view *v);
/* Jobs being searched (running), counted by weight into
 * counts[1..RING_QUEUED_TOP], heavier ones into the last bucket; returns
 * their number. A snapshot read without the lock. */
unsigned ring_queued(const struct ring *r, unsigned counts[RING_QUEUED_BUCKETS]);
/* Locks recovered from a dead holder so far. */
unsigned ring_repairs(const struct ring *r);
/* The thread the lock's word names as its holder (the kernel's robust
 * lock protocol; a worker's pid, as its lock calls come from its first
 * thread): 0 when the lock is free, or its holder died (the next to take
 * it recovers it). A word of the segment like any other: a worker can
 * write any pid there, so the master checks it against its own table. */
pid_t ring_lock_holder(const struct ring *r);
/* Make the lock and the slots' semaphores anew and rebuild every derived
 * field under the lock, as the successor of a dead holder would: the
 * master's one call of the workers' side (ring_worker.c), made once every
 * worker is gone, for a lock held by none of its own (its word written
 * over) or one that was cut from the segment. 0, -EBUSY when someone took
 * the new lock first (it is tried again later), or -errno (logged). */
int ring_reset(struct ring *r);
/* Put back the ring-wide words the master owns where a worker wrote over
 * them: the policy, the shutdown flag. The number of words put back. */
int ring_restore_words(struct ring *r, const struct policy *policy, int shutdown);

/* ---- the workers (ring_worker.c) ----------------------------------------- */

/* Take the lock for process self, and drop it. A dead holder's lock is
 * recovered and the ring's derived state rebuilt; any other failure
 * aborts. */
void ring_lock(struct ring *r, pid_t self);
void ring_unlock(struct ring *r);
/* Was the worker in slot asked to exit (retire or shutdown)? */
int ring_slot_retiring(const struct ring *r, unsigned slot);
/* A new worker in slot (pid self) comes in and shows in the slot: a lease
 * left there by a dead predecessor goes back. 1 when the master should be
 * told. */
int ring_worker_start(struct ring *r, unsigned slot, pid_t self);
/* Lease at most chunk values of the best-ranked job for slot, sized by
 * the policy for the live workers (never below min_chunk, nor 1).
 * 0, or -EAGAIN when there is no work; out->tell says whether the master
 * should be told either way. */
int ring_lease(struct ring *r, unsigned slot, uint64_t chunk,
	       uint64_t min_chunk, struct ring_lease *out);
/* The slot's lease is done: result is the kernel's, x the answer
 * (SEARCH_FOUND) or the first value not hashed (SEARCH_STOPPED). 1 when
 * the master should be told (the job reached an end). */
int ring_finish(struct ring *r, unsigned slot, enum search_result result,
		uint64_t x);
/* Count a lease's work in the slot: hashed values in ns of hashing time,
 * and the rate the worker measured (0: keep the last). */
void ring_slot_account(struct ring *r, unsigned slot, uint64_t hashed,
		       uint64_t ns, uint64_t rate);
/* The slot's state, for status. */
void ring_slot_set_state(struct ring *r, unsigned slot, enum ring_slot_state state);
/* The worker's last measured rate (hashes/s), 0 while unknown. */
uint64_t ring_slot_rate(const struct ring *r, unsigned slot);
/* The worker in slot sleeps until work may exist or timeout_ms pass. */
void ring_wait(struct ring *r, unsigned slot, unsigned timeout_ms);
/* The same wake-up taken by polling, awake, for up to ns: 1 when it came.
 * For a worker with a CPU of its own, whose sleep would cost a wake-up
 * from idle (tens of us, more in a VM) on its next lease. */
int ring_poll(struct ring *r, unsigned slot, uint64_t ns);

#endif
