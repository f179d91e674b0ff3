/* Tests for the bench's workload generator and its ideal-server simulation.
 * The generator is checked against the client's rules (ranges, digests,
 * repeats, the priority distribution) and, for the first request, against
 * the rand() sequence replayed by hand. The simulation is checked on cases
 * small enough to work out exactly on paper, and so are the statistics the
 * bench reports with it (bench/stats.c), and the writer that prints them
 * as text and JSON from one call (bench/out.c). */
#include "bench/out.h"
#include "bench/simulate.h"
#include "bench/stats.h"
#include "bench/workload.h"
#include "tests/helpers.h"
#include "proto/proto.h"
#include "tests/check_run.h"
#include "lib/digest.h"

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATE 1e6 /* values per second in the simulation tests: 1 per µs */

static struct wl_params params(uint64_t seed, uint64_t total, unsigned rep,
			       double lambda)
{
	return (struct wl_params){ .seed = seed, .total = total, .start = 0,
				   .difficulty = 1000000, .rep = rep,
				   .delay_us = 1000, .lambda = lambda };
}

/* Generate into a fresh array the caller frees; fails the test on error. */
static struct wl_request *generate(const struct wl_params *p)
{
	struct wl_request *q = calloc(p->total, sizeof *q);

	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(wl_generate(p, q), 0);
	return q;
}

static int same_job(const struct wl_request *a, const struct wl_request *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->answer == b->answer &&
	       memcmp(a->digest, b->digest, sizeof a->digest) == 0;
}

START_TEST(same_seed_same_requests)
{
	struct wl_params p = params(42, 2000, 20, 1.5);
	struct wl_request *a = generate(&p), *b = generate(&p);

	ck_assert_mem_eq(a, b, p.total * sizeof *a);
	free(a);
	free(b);
}
END_TEST

START_TEST(different_seeds_differ)
{
	struct wl_params p = params(1, 100, 20, 1.5);
	struct wl_params r = params(2, 100, 20, 1.5);
	struct wl_request *a = generate(&p), *b = generate(&r);

	ck_assert(a[0].start != b[0].start);
	ck_assert(memcmp(a[0].digest, b[0].digest, 32) != 0);
	free(a);
	free(b);
}
END_TEST

/* The client copies when r <= REP, so REP 0 still copies when r == 0: one
 * request in a hundred, i.e. 100 of 10000 give or take a few sigma (10). */
START_TEST(rep0_copies_only_when_r_is_zero)
{
	struct wl_params p = params(3, 10000, 0, 1.5);
	struct wl_request *q = generate(&p);
	unsigned copies = 0;

	for (uint64_t i = 0; i < p.total; i++) {
		if (q[i].copy_of < 0)
			continue;
		copies++;
		ck_assert_int_lt(q[i].copy_of, (int64_t)i);
		ck_assert(same_job(&q[i], &q[q[i].copy_of]));
	}
	ck_assert_uint_ge(copies, 50);
	ck_assert_uint_le(copies, 150);
	free(q);
}
END_TEST

START_TEST(rep100_everything_after_first_is_copy)
{
	struct wl_params p = params(4, 1000, 100, 1.5);
	struct wl_request *q = generate(&p);

	ck_assert_int_eq(q[0].copy_of, -1);
	for (uint64_t i = 1; i < p.total; i++) {
		ck_assert_int_ge(q[i].copy_of, 0);
		ck_assert_int_lt(q[i].copy_of, (int64_t)i);
		ck_assert(same_job(&q[i], &q[q[i].copy_of]));
		ck_assert(same_job(&q[i], &q[0]));
	}
	free(q);
}
END_TEST

START_TEST(answers_in_range_and_digests_match)
{
	struct wl_params p = params(5, 3000, 30, 1.5);
	struct wl_request *q = generate(&p);
	uint8_t d[32];

	for (uint64_t i = 0; i < p.total; i++) {
		ck_assert_uint_le(q[i].start, q[i].answer);
		ck_assert_uint_le(q[i].answer, q[i].end);
		ck_assert_uint_eq(q[i].end, q[i].start + p.difficulty);
		ck_assert_uint_lt(q[i].start, UINT64_MAX - 1 - p.difficulty);
		digest_of(q[i].answer, d);
		ck_assert_mem_eq(d, q[i].digest, 32);
	}
	free(q);
}
END_TEST

START_TEST(fixed_start)
{
	struct wl_params p = params(6, 500, 20, 1.5);
	struct wl_request *q;

	p.start = 123456789;
	q = generate(&p);
	for (uint64_t i = 0; i < p.total; i++) {
		ck_assert_uint_eq(q[i].start, p.start);
		ck_assert_uint_eq(q[i].end, p.start + p.difficulty);
	}
	free(q);
}
END_TEST

