/* The figures both of the bench's modes report: percentiles of a set of
 * latencies, and how to read a score against the ideal server's. */
#ifndef REVHASH_BENCH_STATS_H
#define REVHASH_BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

/* What ideal / measured means for a run. */
enum stats_eff {
	STATS_EFF_OK,       /* a ratio in (0, 1]: how close to ideal */
	STATS_EFF_NO_WORK,  /* the ideal is 0: nothing needed hashing */
	STATS_EFF_TINY,     /* the ideal rounds to 0: all overhead */
	STATS_EFF_BEATEN,   /* measured below ideal: answers known before,
			     * or a rate below the server's */
};

/* Why a run has no efficiency, by stats_efficiency()'s verdict. */
extern const char *const stats_no_efficiency[];

/* Sort n latencies (any unit) into ascending order, in place. */
void stats_sort(int64_t *v, size_t n);
/* Nearest rank over n > 0 sorted nanoseconds: the smallest value with at
 * least a fraction p of the data at or below it, in milliseconds. */
double stats_percentile_ms(const int64_t *sorted, size_t n, double p);
/* Judge a measured score against the ideal one (both mean latency in µs
 * times priority); *efficiency = ideal / measured when STATS_EFF_OK. */
enum stats_eff stats_efficiency(double ideal, double measured,
				double *efficiency);

#endif
