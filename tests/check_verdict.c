/* Tests for the race's rules (bench/verdict.c), fed numbers: the order of
 * each round, the spread of a column, the verdict (reliability first, then
 * every round by the margin, at least three rounds) and its sentence; and
 * the workload presets the race and the scripts share (bench/workload.c),
 * whose small ones take their delay from a rate as lib.sh's delay_for. */
#include "bench/verdict.h"
#include "bench/workload.h"
#include "tests/check_run.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <string.h>

START_TEST(order_alternates_abba)
{
	/* Two servers: A B, B A, A B, B A. */
	for (unsigned r = 1; r <= 6; r++) {
		ck_assert_uint_eq(verdict_order(r, 2, 0), r % 2 ? 0 : 1);
		ck_assert_uint_eq(verdict_order(r, 2, 1), r % 2 ? 1 : 0);
	}
	/* Three: A B C, C B A, A B C; every round runs each server once. */
	for (unsigned r = 1; r <= 5; r++) {
		unsigned seen = 0;

		for (unsigned k = 0; k < 3; k++) {
			unsigned i = verdict_order(r, 3, k);

			ck_assert_uint_eq(i, r % 2 ? k : 2 - k);
			seen |= 1u << i;
		}
		ck_assert_uint_eq(seen, 7);
	}
}
END_TEST

START_TEST(spread_of_a_column)
{
	const double odd[] = { 30, 10, 20, 50, 40 }, even[] = { 4, 1, 3, 2 };
	double copy[5];
	struct verdict_spread s;

	memcpy(copy, odd, sizeof copy);
	ck_assert_int_eq(verdict_spread(copy, 5, &s), 0);
	ck_assert(s.median == 30 && s.min == 10 && s.max == 50);
	ck_assert(memcmp(copy, odd, sizeof copy) == 0); /* left alone */
	ck_assert_int_eq(verdict_spread(even, 4, &s), 0);
	ck_assert(s.median == 2.5 && s.min == 1 && s.max == 4);
	ck_assert_int_eq(verdict_spread(even, 1, &s), 0);
	ck_assert(s.median == 4 && s.min == 4 && s.max == 4);
	ck_assert_int_eq(verdict_spread(even, 0, &s), -EINVAL);
}
END_TEST

/* Judge two columns of scores, both sides with every answer right. */
static struct verdict judge(const double *a, const double *b, unsigned rounds,
			    double margin)
{
	struct verdict_side sa = { a, 100 }, sb = { b, 100 };
	struct verdict v;

	ck_assert_int_eq(verdict_judge(&sa, &sb, rounds, 100, margin, &v), 0);
	return v;
}

START_TEST(every_round_by_the_margin)
{
	const double a[] = { 200, 220, 180, 210, 190 };
	const double b[] = { 100, 100, 90, 100, 95 };
	const char *name[2] = { "A", "B" };
	char text[256];
	struct verdict v = judge(a, b, 5, 0.10);

	ck_assert_int_eq(v.kind, VERDICT_SCORE);
	ck_assert_uint_eq(v.winner, 1);
	ck_assert_uint_eq(v.loser, 0);
	ck_assert(fabs(v.ratio - 200.0 / 100) < 1e-12); /* of the medians */
	ck_assert(fabs(v.min_ratio - 190.0 / 95) < 1e-12);
	ck_assert(fabs(v.max_ratio - 2.2) < 1e-12);
	verdict_text(&v, name, 0.10, text, sizeof text);
	ck_assert_str_eq(text, "B scores 2.00x better than A in 5 of 5 rounds");
	/* The other way round, the same verdict for the same server. */
	v = judge(b, a, 5, 0.10);
	ck_assert_int_eq(v.kind, VERDICT_SCORE);
	ck_assert_uint_eq(v.winner, 0);
}
END_TEST

