/* The race's judgement, as pure functions of the figures its runs gave
 * (the rules: docs/race.md), so that they are tested on numbers: the
 * order of each round, a spread of figures, whether a run was faster than
 * hashing allows, and what two servers' rounds say. */
#ifndef REVHASH_BENCH_VERDICT_H
#define REVHASH_BENCH_VERDICT_H

#include <stddef.h>
#include <stdint.h>

/* The effect in an AB/BA crossover, distribution-free: the
 * Hodges-Lehmann estimate over AB rounds x and BA rounds y (log ratios),
 * its interval by the Mann-Whitney test, exact for small samples
 * (docs/race.md: Why pairs of rounds). */
#define CROSSOVER_EXACT 60 /* m + n up to this: exact critical values */

/* An estimate with its interval and the interval's confidence. */
struct crossover {
	double estimate, lo, hi;
	double conf;  /* the interval's own: at least 1 - alpha */
};

/* The two-sided normal quantile z with P(|Z| > z) = alpha, 0 < alpha < 1. */
double crossover_z(double alpha);
/* The Mann-Whitney critical count for samples of m and n at level alpha
 * (two-sided): the largest k with 2 P(U < k) <= alpha, into *k, and the
 * interval's confidence 1 - 2 P(U < k) into *conf. Exact while m + n <=
 * CROSSOVER_EXACT, else by the normal approximation. *k is 0 when no
 * interval at that level exists (too few rounds). 0, or -EINVAL. */
int crossover_critical(unsigned m, unsigned n, double alpha, unsigned *k,
		       double *conf);
/* The estimate and interval of the effect from x[0 .. m - 1] (A first)
 * and y[0 .. n - 1] (B first), at level alpha. 0; -EDOM when too few
 * rounds give no interval at that level; -EINVAL for bad arguments. */
int crossover_interval(const double *x, unsigned m, const double *y,
		       unsigned n, double alpha, struct crossover *c);

#define VERDICT_ALPHA 0.05  /* a 95% interval */
/* A run was not all hashed (verdict_too_fast): why these bounds,
 * docs/race.md (Runs faster than hashing allows). */
#define VERDICT_FAST_EFF 4.0
#define VERDICT_FAST_WORK 0.25

/* A median with the least and the largest of the figures it is taken of. */
struct verdict_spread {
	double median, min, max;
};

/* What a side's runs can be named for, in a verdict and in the race's
 * warnings ("A kept the CPUs busy after its run in 4 rounds"). */
enum verdict_cause { VERDICT_CAUSE_FAST, VERDICT_CAUSE_BUSY, VERDICT_CAUSE_SHARED,
		     VERDICT_CAUSE_LEFT, VERDICT_CAUSES };
extern const char *const verdict_cause[VERDICT_CAUSES];

/* One server's side of a pair: its score in each round (lower is better),
 * its right answers over every round, and its runs flagged as faster than
 * hashing allows, after which it kept the CPUs busy, during which others
 * used them (bench/race/machine.h), and before which it searched a closed
 * probe past the race's wait. */
struct verdict_side {
	const double *score;
	uint64_t ok;
	unsigned flagged;
	unsigned busy;
	unsigned shared;
	unsigned left;
};

/* How the pair is judged: the margin of equivalence (0.10: scores within
 * 10% of each other either way) and the interval's level. */
struct verdict_rule {
	double margin;
	double alpha;
};

enum verdict_kind {
	VERDICT_FASTER,       /* the interval excludes 1: a winner */
	VERDICT_EQUIVALENT,   /* the interval lies within the margin */
	VERDICT_INCONCLUSIVE, /* none: the interval holds 1 and a margin's end */
	VERDICT_RELIABILITY,  /* more right answers: it wins whatever its score */
	VERDICT_FEW_ROUNDS,   /* none: too few rounds of each order */
	VERDICT_FLAGGED,      /* none: a run was faster than hashing allows */
	VERDICT_AT_LEAST,     /* the other won by more than the margin under
			       * the handicap of one side's leftovers */
	VERDICT_BUSY,         /* none: a server left the CPUs busy */
	VERDICT_SHARED,       /* none: others used the CPUs during a run */
	VERDICT_UNRELIABLE,   /* none: both got as many answers wrong or missing */
};

