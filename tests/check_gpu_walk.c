/* Tests for the GPU search's walk over a range (gpu_walk.c) under a
 * scripted launcher whose outcomes the test chooses: every value launched
 * once and in order, false candidates before the answer and at 2^64-1, a
 * stop between launches and a launch halted by one (the launches queued
 * behind it halted too, never waited for), generations running out,
 * launches sized by the measured rate, short ones waited for by spinning,
 * a device that fails. Then the choice of a kernel variant (device_pick.c)
 * with made-up rates. */
#include "lib/digest.h"
#include "proto/proto.h"
#include "tests/check_run.h"
#include "worker/gpu/device.h"
#include "worker/gpu/gpu_walk.h"
#include "worker/kernel.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define TOP UINT64_MAX
#define MAX_JOBS 64

/* A launcher that hashes nothing: the early compare lets through the
 * values in cands, and the test reads what the walk asked of it. */
struct script {
	struct gpu_launcher l;
	uint64_t cands[4];
	size_t ncands;
	uint64_t next, hashed;
	int started, bad;      /* bad: launches out of order or shape */
	unsigned waits, stop_at, fail_at, halt_at, renews, halts;
	uint32_t stop, last_halt;
	uint64_t ns_per_value; /* the device's time of a launch */
	struct gpu_job jobs[MAX_JOBS]; /* launched, in order */
	unsigned njobs;
	uint64_t words[GPU_WALK_DEPTH]; /* what each launch left, by gen */
};

static int s_watch(void *ctx, const uint32_t *stop)
{
	(void)ctx;
	(void)stop;
	return 0;
}

static int s_launch(void *ctx, const uint8_t digest[32], const struct gpu_job *j)
{
	struct script *s = ctx;
	uint64_t last = j->first + j->count - 1, word = GPU_WORD_FRESH;

	(void)digest;
	if (j->count == 0 || j->count > s->l.chunk || j->first >> 32 != last >> 32 ||
	    (s->started && j->first != s->next) || (s->njobs && j->gen <= s->jobs[s->njobs - 1].gen &&
						      j->gen != 1))
		s->bad++;
	for (size_t i = 0; i < s->ncands; i++)
		if (s->cands[i] >= j->first && s->cands[i] <= last &&
		    gpu_key(j->gen, (uint32_t)s->cands[i]) < word)
			word = gpu_key(j->gen, (uint32_t)s->cands[i]);
	s->words[j->gen % GPU_WALK_DEPTH] = word;
	if (s->njobs < MAX_JOBS)
		s->jobs[s->njobs++] = *j;
	s->started = 1;
	s->next = last + 1;
	s->hashed += j->count;
	return 0;
}

static int s_wait(void *ctx, const struct gpu_job *j, struct gpu_outcome *out)
{
	struct script *s = ctx;

	uint32_t low;

	if (++s->waits == s->stop_at)
		s->stop = 1;
	out->word = s->waits == s->halt_at ? gpu_halt_key(j->gen) :
		    s->words[j->gen % GPU_WALK_DEPTH];
	out->ns = s->ns_per_value * j->count;
	if (gpu_decode(out->word, j->gen, &low) == GPU_CANDIDATE)
		s->started = 0; /* the walk may start again past it */
	return s->waits == s->fail_at ? -EIO : 0;
}

static void s_halt(void *ctx, uint32_t gen)
{
	struct script *s = ctx;

	s->halts++;
	s->last_halt = gen;
	s->started = 0; /* the next launch starts where the walk says */
}

static int s_renew(void *ctx)
{
	((struct script *)ctx)->renews++;
	return 0;
}

static void script_init(struct script *s, unsigned depth, uint64_t chunk)
{
	*s = (struct script){ .l = { .ctx = s, .depth = depth, .chunk_min = 1,
				     .chunk_max = GPU_CHUNK_MAX, .launch_ns = 1000000,
				     .spin_ns = GPU_SPIN_NS, .watch = s_watch,
				     .launch = s_launch, .wait = s_wait, .halt = s_halt,
				     .renew = s_renew, .chunk = chunk } };
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
 * of at most a chunk inside one segment; the walk stops at 2^64-1 (which
 * is no candidate), halts nothing, and never resets the device's word. */
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
			ck_assert_uint_eq(s.l.rejected, 0);
			ck_assert_uint_eq(s.halts, 0);
			ck_assert_uint_eq(s.renews, 0);
		}
}
END_TEST

