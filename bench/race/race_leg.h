/* One leg of a race: a server's probe and run in one round, and what the
 * race measured of them and of the machine around them. race.c fills
 * the legs (with race_watch.c for the machine); race_report.c and
 * race_plot.c read them. Data alone. */
#ifndef REVHASH_BENCH_RACE_LEG_H
#define REVHASH_BENCH_RACE_LEG_H

#include <stdint.h>

#include "bench/replay.h"
#include "bench/stats.h"
#include "bench/race/verdict.h"

#define RACE_CAUSES 3 /* reasons of missing answers told apart per leg */

/* One server's probe and run in one round. */
struct race_leg {
	double rate;             /* probed, hashes/s; 0: none */
	double reprobed;         /* the probe before, where the run beat it
				  * and a probe after was faster; else 0 */
	int probe_err;           /* why there is no rate, or 0 */
	int run_err;             /* why the run could not start, or 0 */
	double seconds;          /* the run's wall time */
	struct replay_summary s;
	int rated;               /* the ideal could be computed */
	enum stats_eff eff_kind; /* when rated */
	double eff;              /* when eff_kind is STATS_EFF_OK */
	double speed;            /* the ideal's score over the run's, even
				  * above 1; 0 when there is none */
	double fast_rate;        /* the rate the leg was checked at for a
				  * cache: the fastest the server showed,
				  * or the machine's peak where that caught
				  * it; 0: none */
	double fast_eff;         /* the efficiency at it, at most */
	double hashing_s;        /* the fresh requests' work at it */
	double fresh_s;          /* and their latencies, summed */
	enum verdict_fast fast;  /* faster than hashing allows */
	int watched;             /* the machine was read around the leg */
	double before;           /* its busy share before the leg, 0 to 1 */
	double waited_s;         /* the wait for it to be idle */
	int not_idle;            /* the wait ended at its bound */
	double after;            /* the busy share after the run; -1: none */
	double after_own;        /* the CPUs the server's processes used
				  * then, where they are known; -1: not */
	int kept_busy;           /* machine_kept_busy() said so */
	double others;           /* the CPUs that everything but the server
				  * and the race used during the run, on
				  * average; -1: unknown */
	const char *others_why;  /* why they are unknown, or NULL */
	int shared;              /* machine_others() said so */
	double probe_left;       /* the CPUs the server's processes used
				  * once the race closed a probe that timed
				  * out; -1: not measured */
	double left_bound_s;     /* where they searched on (probe_left over
				  * MACHINE_KEPT_CPU): the longest wait for
				  * that search to end; else 0 */
	double left_wait_s;      /* the wait */
	int left_on;             /* the search went on past it: the rivals'
				  * runs may share the machine with it */
	unsigned unprobed;       /* not probed: the round in which the server
				  * was seen searching a closed probe; 0:
				  * probed, as the race was asked */
	uint64_t wrong, missing;
	int cause[RACE_CAUSES];  /* the first reasons of the missing */
	uint64_t cause_n[RACE_CAUSES]; /* and how many each; the rest: others */
};

#endif
