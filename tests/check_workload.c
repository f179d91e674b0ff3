/* Tests for the bench's workload generator and its ideal-server simulation.
 * The generator is checked against the client's rules (ranges, digests,
 * repeats, the priority distribution) and, for the first request, against
 * the rand() sequence replayed by hand. The simulation is checked on cases
 * small enough to work out exactly on paper, and so are the statistics the
 * bench reports with it (bench/stats.c). */
#include "bench/simulate.h"
#include "bench/stats.h"
#include "bench/workload.h"
#include "proto/proto.h"
#include "tests/check_run.h"

#include <check.h>
#include <errno.h>
#include <math.h>
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
		proto_digest(q[i].answer, d);
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
	proto_digest(answer, d);
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

static void simulate(const struct wl_request *q, const double *t, size_t n,
		     double *lat, double *score)
{
	ck_assert_int_eq(sim_ideal(q, t, n, RATE, lat, score), 0);
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

/* No answer in range: the whole range is hashed, even a huge one. */
START_TEST(sim_missing_answer_hashes_whole_range)
{
	struct wl_request q[2] = { req(1, 100, 1099, 5, 1),
				   req(2, 0, UINT64_MAX, 0, 1) };
	double t[2] = { 0, 0 }, lat[2];

	simulate(q, t, 1, lat, NULL);
	ck_assert_double_eq_tol(lat[0], 1000, 1e-6);
	simulate(q + 1, t, 1, lat, NULL);
	ck_assert_double_eq_tol(lat[0], 1, 1e-9);
	ck_assert_int_eq(sim_ideal(q, t, 1, 0, NULL, NULL), -EINVAL);
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
	TCase *stats = tcase("stats");

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
	tcase_add_test(stats, stats_percentiles);
	tcase_add_test(stats, stats_efficiency_verdicts);
	suite_add_tcase(s, gen);
	suite_add_tcase(s, sim);
	suite_add_tcase(s, stats);
	return s;
}

int main(void)
{
	return check_run(workload_suite());
}