START_TEST(priorities)
{
	struct wl_params p = params(7, 10000, 20, 1.5), flat = p, steep = p;
	struct wl_request *q = generate(&p), *f, *s;
	double sum = 0;
	int saw_cap = 0;

	flat.lambda = 0;
	steep.lambda = 0.01;
	f = generate(&flat);
	s = generate(&steep);
	for (uint64_t i = 0; i < p.total; i++) {
		ck_assert_uint_ge(q[i].priority, 1);
		ck_assert_uint_le(q[i].priority, 16);
		ck_assert_uint_eq(f[i].priority, 1);
		ck_assert_uint_le(s[i].priority, 16);
		saw_cap |= s[i].priority == 16;
		sum += q[i].priority;
	}
	/* 1 + E[floor(Exp(1.5))] = 1 + 1 / (e^1.5 - 1); sigma of the mean
	 * over 10000 draws is about 0.006. */
	ck_assert_double_eq_tol(sum / p.total, 1 + 1 / (exp(1.5) - 1), 0.03);
	ck_assert(saw_cap);
	free(q);
	free(f);
	free(s);
}
END_TEST

static uint8_t hand_priority(double lambda)
{
	int p = 1 + (int)(-log(1 - rand() / 2147483648.0) / lambda);

	return (uint8_t)(p > 16 ? 16 : p);
}

/* Replay the client's first request from its description: two draws for
 * the start (high half first), r (no copy is possible for i = 0), one draw
 * for the answer, one for the priority. */
START_TEST(first_request_by_hand)
{
	struct wl_params p = params(2024, 1, 50, 1.5);
	struct wl_request *q = generate(&p);
	uint64_t hi, lo, start, answer;
	uint8_t d[32];

	srand(2024);
	hi = (uint64_t)rand();
	lo = (uint64_t)rand();
	start = ((hi << 32) | lo) % (UINT64_MAX - 1 - p.difficulty);
	(void)rand();
	answer = start + (uint64_t)rand() % p.difficulty;
	digest_of(answer, d);
	ck_assert_uint_eq(q[0].start, start);
	ck_assert_uint_eq(q[0].end, start + p.difficulty);
	ck_assert_uint_eq(q[0].answer, answer);
	ck_assert_mem_eq(q[0].digest, d, 32);
	ck_assert_uint_eq(q[0].priority, hand_priority(1.5));
	ck_assert_int_eq(q[0].copy_of, -1);
	free(q);
}
END_TEST

/* With START fixed the two start draws are not made. */
START_TEST(first_request_by_hand_fixed_start)
{
	struct wl_params p = params(99, 1, 50, 0.5);
	struct wl_request *q;
	uint64_t answer;

	p.start = 1000;
	q = generate(&p);
	srand(99);
	(void)rand();
	answer = p.start + (uint64_t)rand() % p.difficulty;
	ck_assert_uint_eq(q[0].answer, answer);
	ck_assert_uint_eq(q[0].priority, hand_priority(0.5));
	free(q);
}
END_TEST

START_TEST(bad_params)
{
	struct wl_params p = params(1, 1, 0, 1);
	struct wl_request q;

	p.difficulty = 0;
	ck_assert_int_eq(wl_generate(&p, &q), -EINVAL);
	p = params(1, 1, 101, 1);
	ck_assert_int_eq(wl_generate(&p, &q), -EINVAL);
	p = params(1, 1, 0, -1);
	ck_assert_int_eq(wl_generate(&p, &q), -EINVAL);
	p = params(1, 1, 0, 1);
	p.start = UINT64_MAX - 10;
	ck_assert_int_eq(wl_generate(&p, &q), -EINVAL);
}
END_TEST

/* A request for [start, end] whose answer is answer; tag tells jobs apart. */
static struct wl_request req(uint8_t tag, uint64_t start, uint64_t end,
			     uint64_t answer, uint8_t priority)
{
	struct wl_request q = { .start = start, .end = end, .answer = answer,
				.priority = priority, .copy_of = -1 };

	q.digest[0] = tag;
	return q;
}

static struct sim_policy policy(uint32_t order, uint32_t preempt,
			       uint32_t split, unsigned workers)
{
	return (struct sim_policy){ th_policy(order, (int)preempt, (int)split), workers, 0,
				    NULL };
}

static void simulate_with(const struct sim_policy *pol,
			  const struct wl_request *q, const double *t,
			  size_t n, double *lat, double *score)
{
	ck_assert_int_eq(sim_run(q, t, n, RATE, pol, lat, score), 0);
}

/* lat[0 .. n - 1] are the latencies want[] (µs), to a millionth of a µs. */
static void expect_lat(const double *lat, const double *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ck_assert_double_eq_tol(lat[i], want[i], 1e-6);
}

/* The default policy, on one worker: the ideal the bench reports. */
static void simulate(const struct wl_request *q, const double *t, size_t n,
		     double *lat, double *score)
{
	struct sim_policy pol = { policy_default(), 1, 0, NULL };

	simulate_with(&pol, q, t, n, lat, score);
}

START_TEST(sim_single_request)
{
	struct wl_request q[1] = { req(1, 5000, 10000000, 5000 + 999999, 3) };
	double t[1] = { 250 }, lat[1], score;

	simulate(q, t, 1, lat, &score);
	ck_assert_double_eq_tol(lat[0], 1e6, 1e-6);
	ck_assert_double_eq_tol(score, 3e6, 1e-6);
}
END_TEST

START_TEST(sim_higher_priority_first)
{
	struct wl_request q[2] = { req(1, 0, 999999, 999999, 1),
				   req(2, 0, 999999, 999999, 4) };
	double t[2] = { 0, 0 }, lat[2], score;

	simulate(q, t, 2, lat, &score);
	ck_assert_double_eq_tol(lat[1], 1e6, 1e-6);
	ck_assert_double_eq_tol(lat[0], 2e6, 1e-6);
	ck_assert_double_eq_tol(score, (2e6 * 1 + 1e6 * 4) / 2, 1e-6);
}
END_TEST

