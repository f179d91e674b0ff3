/* The ideal server: what a zero-overhead server following a given policy
 * would have scored on the same hash rate and the same requests. The bench
 * divides it by the measured score to say how far the real server is from
 * the ideal of its own policy, and from that of the best policy. */
#ifndef REVHASH_SIMULATE_H
#define REVHASH_SIMULATE_H

#include <stddef.h>

#include "shm/policy.h"
#include "bench/workload.h"

/* A scheduling policy (shm/policy.h) on workers sharing the hash rate
 * (at least 1), on cores CPUs (0: as many as workers), or at unequal
 * shares of the rate (any unit; NULL: all alike), each on a device of
 * its own. */
struct sim_policy {
	struct policy policy;
	unsigned workers;
	unsigned cores;
	const double *shares;
};

/* Simulate n requests arriving at arrival_us[i] (µs, any order) on a
 * zero-overhead server hashing rate values per second under pol: each
 * request's latency into latency_us[i] and mean(latency_us * priority)
 * into *score (either may be NULL). 0, -EINVAL for a rate that is not
 * positive and finite, no workers or an unknown order, or -ENOMEM. */
int sim_run(const struct wl_request *reqs, const double *arrival_us, size_t n,
	    double rate, const struct sim_policy *pol, double *latency_us,
	    double *score);

/* Run every policy (policy_variant) on the workers of like and store
 * the lowest-scoring one in *best and its score in *score; ties go to
 * the first tried. Returns as sim_run. */
int sim_best(const struct wl_request *reqs, const double *arrival_us, size_t n,
	     double rate, const struct sim_policy *like, struct sim_policy *best,
	     double *score);

/* The ideal servers a run is measured against, on its send times: its
 * own policy's, and the best of every policy on as many workers, a tie
 * going to its own; own_lat and best_lat, when not NULL, get each
 * request's latency (us) under each. */
struct sim_ideal {
	double own_score, best_score;
	struct sim_policy best;
	double *own_lat, *best_lat;
};

/* Fill id (its latency arrays the caller's) for policy own. Returns as
 * sim_run. */
int sim_ideal(const struct wl_request *reqs, const double *arrival_us, size_t n,
	      double rate, const struct sim_policy *own, struct sim_ideal *id);

#endif
