/* revhash-bench --rescore: a replay that a --csv recorded, scored again at
 * another hash rate without sending anything (bench/score.c), e.g. at the
 * rate the server's workers hashed at while they served it. Its command
 * line, and its run, for the command table. */
#ifndef REVHASH_BENCH_RESCORE_CMD_H
#define REVHASH_BENCH_RESCORE_CMD_H

#include "bench/options.h"
#include "bench/out.h"

struct rescore_cmd {
	struct wl_params wl;          /* the recorded run's workload */
	struct options_policy policy; /* the server's, for its ideal */
	const char *run;              /* the recorded run's CSV */
	const char *csv;              /* the run written again, or NULL */
	double rate;                  /* --rate (hashes/s) */
};

/* Its synopsis, and its paragraph of --help. */
extern const char rescore_cmd_usage[], rescore_cmd_help[];
/* Its command line, into a struct rescore_cmd. */
extern const struct options_parser rescore_cmd_parser;
/* Score the run and print the replay's report: the exit status, 0 when
 * every answer was right, 1 when one was not, 2 when the CSV could not be
 * read or written. */
int rescore_cmd_run(void *params, struct out *o);

#endif