/* False candidates before the answer, in its launch, in the one queued
 * after, further on, across a 2^32 boundary: the walk goes on past each,
 * halting the launches queued after a false one. */
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
			ck_assert_int_eq(s.bad, 0);
		}
	}
}
END_TEST

/* A false candidate at 2^64-1 ends the walk there: no wrap to 0. */
START_TEST(walk_false_candidate_at_the_top)
{
	struct script s;
	uint64_t found = 0;

	for (int answer_there = 0; answer_there < 2; answer_there++) {
		script_init(&s, 2, 100);
		s.ncands = 2;
		s.cands[0] = TOP - 1;
		s.cands[1] = TOP;
		ck_assert_int_eq(script_walk(&s, TOP - 300, TOP, answer_there ? TOP : 5,
					     &found), answer_there ? SEARCH_FOUND : SEARCH_NONE);
		ck_assert_uint_eq(s.l.rejected, answer_there ? 1 : 2);
		ck_assert_int_eq(s.bad, 0);
		if (answer_there)
			ck_assert_uint_eq(found, TOP);
	}
}
END_TEST

/* A stop seen after the third launch: *found is the first value after it,
 * and the launches queued behind it are halted, not waited for. */
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
		ck_assert_uint_eq(s.waits, 3);
		ck_assert_uint_eq(s.halts, depth > 1);
		if (depth > 1) /* the last one queued is among those halted */
			ck_assert_uint_eq(s.last_halt, s.jobs[s.njobs - 1].gen);
	}
}
END_TEST

/* A launch halted by the stop word leaves its values owed: the search
 * stops at its first value, and halts the launches queued after it. */
START_TEST(walk_halted_launch_stops_at_its_first)
{
	uint64_t lo = 0x1111000000000000, found = 0;
	struct script s;

	script_init(&s, 3, 100);
	s.halt_at = 2;
	ck_assert_int_eq(script_walk(&s, lo, lo + 100000, 5, &found), SEARCH_STOPPED);
	ck_assert_uint_eq(found, lo + 100);
	ck_assert_uint_eq(s.waits, 2);
	ck_assert_uint_eq(s.halts, 1);
	ck_assert_uint_eq(s.last_halt, s.jobs[s.njobs - 1].gen);
}
END_TEST

/* A search found early leaves its queued launches halted; the next
 * search's launches come after them, with later generations. */
