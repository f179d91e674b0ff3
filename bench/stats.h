/* The figures both of the bench's modes report about a set of latencies. */
#ifndef REVHASH_BENCH_STATS_H
#define REVHASH_BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Sort n latencies (any unit) into ascending order, in place. */
void stats_sort(int64_t *v, size_t n);
/* Nearest rank over n > 0 sorted nanoseconds: the smallest value with at
 * least a fraction p of the data at or below it, in milliseconds. */
double stats_percentile_ms(const int64_t *sorted, size_t n, double p);

#endif