START_TEST(sim_repeat_in_flight_finishes_with_original)
{
	struct wl_request q[2] = { req(1, 0, 999999, 999999, 2),
				   req(1, 0, 999999, 999999, 5) };
	double t[2] = { 0, 400000 }, lat[2];

	simulate(q, t, 2, lat, NULL);
	ck_assert_double_eq_tol(lat[0], 1e6, 1e-6);
	ck_assert_double_eq_tol(t[1] + lat[1], t[0] + lat[0], 1e-6);
}
END_TEST

START_TEST(sim_repeat_after_completion_is_free)
{
	struct wl_request q[2] = { req(1, 0, 999999, 500000, 2),
				   req(1, 0, 999999, 500000, 5) };
	double t[2] = { 0, 700000 }, lat[2];

	simulate(q, t, 2, lat, NULL);
	ck_assert_double_eq_tol(lat[0], 500001, 1e-6);
	ck_assert_double_eq_tol(lat[1], 0, 1e-9);
}
END_TEST

/* Job A (priority 1, 10^6 values) has 10^4 values left at t = 0.99 s: rank
 * 1 / 10^4. A fresh job B (priority 16, 10^6 values) ranks 16 / 10^6, lower,
 * so A finishes first. Arriving at t = 0.5 s instead, B meets A's rank
 * 1 / (5 * 10^5) and takes over. B is listed first to show arrival order,
 * not index order, is what counts. */
START_TEST(sim_nearly_done_job_keeps_running)
{
	struct wl_request q[2] = { req(2, 0, 999999, 999999, 16),
				   req(1, 0, 999999, 999999, 1) };
	double late[2] = { 990000, 0 }, early[2] = { 500000, 0 }, lat[2];

	simulate(q, late, 2, lat, NULL);
	ck_assert_double_eq_tol(lat[1], 1e6, 1e-6);
	ck_assert_double_eq_tol(lat[0], 2e6 - 990000, 1e-6);

	simulate(q, early, 2, lat, NULL);
	ck_assert_double_eq_tol(lat[0], 1e6, 1e-6);
	ck_assert_double_eq_tol(lat[1], 2e6, 1e-6);
}
END_TEST

/* A repeat's priority adds to its job's weight, which can take the lead. */
START_TEST(sim_repeat_adds_weight)
{
	struct wl_request q[3] = { req(1, 0, 999999, 999999, 2),
				   req(2, 0, 999999, 999999, 3),
				   req(1, 0, 999999, 999999, 4) };
	double t[3] = { 0, 0, 100000 }, lat[3];

	/* Job 2 leads (3 > 2) until job 1 gains weight 6 at 0.1 s with its
	 * full range left, against job 2's 3 / 900000. */
	simulate(q, t, 3, lat, NULL);
	ck_assert_double_eq_tol(lat[0], 1.1e6, 1e-6);
	ck_assert_double_eq_tol(lat[2], 1e6, 1e-6);
	ck_assert_double_eq_tol(lat[1], 2e6, 1e-6);
}
END_TEST

START_TEST(sim_empty_range_is_free)
{
	struct wl_request q[2] = { req(1, 10, 5, 0, 7),
				   req(2, UINT64_MAX, 0, 0, 16) };
	double t[2] = { 0, 3 }, lat[2], score = -1;

	simulate(q, t, 2, lat, &score);
	ck_assert_double_eq_tol(lat[0], 0, 1e-9);
	ck_assert_double_eq_tol(lat[1], 0, 1e-9);
	ck_assert_double_eq_tol(score, 0, 1e-9);
}
END_TEST

/* No answer in range: the whole range is hashed, even a huge one: 2^64 - 1
 * values at 1 per µs. The full 2^64 range, whose answer is always in it,
 * is searched up to the answer like any other. */
START_TEST(sim_missing_answer_hashes_whole_range)
{
	struct wl_request q[3] = { req(1, 100, 1099, 5, 1),
				   req(2, 1, UINT64_MAX, 0, 1),
				   req(3, 0, UINT64_MAX, 0, 1) };
	double t[1] = { 0 }, lat[1];

	simulate(q, t, 1, lat, NULL);
	ck_assert_double_eq_tol(lat[0], 1000, 1e-6);
	simulate(q + 1, t, 1, lat, NULL);
	ck_assert_double_eq_tol(lat[0], 0x1p64, 0x1p12);
	simulate(q + 2, t, 1, lat, NULL);
	ck_assert_double_eq_tol(lat[0], 1, 1e-9);
}
END_TEST

/* Three jobs arrive together at 1 value per µs, all answers at the end:
 *   X: priority 1, 10^6 values (rank 1 / 10^6), the oldest;
 *   Y: priority 4, 8 * 10^6 values (rank 0.5 / 10^6);
 *   Z: priority 2, 10^6 values (rank 2 / 10^6), the youngest.
 * wsrpt runs Z X Y: done at 1, 2, 10 s, score (2 + 40 + 2) / 3 * 10^6;
 * priority runs Y Z X: done at 8, 9, 10 s, score (10 + 32 + 18) / 3 * 10^6;
 * fifo runs X Y Z: done at 1, 9, 10 s, score (1 + 36 + 20) / 3 * 10^6.
 * Without preemption the same: the job chosen when X arrives has had no
 * time to start before Y and Z arrive at the same instant, so it gives way. */
