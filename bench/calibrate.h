/* The server's hash rate, measured from outside with requests that no cache
 * can answer: the ideal server the replay is compared with hashes as fast. */
#ifndef REVHASH_BENCH_CALIBRATE_H
#define REVHASH_BENCH_CALIBRATE_H

#include "bench/client.h"

#define CALIBRATE_ENOUGH_S 0.5 /* a request this long is trusted */

/* Measure the values per second t hashes on one request: requests grow,
 * each aiming at twice enough_s, until one takes enough_s seconds; the
 * fastest of that and two more of its size counts. verbose: print each
 * timing and a failure. 0 and *rate, or -errno (-EPROTO: a reply other
 * than 0, where the range held no answer). */
int calibrate_rate(struct target *t, double enough_s, int verbose,
		   double *rate);

#endif