/* Why a run is flagged. */
enum verdict_fast {
	VERDICT_FAST_NO,
	VERDICT_FAST_EFFICIENCY, /* it beat the ideal at its own probe's rate */
	VERDICT_FAST_LATENCY,    /* it answered sooner than hashing takes */
	VERDICT_FAST_PEAK,       /* sooner than the machine's peak could */
};

/* What a run's speed is judged by. */
struct verdict_speed {
	double efficiency; /* the ideal's score at rate over the run's; 0: none */
	double work;       /* the values up to each fresh request's answer */
	double latency_s;  /* and those requests' latencies, summed */
	double rate;       /* the fastest rate the server showed; 0: none */
	double peak;       /* the machine's peak rate; 0: none */
};

/* The judgement of a pair a (0) and b (1). */
struct verdict {
	enum verdict_kind kind;
	unsigned winner, loser;  /* 0 or 1; with no winner, 0 and 1 */
	unsigned rounds;         /* with both scores usable */
	unsigned need;           /* VERDICT_FEW_ROUNDS: rounds an interval needs */
	double ratio, lo, hi;    /* b's score / a's: the estimate, its interval */
	double conf;             /* the interval's confidence */
	unsigned more;           /* VERDICT_INCONCLUSIVE: about this many more
				  * rounds would decide (UINT32_MAX: no number) */
	struct verdict_side side[2]; /* a's and b's, as judged */
	uint64_t requests;       /* each side's, over every round */
};

/* The server that runs k-th (0-based) of n in round r (1-based): the
 * listed order in odd rounds, reversed in even ones (docs/race.md: Why
 * pairs of rounds). */
unsigned verdict_order(unsigned round, unsigned n, unsigned k);
/* The median (of the middle two when n is even), least and largest of
 * v[0 .. n - 1], n > 0; v itself is left alone. 0, or -EINVAL for n 0. */
int verdict_spread(const double *v, unsigned n, struct verdict_spread *s);
/* Was a run faster than hashing allows (VERDICT_FAST_EFF, or
 * VERDICT_FAST_WORK at the server's rate or the machine's peak)? A figure
 * of 0 checks nothing. */
enum verdict_fast verdict_too_fast(const struct verdict_speed *s);
/* The fewest rounds that can give an interval at level alpha. */
unsigned verdict_min_rounds(double alpha);
/* The level of each look of --until-decided up to rounds: alpha shared
 * among the looks (Bonferroni). */
double verdict_look_alpha(unsigned rounds, double alpha);
/* Judge a against b over rounds rounds (round r + 1's scores a->score[r],
 * b->score[r]; odd rounds ran a first) of requests requests each, by the
 * rules of docs/race.md (The summary and the verdict), in their order;
 * rounds whose scores are not positive and finite are left out of the
 * ratio. 0, or -EINVAL for no rounds or a bad rule. */
int verdict_judge(const struct verdict_side *a, const struct verdict_side *b,
		  unsigned rounds, uint64_t requests,
		  const struct verdict_rule *rule, struct verdict *v);
/* ok of total as a percentage rounded down, so that one answer wrong in
 * a million never reads 100.00 (two decimals). */
double verdict_percent(uint64_t ok, uint64_t total);
/* The verdict as one sentence, naming the sides name[0] and name[1]
 * ("B is faster than A by 20.1% [12.3%, 27.0%]: ..."), into buf. */
void verdict_text(const struct verdict *v, const char *const name[2],
		  const struct verdict_rule *rule, char *buf, size_t size);

#endif
