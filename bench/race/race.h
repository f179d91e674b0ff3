/* revhash-bench --race (docs/race.md): one seeded workload played against
 * two or more servers in rounds of alternating order, each server probed
 * before each of its runs. Its data: bench/race/race_data.h. */
#ifndef REVHASH_BENCH_RACE_H
#define REVHASH_BENCH_RACE_H

#include "bench/out.h"
#include "bench/race/race_data.h"

/* Run the race of p (its workload checked: wl_check) and print it into
 * o. The exit status: 0 when every server answered every request right;
 * 1 when one did not, a file could not be written, or a load preset got
 * no rate from the first probe; 2 when it could not start. */
int race_run(const struct race_params *p, struct out *o);

#endif
