/* A randomized crash-safety check of shm/ring under every policy. Worker
 * processes lease and finish chunks, stopping some early; the test plays
 * the master: it SIGKILLs workers at random moments, makes some die holding
 * the lock (so the next locker runs repair()), reaps and replaces them,
 * parks the job and resubmits it with its progress, and submits a better
 * job that preempts it, every round. The workers do not hash: the answer is
 * written into the first bytes of the digest, and a chunk "finds" it when
 * it holds it. Whatever happens, a job whose range holds its answer must
 * end FOUND with that answer (never EXHAUSTED: no value skipped), and
 * nothing may hang. Each loop's random sequence starts from the run's seed
 * (TH_SEED, see tests/check_run.h), which a failure names.
 *
 * Each policy runs twice: with deaths inside the lock, and with every
 * death outside it, which an emulator that cannot recover a dead holder's
 * lock runs too (th_no_robust_locks: there the first kind is skipped). */
#include "shm/ring.h"
#include "shm/ring_master.h"
#include "tests/check_run.h"
#include "tests/helpers.h"

#include <check.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 3
#define ROUNDS 100
#define HANG_S 10

static struct ring *r;
static struct ring_master own; /* the master's record of r */
static pid_t pids[WORKERS];
static uint64_t seed;     /* the test's sequence, as the master plays it */
static uint64_t run_seed; /* the run's, for the failure messages */
static int in_lock;       /* workers may die holding the lock */

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* What the kernel would report for lease l: found (the answer in range,
 * before a random stop point), stopped early, or all hashed. */
static enum search_result pretend_to_hash(const struct ring_lease *l, uint64_t *s,
					  uint64_t *x)
{
	uint64_t span = l->hi - l->lo + 1, answer;
	uint64_t stop_at = l->lo + rnd(s) % (span + span / 2 + 1);

	if (__atomic_load_n(l->stop, __ATOMIC_RELAXED) && (rnd(s) & 1))
		stop_at = l->lo + rnd(s) % span;
	memcpy(&answer, l->digest, sizeof answer);
	if (answer >= l->lo && answer <= l->hi && stop_at > answer) {
		*x = answer;
		return SEARCH_FOUND;
	}
	if (stop_at <= l->hi) {
		*x = stop_at; /* the first value not hashed */
		return SEARCH_STOPPED;
	}
	return SEARCH_NONE;
}

static void worker(unsigned slot, uint64_t s)
{
	ring_worker_start(r, slot, getpid());
	for (;;) {
		struct ring_lease l;
		uint64_t x = 0;
		enum search_result result;

		if (ring_lease(r, slot, 1 + rnd(&s) % 40, 1, &l) < 0) {
			usleep(50); /* a worker's idle pause, as ring_wait's */
			continue;
		}
		result = pretend_to_hash(&l, &s, &x);
		ring_finish(r, slot, result, x);
	}
}

/* A new worker process in slot, as the master forks one. */
static void spawn(unsigned slot)
{
	ring_slot_prepare(r, slot, 0, slot);
	pids[slot] = fork();
	ck_assert_int_ge(pids[slot], 0);
	if (pids[slot] == 0)
		worker(slot, seed + slot * 7919 + 1);
	seed = rnd(&seed);
}

/* The worker of slot is gone (reaped): its lease goes back; replace it. */
static void replace(unsigned slot)
{
	uint64_t hashes, chunks;

	ring_slot_dead(r, slot, EXIT_DIED, &hashes, &chunks);
	spawn(slot);
}

/* Workers die only of SIGKILL here (the test's, or the die-in-lock
 * hook's): any other end, an abort of the ring's checks above all, is a
 * failure, not one more death to replace. */
static void died(pid_t pid, int status)
{
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		      "worker %d ended otherwise: status 0x%x (signal %d)", (int)pid, status,
		      WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static void reap(void)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		died(pid, status);
		for (unsigned i = 0; i < WORKERS; i++)
			if (pids[i] == pid)
				replace(i);
	}
}

/* Stop worker i; 1 when it does not hold the lock (the lock is free: no
 * one's), else it goes on and 0. */
static int stopped_outside_lock(unsigned i)
{
	int status;

	kill(pids[i], SIGSTOP);
	ck_assert_int_eq(waitpid(pids[i], &status, WUNTRACED), pids[i]);
	ck_assert_msg(WIFSTOPPED(status), "worker %d: status 0x%x", (int)pids[i], status);
	if (pthread_mutex_trylock(&r->lock) == 0) {
		pthread_mutex_unlock(&r->lock);
		return 1;
	}
	kill(pids[i], SIGCONT);
	return 0;
}

static void kill_one(void)
{
	unsigned i = (unsigned)(rnd(&seed) % WORKERS);
	int status;

	if (!in_lock && !stopped_outside_lock(i))
		return;
	kill(pids[i], SIGKILL);
	waitpid(pids[i], &status, 0);
	died(pids[i], status);
	replace(i);
}

/* Is job at one of its ends? */
static int ended(uint32_t job)
{
	enum ring_phase p = ring_phase(r, job);

	return p == PHASE_FOUND || p == PHASE_EXHAUSTED || p == PHASE_PARKED ||
	       p == PHASE_CLOSED;
}