START_TEST(walk_halts_what_it_leaves_in_flight)
{
	uint64_t lo = 0x2222000000000000, found = 0;
	struct script s;
	unsigned before;

	script_init(&s, 4, 100);
	s.ncands = 1;
	s.cands[0] = lo + 50;
	ck_assert_int_eq(script_walk(&s, lo, lo + 100000, lo + 50, &found), SEARCH_FOUND);
	ck_assert_uint_eq(s.waits, 1);
	ck_assert_uint_eq(s.halts, 1);
	ck_assert_uint_eq(s.last_halt, 4);
	before = s.njobs;
	s.ncands = 0;
	ck_assert_int_eq(script_walk(&s, lo + 200000, lo + 200099, 5, &found), SEARCH_NONE);
	ck_assert_uint_gt(s.jobs[before].gen, s.last_halt);
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

/* After the last generation the word is renewed and they start again. */
START_TEST(walk_renews_after_the_last_generation)
{
	struct script s;
	uint64_t found;

	script_init(&s, 2, 100);
	s.l.gen = GPU_GEN_MAX - 1;
	ck_assert_int_eq(script_walk(&s, 1000, 1399, 5, &found), SEARCH_NONE);
	ck_assert_uint_eq(s.renews, 1);
	ck_assert_uint_eq(s.jobs[0].gen, GPU_GEN_MAX);
	ck_assert_uint_eq(s.jobs[1].gen, 1);
	ck_assert_uint_eq(s.jobs[3].gen, 3);
	ck_assert_int_eq(s.bad, 0);
}
END_TEST

/* Launches take the size that runs launch_ns at the measured rate, moving
 * half-way there each time, within bounds; a launch that found something
 * sizes nothing. */
START_TEST(walk_sizes_launches_by_rate)
{
	uint64_t lo = UINT64_C(1) << 32, found;
	struct script s;

	script_init(&s, 1, 1000);
	s.ns_per_value = 100; /* 10 M values/s: 10,000 values a launch_ns */
	ck_assert_int_eq(script_walk(&s, lo, lo + 99999, 5, &found), SEARCH_NONE);
	ck_assert_uint_eq(s.jobs[0].count, 1000);
	ck_assert_uint_eq(s.jobs[1].count, 5500);
	ck_assert_uint_eq(s.jobs[2].count, 7750);
	ck_assert(s.l.rate > 0.99e7 && s.l.rate < 1.01e7);
	script_init(&s, 1, 1000);
	s.ns_per_value = 100;
	s.l.chunk_max = 6000;
	script_walk(&s, lo, lo + 99999, 5, &found);
	ck_assert_uint_eq(s.jobs[2].count, 6000);
	script_init(&s, 1, 1000);
	s.ns_per_value = 100;
	s.ncands = 1;
	s.cands[0] = lo + 10; /* a false one, in the first launch */
	script_walk(&s, lo, lo + 99999, 5, &found);
	ck_assert_uint_eq(s.jobs[1].count, 1000);
}
END_TEST

/* Launches expected to end within spin_ns are waited for by spinning;
 * longer ones, and any before the rate is known, by sleeping. */
START_TEST(walk_spins_for_short_launches)
{
	struct script s;
	uint64_t found;

	script_init(&s, 1, 100000);
	s.l.spin_ns = 200000;
	ck_assert_int_eq(gpu_walk_spins(&s.l, 1), 0); /* no rate yet */
	s.l.rate = 1e9;
	ck_assert_int_eq(gpu_walk_spins(&s.l, 100000), 1);   /* 100 us */
	ck_assert_int_eq(gpu_walk_spins(&s.l, 300000), 0);   /* 300 us */
	s.l.spin_ns = 0;
	ck_assert_int_eq(gpu_walk_spins(&s.l, 1), 0);
	script_init(&s, 1, 100000);
	s.l.spin_ns = 200000;
	s.ns_per_value = 1; /* 1 G values/s */
	s.l.chunk_max = 100000;
	script_walk(&s, 0, 99999, 5, &found);
	ck_assert_uint_eq(s.jobs[0].spin, 0);
	script_walk(&s, 100000, 199999, 5, &found);
	ck_assert_uint_eq(s.jobs[1].spin, 1);
	s.l.chunk_max = s.l.chunk = 1000000;
	script_walk(&s, 200000, 1199999, 5, &found);
	ck_assert_uint_eq(s.jobs[2].spin, 0);
}
END_TEST

/* A device with made-up rates: the calls it got, the rate it answers. */
struct fake {
	double rates[4];
	unsigned slow;          /* bit k: variant 1's run k at a tenth */
	unsigned calls[4];
	uint64_t values[4][8];
};

static double fake_run(void *ctx, size_t i, uint64_t values)
{
	struct fake *f = ctx;
	unsigned call = f->calls[i]++;

	if (call < 8)
		f->values[i][call] = values;
	return i == 1 && call < 32 && f->slow >> call & 1 ? f->rates[i] / 10 : f->rates[i];
}

static struct pick three(void)
{
	return (struct pick){ .n = 3, .names = { "a", "b", "c" }, .probe = 100,
				     .sample_ns = 1000000, .rounds = 3 };
}

/* Measured (for NULL, auto, or a CPU kernel's name): every variant runs
 * rounds + 1 times, sized by its rate after the first, and the fastest is
 * chosen by its best run, whichever runs were slow. */
START_TEST(pick_measures_and_takes_the_fastest)
{
	const char *wants[] = { NULL, "auto", "portable" };
	unsigned slow[] = { 0, 0x3, 0xc }; /* none, the first two, the last two */

	for (int w = 0; w < 3; w++) {
		struct fake f = { .rates = { 3e6, 9e6, 5e6 }, .slow = slow[w] };
		struct pick p = three();
		char err[8];

		ck_assert_int_eq(device_pick(&p, 3, wants[w], fake_run, &f, err, sizeof err), 0);
		ck_assert_uint_eq(p.chosen, 1);
		ck_assert_int_eq(p.forced, 0);
		for (int i = 0; i < 3; i++)
			ck_assert_uint_eq(f.calls[i], 4);
		ck_assert_uint_eq(f.values[0][0], 100);
		ck_assert_uint_eq(f.values[0][1], 3001); /* 1 ms at 3 M/s */
		ck_assert(p.rates[1] == 9e6 && p.rates[2] == 5e6);
	}
}
END_TEST

/* A variant whose stops are slower (a handicap) is chosen only when it
 * beats the others by more than its handicap: 3% faster loses, 10% wins,
 * and without the handicap 3% wins. */
START_TEST(pick_weighs_a_slow_stopper)
{
	double faster[] = { 1.03, 1.10, 1.03 };
	double handicap[] = { DEVICE_SLOW_STOP, DEVICE_SLOW_STOP, 0 };
	size_t want[] = { 1, 2, 2 };

	for (int t = 0; t < 3; t++) {
		struct fake f = { .rates = { 3e6, 9e6, 9e6 * faster[t] } };
		struct pick p = three();

		p.handicap[2] = handicap[t];
		ck_assert_int_eq(device_pick(&p, 3, NULL, fake_run, &f, NULL, 0), 0);
		ck_assert_msg(p.chosen == want[t], "case %d: chose %zu, not %zu", t,
			      p.chosen, want[t]);
	}
}
END_TEST

/* A variant's name forces it, measuring nothing, one past those measured
 * too; measuring leaves those out; an unknown name is refused, and the
 * message names every variant there is. */
START_TEST(pick_by_name)
{
	struct fake f = { .rates = { 3e6, 9e6, 5e6 } };
	struct pick p = three();
	char err[128], line[128];

	ck_assert_int_eq(device_pick(&p, 2, "c", fake_run, &f, err, sizeof err), 0);
	ck_assert_uint_eq(p.chosen, 2);
	ck_assert_int_eq(p.forced, 1);
	ck_assert_uint_eq(f.calls[0] + f.calls[1] + f.calls[2], 0);
	pick_line(&p, line, sizeof line);
	ck_assert_str_eq(line, "c (forced by name)");
	ck_assert_int_eq(device_pick(&p, 2, "zzz", fake_run, &f, err, sizeof err), -EINVAL);
	ck_assert_str_eq(err, "unknown kernel zzz (this device's: a, b, c; or auto)");
	ck_assert_int_eq(device_pick(&p, 2, "auto", fake_run, &f, err, sizeof err), 0);
	ck_assert_uint_eq(p.chosen, 1);
	ck_assert_uint_eq(f.calls[2], 0);
}
END_TEST

START_TEST(pick_line_says_what_and_why)
{
	struct fake f = { .rates = { 3e6, 9e6, 5e6 } }, g = { .rates = { 16.2e9, 19.5e9, 1e9 } };
	struct pick p = three();
	char line[160];

	device_pick(&p, 3, NULL, fake_run, &f, NULL, 0);
	p.ns = 42000000;
	pick_line(&p, line, sizeof line);
	ck_assert_str_eq(line, "b (a 3.00, b 9.00, c 5.00 M hashes/s, measured in 42 ms)");
	device_pick(&p, 3, NULL, fake_run, &g, NULL, 0);
	p.ns = 7000000;
	pick_line(&p, line, sizeof line);
	ck_assert_str_eq(line, "b (a 16.20, b 19.50, c 1.00 G hashes/s, measured in 7 ms)");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gpu_walk");
	TCase *walk = tcase_create("walk"), *pick = tcase_create("pick");

	tcase_set_timeout(walk, 10);
	tcase_set_timeout(pick, 10);
	tcase_add_test(walk, walk_launches_the_whole_range);
	tcase_add_test(walk, walk_passes_false_candidates);
	tcase_add_test(walk, walk_false_candidate_at_the_top);
	tcase_add_test(walk, walk_stops_between_launches);
	tcase_add_test(walk, walk_halted_launch_stops_at_its_first);
	tcase_add_test(walk, walk_halts_what_it_leaves_in_flight);
	tcase_add_test(walk, walk_passes_a_device_failure_up);
	tcase_add_test(walk, walk_renews_after_the_last_generation);
	tcase_add_test(walk, walk_sizes_launches_by_rate);
	tcase_add_test(walk, walk_spins_for_short_launches);
	tcase_add_test(pick, pick_measures_and_takes_the_fastest);
	tcase_add_test(pick, pick_weighs_a_slow_stopper);
	tcase_add_test(pick, pick_by_name);
	tcase_add_test(pick, pick_line_says_what_and_why);
	suite_add_tcase(s, walk);
	suite_add_tcase(s, pick);
	return check_run(s);
}
