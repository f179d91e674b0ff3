/* The ideal server: what a zero-overhead server following a given policy
 * would have scored on the same hash rate and the same requests. The bench
 * divides it by the measured score to say how far the real server is from
 * the ideal of its own policy, and from that of the best policy. */
#ifndef REVHASH_SIMULATE_H
#define REVHASH_SIMULATE_H

#include <stddef.h>

#include "shm/policy.h"
#include "bench/workload.h"

/* A scheduling policy (shm/policy.h), how many identical workers share
 * the hash rate (at least 1; they matter only where jobs are not shared)
 * and on how many CPUs (0: as many as workers; fewer CPUs than workers
 * gives one running job a CPU's rate, not a worker's share). Workers of
 * unequal rates (a GPU beside CPUs) are given by shares: shares[i] is
 * worker i's part of the rate (any unit; NULL: all alike), each on a
 * device of its own. */
struct sim_policy {
	struct policy policy;
	unsigned workers;
	unsigned cores;
	const double *shares;
};

/* Simulate n requests arriving at arrival_us[i] (µs, any order) on a
 * zero-overhead server hashing rate values per second in total under policy
 * pol. Stores each request's latency in latency_us[i] (may be NULL) and the
 * score, mean(latency_us * priority), in *score (may be NULL). Returns 0,
 * -EINVAL for a rate that is not positive and finite, no workers or an
 * unknown order, or -ENOMEM. */
int sim_run(const struct wl_request *reqs, const double *arrival_us, size_t n,
	    double rate, const struct sim_policy *pol, double *latency_us,
	    double *score);

/* Run every policy (policy_variant: each order with each combination of
 * rules) on the workers of like (its workers, cores and shares, as in
 * struct sim_policy) and store the lowest-scoring one in *best and its
 * score in *score (either may be NULL): the best for these workers, which
 * is not always the best of all (on fewer CPUs than workers, fewer workers
 * can do better). Ties go to the first tried: the orders in their table's
 * order, and within one, each rule on before off. Returns as sim_run. */
int sim_best(const struct wl_request *reqs, const double *arrival_us, size_t n,
	     double rate, const struct sim_policy *like, struct sim_policy *best,
	     double *score);

/* The ideal servers a run is measured against, on its send times: one
 * following the server's own policy, and the best of every policy on as
 * many workers (sim_best), a tie going to the server's own, so that "best"
 * names a better policy only when there is one. own_lat and best_lat, when
 * not NULL, get each request's latency (us) under each. */
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
