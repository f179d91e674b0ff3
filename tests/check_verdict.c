/* Tests for the race's rules (bench/race/verdict.c), fed numbers: the
 * order of each round, the spread of a column, the crossover interval
 * against its tables and a brute force, the verdict (reliability first,
 * then flagged runs, then the interval's three outcomes) and its
 * sentence; then the rules on simulated races, seeded from the run's seed
 * (TH_SEED replays it): how often equal servers get a winner, how often
 * a real difference is found.
 * And the workload presets the race and the scripts share
 * (bench/workload.c), whose small ones take their delay from a rate as
 * lib-bench.sh's delay_for. */
#include "bench/race/verdict.h"
#include "bench/workload.h"
#include "tests/check_run.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
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

/* --- the crossover interval ---------------------------------------------- */

START_TEST(critical_counts_match_the_tables)
{
	unsigned k;
	double conf;

	/* Mann-Whitney, two-sided 5%: reject U <= 0 at 4 and 4, U <= 2 at 5
	 * and 5 (P = 4/252 a side), U <= 23 at 10 and 10; nothing at 4 and 3. */
	ck_assert_int_eq(crossover_critical(4, 4, 0.05, &k, &conf), 0);
	ck_assert_uint_eq(k, 1);
	ck_assert(fabs(conf - (1 - 2.0 / 70)) < 1e-12);
	ck_assert_int_eq(crossover_critical(5, 5, 0.05, &k, &conf), 0);
	ck_assert_uint_eq(k, 3);
	ck_assert(fabs(conf - (1 - 8.0 / 252)) < 1e-12);
	ck_assert_int_eq(crossover_critical(10, 10, 0.05, &k, &conf), 0);
	ck_assert_uint_eq(k, 24);
	ck_assert_int_eq(crossover_critical(4, 3, 0.05, &k, &conf), 0);
	ck_assert_uint_eq(k, 0);
	/* Where the exact counts end, the normal approximation takes over
	 * within one count. */
	unsigned exact, approx;

	ck_assert_int_eq(crossover_critical(30, 30, 0.05, &exact, &conf), 0);
	ck_assert_int_eq(crossover_critical(31, 30, 0.05, &approx, &conf), 0);
	ck_assert(exact >= 316 && exact <= 318); /* 317 in the tables */
	ck_assert(approx >= exact && approx <= exact + 16);
	ck_assert(fabs(crossover_z(0.05) - 1.959964) < 1e-6);
	ck_assert_int_eq(crossover_critical(5, 5, 0, &k, &conf), -EINVAL);
	ck_assert_uint_eq(verdict_min_rounds(0.05), 8);
	ck_assert(fabs(verdict_look_alpha(20, 0.05) - 0.05 / 7) < 1e-15);
	ck_assert(verdict_look_alpha(8, 0.05) == 0.05);
}
END_TEST

/* A small random generator of the test's own, from the run's seed. */
static uint64_t rng_state;