START_TEST(one_round_short_of_the_margin)
{
	/* Exactly 10% counts; one round at 9.9% spoils it. */
	const double a[] = { 110, 220, 330 }, b[] = { 100, 200, 300 };
	const double c[] = { 110, 219.8, 330 };
	const char *name[2] = { "A", "B" };
	char text[256];
	struct verdict v = judge(a, b, 3, 0.10);

	ck_assert_int_eq(v.kind, VERDICT_SCORE);
	ck_assert_uint_eq(v.winner, 1);
	v = judge(c, b, 3, 0.10);
	ck_assert_int_eq(v.kind, VERDICT_OVERLAP);
	ck_assert(fabs(v.min_ratio - 100.0 / 110) < 1e-12); /* b over a */
	ck_assert(fabs(v.max_ratio - 200 / 219.8) < 1e-12);
	verdict_text(&v, name, 0.10, text, sizeof text);
	ck_assert_str_eq(text, "no verdict between A and B: B led every round, "
			 "but not all by 10% (B's score / A's, round by round: "
			 "0.91 to 0.91; a verdict needs every round 10% or more "
			 "the same way)");
	/* With no margin, any lead in every round is one. */
	ck_assert_int_eq(judge(c, b, 3, 0).kind, VERDICT_SCORE);
}
END_TEST

START_TEST(rounds_that_disagree_or_are_too_few)
{
	const double a[] = { 100, 300, 100, 300 }, b[] = { 200, 100, 200, 100 };
	const double far[] = { 1000, 1000 }, near[] = { 1, 1 };
	const char *led = "no verdict between A and B: A led every round, but "
			  "not all by 10% (B's score / A's, round by round: 1.05 "
			  "to 1.10;";
	const char *name[2] = { "A", "B" };
	char text[256];
	struct verdict v = judge(a, b, 4, 0.10);

	ck_assert_int_eq(v.kind, VERDICT_OVERLAP);
	ck_assert(fabs(v.min_ratio - 1.0 / 3) < 1e-12 && v.max_ratio == 2);
	verdict_text(&v, name, 0.10, text, sizeof text);
	ck_assert_str_eq(text, "no verdict between A and B: the rounds overlap "
			 "(B's score / A's, round by round: 0.33 to 2.00; a "
			 "verdict needs every round 10% or more the same way)");
	/* A ahead in every round, once by less than the margin. */
	v = judge(b, (const double[]){ 210, 105, 220, 109 }, 4, 0.10);
	ck_assert_int_eq(v.kind, VERDICT_OVERLAP);
	verdict_text(&v, name, 0.10, text, sizeof text);
	ck_assert(strncmp(text, led, strlen(led)) == 0);
	/* A thousand times better, but in two rounds: no verdict. */
	v = judge(far, near, 2, 0.10);
	ck_assert_int_eq(v.kind, VERDICT_FEW_ROUNDS);
	verdict_text(&v, name, 0.10, text, sizeof text);
	ck_assert_str_eq(text, "no verdict between A and B: 2 rounds are too "
			 "few (a verdict needs 3)");
}
END_TEST

