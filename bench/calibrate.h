/* The server's hash rate, measured from outside with requests that no cache
 * can answer: the ideal server the replay is compared with hashes as fast. */
#ifndef REVHASH_BENCH_CALIBRATE_H
#define REVHASH_BENCH_CALIBRATE_H

#include "bench/client.h"

/* Measure the values per second t hashes on one request, printing each
 * timing. 0 and *rate, or -errno (printed). */
int calibrate_rate(struct target *t, double *rate);

#endif
