/* The server's hash rate, measured from outside with requests that no cache
 * can answer: the ideal server the replay is compared with hashes as fast. */
#ifndef REVHASH_BENCH_CALIBRATE_H
#define REVHASH_BENCH_CALIBRATE_H

#include <stdint.h>

#include "bench/client.h"
#include "bench/out.h"

#define CALIBRATE_ENOUGH_S 0.5 /* a request this long is trusted */

#define CALIBRATE_FIRST 2000000 /* values in the first request */

/* A bound on the requests' size, for a server that may go on hashing a
 * request its client closed: none holds more than most_s seconds of
 * hashing at the slowest rate the server showed. */
struct calibrate_bound {
	double most_s;  /* 0: no bound */
	double slowest; /* in and out: the slowest rate (values/s) a request
			 * of the server's answered at; 0: none yet */
};

/* Measure the values per second t hashes on one request: requests grow,
 * each aiming at twice enough_s, until one takes enough_s seconds; the
 * fastest of that and two more of its size counts. b, when not NULL,
 * bounds each request's size and learns the slowest rate. o, when not
 * NULL, gets each timing (stderr a failure). 0 and *rate, or -errno
 * (-EPROTO: a reply other than 0, where the range held no answer). */
int calibrate_rate(struct target *t, double enough_s, struct out *o,
		   struct calibrate_bound *b, double *rate);
/* The values of the request after one of n values that took secs (0: the
 * first), when one of enough_s is wanted: grown towards twice enough_s at
 * the rate it showed, by 2 to 64 times, then cut to b's bound (NULL:
 * none), and never under 1. */
uint64_t calibrate_next(uint64_t n, double secs, double enough_s,
			const struct calibrate_bound *b);

#endif
