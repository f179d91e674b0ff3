/* revhash-bench's command line: the replay of the public client's workload
 * (its nine positional arguments), with --concurrency and --duration the
 * closed loop, with --ask one question, or with --race a race of servers
 * on one workload. */
#ifndef REVHASH_BENCH_OPTIONS_H
#define REVHASH_BENCH_OPTIONS_H

#include "bench/ask.h"
#include "bench/closed.h"
#include "bench/race/race.h"
#include "bench/simulate.h"
#include "bench/workload.h"
#include "shm/ring.h"

struct bench_options {
	const char *host, *port;
	struct wl_params wl;         /* the replay's workload */
	const char *csv;             /* the replay's per-request CSV, or NULL */
	const char *rescore;         /* a past run's CSV to score at rate */
	int help;                    /* the usage (1) or the switches (2) went
	                                to stdout */
	int quiet, calibrate;
	double rate;                 /* hashes/s; 0 when unknown */
	struct sim_policy policy;    /* the server's, for its ideal */
	double shares[RING_WORKERS]; /* --worker-rates: the workers' rates */
	struct closed_params closed; /* concurrency 0: the replay */
	struct ask_params ask;       /* --ask; split 0 when not asking */
	const char *preset;          /* --preset: print its words */
	int racing;                  /* --race */
	int said;                    /* a mistake was said: no usage after it */
	struct race_params race;     /* --race's servers, workload, options */
	const char *pid[RACE_MAX_SERVERS * PROCTREE_ROOTS]; /* --pid's words */
	unsigned pids;
};

/* Fill o from argv. 0 (with o->help set when the usage was asked for and
 * printed to stdout), or -EINVAL after printing the usage to stderr. */
int bench_options_parse(int argc, char **argv, struct bench_options *o);

#endif