/* Wait (bounded) until job reaches an end, replacing workers that died. */
static void wait_ended(uint32_t job)
{
	time_t t0 = time(NULL);

	while (!ended(job)) {
		ck_assert_msg(time(NULL) - t0 < HANG_S, "job %u never ends (%s), "
			      "TH_SEED=%llu", job, ring_phase_name(ring_phase(r, job)),
			      (unsigned long long)run_seed);
		reap();
		ring_wake(r);
		usleep(100);
	}
}

/* Park job and bring it back with its progress; its new entry, or
 * RING_NONE when it was not running or ended while being parked. */
static uint32_t park_and_resubmit(uint32_t job, uint64_t seq)
{
	struct ring_progress p;
	struct ring_key k;

	if (!ring_park(r, job))
		return RING_NONE;
	wait_ended(job);
	if (ring_phase(r, job) != PHASE_PARKED)
		return RING_NONE;
	k = *ring_key(r, job);
	ring_free_entry(&own, job, &p);
	ck_assert_int_eq(ring_submit(&own, &k, &p, 1, seq, RING_HELD_ALONE(&own), &job), 0);
	ring_wake(r);
	return job;
}

/* One round: a job with its answer in range, and a better one beside it;
 * everything that can happen to workers happens; the answer must come. */
static void round_of(int round)
{
	struct ring_key k = { .start = 1000, .end = 3000 }, k2 = { .start = 0, .end = 100 };
	struct ring_progress from = { .next = k.start }, from2 = { .next = k2.start };
	uint64_t answer = 1000 + rnd(&seed) % 2001;
	uint32_t job, better, again;
	time_t t0 = time(NULL);
	int parks = 0;

	memcpy(k.digest, &answer, sizeof answer);
	ck_assert_int_eq(ring_submit(&own, &k, &from, 1, (uint64_t)round * 2,
					  RING_HELD_ALONE(&own), &job), 0);
	ck_assert_int_eq(ring_submit(&own, &k2, &from2, 16, (uint64_t)round * 2 + 1,
					  RING_HELD_ALONE(&own), &better), 0);
	ring_wake(r);
	ring_preempt(r, better);
	if (in_lock && round % 10 == 0) /* some deaths in the lock, however fast jobs end */
		ring_arm_hook(r, HOOK_DIE_IN_LOCK, 1);
	while (!ended(job)) {
		uint64_t v = rnd(&seed) % 100;

		ck_assert_msg(time(NULL) - t0 < HANG_S, "round %d hangs, TH_SEED=%llu",
			      round, (unsigned long long)run_seed);
		if (v < 30)
			kill_one();
		else if (v < 33 && in_lock)
			ring_arm_hook(r, HOOK_DIE_IN_LOCK, 1);
		else if (v < 38 && parks++ < 5 &&
			 (again = park_and_resubmit(job, (uint64_t)round * 2)) != RING_NONE)
			job = again;
		reap();
		/* A sleep: random moments between the blows are the point. */
		usleep((useconds_t)(rnd(&seed) % 300));
	}
	ck_assert_msg(ring_phase(r, job) == PHASE_FOUND && ring_answer(r, job) == answer,
		      "round %d: job %u ended %s without its answer %llu, TH_SEED=%llu",
		      round, job, ring_phase_name(ring_phase(r, job)),
		      (unsigned long long)answer, (unsigned long long)run_seed);
	ring_free_entry(&own, job, NULL);
	ring_release(r, better);
	wait_ended(better);
	ring_free_entry(&own, better, NULL);
}

/* Every policy: each order with each combination of rules, with deaths
 * inside the lock (the first policy_variants() loops), then without. */
START_TEST(no_value_skipped_nothing_hangs)
{
	struct policy p = policy_variant((unsigned)_i % policy_variants());

	in_lock = (unsigned)_i < policy_variants();
	if (in_lock && th_no_robust_locks()) {
		th_skip(__func__, "deaths inside the lock: %s", th_no_robust_locks());
		return;
	}
	run_seed = th_seed();
	seed = run_seed + 0x9e3779b97f4a7c15ull * (uint64_t)(_i + 1);
	seed = (seed ^ seed >> 31) * 0xbf58476d1ce4e5b9ull | 1; /* never 0 */
	r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(r, MAP_FAILED);
	ring_hooks_here(1);
	ck_assert_int_eq(ring_init(r, &p), 0);
	ring_master_init(&own, r);
	for (unsigned i = 0; i < WORKERS; i++)
		spawn(i);
	for (int round = 0; round < ROUNDS; round++)
		round_of(round);
	for (unsigned i = 0; i < WORKERS; i++)
		kill(pids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	ck_assert_msg(in_lock ? r->repairs >= 1 : r->repairs == 0,
		      "%u locks recovered, TH_SEED=%llu", r->repairs, (unsigned long long)run_seed);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ring_stress");
	TCase *t = tcase_create("stress");

	tcase_set_timeout(t, 60);
	tcase_add_loop_test(t, no_value_skipped_nothing_hangs, 0, 2 * (int)policy_variants());
	suite_add_tcase(s, t);
	return check_run(s);
}
