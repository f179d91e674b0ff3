/* Tests for the GPU search's logic, on any machine: the host build of the
 * device's threads under the device's walk (gpu_host_search) against
 * OpenSSL on seeded random ranges and the edge cases of search_cases.c,
 * with stops before and during a search; and the walk alone, under a
 * scripted launcher whose candidates the test chooses: false candidates
 * before the answer, at 2^64-1, in the launch queued after the one waited
 * for, a stop between launches, a device that fails.
 *
 * The random ranges take their seed from TH_SEED, else from the clock; it
 * is printed first, and TH_SEED=N replays a run. */
#include "lib/digest.h"
#include "proto/proto.h"
#include "tests/check_run.h"
#include "tests/search_cases.h"
#include "worker/gpu/gpu_host.h"
#include "worker/gpu/gpu_walk.h"
#include "worker/kernel.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TOP UINT64_MAX
#define RANDOM_CASES 500
#define RANDOM_MAX_LEN 100000 /* the host build is scalar: ~0.1 s each */
#define EDGE_SPAN 3000
#define MAX_EDGES 128

static uint64_t seed;

START_TEST(random_ranges)
{
	uint64_t state = seed;
	struct search_case c;
	char why[256];

	for (int n = 0; n < RANDOM_CASES; n++) {
		cases_random(&state, RANDOM_MAX_LEN, &c);
		ck_assert_msg(cases_check(gpu_host_search, &c, why, sizeof why) == 0,
			      "seed %llu, case %d: %s", (unsigned long long)seed, n, why);
	}
}
END_TEST

START_TEST(edges)
{
	struct search_case cs[MAX_EDGES];
	size_t n = cases_edges(EDGE_SPAN, cs, MAX_EDGES);
	char why[256];

	ck_assert_uint_lt(n, MAX_EDGES); /* the list fits whole */
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(cases_check(gpu_host_search, &cs[i], why, sizeof why) == 0,
			      "edge %zu: %s", i, why);
}
END_TEST

/* A near miss is a candidate the full check turns down, not an answer. */
START_TEST(near_miss_is_rejected)
{
	uint64_t y = 0x31415926535, found, before = gpu_host_rejected();
	uint8_t digest[32];

	cases_near_miss(y, digest);
	ck_assert_int_eq(gpu_host_search(digest, y - 50, y + 50, &found, NULL),
			 SEARCH_NONE);
	ck_assert_uint_eq(gpu_host_rejected(), before + 1);
}
END_TEST

START_TEST(stop_ends_a_long_search)
{
	uint64_t lo = 0xfeedface00000000 - 12345;
	char why[256];

	ck_assert_msg(cases_stop_during(gpu_host_search, lo, lo - 1, 1000000, why,
					sizeof why) == 0, "%s", why);
}
END_TEST

/* Answers nearer and farther than a search gets in 1 ms. */
START_TEST(stop_never_skips_the_answer)
{
	char why[256];

	for (int bits = 4; bits <= 16; bits += 3) {
		uint64_t lo = (UINT64_C(0x5eed) << 32) - 3 * (uint64_t)bits;

		ck_assert_msg(cases_stop_during(gpu_host_search, lo,
						lo + (UINT64_C(1) << bits) - 1,
						1000000, why, sizeof why) == 0,
			      "%s", why);
	}
}
END_TEST

/* A launcher that hashes nothing: the early compare lets through the
 * values in cands, and the test reads what the walk asked of it. */
struct script {
	struct gpu_launcher l;
	uint64_t cands[4];
	size_t ncands;
	uint64_t chunk, best, next, hashed;
	int started, bad;       /* bad: launches out of order or shape */
	unsigned waits, stop_at, fail_at;
	uint32_t stop;
};

static uint64_t s_chunk(void *ctx)
{
	return ((struct script *)ctx)->chunk;
}

static int s_launch(void *ctx, const uint8_t digest[32], uint64_t first,
		    uint32_t count)
{
	struct script *s = ctx;
	uint64_t last = first + count - 1;

	(void)digest;
	if (count == 0 || count > s->chunk || first >> 32 != last >> 32 ||
	    (s->started && first != s->next))
		s->bad++;
	for (size_t i = 0; i < s->ncands; i++)
		if (s->cands[i] >= first && s->cands[i] <= last && s->cands[i] < s->best)
			s->best = s->cands[i];
	s->started = 1;
	s->next = last + 1;
	s->hashed += count;
	return 0;
}

static int s_wait(void *ctx, uint64_t *best)
{
	struct script *s = ctx;

	if (++s->waits == s->stop_at)
		s->stop = 1;
	*best = s->best;
	return s->waits == s->fail_at ? -EIO : 0;
}

static int s_reset(void *ctx)
{
	struct script *s = ctx;

	s->best = GPU_NO_CANDIDATE;
	s->started = 0;
	return 0;
}

static void script_init(struct script *s, unsigned depth, uint64_t chunk)
{
	*s = (struct script){ .l = { s, depth, s_chunk, s_launch, s_wait, s_reset, 0 },
			      .chunk = chunk };
}

/* Walk [lo, hi] for answer's digest under s; the walk's result. */
static int script_walk(struct script *s, uint64_t lo, uint64_t hi,
		       uint64_t answer, uint64_t *found)
{
	uint8_t digest[32];

	digest_of(answer, digest);
	return gpu_walk(&s->l, digest, lo, hi, found, &s->stop);
}

