/* Latency statistics shared by the replay and the closed loop. Percentiles
 * are exact nearest ranks over every sample, not a histogram's estimates:
 * a run keeps all its latencies, 8 bytes each. */
#include "bench/stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void stats_sort(int64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_i64);
}

double stats_percentile_ms(const int64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t)ceil(p * n);

	if (rank > n)
		rank = n;
	return sorted[rank ? rank - 1 : 0] / 1e6;
}
