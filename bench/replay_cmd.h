/* revhash-bench's default mode, the replay: the public client's workload
 * sent at its pace to one server (bench/replay.c), then scored against
 * ideal servers of the rate it calibrated (bench/score.c). Its command
 * line, and its run, for the command table. */
#ifndef REVHASH_BENCH_REPLAY_CMD_H
#define REVHASH_BENCH_REPLAY_CMD_H

#include "bench/options.h"
#include "bench/out.h"

struct replay_cmd {
	struct options_host at;
	struct wl_params wl;
	struct options_policy policy; /* the server's, for its ideal */
	const char *csv;              /* the per-request CSV, or NULL */
	double rate;                  /* --rate (hashes/s); 0: calibrate */
	int quiet, calibrate;
};

/* Its synopsis, and its paragraph of --help. */
extern const char replay_cmd_usage[], replay_cmd_help[];
/* Its command line, into a struct replay_cmd. */
extern const struct options_parser replay_cmd_parser;
/* Replay, report, write the CSV: the exit status, 0 when every answer was
 * right, 1 when one was not, 2 when the run could not start. */
int replay_cmd_run(void *params, struct out *o);

#endif