/* With nothing found, every value is launched once, in order, in launches
 * of at most a chunk inside one segment, and the walk stops at 2^64-1. */
START_TEST(walk_launches_the_whole_range)
{
	uint64_t chunks[] = { 1, 7, 1000, GPU_CHUNK_MAX }, b = UINT64_C(1) << 32;
	uint64_t ranges[][2] = { { b - 3000, b + 5000 }, { TOP - 2500, TOP },
				 { 0, 0 }, { TOP, TOP } };

	for (unsigned depth = 1; depth <= GPU_WALK_DEPTH; depth++)
		for (size_t i = 0; i < 4 * 4; i++) {
			struct script s;
			uint64_t lo = ranges[i % 4][0], hi = ranges[i % 4][1], found;

			script_init(&s, depth, chunks[i / 4]);
			ck_assert_int_eq(script_walk(&s, lo, hi, 5, &found), SEARCH_NONE);
			ck_assert_int_eq(s.bad, 0);
			ck_assert_uint_eq(s.hashed, hi - lo + 1);
		}
}
END_TEST

/* False candidates before the answer, in its launch, in the one queued
 * after, further on, across a 2^32 boundary: the walk goes on past each. */
START_TEST(walk_passes_false_candidates)
{
	uint64_t b = UINT64_C(0x1234) << 32, lo = b - 1000;
	uint64_t layouts[][3] = { { lo + 10, lo + 15, lo + 20 }, /* y, y, answer */
				  { lo + 50, lo + 60, lo + 150 },
				  { lo + 50, lo + 260, lo + 420 },
				  { b - 1, b, b + 1 },
				  { lo, lo + 1, lo + 999 } };

	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
		for (unsigned depth = 1; depth <= 3; depth++) {
			struct script s;
			uint64_t found = 0, *y = layouts[i];

			script_init(&s, depth, 100);
			s.ncands = 4;
			memcpy(s.cands, y, 3 * sizeof *y);
			s.cands[3] = y[2] + 1; /* a later candidate never wins */
			ck_assert_int_eq(script_walk(&s, lo, b + 1000, y[2], &found),
					 SEARCH_FOUND);
			ck_assert_uint_eq(found, y[2]);
			ck_assert_uint_eq(s.l.rejected, 2);
		}
	}
}
END_TEST

/* A false candidate at 2^64-1 ends the walk there: no wrap to 0. */
START_TEST(walk_false_candidate_at_the_top)
{
	struct script s;
	uint64_t found = 0;

	script_init(&s, 2, 100);
	s.ncands = 2;
	s.cands[0] = TOP - 1;
	s.cands[1] = TOP;
	ck_assert_int_eq(script_walk(&s, TOP - 300, TOP, 5, &found), SEARCH_NONE);
	ck_assert_uint_eq(s.l.rejected, 2);
	ck_assert_int_eq(s.bad, 0);
	script_init(&s, 2, 100);
	s.ncands = 2;
	s.cands[0] = TOP - 1;
	s.cands[1] = TOP;
	ck_assert_int_eq(script_walk(&s, TOP - 300, TOP, TOP, &found), SEARCH_FOUND);
	ck_assert_uint_eq(found, TOP);
}
END_TEST

/* A stop seen after the third launch: *found is the first value after it,
 * though the fourth was queued. */
START_TEST(walk_stops_between_launches)
{
	uint64_t lo = 0x77770000ffff0000, found = 0;

	for (unsigned depth = 1; depth <= GPU_WALK_DEPTH; depth++) {
		struct script s;

		script_init(&s, depth, 100);
		s.stop_at = 3;
		ck_assert_int_eq(script_walk(&s, lo, lo + 1000000, 5, &found),
				 SEARCH_STOPPED);
		ck_assert_uint_eq(found, lo + 300);
	}
}
END_TEST

START_TEST(walk_passes_a_device_failure_up)
{
	struct script s;
	uint64_t found;

	script_init(&s, 2, 100);
	s.fail_at = 2;
	ck_assert_int_eq(script_walk(&s, 1000, 100000, 5, &found), -EIO);
}
END_TEST

static Suite *gpu_logic_suite(void)
{
	Suite *s = suite_create("gpu_logic");
	TCase *host = tcase_create("host"), *walk = tcase_create("walk");

	tcase_set_timeout(host, 60);
	tcase_set_timeout(walk, 10);
	tcase_add_test(host, random_ranges);
	tcase_add_test(host, edges);
	tcase_add_test(host, near_miss_is_rejected);
	tcase_add_test(host, stop_ends_a_long_search);
	tcase_add_test(host, stop_never_skips_the_answer);
	tcase_add_test(walk, walk_launches_the_whole_range);
	tcase_add_test(walk, walk_passes_false_candidates);
	tcase_add_test(walk, walk_false_candidate_at_the_top);
	tcase_add_test(walk, walk_stops_between_launches);
	tcase_add_test(walk, walk_passes_a_device_failure_up);
	suite_add_tcase(s, host);
	suite_add_tcase(s, walk);
	return s;
}

int main(void)
{
	const char *env = getenv("TH_SEED");

	seed = env ? strtoull(env, NULL, 0)
		   : (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	if (!seed)
		seed = 1; /* xorshift's one fixed point */
	fprintf(stderr, "check_gpu_logic: seed %llu (TH_SEED=%llu replays)\n",
		(unsigned long long)seed, (unsigned long long)seed);
	return check_run(gpu_logic_suite());
}