static uint64_t next64(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static double uniform(void)
{
	return ((next64() >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

static void seed_rng(void)
{
	rng_state = th_seed() * 0x9e3779b97f4a7c15ull | 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

START_TEST(interval_is_the_sums_order_statistics)
{
	seed_rng();
	for (int t = 0; t < 200; t++) {
		unsigned m = 4 + next64() % 12, n = 4 + next64() % 12, k;
		double x[16], y[16], w[256], conf;
		struct crossover c;

		for (unsigned i = 0; i < m; i++)
			x[i] = gauss();
		for (unsigned j = 0; j < n; j++)
			y[j] = t % 2 ? gauss() : (double)(next64() % 4); /* ties */
		for (unsigned i = 0; i < m; i++)
			for (unsigned j = 0; j < n; j++)
				w[i * n + j] = (x[i] + y[j]) / 2;
		qsort(w, m * n, sizeof *w, cmp_double);
		ck_assert_int_eq(crossover_critical(m, n, 0.05, &k, &conf), 0);
		ck_assert_int_eq(crossover_interval(x, m, y, n, 0.05, &c), 0);
		ck_assert_msg(c.lo == w[k - 1] && c.hi == w[m * n - k],
			      "m %u n %u, TH_SEED=%s", m, n, getenv("TH_SEED"));
		ck_assert(c.estimate == (m * n % 2 ? w[m * n / 2] :
					 (w[m * n / 2 - 1] + w[m * n / 2]) / 2));
		ck_assert(c.conf == conf && conf >= 0.95);
	}
}
END_TEST

/* Scores of rounds: base times exp(q) for b, base for a. */
static void rounds_of(const double *q, unsigned n, double *a, double *b)
{
	for (unsigned r = 0; r < n; r++) {
		a[r] = 1000;
		b[r] = 1000 * exp(q[r]);
	}
}

static struct verdict judge(const double *a, const double *b, unsigned rounds,
			    double margin)
{
	struct verdict_side sa = { a, 100, 0, 0, 0, 0 }, sb = { b, 100, 0, 0, 0, 0 };
	struct verdict_rule rule = { margin, VERDICT_ALPHA };
	struct verdict v;

	ck_assert_int_eq(verdict_judge(&sa, &sb, rounds, 100, &rule, &v), 0);
	return v;
}

START_TEST(steady_drift_cancels)
{
	/* B 20% lower, and whoever runs second gains 30%: every AB round
	 * reads 0.8 * 0.7, every BA round 0.8 / 0.7. */
	double q[10], a[10], b[10];
	struct verdict v;

	for (unsigned r = 0; r < 10; r++)
		q[r] = log(0.8) + (r % 2 ? 1 : -1) * log(0.7) + 0.01 * (r % 3);
	rounds_of(q, 10, a, b);
	v = judge(a, b, 10, 0.10);
	ck_assert_int_eq(v.kind, VERDICT_FASTER);
	ck_assert_uint_eq(v.winner, 1);
	ck_assert(fabs(v.ratio / 0.8 - 1) < 0.02);
	ck_assert(v.lo >= 0.79 && v.hi < 0.82);
}
END_TEST

START_TEST(three_outcomes_and_their_sentences)
{
	const double faster[] = { -0.30, -0.20, -0.25, -0.15, -0.22, -0.28, -0.18, -0.24 };
	const double same[] = { 0.01, -0.02, 0.0, 0.02, -0.01, 0.015, -0.005, 0.0 };
	const double wide[] = { 0.3, -0.3, 0.1, -0.2, 0.25, -0.1, 0.0, 0.2 };
	const char *name[2] = { "A", "B" };
	struct verdict_rule rule = { 0.10, VERDICT_ALPHA };
	double a[8], b[8];
	char text[512];
	struct verdict v;

	rounds_of(faster, 8, a, b);
	v = judge(a, b, 8, 0.10);
	ck_assert_int_eq(v.kind, VERDICT_FASTER);
	ck_assert_uint_eq(v.winner, 1);
	verdict_text(&v, name, &rule, text, sizeof text);
	ck_assert_str_eq(text, "B is faster than A by 20.3% [15.2%, 25.2%]: B's "
			 "score / A's 0.797 [0.748, 0.848] (97.1% interval, 8 rounds)");
	v = judge(b, a, 8, 0.10); /* the same, sides swapped */
	ck_assert_int_eq(v.kind, VERDICT_FASTER);
	ck_assert_uint_eq(v.winner, 0);
	verdict_text(&v, name, &rule, text, sizeof text);
	ck_assert(strncmp(text, "A is faster than B by 20.3% [15.2%, 25.2%]: A's "
			  "score / B's 0.797 [0.748, 0.848]", 80) == 0);
	rounds_of(same, 8, a, b);
	v = judge(a, b, 8, 0.10);
	ck_assert_int_eq(v.kind, VERDICT_EQUIVALENT);
	verdict_text(&v, name, &rule, text, sizeof text);
	ck_assert(strncmp(text, "A and B are equivalent within \u00b110%: B's score "
			  "/ A's 1.00", 56) == 0);
	rounds_of(wide, 8, a, b);
	v = judge(a, b, 8, 0.10);
	ck_assert_int_eq(v.kind, VERDICT_INCONCLUSIVE);
	ck_assert(v.more >= 2 && v.more % 2 == 0 && v.more < 200);
	verdict_text(&v, name, &rule, text, sizeof text);
	ck_assert(strstr(text, "no verdict between A and B: inconclusive: about "));
	ck_assert(strstr(text, " more rounds would decide: B's score / A's "));
	ck_assert(strstr(text, "; a verdict needs the interval clear of 1, or "
			 "within \u00b110%"));
	/* Too few: 7 rounds, or 8 of which one has no score. */
	v = judge(a, b, 7, 0.10);
	ck_assert_int_eq(v.kind, VERDICT_FEW_ROUNDS);
	a[3] = NAN;
	v = judge(a, b, 8, 0.10);
	ck_assert_int_eq(v.kind, VERDICT_FEW_ROUNDS);
	verdict_text(&v, name, &rule, text, sizeof text);
	ck_assert_str_eq(text, "no verdict between A and B: 7 rounds are too few "
			 "(a 95% interval needs 8, of both orders)");
}
END_TEST

START_TEST(reliability_then_flagged_runs)
{
	/* a is ten times faster in every round, but lost one answer. */
	const double a[] = { 10, 10, 10, 10, 10, 10, 10, 10 };
	const double b[] = { 100, 100, 100, 100, 100, 100, 100, 100 };
	struct verdict_side sa = { a, 799, 0, 0, 0, 0 }, sb = { b, 800, 0, 0, 0, 0 };
	struct verdict_rule rule = { 0.10, VERDICT_ALPHA };
	const char *name[2] = { "fast", "right" };
	char text[512];
	struct verdict v;

	ck_assert_int_eq(verdict_judge(&sa, &sb, 8, 800, &rule, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_RELIABILITY);
	ck_assert_uint_eq(v.winner, 1);
	verdict_text(&v, name, &rule, text, sizeof text);
	ck_assert_str_eq(text, "right beats fast on reliability: 800 of 800 "
			 "answers right, fast 799 (99.87%)");
	/* Even when flagged, and even in one round. */
	sb.flagged = 1;
	ck_assert_int_eq(verdict_judge(&sa, &sb, 1, 800, &rule, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_RELIABILITY);
	/* All right on both sides, but a ran faster than hashing allows. */
	sa.ok = 800;
	sb.flagged = 0;
	sa.flagged = 3;
	ck_assert_int_eq(verdict_judge(&sa, &sb, 8, 800, &rule, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_FLAGGED);
	verdict_text(&v, name, &rule, text, sizeof text);
	ck_assert_str_eq(text, "no verdict between fast and right: fast ran faster "
			 "than hashing allows in 3 rounds (answers it knew before: "
			 "restart it, or race with --seed)");
	/* Other processes used the CPUs during b's runs: no verdict, and b is
	 * named. */
	sa.flagged = 0;
	sb.shared = 2;
	ck_assert_int_eq(verdict_judge(&sa, &sb, 8, 800, &rule, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_SHARED);
	verdict_text(&v, name, &rule, text, sizeof text);
	ck_assert_str_eq(text, "no verdict between fast and right: right ran while "
			 "other processes used the CPUs in 2 rounds (its times were "
			 "not its own)");
	sb.shared = 0;
	/* As many wrong on both sides: no verdict on their scores. */
	sa.ok = sb.ok = 700;
	ck_assert_int_eq(verdict_judge(&sa, &sb, 8, 800, &rule, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_UNRELIABLE);
	rule.alpha = 0;
	ck_assert_int_eq(verdict_judge(&sa, &sb, 8, 800, &rule, &v), -EINVAL);
	rule = (struct verdict_rule){ -0.01, VERDICT_ALPHA };
	ck_assert_int_eq(verdict_judge(&sa, &sb, 8, 800, &rule, &v), -EINVAL);
	ck_assert_int_eq(verdict_judge(&sa, &sb, 0, 800, &rule, &v), -EINVAL);
}
END_TEST

/* A side that left the CPUs busy for the other's runs (after its own, or
 * searching a closed probe past the race's wait) never wins; the other,
 * whose runs bore that handicap, wins when its interval clears the
 * margin even so, "at least" by the interval's bound; by less, or when
 * the side that caused it ran while others used the CPUs, or when both
 * caused one, there is no verdict. */
START_TEST(a_handicapped_win_is_one_sided)
{
	/* B's score 3 to 4 times A's: A faster by 67% [63%, 70%] or so. */
	const double slower[] = { 1.10, 1.30, 1.20, 1.35, 1.15, 1.25, 1.28, 1.12 };
	const double near[] = { 0.05, 0.12, 0.08, 0.15, 0.06, 0.10, 0.11, 0.07 };
	const char *name[2] = { "A", "B" };
	struct verdict_rule rule = { 0.10, VERDICT_ALPHA };
	double a[8], b[8];
	struct verdict_side sa = { a, 800, 0, 0, 0, 0 }, sb = { b, 800, 0, 0, 0, 0 };
	struct verdict v;
	char text[512];

	rounds_of(slower, 8, a, b);
	sb.busy = 8;
	sa.shared = 8; /* B's leftovers, as A's runs saw them */
	ck_assert_int_eq(verdict_judge(&sa, &sb, 8, 800, &rule, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_AT_LEAST);
	ck_assert_uint_eq(v.winner, 0);
	verdict_text(&v, name, &rule, text, sizeof text);
	ck_assert_msg(strstr(text, "A is faster than B by at least ") == text &&
		      strstr(text, "% (its interval's bound), measured under a handicap: "
			     "A's runs shared the machine with what B left running (B "
			     "kept the CPUs busy after its run in 8 rounds): A's score / "
			     "B's 0."), "%s", text);
	/* "at least" is the interval's bound: 1 - (A's / B's) at its top. */
	ck_assert(strstr(text, "(97.1% interval, 8 rounds)"));
	{
		char bound[32];

		snprintf(bound, sizeof bound, "at least %.1f%%", (1 - 1 / v.lo) * 100);
		ck_assert_msg(strstr(text, bound), "%s lacks %s", text, bound);
	}
	/* The same from a closed probe B searched past the race's wait, and
	 * with the sides the other way round. */
	sb.busy = 0;
	sb.left = 2;
	ck_assert_int_eq(verdict_judge(&sb, &sa, 8, 800, &rule, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_AT_LEAST);
	ck_assert_uint_eq(v.winner, 1);
	name[0] = "B";
	name[1] = "A";
	verdict_text(&v, name, &rule, text, sizeof text);
	ck_assert_msg(strstr(text, "A is faster than B by at least ") == text &&
		      strstr(text, "(B searched a closed probe past the race's wait "
			     "in 2 rounds): A's score / B's 0."), "%s", text);
	name[0] = "A";
	name[1] = "B";
	/* Never for the side that caused it, however it scored: here A,
	 * three times faster, and B's runs shared the machine with it. */
	sb.left = 0;
	sa.left = 3;
	sa.shared = 0;
	sb.shared = 8;
	ck_assert_int_eq(verdict_judge(&sa, &sb, 8, 800, &rule, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_BUSY);
	verdict_text(&v, name, &rule, text, sizeof text);
	ck_assert_str_eq(text, "no verdict between A and B: A searched a closed probe "
			 "past the race's wait in 3 rounds (the other's runs shared "
			 "the machine with it)");
	/* Both caused one. */
	sb.busy = 1;
	ck_assert_int_eq(verdict_judge(&sb, &sa, 8, 800, &rule, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_BUSY);
	/* The side that caused it ran while others used the CPUs too. */
	sa.left = 0;
	sb.shared = 1;
	ck_assert_int_eq(verdict_judge(&sa, &sb, 8, 800, &rule, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_BUSY);
	/* A faster, but not by the margin at its interval's bound. */
	sb.shared = 0;
	rounds_of(near, 8, a, b);
	ck_assert_int_eq(verdict_judge(&sa, &sb, 8, 800, &rule, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_BUSY);
	/* Without the handicap, that is a plain win. */
	sb.busy = 0;
	ck_assert_int_eq(verdict_judge(&sa, &sb, 8, 800, &rule, &v), 0);
	ck_assert_int_eq(v.kind, VERDICT_FASTER);
	ck_assert_uint_eq(v.winner, 0);
}
END_TEST

/* A run is faster than hashing allows by its efficiency at its rate, or
 * by its latencies against its work's hashing at its rate, or else at
 * the machine's peak: a run with no probe is caught by the peak alone,
 * and a figure of 0 checks nothing. */
START_TEST(too_fast_runs)
{
	/* 2e8 values at 1e8 a second: 2 s of hashing. */
	static const struct {
		struct verdict_speed s;
		enum verdict_fast fast;
	} c[] = {
		{ { 0.97, 2e8, 3.0, 1e8, 0 }, VERDICT_FAST_NO },
		{ { 1.38, 2e8, 0.6, 1e8, 0 }, VERDICT_FAST_NO },
		{ { 4.1, 2e8, 3.0, 1e8, 0 }, VERDICT_FAST_EFFICIENCY },
		{ { 465, 2e8, 0.001, 1e8, 0 }, VERDICT_FAST_EFFICIENCY },
		{ { 0, 2e8, 0.4, 1e8, 0 }, VERDICT_FAST_LATENCY },
		{ { 0, 2e8, 0.4, 1e8, 4e8 }, VERDICT_FAST_LATENCY },
		{ { 0, 0, 0, 0, 0 }, VERDICT_FAST_NO },
		/* No probe: the peak of 4e8 makes it 0.5 s of hashing. */
		{ { 0, 2e8, 0.12, 0, 4e8 }, VERDICT_FAST_PEAK },
		{ { 0, 2e8, 0.13, 0, 4e8 }, VERDICT_FAST_NO },
		{ { 0, 2e8, 0.12, 0, 0 }, VERDICT_FAST_NO },
		/* A probe above the peak (a server answering probes at once):
		 * the peak still catches what the probe cannot. */
		{ { 0, 2e8, 0.001, 1e12, 4e8 }, VERDICT_FAST_PEAK },
	};

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		ck_assert_msg(verdict_too_fast(&c[i].s) == c[i].fast, "case %zu", i);
}
END_TEST

/* --- the rules on simulated races ----------------------------------------- */

/* One simulated race of rounds rounds: b's score is effect times a's, and
 * each run's score varies by noise / sqrt(2) (log-normal), so that a
 * round's ratio varies by noise, as measured here round to round; the
 * machine slows by 3% a run, steadily. Up to rounds, or until decided
 * after a pair of rounds with until. */
static struct verdict simulate(unsigned rounds, double effect, double noise,
			       int until)
{
	double a[64], b[64], sd = noise / sqrt(2), t = 0;
	struct verdict_side sa = { a, 1, 0, 0, 0, 0 }, sb = { b, 1, 0, 0, 0, 0 };
	struct verdict_rule rule = { 0.10, until ? verdict_look_alpha(rounds, VERDICT_ALPHA) :
				     VERDICT_ALPHA };
	struct verdict v;

	for (unsigned r = 1; r <= rounds; r++) {
		for (unsigned k = 0; k < 2; k++, t++) {
			double *s = verdict_order(r, 2, k) ? &b[r - 1] : &a[r - 1];

			*s = exp(0.03 * t + sd * gauss()) * (s == b + r - 1 ? effect : 1);
		}
		if ((until && r % 2 == 0) || r == rounds) {
			verdict_judge(&sa, &sb, r, 1, &rule, &v);
			if (!until || (v.kind != VERDICT_INCONCLUSIVE &&
				       v.kind != VERDICT_FEW_ROUNDS))
				return v;
		}
	}
	return v;
}

/* The share of races of which the verdict names winner (0, 1; 2: either). */
static double share(unsigned races, unsigned rounds, double effect,
		    double noise, int until, unsigned winner)
{
	unsigned won = 0;

	for (unsigned i = 0; i < races; i++) {
		struct verdict v = simulate(rounds, effect, noise, until);

		won += v.kind == VERDICT_FASTER && (winner == 2 || v.winner == winner);
	}
	return (double)won / races;
}

#define RACES 4000 /* a rate's standard error under 0.8% */

START_TEST(equal_servers_seldom_get_a_winner)
{
	double fixed, until;

	seed_rng();
	fixed = share(RACES, 10, 1, 0.20, 0, 2);
	until = share(RACES, 20, 1, 0.20, 1, 2);
	fprintf(stderr, "equal servers, 20%% noise: a winner in %.1f%% of 10-round "
		"races, %.1f%% of --until-decided races of up to 20 (TH_SEED=%s)\n",
		fixed * 100, until * 100, getenv("TH_SEED"));
	ck_assert_msg(fixed <= 0.05 && until <= 0.05, "TH_SEED=%s", getenv("TH_SEED"));
}
END_TEST

/* "20% faster" as the race says it, b's score 0.8 times a's; and as
 * a's 1.2 times b's (b's 0.833 times a's), which 10 rounds at this noise
 * find less often: the interval's 95% allows no more. */
START_TEST(a_real_difference_is_found)
{
	double ten, until, ten_12, twelve_12;

	seed_rng();
	ten = share(RACES, 10, 0.8, 0.20, 0, 1);
	until = share(RACES, 20, 0.8, 0.20, 1, 1);
	ten_12 = share(RACES, 10, 1 / 1.2, 0.20, 0, 1);
	twelve_12 = share(RACES, 12, 1 / 1.2, 0.20, 0, 1);
	fprintf(stderr, "b 20%% faster (0.8x), 20%% noise: found in %.1f%% of "
		"10-round races, %.1f%% of --until-decided races of up to 20; "
		"a 1.2x b's: in %.1f%% of 10-round races, %.1f%% of 12-round ones "
		"(TH_SEED=%s)\n", ten * 100, until * 100, ten_12 * 100,
		twelve_12 * 100, getenv("TH_SEED"));
	ck_assert_msg(ten >= 0.70 && until >= 0.70 && ten_12 >= 0.50 &&
		      twelve_12 >= 0.70, "TH_SEED=%s", getenv("TH_SEED"));
	ck_assert(share(RACES / 4, 10, 0.8, 0.20, 0, 0) == 0); /* never the other */
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
	/* A quarter load: lib-bench.sh's delay_for 1000000 0.25 at 142.7 M/s. */
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

/* --help's list of presets is the table's: a line each, its name first. */
START_TEST(preset_help_is_the_table)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(out);
	wl_preset_help(out);
	fclose(out);
	ck_assert_str_eq(text,
			 "  milestone  100 requests of 30000000 values, one every 600000 us\n"
			 "  final      500 requests of 30000000 values, one every 600000 us\n"
			 "  1M         200 requests of 1000000 values, 25% load at the probed rate\n"
			 "  300k       300 requests of 300000 values, 25% load at the probed rate\n"
			 "  100k       300 requests of 100000 values, 25% load at the probed rate\n"
			 "  each with 20% repeats and priorities of lambda 1.5\n");
	free(text);
}
END_TEST

static Suite *verdict_suite(void)
{
	Suite *s = suite_create("verdict");
	TCase *t = tcase_create("verdict");

	tcase_set_timeout(t, 10);
	tcase_add_test(t, order_alternates_abba);
	tcase_add_test(t, spread_of_a_column);
	tcase_add_test(t, critical_counts_match_the_tables);
	tcase_add_test(t, interval_is_the_sums_order_statistics);
	tcase_add_test(t, steady_drift_cancels);
	tcase_add_test(t, three_outcomes_and_their_sentences);
	tcase_add_test(t, reliability_then_flagged_runs);
	tcase_add_test(t, a_handicapped_win_is_one_sided);
	tcase_add_test(t, too_fast_runs);
	tcase_add_test(t, equal_servers_seldom_get_a_winner);
	tcase_add_test(t, a_real_difference_is_found);
	tcase_add_test(t, percent_rounds_down);
	tcase_add_test(t, presets_are_the_benchmark_rows);
	tcase_add_test(t, preset_help_is_the_table);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return check_run(verdict_suite());
}