START_TEST(sim_orders)
{
	struct wl_request q[3] = { req(1, 0, 999999, 999999, 1),
				   req(2, 0, 7999999, 7999999, 4),
				   req(3, 0, 999999, 999999, 2) };
	static const double want[3][4] = {
		[POLICY_WSRPT] = { 2e6, 10e6, 1e6, 44e6 / 3 },
		[POLICY_PRIORITY] = { 10e6, 8e6, 9e6, 60e6 / 3 },
		[POLICY_FIFO] = { 1e6, 9e6, 10e6, 57e6 / 3 },
	};
	double t[3] = { 0, 0, 0 }, lat[3], score;

	for (uint32_t order = POLICY_WSRPT; order <= POLICY_FIFO; order++) {
		for (uint32_t preempt = 0; preempt <= 1; preempt++) {
			struct sim_policy pol = policy(order, preempt, 1, 1);

			simulate_with(&pol, q, t, 3, lat, &score);
			for (int i = 0; i < 3; i++)
				ck_assert_double_eq_tol(lat[i], want[order][i],
							1e-6);
			ck_assert_double_eq_tol(score, want[order][3], 1e-6);
		}
	}
}
END_TEST

/* Three equal jobs (priority 1, 10^6 values) arrive together. Split, all
 * the rate goes to one at a time: done at 1, 2, 3 s, whatever the number of
 * workers. Without split, 2 workers at 0.5 value per µs each hash the two
 * oldest side by side, both done at 2 s, then the third alone while the
 * other worker idles: done at 4 s. One worker without split is split. */
START_TEST(sim_no_split_runs_side_by_side)
{
	struct wl_request q[3] = { req(1, 0, 999999, 999999, 1),
				   req(2, 0, 999999, 999999, 1),
				   req(3, 0, 999999, 999999, 1) };
	struct sim_policy split = policy(POLICY_WSRPT, 1, 1, 2);
	struct sim_policy apart = policy(POLICY_WSRPT, 1, 0, 2);
	struct sim_policy one = policy(POLICY_WSRPT, 1, 0, 1);
	double t[3] = { 0, 0, 0 }, lat[3], score;

	simulate_with(&split, q, t, 3, lat, &score);
	expect_lat(lat, (const double[]){ 1e6, 2e6, 3e6 }, 3);
	ck_assert_double_eq_tol(score, 2e6, 1e-6);

	simulate_with(&apart, q, t, 3, lat, &score);
	expect_lat(lat, (const double[]){ 2e6, 2e6, 4e6 }, 3);
	ck_assert_double_eq_tol(score, 8e6 / 3, 1e-6);

	simulate_with(&one, q, t, 3, lat, &score);
	ck_assert_double_eq_tol(lat[2], 3e6, 1e-6);
	ck_assert_double_eq_tol(score, 2e6, 1e-6);
}
END_TEST

/* Four workers without split on two CPUs, the machine hashing 1 value per
 * µs. One job alone has a CPU: 0.5 value per µs, done at 2 s (on four CPUs,
 * a quarter each: 4 s). Four jobs at once share the two CPUs: 0.25 each,
 * all done at 4 s; on four CPUs the same. Three jobs: a third each, done
 * at 3 s. */
START_TEST(sim_no_split_more_workers_than_cpus)
{
	struct wl_request q[4] = { req(1, 0, 999999, 999999, 1),
				   req(2, 0, 999999, 999999, 1),
				   req(3, 0, 999999, 999999, 1),
				   req(4, 0, 999999, 999999, 1) };
	struct sim_policy two = policy(POLICY_WSRPT, 1, 0, 4);
	struct sim_policy four = policy(POLICY_WSRPT, 1, 0, 4);
	double t[4] = { 0, 0, 0, 0 }, lat[4], score;

	two.cores = 2;
	simulate_with(&two, q, t, 1, lat, &score);
	ck_assert_double_eq_tol(lat[0], 2e6, 1e-6);
	simulate_with(&four, q, t, 1, lat, &score);
	ck_assert_double_eq_tol(lat[0], 4e6, 1e-6);

	simulate_with(&two, q, t, 3, lat, &score);
	expect_lat(lat, (const double[]){ 3e6, 3e6, 3e6 }, 3);

	simulate_with(&two, q, t, 4, lat, &score);
	expect_lat(lat, (const double[]){ 4e6, 4e6, 4e6, 4e6 }, 4);
	simulate_with(&four, q, t, 4, lat, &score);
	ck_assert_double_eq_tol(score, 4e6, 1e-6);
}
END_TEST

/* The same 4 workers on two CPUs, a job's rate changing as others end and
 * come. A (10^6 values), B and C (2 * 10^6 each) start at 0: a third of a
 * value per µs each until A is done at 3 s (B and C have 10^6 left), then
 * a CPU each: done at 5 s. With D (5 * 10^5) coming at 1 s (A has 666,667
 * left, B and C 1,666,667), four run at a quarter each: D ends at 3 s (a
 * latency of 2 s), A has 166,667 left, B and C 1,166,667; three at a third:
 * A ends at 3.5 s, B and C have 10^6 left; two at a half: done at 5.5 s. */
