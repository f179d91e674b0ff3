/* The race's plot (--plot): beside each other, each server's score over
 * the first's per pair of rounds with the race's estimate, interval and
 * margin, and each server's score per round; the verdicts as its title. */
#ifndef REVHASH_BENCH_RACE_PLOT_H
#define REVHASH_BENCH_RACE_PLOT_H

#include <stdint.h>

#include "bench/race/race_leg.h"
#include "bench/race/race_params.h"
#include "bench/race/verdict.h"

/* Can --plot draw? 0, or -ENOENT after saying gnuplot is missing. */
int race_plot_check(void);
/* Draw p->plot from the legs of every round (legs[(r - 1) * n + i]);
 * ok[i]: server i's right answers over the race; vs[i], i >= 1: the
 * verdict of the first server against server i; title: the verdicts, one
 * a line. Says "plot: FILE"; 0, or -errno after saying why not. */
int race_plot_draw(const struct race_params *p, const struct race_leg *legs,
		   const uint64_t *ok, const struct verdict *vs, const char *title);

#endif
