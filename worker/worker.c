/* The worker process, of any kind. Its start-up makes it a quiet child of
 * the master (see worker_setup); its loop leases pieces sized from its own
 * measured rate so that one takes the lease length it is given (its
 * kind's: 2 ms of a CPU), and a job that several workers share goes out in
 * smaller pieces (ring_lease), down to the least worth a lease. It knows
 * no kind: the kind above it (worker/kind.c) fills in its lease lengths
 * and its clock. */
#include "worker/worker.h"
#include "lib/clock.h"
#include "lib/digest.h"
#include "lib/log.h"
#include "lib/os.h"
#include "lib/signals.h"
#include "shm/ring_hook.h"
#include "shm/ring_worker.h"
#include "worker/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define CHUNK_MIN 256ull
#define CHUNK_MAX (1ull << 36)  /* about 4 s of a GPU at 16 G hashes/s */
#define IDLE_WAIT_MS 100        /* re-check the master, retire flag; a sign of life */
#define IDLE_POLL_NS 100000000ull /* a polling worker's checks as often */

static void notify(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof one) < 0) {
		/* Counter full (cannot happen) or master gone: nothing to do. */
	}
}

static uint64_t clamp_chunk(uint64_t chunk)
{
	return chunk < CHUNK_MIN ? CHUNK_MIN : chunk > CHUNK_MAX ? CHUNK_MAX : chunk;
}

/* Next chunk size from the last one (hashed values in ns > 0, a chunk's
 * worth at least): aim at aim_ns, move half-way. */
static uint64_t next_chunk(uint64_t chunk, uint64_t hashed, uint64_t ns,
			   uint64_t aim_ns)
{
	return clamp_chunk((chunk + (uint64_t)((unsigned __int128)hashed * aim_ns / ns)) / 2);
}

/* The smallest piece worth a lease at this worker's rate. */
static uint64_t min_chunk(const struct worker_start *w, uint64_t rate, uint64_t chunk)
{
	return rate ? clamp_chunk((uint64_t)((unsigned __int128)rate * w->min_lease_ns /
					     1000000000u))
		    : chunk / 20;
}

/* Told to retire, or the master is gone. PR_SET_PDEATHSIG kills a worker
 * whose master dies; the parent is looked at too (a system call), when
 * idle, for a master that died before the worker could ask for that. */
static int should_exit(const struct worker_start *w, int idle)
{
	return ring_slot_retiring(w->seg->ring, w->slot) ||
	       (idle && getppid() != w->master);
}

/* A worker's rate, told to the ring after each lease: its values over its
 * time, both summed over its leases with each older lease weighing half
 * as much as the one after it. Counting time with the values, a lease cut
 * short (its answer a few values in, its launch's fixed cost the most of
 * its time) moves the rate as little as it weighs, where a rate of that
 * lease alone told the ring that a GPU hashed at a twentieth of its rate,
 * and the CPU workers took its share of the next jobs. (On an H200 the
 * two scored the same within noise: 1,628-1,672 against 1,598-1,663
 * over three rounds.) */
struct rate_sum {
	uint64_t values, ns;
};

/* The rate with a lease of hashed values in ns added; 0 while unknown. */
static uint64_t rate_add(struct rate_sum *s, uint64_t hashed, uint64_t ns)
{
	s->values = s->values / 2 + hashed;
	s->ns = s->ns / 2 + ns;
	return s->ns ? (uint64_t)((unsigned __int128)s->values * 1000000000u / s->ns) : 0;
}

/* Hash one lease, until the slot's stop word is set (its job's answer
 * found elsewhere, the job cancelled, or a better job came); account for
 * it in the slot: values, and CPU time, so that the rate it gives leaves
 * out whatever else ran on this CPU meanwhile. Returns the kernel's
 * result, and in *x the answer or the first value not hashed (the ring
 * gives the rest back to the job). */
static enum search_result hash_lease(const struct worker_start *w,
				     const struct ring_lease *l, struct rate_sum *sum,
				     uint64_t *chunk, uint64_t *x)
{
	clockid_t busy = w->wall_clock ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;
	uint64_t busy0 = clock_ns_of(busy), t0 = clock_ns();
	enum search_result rc = w->kernel->search(l->digest, l->lo, l->hi, x, l->stop);
	uint64_t ns = clock_ns() - t0, rate = 0;
	uint64_t hashed = rc == SEARCH_FOUND ? *x - l->lo + 1 :
			  rc == SEARCH_NONE ? l->hi - l->lo + 1 : *x - l->lo;

	if (ns && hashed >= CHUNK_MIN) {
		rate = rate_add(sum, hashed, ns);
		*chunk = next_chunk(*chunk, hashed, ns, w->lease_ns);
	}
	ring_slot_account(w->seg->ring, w->slot, hashed, clock_ns_of(busy) - busy0, rate);
	return rc;
}

/* Wait for work: awake, polling, while the worker's idle_spin_ns since its
 * last lease (last_work) lasts; then asleep, IDLE_WAIT_MS at most. */
static void idle_wait(const struct worker_start *w, uint64_t last_work)
{
	uint64_t now = clock_ns(), until = last_work + w->idle_spin_ns;
	struct ring *r = w->seg->ring;

	if (until > now && ring_poll(r, w->slot, until - now < IDLE_POLL_NS ?
				     until - now : IDLE_POLL_NS))
		return;
	if (until <= now)
		ring_wait(r, w->slot, IDLE_WAIT_MS);
}

/* The search said x answers lease l, and it does not (one SHA-256 says
 * so: a device fault, a bug of another build): no lie goes into the ring.
 * The worker exits unfinished, so its lease is given back whole from its
 * slot, and the master starts another (a quick death backs off). */