START_TEST(sim_no_split_rate_follows_the_running_jobs)
{
	struct wl_request q[4] = { req(1, 0, 999999, 999999, 1),
				   req(2, 0, 1999999, 1999999, 1),
				   req(3, 0, 1999999, 1999999, 1),
				   req(4, 0, 499999, 499999, 1) };
	struct sim_policy two = policy(POLICY_WSRPT, 1, 0, 4);
	double t[4] = { 0, 0, 0, 1e6 }, lat[4];

	two.cores = 2;
	simulate_with(&two, q, t, 3, lat, NULL);
	expect_lat(lat, (const double[]){ 3e6, 5e6, 5e6 }, 3);

	simulate_with(&two, q, t, 4, lat, NULL);
	expect_lat(lat, (const double[]){ 3.5e6, 5.5e6, 5.5e6, 2e6 }, 4);
}
END_TEST

/* Two workers without split, 0.5 value per µs each. A and B (priority 1,
 * 10^6 values) start at 0; C (priority 16, 10^6 values) comes at 1 s, when
 * A and B have 5 * 10^5 left (rank 2 / 10^6 each, against C's 16 / 10^6).
 * Preemptive: C takes the worker of B, the younger of the tied two; A ends
 * at 2 s, B resumes on A's worker and ends with C at 3 s. Run to
 * completion: A and B keep their workers to 2 s, then C runs alone until
 * 4 s, the other worker idle. */
START_TEST(sim_no_split_preempts_the_worst)
{
	struct wl_request q[3] = { req(1, 0, 999999, 999999, 1),
				   req(2, 0, 999999, 999999, 1),
				   req(3, 0, 999999, 999999, 16) };
	struct sim_policy preempt = policy(POLICY_WSRPT, 1, 0, 2);
	struct sim_policy keep = policy(POLICY_WSRPT, 0, 0, 2);
	double t[3] = { 0, 0, 1e6 }, lat[3];

	simulate_with(&preempt, q, t, 3, lat, NULL);
	ck_assert_double_eq_tol(lat[0], 2e6, 1e-6);
	ck_assert_double_eq_tol(lat[1], 3e6, 1e-6);
	ck_assert_double_eq_tol(lat[2], 2e6, 1e-6);

	simulate_with(&keep, q, t, 3, lat, NULL);
	ck_assert_double_eq_tol(lat[0], 2e6, 1e-6);
	ck_assert_double_eq_tol(lat[1], 2e6, 1e-6);
	ck_assert_double_eq_tol(lat[2], 3e6, 1e-6);
}
END_TEST

/* L (priority 1, 4 * 10^6 values) starts at 0; S (priority 16, 10^6
 * values) comes at 1 s, when L has 3 * 10^6 left: S ranks first by weight
 * and by weight / remaining alike. Preemptive, S takes over and ends at
 * 2 s, L at 5 s: score (5 + 16) / 2 * 10^6. Run to completion, the started
 * L keeps the workers to 4 s, S ends at 5 s: score (4 + 64) / 2 * 10^6. */
START_TEST(sim_run_to_completion_keeps_started_job)
{
	struct wl_request q[2] = { req(1, 0, 3999999, 3999999, 1),
				   req(2, 0, 999999, 999999, 16) };
	double t[2] = { 0, 1e6 }, lat[2], score;

	for (uint32_t order = POLICY_WSRPT; order <= POLICY_PRIORITY; order++) {
		struct sim_policy preempt = policy(order, 1, 1, 1);
		struct sim_policy keep = policy(order, 0, 1, 1);

		simulate_with(&preempt, q, t, 2, lat, &score);
		ck_assert_double_eq_tol(lat[0], 5e6, 1e-6);
		ck_assert_double_eq_tol(lat[1], 1e6, 1e-6);
		ck_assert_double_eq_tol(score, 10.5e6, 1e-6);

		simulate_with(&keep, q, t, 2, lat, &score);
		ck_assert_double_eq_tol(lat[0], 4e6, 1e-6);
		ck_assert_double_eq_tol(lat[1], 4e6, 1e-6);
		ck_assert_double_eq_tol(score, 34e6, 1e-6);
	}
}
END_TEST

/* One peer's repeats add at most POLICY_PEER_WEIGHT_MAX (16) to a job. Job A
 * (2 * 10^6 values) gets two requests of priority 12: weight 24, capped to
 * 16, rank 8 / 10^6. Job B (1.5 * 10^6 values, priority 16) ranks
 * 10.7 / 10^6 and goes first, though uncapped A would rank 12 / 10^6. */
START_TEST(sim_peer_weight_is_capped)
{
	struct wl_request q[3] = { req(1, 0, 1999999, 1999999, 12),
				   req(1, 0, 1999999, 1999999, 12),
				   req(2, 0, 1499999, 1499999, 16) };
	double t[3] = { 0, 0, 0 }, lat[3];

	simulate(q, t, 3, lat, NULL);
	ck_assert_double_eq_tol(lat[2], 1.5e6, 1e-6);
	ck_assert_double_eq_tol(lat[0], 3.5e6, 1e-6);
	ck_assert_double_eq_tol(lat[1], 3.5e6, 1e-6);
}
END_TEST

