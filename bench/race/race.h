/* revhash-bench --race: one seeded workload played against two or more
 * servers, any servers, in rounds of alternating order, each server's hash
 * rate probed before each of its runs; a table per round, a summary, and
 * for each pair the ratio of their scores with its interval and a verdict
 * where the interval gives one (bench/race/verdict.h). Here too the data
 * every part of the race reads, below them all: what the race is asked to
 * do (race_params, filled by race_cmd.c), and what it measured of each
 * leg, a server's probe and run in one round (race_leg: race.c fills the
 * legs, with race_watch.c for the machine; race_report.c and race_plot.c
 * read them). */
#ifndef REVHASH_BENCH_RACE_H
#define REVHASH_BENCH_RACE_H

#include <stdint.h>

#include "bench/client.h"
#include "bench/out.h"
#include "bench/race/proctree.h" /* a server's processes, given by --pid */
#include "bench/race/verdict.h"
#include "bench/replay.h"
#include "bench/stats.h"
#include "bench/workload.h"

#define RACE_MAX_SERVERS 8
#define RACE_NAME_MAX 16      /* characters of a server's name */
#define RACE_MAX_ROUNDS 1000
#define RACE_ROUNDS 10        /* by default: a 95% interval needs 8 */
#define RACE_MARGIN 0.10      /* by default: equivalent within 10% */
#define RACE_TIMEOUT_S CLIENT_TIMEOUT_S /* a request's bound by default */
#define RACE_PROBE_FLOOR_S 5.0 /* the least bound of a probe request */

struct race_server {
	char name[RACE_NAME_MAX + 1];
	char host[256];   /* an IPv6 address without its brackets */
	char port[6];
	const char *spec; /* HOST:PORT as given */
	struct proctree pid; /* --pid's processes; none: found from the port */
};

struct race_params {
	struct race_server server[RACE_MAX_SERVERS];
	unsigned n;                     /* servers, 2 .. RACE_MAX_SERVERS */
	struct wl_params wl;            /* round 1's; round r's seed is + r - 1 */
	const struct wl_preset *preset; /* NULL: the seven words gave wl */
	unsigned rounds;                /* at most, with until_decided */
	int until_decided;              /* stop once every pair is decided */
	double margin;                  /* of equivalence: 0.10 is 10% */
	double alpha;                   /* the intervals' level (race_run's) */
	int64_t seed;                   /* --seed's, for round 1; -1: none */
	int calibrate;                  /* probe each server before its run */
	double probe_s;                 /* a probe request trusted this long */
	double settle_s;                /* the longest wait for an idle machine
					 * before a leg; 0: the machine is
					 * neither waited for nor watched,
					 * during the runs either */
	unsigned timeout_ms;            /* one request's bound */
	const char *csv, *plot;         /* files to write, or NULL */
};

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

/* Run the race of p (its workload checked: wl_check) and print it into
 * o. The exit status: 0 when every server answered every request right;
 * 1 when one did not, or a file could not be written (the race still
 * runs to its end), or a preset whose delay follows the rate found no
 * rate at the race's first probe (the race ends there); 2 when it could
 * not start (a server's name that does not resolve, a file that cannot
 * be opened, no gnuplot for --plot). */
int race_run(const struct race_params *p, struct out *o);

#endif
