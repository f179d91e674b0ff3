/* revhash-bench --concurrency: the closed loop (bench/closed.h), its
 * command line and its run, for the command table. */
#ifndef REVHASH_BENCH_CLOSED_CMD_H
#define REVHASH_BENCH_CLOSED_CMD_H

#include "bench/closed.h"
#include "bench/options.h"
#include "bench/out.h"

struct closed_cmd {
	struct options_host at;
	struct closed_params loop;
};

/* Its synopsis, and its paragraph of --help. */
extern const char closed_cmd_usage[], closed_cmd_help[];
/* Its command line, into a struct closed_cmd. */
extern const struct options_parser closed_cmd_parser;
/* Run the loop and print its report: closed_run's exit status, or 2 when
 * the server's name does not resolve. */
int closed_cmd_run(void *params, struct out *o);

#endif