/* A (priority 1) has its answer at the first of 10^6 values, B (priority
 * 2) at the last of 10^5; both arrive at 0. wsrpt (2 / 10^5 against
 * 1 / 10^6) and priority both run B first: B at 10^5 µs, A one µs later,
 * score (2 * 10^5 + 10^5 + 1) / 2. fifo runs A first: A at 1 µs, B at
 * 10^5 + 1, score (1 + 2 * (10^5 + 1)) / 2 = 100001.5, the lowest; with
 * one worker and no later arrival, preemption and split change nothing, so
 * the first fifo variant tried wins: preemptive, split. */
/* Workers of unequal rates, without split: the best job on the fastest
 * worker, the next on the next, and a job moves to a faster worker when
 * one frees. Shares 3:1 of 4e6 values/s: A (3e6 values, weight 2) on the
 * fast worker ends at 1 s; B (3e6, weight 1) does 1e6 on the slow one by
 * then, and its last 2e6 on the fast one take 2/3 s more. With split,
 * shares change nothing: one job has the whole rate. */
START_TEST(sim_unequal_workers)
{
	const double shares[2] = { 1, 3 };
	struct wl_request q[2] = { req(1, 0, 9999999, 2999999, 2),
				   req(2, 0, 9999999, 2999999, 1) };
	struct sim_policy pol = policy(POLICY_WSRPT, 1, 0, 2);
	double t[2] = { 0, 0 }, lat[2], score, split;

	pol.shares = shares;
	ck_assert_int_eq(sim_run(q, t, 2, 4e6, &pol, lat, &score), 0);
	ck_assert_double_eq_tol(lat[0], 1e6, 1e-3);
	ck_assert_double_eq_tol(lat[1], 1e6 + 2e6 / 3, 1e-3);
	ck_assert_double_eq_tol(score, (1e6 * 2 + (1e6 + 2e6 / 3)) / 2, 1e-3);
	pol.policy.rules |= POLICY_SPLIT;
	ck_assert_int_eq(sim_run(q, t, 2, 4e6, &pol, lat, &split), 0);
	ck_assert_double_eq_tol(lat[0], 0.75e6, 1e-3);
	ck_assert_double_eq_tol(lat[1], 1.5e6, 1e-3);
	/* A share that is no rate is refused. */
	pol.policy.rules &= ~POLICY_SPLIT;
	pol.shares = (const double[2]){ 1, 0 };
	ck_assert_int_eq(sim_run(q, t, 2, 4e6, &pol, lat, &score), -EINVAL);
}
END_TEST

START_TEST(sim_best_picks_lowest)
{
	struct wl_request q[2] = { req(1, 0, 999999, 0, 1),
				   req(2, 0, 99999, 99999, 2) };
	double t[2] = { 0, 0 }, score = 0;
	struct sim_policy best = { { 9, 9 }, 0, 0, NULL };

	ck_assert_int_eq(sim_best(q, t, 2, RATE, &(struct sim_policy){ .workers = 1 }, &best, &score), 0);
	ck_assert_uint_eq(best.policy.order, POLICY_FIFO);
	ck_assert_uint_eq(best.policy.rules, policy_default().rules);
	ck_assert_uint_eq(best.workers, 1);
	ck_assert_double_eq_tol(score, 100001.5, 1e-6);
}
END_TEST

/* The ideals a run is scored against: the server's own policy, and the
 * best, which is the server's own where it ties (one request: every
 * policy scores alike), another only where that one does better; each
 * with its latencies. */
START_TEST(sim_ideal_ties_go_to_own)
{
	struct wl_request one[1] = { req(1, 0, 999999, 499999, 1) };
	struct wl_request two[2] = { req(1, 0, 999999, 0, 1),
				     req(2, 0, 99999, 99999, 2) };
	double t[2] = { 0, 0 }, own_lat[2], best_lat[2];
	struct sim_policy own = policy(POLICY_FIFO, 0, 0, 1);
	struct sim_ideal id = { .own_lat = own_lat, .best_lat = best_lat };

	ck_assert_int_eq(sim_ideal(one, t, 1, RATE, &own, &id), 0);
	ck_assert_uint_eq(id.best.policy.order, POLICY_FIFO);
	ck_assert_uint_eq(id.best.policy.rules, own.policy.rules);
	ck_assert_double_eq(id.best_score, id.own_score);
	ck_assert_double_eq_tol(own_lat[0], 500000.0 * 1e6 / RATE, 1e-6);
	ck_assert_double_eq(best_lat[0], own_lat[0]);

	own = policy(POLICY_WSRPT, 1, 1, 1); /* FIFO does better here */
	ck_assert_int_eq(sim_ideal(two, t, 2, RATE, &own, &id), 0);
	ck_assert_uint_eq(id.best.policy.order, POLICY_FIFO);
	ck_assert_double_eq_tol(id.best_score, 100001.5, 1e-6);
	ck_assert(id.own_score > id.best_score);
	ck_assert_double_eq_tol((best_lat[0] + 2 * best_lat[1]) / 2, id.best_score, 1e-6);
	ck_assert_double_eq_tol((own_lat[0] + 2 * own_lat[1]) / 2, id.own_score, 1e-6);
}
END_TEST

/* On a real workload, sim_best's score is the lowest of every order with
 * and without preemption and split, and is the score of the policy it
 * returns. */
