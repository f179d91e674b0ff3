/* The crossover's estimate and interval (see crossover.h). The order
 * statistics of the m * n sums are found by bisection on their value,
 * counting the sums below it in O(m + n): no table of m * n. */
#include "bench/race/crossover.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

double crossover_z(double alpha)
{
	double lo = 0, hi = 40;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / sqrt(2)) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* How many of the C(m + n, m) orders of the two samples give U = u, for
 * every u: the coefficients of the Gaussian binomial, the product over i
 * of (1 - q^(n + i)) / (1 - q^i), multiplied and divided in place. c has
 * m * n + m + 1 entries; the counts fill c[0 .. m * n]. */
static void rank_sum_counts(unsigned m, unsigned n, int64_t *c)
{
	unsigned deg = 0;

	memset(c, 0, ((size_t)m * n + m + 1) * sizeof *c);
	c[0] = 1;
	for (unsigned i = 1; i <= m; i++) {
		unsigned s = n + i;

		for (unsigned u = deg + s; u >= s; u--)
			c[u] -= c[u - s];
		deg += s;
		for (unsigned u = i; u <= deg; u++)
			c[u] += c[u - i];
		deg -= i;
	}
}

static void exact_critical(unsigned m, unsigned n, double alpha, unsigned *k,
			   double *conf)
{
	int64_t c[(size_t)m * n + m + 1];
	long double total = 0, below = 0;

	rank_sum_counts(m, n, c);
	for (unsigned u = 0; u <= m * n; u++)
		total += c[u];
	for (*k = 0; 2 * (below + c[*k]) / total <= alpha; ++*k)
		below += c[*k];
	*conf = (double)(1 - 2 * below / total);
}

int crossover_critical(unsigned m, unsigned n, double alpha, unsigned *k,
		       double *conf)
{
	double mn = (double)m * n;

	if (!(alpha > 0 && alpha < 1))
		return -EINVAL;
	*k = 0;
	*conf = 1;
	if (m == 0 || n == 0)
		return 0;
	if (m + n <= CROSSOVER_EXACT) {
		exact_critical(m, n, alpha, k, conf);
		return 0;
	}
	double kk = floor(mn / 2 - crossover_z(alpha) *
			  sqrt(mn * (m + n + 1) / 12) + 0.5);

	*k = kk < 1 ? 0 : (unsigned)kk;
	*conf = *k ? 1 - alpha : 1;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void crossover_sort(double *v, unsigned n)
{
	qsort(v, n, sizeof *v, cmp_double);
}

/* How many x_i + y_j are at most t (x, y ascending), and the largest of
 * them into *largest (-INFINITY: none). */
static uint64_t sums_at_most(const double *x, unsigned m, const double *y,
			     unsigned n, double t, double *largest)
{
	uint64_t count = 0;
	unsigned j = n;

	*largest = -INFINITY;
	for (unsigned i = 0; i < m; i++) {
		while (j > 0 && x[i] + y[j - 1] > t)
			j--;
		count += j;
		if (j > 0 && x[i] + y[j - 1] > *largest)
			*largest = x[i] + y[j - 1];
	}
	return count;
}

/* The k-th smallest (1-based) of the m * n sums x_i + y_j. */
static double kth_sum(const double *x, unsigned m, const double *y,
		      unsigned n, uint64_t k)
{
	double lo = x[0] + y[0], hi = x[m - 1] + y[n - 1], largest;

	if (sums_at_most(x, m, y, n, lo, &largest) >= k)
		return lo;
	/* count(lo) < k <= count(hi), until no double lies between. */
	for (;;) {
		double mid = lo + (hi - lo) / 2;

		if (mid <= lo || mid >= hi)
			break;
		if (sums_at_most(x, m, y, n, mid, &largest) >= k)
			hi = mid;
		else
			lo = mid;
	}
	sums_at_most(x, m, y, n, hi, &largest);
	return largest;
}

int crossover_interval(const double *x, unsigned m, const double *y,
		       unsigned n, double alpha, struct crossover *c)
{
	double sx[m ? m : 1], sy[n ? n : 1];
	uint64_t mn = (uint64_t)m * n;
	unsigned k;

	if (crossover_critical(m, n, alpha, &k, &c->conf))
		return -EINVAL;
	if (k == 0)
		return -EDOM;
	memcpy(sx, x, m * sizeof *x);
	memcpy(sy, y, n * sizeof *y);
	crossover_sort(sx, m);
	crossover_sort(sy, n);
	c->estimate = mn % 2 ? kth_sum(sx, m, sy, n, mn / 2 + 1) / 2 :
		      (kth_sum(sx, m, sy, n, mn / 2) +
		       kth_sum(sx, m, sy, n, mn / 2 + 1)) / 4;
	c->lo = kth_sum(sx, m, sy, n, k) / 2;
	c->hi = kth_sum(sx, m, sy, n, mn + 1 - k) / 2;
	return 0;
}
