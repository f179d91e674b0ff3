/* The ring's master side (ring_master.c): calls that never wait on the
 * ring, and the master's own record of the table in its private memory.
 * ring_reset (run once no worker is left) is ring_reset.c's. */
#ifndef REVHASH_RING_MASTER_H
#define REVHASH_RING_MASTER_H

#include "shm/ring.h"

enum ring_exit { EXIT_RETIRED = 0, EXIT_DIED, EXIT_STALLED };

/* The master's own record of the table: a worker can write anything in
 * the segment, so nothing the master addresses memory with is read back
 * from there. */
struct ring_master {
	struct ring *ring;
	uint32_t nfree;               /* entries of freelist[] in use */
	uint32_t freelist[RING_JOBS];
	uint32_t gen[RING_JOBS];      /* each entry's, as the master gave it */
	struct ring_mark given[RING_JOBS]; /* each entry's progress, as given */
	void *holder[RING_JOBS];      /* who holds each entry, as the caller
	                                 said; NULL: the master has not taken it */
};

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
/* Start a job for key from progress from (a parked job's, or a fresh
 * one's at key's start) with weight and arrival order seq, held by holder (not NULL); *job
 * receives its entry (NEW). The workers are woken, and the leases it
 * preempts stop. 0, or -ENOSPC when every entry is taken. */
int ring_submit(struct ring_master *m, const struct ring_key *key,
		const struct ring_progress *from, uint64_t weight, uint64_t seq,
		void *holder, uint32_t *job);
/* The holder of an entry that m keeps for none of its caller's own (a
 * job let go, which the workers are yet to drop). */
#define RING_HELD_ALONE(m) ((void *)(m))
/* Who holds entry job: NULL when the master has not taken it. */
void *ring_holder(const struct ring_master *m, uint32_t job);
/* Entry job, which the master has taken, is held alone from now on. */
void ring_hold_alone(struct ring_master *m, uint32_t job);
/* Entries the segment shows in use (not FREE): for --status and the tests. */
unsigned ring_in_use(const struct ring *r);
/* job just came in: the leases it preempts (policy_preempts) stop. */
void ring_preempt(struct ring *r, uint32_t job);
/* Rank job by weight from now on. */
void ring_set_weight(struct ring *r, uint32_t job, uint64_t weight);
/* Does job's entry hold weight as ring_set_weight published it? */
int ring_weight_is(const struct ring *r, uint32_t job, uint64_t weight);
/* Let the job go: no more leases, those out stop; it closes once they are
 * back. 1, or 0 when it had reached an end (or was being released). */
int ring_release(struct ring *r, uint32_t job);
/* Take a running job out of the schedule, keeping its progress: PARKED
 * once its leases are back. 1, or 0 when it was not running. */
int ring_park(struct ring *r, uint32_t job);
/* The answer of a FOUND job. */
uint64_t ring_answer(const struct ring *r, uint32_t job);
/* Take back an entry the master has taken, at an end or with a phase out
 * of the table: its progress into *p (may be NULL; for the caller to
 * check), its generation moved on. 0, or -ENOENT when not taken. */
int ring_free_entry(struct ring_master *m, uint32_t job, struct ring_progress *p);
/* Take back an entry the master has taken, from any phase, without
 * waiting: into *p its progress with the leases out given back, read while
 * the entry is the workers' (what they give back meanwhile is missed: the
 * caller searches a "not found" again); then FREE, the leases stopped, the
 * generation moved on. 0, -ENOENT when the master had not taken it, or
 * -EAGAIN when a worker moved the phase first (an answer not to lose). */
int ring_take_back(struct ring_master *m, uint32_t job, struct ring_progress *p);
/* Has the master taken any entry? */
int ring_has_taken(const struct ring_master *m);
/* Does job's entry show the generation the master gave it? */
int ring_gen_given(const struct ring_master *m, uint32_t job);
/* Are the leases of job's use all back (its generation given, no slot
 * holding a lease of it)? What EXHAUSTED and PARKED must show. */
