/* shm/ring: lease, finish, cancel, ranking, requeue of a dead worker's lease,
 * and a worker killed while it holds the ring's lock. */
#include "shm/ring.h"
#include "tests/check_run.h"
#include "tests/helpers.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static struct ring *r;

static void setup(void)
{
	r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(r, MAP_FAILED);
	ck_assert_int_eq(ring_init(r), 0);
}

static void teardown(void)
{
	ring_free(r);
	munmap(r, sizeof *r);
}

static uint32_t submit(uint64_t start, uint64_t end, uint64_t weight)
{
	uint8_t d[32];
	uint32_t job;

	proto_digest(start ^ end ^ weight, d);
	ck_assert_int_eq(ring_submit(r, d, start, end, weight, &job), 0);
	return job;
}

/* Lease everything from slot in chunks, finishing each; mark covered
 * offsets (range must be small). Returns the number of leases. */
static int drain(unsigned slot, uint64_t chunk, uint64_t start, uint8_t *seen)
{
	struct ring_lease l;
	int n = 0;

	while (ring_lease(r, slot, chunk, &l) == 0) {
		ck_assert_uint_le(l.lo, l.hi);
		ck_assert_uint_le(l.hi - l.lo + 1, chunk);
		for (uint64_t v = l.lo;; v++) {
			seen[v - start]++;
			if (v == l.hi)
				break;
		}
		ring_finish(r, slot, 0, 0);
		n++;
	}
	return n;
}

START_TEST(leases_cover_the_range_once)
{
	uint8_t seen[1000] = { 0 };
	uint64_t x;
	uint32_t job = submit(5000, 5999, 1);

	ck_assert_int_eq(drain(0, 64, 5000, seen), 16);
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_eq(seen[i], 1);
	ck_assert_int_eq(ring_check(r, job, &x), RING_EXHAUSTED);
}
END_TEST

START_TEST(exhausted_only_when_every_lease_is_back)
{
	struct ring_lease a, b;
	uint64_t x;
	uint32_t job = submit(0, 99, 1);

	ck_assert_int_eq(ring_lease(r, 0, 50, &a), 0);
	ck_assert_int_eq(ring_lease(r, 1, 50, &b), 0);
	ck_assert_int_eq(ring_lease(r, 2, 50, &b), -EAGAIN);
	ck_assert_int_eq(ring_finish(r, 0, 0, 0), 0); /* slot 1 still hashing */
	ck_assert_int_eq(ring_check(r, job, &x), RING_RUNNING);
	ck_assert_int_eq(ring_finish(r, 1, 0, 0), 1); /* last one: tell */
	ck_assert_int_eq(ring_check(r, job, &x), RING_EXHAUSTED);
}
END_TEST

START_TEST(found_answer_is_reported_and_kept)
{
	struct ring_lease l;
	uint64_t x = 0;
	uint32_t job = submit(100, 1000000, 3);

	ck_assert_int_eq(ring_lease(r, 0, 1000, &l), 0);
	ck_assert_int_eq(ring_lease(r, 1, 1000, &l), 0);
	ck_assert_int_eq(ring_finish(r, 1, 1, 1500), 1);
	ck_assert_int_eq(ring_check(r, job, &x), RING_FOUND);
	ck_assert_uint_eq(x, 1500);
	/* A second "find" cannot overwrite the first, and nobody leases more. */
	ring_finish(r, 0, 1, 777);
	ck_assert_int_eq(ring_check(r, job, &x), RING_FOUND);
	ck_assert_uint_eq(x, 1500);
	ck_assert_int_eq(ring_lease(r, 0, 1000, &l), -EAGAIN);
}
END_TEST

START_TEST(range_ending_at_the_top_terminates)
{
	struct ring_lease l;
	uint64_t x;
	uint32_t job = submit(UINT64_MAX - 9, UINT64_MAX, 1);
	int n = 0;

	while (ring_lease(r, 0, 4, &l) == 0) {
		ring_finish(r, 0, 0, 0);
		ck_assert_int_lt(++n, 10);
	}
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(l.hi, UINT64_MAX);
	ck_assert_int_eq(ring_check(r, job, &x), RING_EXHAUSTED);
}
END_TEST

START_TEST(whole_64bit_range_is_leasable)
{
	struct ring_lease l;

	submit(0, UINT64_MAX, 1);
	ck_assert_int_eq(ring_lease(r, 0, 1000, &l), 0);
	ck_assert_uint_eq(l.lo, 0);
	ck_assert_uint_eq(l.hi, 999);
}
END_TEST

