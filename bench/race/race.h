/* revhash-bench --race: one seeded workload played against two or more
 * servers, any servers, in rounds of alternating order, each server's hash
 * rate probed before each of its runs; a table per round, a summary, and
 * for each pair the ratio of their scores with its interval and a verdict
 * where the interval gives one (bench/race/verdict.h). */
#ifndef REVHASH_BENCH_RACE_H
#define REVHASH_BENCH_RACE_H

#include "bench/out.h"
#include "bench/race/race_params.h"

/* Run the race of p (its workload checked: wl_check) and print it into
 * o. The
 * exit status: 0 when every server answered every request right; 1 when
 * one did not, or a file could not be written (the race still runs to its
 * end), or a preset whose delay follows the rate found no rate at the
 * race's first probe (the race ends there); 2 when it could not start (a
 * server's name that does not resolve, a file that cannot be opened, no
 * gnuplot for --plot). */
int race_run(const struct race_params *p, struct out *o);

#endif
