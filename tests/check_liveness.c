/* Liveness against the real master: nothing waits for ever on a worker that
 * stopped (SIGSTOP: a debugger, a frozen cgroup), whether it holds a lease
 * or the ring's lock; the master keeps answering meanwhile. */
#include "tests/check_run.h"
#include "tests/helpers.h"
#include "tests/fixture.h"
#include "lib/digest.h"
#include "shm/ring_master.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A stopped worker of the master, or 0. */
static pid_t stopped_worker(void)
{
	pid_t pids[RING_WORKERS];
	int n = tm_workers(&m, pids, RING_WORKERS);

	for (int i = 0; i < n; i++)
		if (th_proc_state(pids[i]) == 'T')
			return pids[i];
	return 0;
}

/* A worker stopped while it holds a lease of a search that must hash every
 * value (no answer in range): the search can only end once that lease is
 * back. The watchdog kills the worker, the lease is given back, a new
 * worker takes it. */
START_TEST(stopped_worker_holding_a_lease_is_replaced)
{
	const char *const args[] = { "--workers", "2", "--kernel", "openssl", NULL };
	uint8_t d[32];
	uint64_t x = 1, t0, base = th_rand64() >> 1;
	pid_t victim;
	int fd;

	start(NULL, args);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	digest_of(base - 1, d); /* not in the range */
	fd = th_connect(m.port);
	t0 = clock_ms();
	ck_assert_int_eq(th_send_request(fd, d, base, base + 40000000, 1), 0);
	victim = tm_freeze_worker_with_lease(&m, 5000); /* stopped holding it */
	ck_assert_msg(victim > 0, "no worker held a lease to be stopped with");
	ck_assert_int_eq(th_read_reply(fd, &x, 60000), 0);
	ck_assert_uint_eq(x, 0);
	fprintf(stderr, "stopped_worker_holding_a_lease_is_replaced: 40M values "
		"searched in %llu ms with a worker stopped\n",
		(unsigned long long)(clock_ms() - t0));
	close(fd);
	ck_assert_uint_eq(stats_now().stalls, 1);
	ck_assert(tm_log_contains(&m, "made no progress"));
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0); /* replaced */
	kill(victim, SIGCONT); /* already dead: harmless */
	stop();
}
END_TEST

/* A worker stops inside the ring's lock (test hook). The master never
 * takes that lock, so it keeps accepting and answering from the cache at
 * once (in well under a second); the watchdog kills the holder, the lock
 * is recovered, and the searches blocked behind it finish. */
START_TEST(worker_stopped_inside_the_lock_stalls_nothing)
{
	const char *const two[] = { "--workers", "2", NULL };
	uint8_t hot[32], d[32], e[32];
	uint64_t x, t0, hit_ms, base = th_rand64() >> 1;
	struct seg seg;
	pid_t holder;
	int fd, fd2;

	start("REVHASH_TEST_HOOKS=1", two);
	digest_of(base + 500, hot);
	ck_assert_int_eq(th_request(m.port, hot, base, base + 1000, 1, &x), 0);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	ck_assert_int_eq(ring_arm_hook(seg.ring, HOOK_STOP_IN_LOCK, 1), 0);
	/* The next lease stops its worker half-way, holding the lock. */
	digest_of(base + 150000000, d);
	fd = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd, d, base, base + 200000000, 2), 0);
	ck_assert(TH_WAIT_UNTIL((holder = stopped_worker()) > 0, 5000));
	ck_assert_int_eq(ring_lock_holder(seg.ring), holder);
	/* Meanwhile: a new search is accepted and a cache hit answered. */
	digest_of(base + 1000000, e);
	fd2 = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd2, e, base, base + 2000000, 1), 0);
	t0 = clock_ms();
	ck_assert_int_eq(th_request(m.port, hot, base, base + 1000, 1, &x), 0);
	hit_ms = clock_ms() - t0;
	ck_assert_uint_eq(x, base + 500);
	fprintf(stderr, "worker_stopped_inside_the_lock_stalls_nothing: cache hit "
		"answered in %llu ms while a worker is stopped in the lock\n",
		(unsigned long long)hit_ms);
	ck_assert_msg(hit_ms < 1000, "cache hit took %llu ms with a worker stopped "
		      "in the lock", (unsigned long long)hit_ms);
	ck_assert_int_eq(th_read_reply(fd2, &x, 30000), 0);
	ck_assert_uint_eq(x, base + 1000000);
	ck_assert_int_eq(th_read_reply(fd, &x, 30000), 0);
	ck_assert_uint_eq(x, base + 150000000);
	close(fd);
	close(fd2);
	ck_assert_uint_eq(stats_now().stalls, 1);
	ck_assert(tm_log_contains(&m, "inside the ring's lock"));
	ck_assert_uint_ge(seg.ring->repairs, 1);
	seg_close(&seg);
	stop();
}
END_TEST

/* The silence, in ms, the master's log gives for the first stalled
 * worker it killed, or -1. */
static long stalled_after_ms(void)
{
	char line[1024];
	const char *at = tm_log_find(&m, "made no progress for ", line, sizeof line);
	long ms = -1;

	if (at)
		sscanf(at, "made no progress for %ld ms", &ms);
	return ms;
}

/* Stopped while idle: it would take no work. With one worker, that is all
 * the workers: a request must still be answered. Being stopped, it is
 * killed at the idle bound (600 ms), not at the 4 times longer one a
 * worker merely silent gets: the master's own count of the silence says
 * which. */
START_TEST(stopped_idle_worker_is_replaced)
{
	const char *const one[] = { "--workers", "1", NULL };
	pid_t pids[1];
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;
	long silent;

	start(NULL, one);
	ck_assert_int_eq(tm_workers(&m, pids, 1), 1);
	ck_assert_int_eq(kill(pids[0], SIGSTOP), 0);
	digest_of(base + 5000, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 10000, 1, &x), 0);
	ck_assert_uint_eq(x, base + 5000);
	ck_assert_uint_eq(stats_now().stalls, 1);
	silent = stalled_after_ms();
	ck_assert_msg(silent >= 600 && silent < 4 * 600, "killed after %ld ms of silence",
		      silent);
	stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("liveness");
	TCase *t = tcase_create("stalls");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, stopped_worker_holding_a_lease_is_replaced);
	tcase_add_test(t, worker_stopped_inside_the_lock_stalls_nothing);
	tcase_add_test(t, stopped_idle_worker_is_replaced);
	suite_add_tcase(s, t);
	return check_run(s);
}
