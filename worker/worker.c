/* The worker process, of any kind: it leases pieces sized from its own
 * measured rate so that one takes the lease length its kind gives it
 * (worker/kind.c), down to the least worth a lease for a shared job. */
#include "worker/worker.h"
#include "lib/clock.h"
#include "lib/digest.h"
#include "lib/log.h"
#include "lib/signals.h"
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
 * time, each summed over its leases with each older lease weighing half.
 * A lease cut short (a launch's fixed cost the most of its time) then
 * moves the rate only as much as it weighs. */
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
	struct ring *r = w->seg->ring;
	uint64_t chunk = 16384ull * w->kernel->lanes, last_work = clock_ns();
	/* A rate measured before serving counts as one lease's worth. */
	struct rate_sum sum = { .values = (uint64_t)((unsigned __int128)w->rate *
						     w->lease_ns / 1000000000u),
				.ns = w->rate ? w->lease_ns : 0 };

	if (ring_hook_fire(r, HOOK_DIE_AT_START))
		raise(SIGKILL); /* test hook: a worker that cannot start */
	break_out(w);
	if (ring_worker_start(r, w->slot, getpid()))
		notify(w->notify_fd);
	/* A GPU's rate known from the start lets the CPUs leave it the small
	 * jobs at once. */
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
		/* A search that lies (a device fault, a bug of another build):
		 * no lie goes into the ring. Exiting gives the lease back whole
		 * from the slot, and the master starts another. */
		if (rc == SEARCH_FOUND && !digest_answers(x, l.digest, l.lo, l.hi)) {
			log_error("worker %u: its search said %llu answers %llu..%llu, which it "
				  "does not: exiting, its lease given back", w->slot,
				  (unsigned long long)x, (unsigned long long)l.lo,
				  (unsigned long long)l.hi);
			return 3;
		}
		if (ring_finish(r, w->slot, (enum search_result)rc, x))
			notify(w->notify_fd);
		last_work = clock_ns();
	}
	ring_slot_set_state(r, w->slot, SLOT_RETIRING);
	return 0;
}

/* Pin this process to the n-th CPU of its mask, n modulo their count. */
static int pin(unsigned n)
{
	cpu_set_t allowed, one;
	unsigned seen = 0, want;

	if (sched_getaffinity(0, sizeof allowed, &allowed) < 0)
		return -errno;
	want = n % (unsigned)CPU_COUNT(&allowed);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || seen++ != want)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		return sched_setaffinity(0, sizeof one, &one) < 0 ? -errno : 0;
	}
	return -EINVAL;
}

int worker_setup(const struct worker_start *w)
{
	struct sched_param none = { 0 };
	int rc;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != w->master)
		return -ESRCH; /* the master died before we could ask to follow it */
	sig_worker_ignore(); /* the master's table: lib/signals.c */
	/* glibc's closefrom reads /proc/self/fd where the kernel has no
	 * close_range (before 5.9), never every number up to a limit that
	 * may be a million; with neither it aborts, and a worker never runs
	 * holding the master's descriptors. Below the eventfd, no more
	 * numbers than the master had open. */
	if (w->notify_fd > 3 && close_range(3, (unsigned)w->notify_fd - 1, 0) < 0)
		for (int fd = 3; fd < w->notify_fd; fd++)
			close(fd);
	closefrom(w->notify_fd < 3 ? 3 : w->notify_fd + 1);
	/* A batch task's wake-up does not preempt the master halfway through
	 * waking the others (docs/performance.md). */
	if (!w->wall_clock && sched_setscheduler(0, SCHED_BATCH, &none) < 0)
		log_warn("sched_setscheduler(worker %u): %s", w->slot, strerror(errno));
	/* On the unit-th CPU of the master's, round robin: left alone, the
	 * scheduler often wakes two workers on one CPU for milliseconds. */
	if (w->pin && (rc = pin(w->unit)) < 0)
		log_warn("sched_setaffinity(worker %u): %s", w->unit, strerror(-rc));
	return 0;
}

int worker_main(const struct worker_start *w)
{
	if (worker_setup(w) < 0)
		return 0;
	if (sandbox_enter(SANDBOX_CPU, w->notify_fd) < 0)
		return 1;
	return worker_serve(w);
}
