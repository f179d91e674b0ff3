/* What the race prints (into a struct out: text, JSON or both): a line
 * on stderr as each leg ends, a table per round, the summary and the
 * verdicts (judged by bench/race/verdict.h), and the plot (race_plot.c). */
#ifndef REVHASH_BENCH_RACE_REPORT_H
#define REVHASH_BENCH_RACE_REPORT_H

#include <stdint.h>

#include "bench/out.h"
#include "bench/race/machine.h"
#include "bench/race/race_data.h"

/* Before round 1: the machine's peak pk, and each server that no run
 * can be caught answering from memory for (no probe, and no peak:
 * peak_of[i] 0). */
void race_report_peak(struct out *o, const struct race_params *p,
		      const struct machine_peak *pk, const double *peak_of);
/* On stderr: leg i of round ended, with its rate and time. */
void race_report_progress(const struct race_params *p, unsigned round,
			  unsigned i, const struct race_leg *g);
/* Round round's heading: its seed and its order (order[k]: the server
 * that runs k-th). */
void race_report_round_start(struct out *o, const struct race_params *p, unsigned round,
			     uint64_t seed, const unsigned *order);
/* A round's table, legs[i] being server i's, and a line for each leg
 * that lost answers or has no efficiency, saying why. */
void race_report_round(struct out *o, const struct race_params *p,
		       const struct race_leg *legs);
/* After rounds rounds: has every pair a verdict, or one that more
 * rounds cannot change (--until-decided stops there)? */
int race_report_decided(const struct race_params *p, const struct race_leg *legs,
			unsigned rounds);
/* The summary and the verdicts over every round (legs[(r - 1) * n + i]),
 * then the plot when asked for. The race's exit status (race.h). */
int race_report_end(struct out *o, const struct race_params *p,
		    const struct race_leg *legs);

/* Can --plot draw? 0, or -ENOENT after saying gnuplot is missing. */
int race_plot_check(void);
/* Draw p->plot from the legs of every round; ok[i]: server i's right
 * answers; vs[i], i >= 1: the verdict of the first server against server
 * i; title: the verdicts, one a line. Says "plot: FILE"; 0, or -errno
 * (said). */
int race_plot_draw(const struct race_params *p, const struct race_leg *legs,
		   const uint64_t *ok, const struct verdict *vs, const char *title);

#endif