START_TEST(ranking_is_weight_over_remaining)
{
	struct ring_lease l;
	uint32_t low = submit(0, 999, 1);
	uint32_t high = submit(10000, 10999, 4);
	uint32_t small = submit(50000, 50099, 1);

	/* small: 1/100 beats high: 4/1000 beats low: 1/1000. */
	ck_assert_int_eq(ring_lease(r, 0, 10, &l), 0);
	ck_assert_uint_eq(l.job, small);
	ring_finish(r, 0, 0, 0);
	ring_set_weight(r, small, 0); /* weight 0 counts as 1 */
	ring_set_weight(r, low, 16);  /* 16/1000 now beats 1/90 */
	ck_assert_int_eq(ring_lease(r, 0, 10, &l), 0);
	ck_assert_uint_eq(l.job, low);
	ring_finish(r, 0, 0, 0);
	ring_set_weight(r, low, 1);
	ring_set_weight(r, small, 1);
	ring_set_weight(r, high, 1);
	/* Equal weights: the one closest to done (small, 90 left). */
	ck_assert_int_eq(ring_lease(r, 0, 10, &l), 0);
	ck_assert_uint_eq(l.job, small);
	ring_finish(r, 0, 0, 0);
	(void)high;
}
END_TEST

START_TEST(new_urgent_job_takes_over_at_the_next_lease)
{
	struct ring_lease l;
	uint32_t first = submit(0, 999, 1), urgent;

	ck_assert_int_eq(ring_lease(r, 0, 10, &l), 0); /* caches the best */
	ck_assert_uint_eq(l.job, first);
	ring_finish(r, 0, 0, 0);
	urgent = submit(5000, 5999, 16);
	ck_assert_int_eq(ring_lease(r, 0, 10, &l), 0);
	ck_assert_uint_eq(l.job, urgent);
	ring_finish(r, 0, 0, 0);
	/* Once found, the urgent job is never leased again. */
	ck_assert_int_eq(ring_lease(r, 1, 10, &l), 0);
	ring_finish(r, 1, 1, 5015);
	ck_assert_int_eq(ring_lease(r, 0, 10, &l), 0);
	ck_assert_uint_eq(l.job, first);
}
END_TEST

START_TEST(new_job_is_ranked_against_all_when_the_best_ran_out)
{
	struct ring_lease l;
	uint32_t a = submit(0, 9, 100), c = submit(100, 199, 10);

	ck_assert_int_eq(ring_lease(r, 0, 10, &l), 0); /* all of a: best */
	ck_assert_uint_eq(l.job, a);
	submit(1000, 1999999, 1);                      /* ranks below c */
	ck_assert_int_eq(ring_lease(r, 1, 10, &l), 0);
	ck_assert_uint_eq(l.job, c);
}
END_TEST

START_TEST(workers_flag_the_jobs_the_master_must_see)
{
	struct ring_lease l;
	uint32_t jobs[RING_JOBS];
	uint32_t a = submit(0, 99, 1), b = submit(1000, 1099, 1);

	ck_assert_uint_eq(ring_changed(r, jobs), 0);
	ck_assert_int_eq(ring_lease(r, 0, 10, &l), 0);
	ck_assert_uint_eq(ring_finish(r, 0, 0, 0), 0); /* nothing to tell */
	ck_assert_uint_eq(ring_changed(r, jobs), 0);
	ck_assert_int_eq(ring_lease(r, 0, 10, &l), 0);
	ck_assert_uint_eq(l.job, a);
	ck_assert_uint_eq(ring_finish(r, 0, 1, 15), 1);  /* found */
	ck_assert_int_eq(ring_lease(r, 0, 100, &l), 0);
	ck_assert_uint_eq(l.job, b);
	ck_assert_uint_eq(ring_finish(r, 0, 0, 0), 1);   /* exhausted */
	ck_assert_uint_eq(ring_changed(r, jobs), 2);
	ck_assert_uint_eq(jobs[0] == a ? jobs[1] : jobs[0], b);
	ck_assert_uint_eq(ring_changed(r, jobs), 0); /* taken once */
}
END_TEST

START_TEST(ties_go_to_the_older_job)
{
	struct ring_lease l;
	uint32_t first = submit(0, 999, 2);

	submit(5000, 5999, 2);
	ck_assert_int_eq(ring_lease(r, 0, 10, &l), 0);
	ck_assert_uint_eq(l.job, first);
}
END_TEST

START_TEST(release_waits_for_leases_to_drain)
{
	struct ring_lease l;
	uint32_t job = submit(0, 999, 1);

	ck_assert_int_eq(ring_lease(r, 0, 10, &l), 0);
	ck_assert_int_eq(ring_release(r, job), 0);     /* slot 0 still hashing */
	ck_assert_int_eq(ring_lease(r, 1, 10, &l), -EAGAIN); /* cancelled */
	ck_assert_int_eq(ring_finish(r, 0, 0, 0), 1);  /* master must hear */
	ck_assert_int_eq(ring_release(r, job), 1);
	ck_assert_uint_eq(r->nactive, 0);
	ck_assert_uint_eq(r->nfree, RING_JOBS);
}
END_TEST

START_TEST(late_answer_of_a_cancelled_job_is_kept)
{
	struct ring_lease l;
	uint64_t x;
	uint32_t job = submit(0, 999, 1);

	ck_assert_int_eq(ring_lease(r, 0, 100, &l), 0);
	ck_assert_int_eq(ring_release(r, job), 0);
	ck_assert_int_eq(ring_finish(r, 0, 1, 42), 1);
	ck_assert_int_eq(ring_check(r, job, &x), RING_FOUND);
	ck_assert_uint_eq(x, 42);
	ck_assert_int_eq(ring_release(r, job), 1);
}
END_TEST

