/* The ideal server: what the best possible scheduler on the same hash rate
 * would have scored on the same requests. The bench divides it by the
 * measured score to say how far the real server is from ideal. */
#ifndef REVHASH_SIMULATE_H
#define REVHASH_SIMULATE_H

#include <stddef.h>

#include "bench/workload.h"

/* Simulate n requests arriving at arrival_us[i] (µs, any order) on a
 * zero-overhead server hashing rate values per second in total. Stores each
 * request's ideal latency in latency_us[i] (may be NULL) and the ideal score,
 * mean(latency_us * priority), in *score (may be NULL). Returns 0, -EINVAL
 * for a rate that is not positive and finite, or -ENOMEM. */
int sim_ideal(const struct wl_request *reqs, const double *arrival_us,
	      size_t n, double rate, double *latency_us, double *score);

#endif