START_TEST(sim_best_is_min_of_all)
{
	struct wl_params p = params(11, 300, 20, 1.5);
	struct wl_request *q = generate(&p);
	double *t = calloc(p.total, sizeof *t), low = INFINITY, best_score;
	struct sim_policy best;

	ck_assert_ptr_nonnull(t);
	for (uint64_t i = 0; i < p.total; i++)
		t[i] = 2e5 * (double)i; /* a request every 0.2 s */
	ck_assert_int_eq(sim_best(q, t, p.total, 4e6, &(struct sim_policy){ .workers = 3 },
				  &best, &best_score), 0);
	for (uint32_t order = 0; order < policy_orders(); order++) {
		for (uint32_t k = 0; k < 4; k++) {
			struct sim_policy pol = policy(order, k / 2, k % 2, 3);
			double sc;

			ck_assert_int_eq(sim_run(q, t, p.total, 4e6, &pol,
						 NULL, &sc), 0);
			low = fmin(low, sc);
		}
	}
	ck_assert_double_eq(best_score, low);
	ck_assert_uint_eq(best.workers, 3);
	ck_assert_int_eq(sim_run(q, t, p.total, 4e6, &best, NULL, &low), 0);
	ck_assert_double_eq(best_score, low);
	free(t);
	free(q);
}
END_TEST

START_TEST(sim_bad_arguments)
{
	struct wl_request q[1] = { req(1, 0, 9, 9, 1) };
	double t[1] = { 0 };
	struct sim_policy pol = { policy_default(), 1, 0, NULL };

	ck_assert_int_eq(sim_run(q, t, 1, 0, &pol, NULL, NULL), -EINVAL);
	ck_assert_int_eq(sim_run(q, t, 1, NAN, &pol, NULL, NULL), -EINVAL);
	ck_assert_int_eq(sim_run(q, t, 1, INFINITY, &pol, NULL, NULL),
			 -EINVAL);
	pol.workers = 0;
	ck_assert_int_eq(sim_run(q, t, 1, RATE, &pol, NULL, NULL), -EINVAL);
	ck_assert_int_eq(sim_best(q, t, 1, RATE, &(struct sim_policy){ .workers = 0 }, NULL, NULL), -EINVAL);
	ck_assert_int_eq(sim_best(q, t, 1, -1, &(struct sim_policy){ .workers = 1 }, NULL, NULL), -EINVAL);
	pol = policy(policy_orders(), 1, 1, 1);
	ck_assert_int_eq(sim_run(q, t, 1, RATE, &pol, NULL, NULL), -EINVAL);
}
END_TEST

/* Nearest rank over 1 .. 100 ms: p of 100 values is value 100 p. */
START_TEST(stats_percentiles)
{
	int64_t ns[100], one = 7000000;

	for (int i = 0; i < 100; i++)
		ns[i] = (100 - i) * 1000000LL;
	stats_sort(ns, 100);
	ck_assert_double_eq_tol(stats_percentile_ms(ns, 100, 0.50), 50, 1e-9);
	ck_assert_double_eq_tol(stats_percentile_ms(ns, 100, 0.999), 100, 1e-9);
	ck_assert_double_eq_tol(stats_percentile_ms(ns, 100, 1), 100, 1e-9);
	ck_assert_double_eq_tol(stats_percentile_ms(ns, 100, 0), 1, 1e-9);
	ck_assert_double_eq_tol(stats_percentile_ms(&one, 1, 0.99), 7, 1e-9);
}
END_TEST

/* Scores from real runs: 310 measured against an ideal of 0.006 (difficulty
 * 1), 214 against 6069 (every answer from the cache of an earlier run). */
START_TEST(stats_efficiency_verdicts)
{
	double eff = -1;

	ck_assert_int_eq(stats_efficiency(0, 300, &eff), STATS_EFF_NO_WORK);
	ck_assert_int_eq(stats_efficiency(0.006, 310, &eff), STATS_EFF_TINY);
	ck_assert_int_eq(stats_efficiency(6069, 214, &eff), STATS_EFF_BEATEN);
	ck_assert_int_eq(stats_efficiency(6069, 0, &eff), STATS_EFF_BEATEN);
	ck_assert_double_eq(eff, -1);
	ck_assert_int_eq(stats_efficiency(100, 200, &eff), STATS_EFF_OK);
	ck_assert_double_eq_tol(eff, 0.5, 1e-12);
	ck_assert_int_eq(stats_efficiency(100, 100, &eff), STATS_EFF_OK);
	ck_assert_double_eq_tol(eff, 1, 1e-12);
}
END_TEST

/* One call, both formats: the text is printf's; the JSON has each named
 * conversion at the text's precision (nan: null), none of the words, the
 * unnamed and the names past the conversions; strings escaped; objects
 * and arrays nested; a lines array holds the text's lines, indent aside,
 * however the calls cut them. */