START_TEST(reliability_first)
{
	/* a is ten times faster in every round, but lost one answer. */
	const double a[] = { 10, 10, 10, 10, 10 }, b[] = { 100, 100, 100, 100, 100 };
	struct verdict_side sa = { a, 499 }, sb = { b, 500 };
	const char *name[2] = { "fast", "right" };
	char text[256];
	struct verdict v;

	ck_assert_int_eq(verdict_judge(&sa, &sb, 5, 500, 0.10, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_RELIABILITY);
	ck_assert_uint_eq(v.winner, 1);
	verdict_text(&v, name, 0.10, text, sizeof text);
	ck_assert_str_eq(text, "right beats fast on reliability: 500 of 500 "
			 "answers right, fast 499 (99.80%)");
	/* Even in one round, and even when neither got all right. */
	sa.ok = 10;
	sb.ok = 20;
	ck_assert_int_eq(verdict_judge(&sa, &sb, 1, 500, 0.10, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_RELIABILITY);
	ck_assert_uint_eq(v.winner, 1);
	/* As many wrong on both sides: no verdict on their scores. */
	sb.ok = 10;
	ck_assert_int_eq(verdict_judge(&sa, &sb, 5, 500, 0.10, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_UNRELIABLE);
}
END_TEST

START_TEST(scores_that_cannot_be_compared)
{
	const double a[] = { 200, 200, 0 }, b[] = { 100, 100, 100 };
	const double c[] = { 200, NAN, 200 };
	struct verdict_side sa = { a, 1 }, sb = { b, 1 };
	struct verdict v;

	ck_assert_int_eq(judge(a, b, 3, 0.10).kind, VERDICT_OVERLAP);
	ck_assert_int_eq(judge(b, a, 3, 0.10).kind, VERDICT_OVERLAP);
	v = judge(c, b, 3, 0.10);
	ck_assert_int_eq(v.kind, VERDICT_OVERLAP);
	ck_assert(v.min_ratio == 0.5 && v.max_ratio == 0.5); /* the usable rounds */
	ck_assert_int_eq(verdict_judge(&sa, &sb, 0, 1, 0.10, &v), -EINVAL);
	ck_assert_int_eq(verdict_judge(&sa, &sb, 3, 1, -0.01, &v), -EINVAL);
}
END_TEST

START_TEST(percent_rounds_down)
{
	ck_assert(verdict_percent(999999, 1000000) == 99.99);
	ck_assert(verdict_percent(1, 3) == 33.33);
	ck_assert(verdict_percent(7, 7) == 100);
	ck_assert(verdict_percent(0, 0) == 0);
}
END_TEST

START_TEST(presets_are_the_benchmark_rows)
{
	const struct wl_preset *w = wl_preset_find("final");
	struct wl_params p;
	char names[128];

	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(wl_preset_params(w, 0, &p), 0);
	ck_assert(p.seed == 3435245 && p.total == 500 && p.start == 0 &&
		  p.difficulty == 30000000 && p.rep == 20 &&
		  p.delay_us == 600000 && p.lambda == 1.5);
	ck_assert_ptr_nonnull(w = wl_preset_find("milestone"));
	ck_assert_int_eq(wl_preset_params(w, 5e6, &p), 0);
	ck_assert(p.total == 100 && p.delay_us == 600000); /* the rate aside */
	/* A quarter load: lib.sh's delay_for 1000000 0.25 at 142.7 M/s. */
	ck_assert_ptr_nonnull(w = wl_preset_find("1M"));
	ck_assert_int_eq(wl_preset_params(w, 142.7e6, &p), 0);
	ck_assert(p.total == 200 && p.difficulty == 1000000);
	ck_assert_uint_eq(p.delay_us, 11212);
	ck_assert_int_eq(wl_preset_params(w, 0, &p), -EINVAL);
	ck_assert_ptr_nonnull(wl_preset_find("300k"));
	ck_assert_ptr_nonnull(wl_preset_find("100k"));
	ck_assert_ptr_null(wl_preset_find("1m"));
	ck_assert_ptr_null(wl_preset_find(""));
	wl_preset_names(names, sizeof names);
	ck_assert_str_eq(names, "milestone, final, 1M, 300k, 100k");
}
END_TEST

static Suite *verdict_suite(void)
{
	Suite *s = suite_create("verdict");
	TCase *t = tcase_create("verdict");

	tcase_set_timeout(t, 10);
	tcase_add_test(t, order_alternates_abba);
	tcase_add_test(t, spread_of_a_column);
	tcase_add_test(t, every_round_by_the_margin);
	tcase_add_test(t, one_round_short_of_the_margin);
	tcase_add_test(t, rounds_that_disagree_or_are_too_few);
	tcase_add_test(t, reliability_first);
	tcase_add_test(t, scores_that_cannot_be_compared);
	tcase_add_test(t, percent_rounds_down);
	tcase_add_test(t, presets_are_the_benchmark_rows);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return check_run(verdict_suite());
}
