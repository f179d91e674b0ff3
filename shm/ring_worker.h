/* The ring's worker side (ring_worker.c): all that code running in a
 * worker may call of the ring. Each call takes the lock (a dead holder's
 * is recovered), or touches only the worker's own slot. The hooks' switch
 * and ring_repair are here too: the master's ring_reset repairs as a
 * worker does, and both sides read the switch. */
#ifndef REVHASH_RING_WORKER_H
#define REVHASH_RING_WORKER_H

#include "lib/search.h"
#include "shm/ring.h"

/* A leased range, as the worker sees it. */
struct ring_lease {
	uint32_t job, gen;
	uint64_t lo, hi;
	uint8_t digest[32];
	const uint32_t *stop; /* the slot's stop word, for the kernel */
	int tell;             /* the master should be told (see ring_finish) */
};

/* Take one arming of a test hook (ring_worker.c): 1 when the caller should
 * misbehave (this process's switch is on, and the hook was armed). */
int ring_hook_fire(struct ring *r, enum ring_hook hook);
/* This process's switch for the test hooks, which a forked worker
 * inherits: is it on? Turn it on or off (the tests, the fuzzer); where
 * never turned, REVHASH_TEST_HOOKS in the environment says. */
int ring_hooks_allowed(void);
void ring_hooks_here(int on);
/* Take the lock for process self, and drop it. A dead holder's lock is
 * recovered and the ring's derived state rebuilt; any other failure
 * aborts. */
void ring_lock(struct ring *r, pid_t self);
void ring_unlock(struct ring *r);
/* Under the lock, after its holder died half-way (or ring_reset): rebuild
 * every derived field, take every change in again (its bits may be lost)
 * and let the master look at all. */
void ring_repair(struct ring *r);
/* Was the worker in slot asked to exit (retire or shutdown)? */
int ring_slot_retiring(const struct ring *r, unsigned slot);
/* A new worker in slot (pid self) shows in it; a predecessor's lease
 * goes back. 1 when the master should be told. */
int ring_worker_start(struct ring *r, unsigned slot, pid_t self);
/* Lease at most chunk values (at least min_chunk) of the job the policy
 * picks for slot. 0, or -EAGAIN when there is no work; out->tell says
 * whether the master should be told either way. */
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
