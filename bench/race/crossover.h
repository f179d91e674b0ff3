/* The effect in an AB/BA crossover, distribution-free: the
 * Hodges-Lehmann estimate over AB rounds x and BA rounds y (log ratios),
 * its interval by the Mann-Whitney test, exact for small samples
 * (docs/race.md: Why pairs of rounds). Pure functions. */
#ifndef REVHASH_BENCH_CROSSOVER_H
#define REVHASH_BENCH_CROSSOVER_H

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

/* Sort v[0 .. n - 1] ascending, in place. */
void crossover_sort(double *v, unsigned n);

#endif
