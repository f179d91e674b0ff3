/* Latency statistics shared by the replay and the closed loop: exact
 * nearest ranks over every sample; and the reading of the efficiency,
 * which a run gets only where it would not mislead (docs/performance.md:
 * How it is measured). */
#include "bench/stats.h"

#include <math.h>
#include <stdlib.h>

const char *const stats_no_efficiency[] = {
	[STATS_EFF_NO_WORK] = "ideal score 0: nothing to hash, every request "
		"empty (start > end) or a repeat of one answered",
	[STATS_EFF_TINY] = "ideal score under 0.5: these ranges cost an ideal "
		"server nothing, the measured score is all per-request overhead",
	[STATS_EFF_BEATEN] = "measured score below the ideal: only a server "
		"that already knew answers, e.g. a warm cache from an earlier "
		"run, can do that, or the hash rate (set or probed) is too low",
};

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
	size_t rank = (size_t)ceil(p * n); /* at most n: p is at most 1 */

	return sorted[rank ? rank - 1 : 0] / 1e6;
}

enum stats_eff stats_efficiency(double ideal, double measured,
				double *efficiency)
{
	if (ideal == 0)
		return STATS_EFF_NO_WORK;
	if (ideal < 0.5) /* printed whole, as the client prints its score */
		return STATS_EFF_TINY;
	if (measured < ideal)
		return STATS_EFF_BEATEN;
	*efficiency = ideal / measured;
	return STATS_EFF_OK;
}