static int broken_search(const struct worker_start *w, const struct ring_lease *l,
			 uint64_t x)
{
	log_error("worker %u: its search said %llu answers %llu..%llu, which it does "
		  "not: exiting, its lease given back", w->slot, (unsigned long long)x,
		  (unsigned long long)l->lo, (unsigned long long)l->hi);
	return 3;
}

/* Lease, hash, report, until told to stop. */
static int run(const struct worker_start *w)
{
	struct ring *r = w->seg->ring;
	uint64_t chunk = 16384ull * w->kernel->lanes, last_work = clock_ns();
	/* A rate measured before serving counts as one lease's worth. */
	struct rate_sum sum = { .values = (uint64_t)((unsigned __int128)w->rate *
						     w->lease_ns / 1000000000u),
				.ns = w->rate ? w->lease_ns : 0 };

	if (ring_worker_start(r, w->slot, getpid()))
		notify(w->notify_fd);
	/* Known from the start, a GPU's rate lets the CPUs leave it the small
	 * jobs at once, not only after its first lease (which they would
	 * then have taken). */
	if (w->rate)
		ring_slot_account(r, w->slot, 0, 0, w->rate);
	for (int idle = 1; !should_exit(w, idle);) {
		struct ring_lease l;
		uint64_t x = 0;
		int rc = ring_lease(r, w->slot, chunk,
				    min_chunk(w, ring_slot_rate(r, w->slot), chunk), &l);

		if (l.tell)
			notify(w->notify_fd);
		idle = rc < 0;
		if (idle) {
			ring_slot_set_state(r, w->slot, SLOT_IDLE);
			idle_wait(w, last_work);
			continue;
		}
		ring_slot_set_state(r, w->slot, SLOT_HASHING);
		rc = hash_lease(w, &l, &sum, &chunk, &x);
		if (rc == SEARCH_FOUND && !digest_answers(x, l.digest, l.lo, l.hi))
			return broken_search(w, &l, x);
		if (ring_finish(r, w->slot, (enum search_result)rc, x))
			notify(w->notify_fd);
		last_work = clock_ns();
	}
	ring_slot_set_state(r, w->slot, SLOT_RETIRING);
	return 0;
}

/* A CPU worker is a batch task: its wake-up does not preempt the task on its
 * CPU. Without it the worker pinned to the master's CPU, woken by the
 * first of the master's posts for a new job, took the CPU from the master
 * before its second post, and the other worker slept on until the first
 * was done: a split job hashed by one worker, in about one in six small
 * jobs here. Batch tasks keep their share of the CPU (same weight); they
 * only wait for the running task to block, which the master does within
 * microseconds. The idle class (SCHED_IDLE) would also let a woken master
 * or client take a hashing worker's CPU at once instead of at its next
 * tick, but beside other busy processes it starves the workers (three 30M
 * requests took 23-41 s, and the watchdog killed them as stalled). */
static void as_batch(unsigned slot)
{
	struct sched_param none = { 0 };

	if (sched_setscheduler(0, SCHED_BATCH, &none) < 0)
		log_warn("sched_setscheduler(worker %u): %s", slot, strerror(errno));
}

/* CPU worker i runs on the i-th CPU of those the master may use (round
 * robin).
 * Left to itself the scheduler often wakes two workers on the same CPU and
 * moves one away only milliseconds later, which on short jobs costs up to
 * half the hash rate (a 2M-value job: 16.9-26 ms unpinned, 16.6-18.8
 * pinned, ideal 16.3). */
static void pin(unsigned unit)
{
	int rc = os_pin(0, unit);

	if (rc < 0)
		log_warn("sched_setaffinity(worker %u): %s", unit, strerror(-rc));
}

int worker_setup(const struct worker_start *w)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != w->master)
		return -ESRCH; /* the master died before we could ask to follow it */
	sig_worker_ignore(); /* the master's table: lib/signals.c */
	os_close_inherited(w->notify_fd);
	if (w->batch)
		as_batch(w->slot);
	if (w->pin)
		pin(w->unit);
	return 0;
}

/* Test hooks: a worker that tries to stop its master, or to reopen the
 * segment and cut it to nothing (which the master would die of at its
 * next read). Its sandbox refuses both: the tests see that the master
 * serves on. Each says what it got. */
static void break_out(const struct worker_start *w)
{
	struct ring *r = w->seg->ring;
	int fd;

	if (ring_hook_fire(r, HOOK_SIGNAL_MASTER))
		log_warn("worker %u (test hook): kill(master, SIGTERM): %s", w->slot,
			 kill(getppid(), SIGTERM) == 0 ? "sent" : strerror(errno));
	if (ring_hook_fire(r, HOOK_TRUNCATE_SEGMENT)) {
		fd = shm_open(w->seg->name, O_RDWR, 0);
		log_warn("worker %u (test hook): open and truncate %s: %s", w->slot, w->seg->name,
			 fd >= 0 && ftruncate(fd, 0) == 0 ? "done" : strerror(errno));
	}
}

int worker_serve(const struct worker_start *w)
{
	if (ring_hook_fire(w->seg->ring, HOOK_DIE_AT_START))
		raise(SIGKILL); /* test hook: a worker that cannot start */
	break_out(w);
	return run(w);
}

/* A CPU worker is confined once set up (sandbox.h); one that cannot be
 * does not serve (exit 1: the master backs off and says so). */
int worker_main(const struct worker_start *w)
{
	if (worker_setup(w) < 0)
		return 0;
	if (sandbox_enter(SANDBOX_CPU, w->notify_fd) < 0)
		return 1;
	return worker_serve(w);
}
