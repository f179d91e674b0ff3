/* The data every part of the race (bench/race/race.h) reads: what it is
 * asked (race_params, from race_cmd.c) and what it measured of each leg,
 * a server's probe and run in one round (race_leg, filled by race.c, read
 * by race_report.c and race_plot.c). */
#ifndef REVHASH_BENCH_RACE_DATA_H
#define REVHASH_BENCH_RACE_DATA_H

#include <stdint.h>

#include "bench/client.h"
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
					 * before a leg; 0: not watched */
	unsigned timeout_ms;            /* one request's bound */
	const char *csv, *plot;         /* files to write, or NULL */
};

#define RACE_CAUSES 3 /* reasons of missing answers told apart per leg */

/* One server's probe and run in one round. */
struct race_leg {
	double rate;             /* probed, hashes/s; 0: none */
	double reprobed;         /* the first probe's, where the run beat it
				  * and a second was faster; else 0 */
	int probe_err;           /* why there is no rate, or 0 */
	int run_err;             /* why the run could not start, or 0 */
	double seconds;          /* the run's wall time */
	struct replay_summary s;
	int rated;               /* the ideal could be computed */
	enum stats_eff eff_kind; /* when rated */
	double eff;              /* when eff_kind is STATS_EFF_OK */
	double speed;            /* the ideal's score over the run's; 0: none */
	/* Faster than hashing allows (verdict_too_fast): */
	enum verdict_fast fast;
	struct verdict_speed fast_by; /* what it was judged by */
	/* The machine around the leg (bench/race/machine.h): */
	int watched;             /* it was read */
	double before;           /* busy share before the leg, 0 to 1 */
	double waited_s;         /* the wait for it to be idle */
	int not_idle;            /* the wait ended at its bound */
	double after;            /* busy share after the run; -1: none */
	double after_own;        /* the server's CPUs then; -1: unknown */
	int kept_busy;           /* machine_kept_busy() said so */
	double others;           /* others' CPUs during the run; -1: unknown */
	const char *others_why;  /* why unknown, or NULL */
	int shared;              /* machine_others() said so */
	/* A probe that timed out, searched on (docs/race.md: Bounded probes): */
	double probe_left;       /* the server's CPUs after; -1: not read */
	double left_bound_s;     /* the longest wait for that search; 0: none */
	double left_wait_s;      /* the wait */
	int left_on;             /* it went on past the bound */
	unsigned unprobed;       /* the round it was seen; 0: probed */
	uint64_t wrong, missing;
	int cause[RACE_CAUSES];  /* the first reasons of the missing */
	uint64_t cause_n[RACE_CAUSES]; /* and how many each; the rest: others */
};

#endif