int ring_leases_back(const struct ring_master *m, uint32_t job);
/* Is job as ring_submit gave it, no lease of it out (as NEW must be)? */
int ring_untouched(const struct ring_master *m, uint32_t job);
/* A snapshot of job's progress, read without the lock. */
void ring_progress_now(const struct ring *r, uint32_t job, struct ring_progress *p);
/* Entries the master has not given out that the workers would lease from
 * (their heap, a lease, a kept job) with a phase other than FREE: a job a
 * worker wrote into a free entry. Each is made FREE again, its leases
 * stopped. How many there were. */
unsigned ring_reclaim_phantoms(struct ring_master *m);
/* The key of a job in the table. */
const struct ring_key *ring_key(const struct ring *r, uint32_t job);
/* The rank of job on a snapshot read without the lock. */
struct rank ring_rank(const struct ring *r, uint32_t job);
/* When the job was submitted, first leased and found (0: not yet). */
void ring_job_times(const struct ring *r, uint32_t job, uint64_t *submit_ns,
		    uint64_t *leased_ns, uint64_t *found_ns);
/* The jobs workers flagged since the last call into jobs; how many. */
unsigned ring_changed(struct ring *r, uint32_t jobs[RING_JOBS]);
/* Post every worker's semaphore, once at most, in ring_wake_order. */
void ring_wake(struct ring *r);
/* The slots with a worker into order, the fastest first (no rate: last;
 * ties: slot order); how many. */
unsigned ring_wake_order(const struct ring *r, unsigned order[RING_WORKERS]);
/* Tell every worker to exit at its next lease boundary. */
void ring_shutdown(struct ring *r);
/* Before forking worker unit of kind for slot: fresh counters, not
 * retiring, and no shutdown (the master forks none while it shuts down). */
void ring_slot_prepare(struct ring *r, unsigned slot, unsigned kind, unsigned unit);
/* Ask the worker in slot to exit after its lease. */
void ring_slot_retire(struct ring *r, unsigned slot);
/* Put back a slot's pid from the master's own record (0: no worker) and
 * a rate past RING_RATE_MAX, which a worker may have written: a phantom
 * worker counted among the live ones, and an absurd rate had every real
 * worker leave each job to it. 1 when something was put back. */
int ring_slot_restore(struct ring *r, unsigned slot, pid_t pid);
/* More hashes per second than any machine's worker gives (an H100 gives
 * 1.7e10): a rate past it was written over. */
#define RING_RATE_MAX (UINT64_C(1) << 40)
/* The worker in slot is gone (how: enum ring_exit): its lease goes back
 * at a worker's next ring call. *hashes and *chunks get what it did. */
void ring_slot_dead(struct ring *r, unsigned slot, enum ring_exit how,
		    uint64_t *hashes, uint64_t *chunks);
/* What the master and --status see of a slot: a copy of it, but for its
 * semaphore, into *v, each word read whole (its worker writes it
 * meanwhile). */
void ring_slot_view(const struct ring *r, unsigned slot, struct ring_slot *v);
/* Running jobs, counted by weight into counts[]; how many. No lock. */
unsigned ring_queued(const struct ring *r, unsigned counts[RING_QUEUED_BUCKETS]);
/* The thread the lock's own word names as its holder (robust futex): 0
 * when free or its holder died. Any worker can write it. */
pid_t ring_lock_holder(const struct ring *r);
/* Make the lock and the semaphores anew and repair the ring under the new
 * lock, as a dead holder's successor would; for the master once every
 * worker is gone (the lock held by none of ours, or cut from the
 * segment). 0, -EBUSY when someone took the new lock first, or -errno. */
int ring_reset(struct ring *r);
/* The test hooks' master side; the switch is ring_worker.h's. Arm a hook
 * n more times; -EPERM when r's master has hooks off. */
int ring_arm_hook(struct ring *r, enum ring_hook hook, unsigned n);
/* How many times a hook is still armed. */
unsigned ring_hook_armed(const struct ring *r, enum ring_hook hook);
/* Put back the ring-wide words the master owns (the policy, the shutdown
 * flag) where a worker wrote over them. The number put back. */
int ring_restore_words(struct ring *r, const struct policy *policy, int shutdown);

#endif