START_TEST(dead_workers_lease_is_leased_again_first)
{
	struct ring_lease l, again;
	uint8_t seen[1000] = { 0 };

	submit(0, 999, 1);
	ck_assert_int_eq(ring_lease(r, 3, 100, &l), 0);  /* 0..99, then dies */
	ck_assert_int_eq(ring_lease(r, 4, 100, &again), 0);
	ring_finish(r, 4, 0, 0);
	ring_reclaim(r, 3);
	ck_assert_int_eq(r->slots[3].has_lease, 0);
	ck_assert_int_eq(ring_lease(r, 4, 30, &again), 0);
	ck_assert_uint_eq(again.lo, l.lo);               /* requeued range first */
	ck_assert_uint_eq(again.hi, l.lo + 29);
	ring_finish(r, 4, 0, 0);
	seen[0] = 0;
	drain(4, 100, 0, seen);
	/* Everything except the two chunks finished above is leased once. */
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_eq(seen[i], (i < 30 || (i >= 100 && i < 200)) ? 0 : 1);
}
END_TEST

START_TEST(many_deaths_rewind_instead_of_losing)
{
	struct ring_lease l;
	uint8_t seen[4000] = { 0 };

	submit(0, 3999, 1);
	/* More dead leases than the returned list holds. */
	for (unsigned i = 0; i < RING_RETURNED + 8; i++) {
		ck_assert_int_eq(ring_lease(r, i, 100, &l), 0);
		ring_reclaim(r, i);
	}
	drain(40, 100, 0, seen);
	for (int i = 0; i < 4000; i++)
		ck_assert_uint_ge(seen[i], 1); /* nothing skipped */
}
END_TEST

START_TEST(worker_killed_inside_the_lock)
{
	struct ring_lease l;
	uint8_t seen[1000] = { 0 };
	int status;
	pid_t pid;

	submit(0, 999, 1);
	r->hooks = 1;
	r->die_in_lock = 1;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		ring_lease(r, 7, 100, &l); /* dies half-way, holding the lock */
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_int_eq(r->lock_owner, pid); /* the lock knows its owner */
	ck_assert_int_eq(r->slots[7].has_lease, 1);
	/* The master reaps it: the lock is recovered, the range given back. */
	ring_reclaim(r, 7);
	ck_assert_uint_eq(r->repairs, 1);
	drain(0, 100, 0, seen);
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_ge(seen[i], 1);
}
END_TEST

START_TEST(lock_of_a_killed_holder_does_not_hang_others)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		ring_lock(r);
		pause();
		_exit(0);
	}
	while (__atomic_load_n(&r->lock_owner, __ATOMIC_ACQUIRE) != pid)
		usleep(1000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ring_lock(r); /* would hang forever without recovery: the timeout fails */
	ring_unlock(r);
	ck_assert_uint_eq(r->repairs, 1);
}
END_TEST

START_TEST(full_table_says_so)
{
	uint8_t d[32] = { 0 };
	uint32_t job;

	for (int i = 0; i < RING_JOBS; i++)
		ck_assert_int_eq(ring_submit(r, d, 0, 10, 1, &job), 0);
	ck_assert_int_eq(ring_submit(r, d, 0, 10, 1, &job), -ENOSPC);
	ck_assert_int_eq(ring_release(r, 5), 1);
	ck_assert_int_eq(ring_submit(r, d, 0, 10, 1, &job), 0);
	ck_assert_uint_eq(job, 5);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ring");
	TCase *t = tcase_create("ring");

	tcase_set_timeout(t, 20);
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, leases_cover_the_range_once);
	tcase_add_test(t, exhausted_only_when_every_lease_is_back);
	tcase_add_test(t, found_answer_is_reported_and_kept);
	tcase_add_test(t, range_ending_at_the_top_terminates);
	tcase_add_test(t, whole_64bit_range_is_leasable);
	tcase_add_test(t, ranking_is_weight_over_remaining);
	tcase_add_test(t, ties_go_to_the_older_job);
	tcase_add_test(t, new_urgent_job_takes_over_at_the_next_lease);
	tcase_add_test(t, new_job_is_ranked_against_all_when_the_best_ran_out);
	tcase_add_test(t, workers_flag_the_jobs_the_master_must_see);
	tcase_add_test(t, release_waits_for_leases_to_drain);
	tcase_add_test(t, late_answer_of_a_cancelled_job_is_kept);
	tcase_add_test(t, dead_workers_lease_is_leased_again_first);
	tcase_add_test(t, many_deaths_rewind_instead_of_losing);
	tcase_add_test(t, worker_killed_inside_the_lock);
	tcase_add_test(t, lock_of_a_killed_holder_does_not_hang_others);
	tcase_add_test(t, full_table_says_so);
	suite_add_tcase(s, t);
	return check_run(s);
}