START_TEST(out_writes_the_text_and_its_json)
{
	static const char want_text[] =
		"7 of them: 1.235 ms 9\n"
		"p50   2.2 nan\n"
		"a\"b\\c\t z\n"
		"  first 1, then\n  second\nNo such file or directory\n"
		"-3 18446744073709551615     0.50\n";
	static const char want_json[] =
		"{\"n\":7,\"ms\":1.235,\"latency\":{\"p50\":2.2,\"none\":null},"
		"\"names\":[\"a\\\"b\\\\c\\u0009\",\"z\"],"
		"\"notes\":[\"first 1, then\",\"second\",\"No such file or directory\"],"
		"\"neg\":-3,\"big\":18446744073709551615,\"half\":0.50}\n";
	char text[512] = "", json[512] = "";
	FILE *t = fmemopen(text, sizeof text, "w"), *j = fmemopen(json, sizeof json, "w");
	struct out o;

	ck_assert(t && j);
	out_init(&o, t, j);
	out_printf(&o, "n - ms", "%" PRIu64 " of %s: %.3f ms %d\n", (uint64_t)7, "them",
		   1.23456, 9);
	out_object(&o, "latency");
	out_printf(&o, "p50 none", "p50 %5.1f %g\n", 2.25, NAN);
	out_end(&o);
	out_array(&o, "names");
	out_printf(&o, "x x", "%s %c\n", "a\"b\\c\t", 'z');
	out_end(&o);
	out_lines(&o, "notes");
	out_printf(&o, "", "  first %d", 1);
	out_printf(&o, "", ", then\n  second\n");
	errno = ENOENT;
	out_printf(&o, "why", "%m\n");
	out_end(&o);
	out_printf(&o, "neg big half", "%d %llu %*.*f\n", -3, 18446744073709551615ull, 8, 2,
		   0.5);
	ck_assert_int_eq(out_finish(&o), 0);
	fclose(t);
	fclose(j);
	ck_assert_str_eq(text, want_text);
	ck_assert_str_eq(json, want_json);
	ck_assert_int_eq(th_jq(json, ".notes[1]", text, sizeof text), 0);
	ck_assert_str_eq(text, "second\n");
}
END_TEST

/* Either format alone: no JSON at all, or the JSON without the text. */
START_TEST(out_writes_one_format_alone)
{
	char text[64] = "", json[64] = "";
	FILE *t = fmemopen(text, sizeof text, "w"), *j = fmemopen(json, sizeof json, "w");
	struct out o;

	out_init(&o, t, NULL);
	out_printf(&o, "a", "a %d\n", 1);
	ck_assert_int_eq(out_finish(&o), 0);
	out_init(&o, NULL, j);
	out_printf(&o, "a", "a %d\n", 2);
	out_array(&o, "left");
	out_object(&o, NULL);
	ck_assert_int_eq(out_finish(&o), 0); /* closes what is open */
	fclose(t);
	fclose(j);
	ck_assert_str_eq(text, "a 1\n");
	ck_assert_str_eq(json, "{\"a\":2,\"left\":[{}]}\n");
}
END_TEST

static TCase *tcase(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, 30);
	return tc;
}

static Suite *workload_suite(void)
{
	Suite *s = suite_create("workload");
	TCase *gen = tcase("generate"), *sim = tcase("simulate");
	TCase *stats = tcase("stats"), *out = tcase("out");

	tcase_add_test(gen, same_seed_same_requests);
	tcase_add_test(gen, different_seeds_differ);
	tcase_add_test(gen, rep0_copies_only_when_r_is_zero);
	tcase_add_test(gen, rep100_everything_after_first_is_copy);
	tcase_add_test(gen, answers_in_range_and_digests_match);
	tcase_add_test(gen, fixed_start);
	tcase_add_test(gen, priorities);
	tcase_add_test(gen, first_request_by_hand);
	tcase_add_test(gen, first_request_by_hand_fixed_start);
	tcase_add_test(gen, bad_params);
	tcase_add_test(sim, sim_single_request);
	tcase_add_test(sim, sim_higher_priority_first);
	tcase_add_test(sim, sim_repeat_in_flight_finishes_with_original);
	tcase_add_test(sim, sim_repeat_after_completion_is_free);
	tcase_add_test(sim, sim_nearly_done_job_keeps_running);
	tcase_add_test(sim, sim_repeat_adds_weight);
	tcase_add_test(sim, sim_empty_range_is_free);
	tcase_add_test(sim, sim_missing_answer_hashes_whole_range);
	tcase_add_test(sim, sim_orders);
	tcase_add_test(sim, sim_no_split_runs_side_by_side);
	tcase_add_test(sim, sim_no_split_more_workers_than_cpus);
	tcase_add_test(sim, sim_no_split_rate_follows_the_running_jobs);
	tcase_add_test(sim, sim_no_split_preempts_the_worst);
	tcase_add_test(sim, sim_run_to_completion_keeps_started_job);
	tcase_add_test(sim, sim_peer_weight_is_capped);
	tcase_add_test(sim, sim_unequal_workers);
	tcase_add_test(sim, sim_best_picks_lowest);
	tcase_add_test(sim, sim_ideal_ties_go_to_own);
	tcase_add_test(sim, sim_best_is_min_of_all);
	tcase_add_test(sim, sim_bad_arguments);
	tcase_add_test(stats, stats_percentiles);
	tcase_add_test(stats, stats_efficiency_verdicts);
	tcase_add_test(out, out_writes_the_text_and_its_json);
	tcase_add_test(out, out_writes_one_format_alone);
	suite_add_tcase(s, gen);
	suite_add_tcase(s, out);
	suite_add_tcase(s, sim);
	suite_add_tcase(s, stats);
	return s;
}

int main(void)
{
	return check_run(workload_suite());
}
