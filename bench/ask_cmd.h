/* revhash-bench --ask: one question (bench/ask.h), its command line and
 * its run, for the command table. */
#ifndef REVHASH_BENCH_ASK_CMD_H
#define REVHASH_BENCH_ASK_CMD_H

#include "bench/ask.h"
#include "bench/options.h"
#include "bench/out.h"

struct ask_cmd {
	struct options_host at;
	struct ask_params ask;
};

/* Its synopsis, and its paragraph of --help. */
extern const char ask_cmd_usage[], ask_cmd_help[];
/* Its command line, into a struct ask_cmd. */
extern const struct options_parser ask_cmd_parser;
/* Ask and print the answer: ask_run's exit status, or 2 when the server's
 * name does not resolve. */
int ask_cmd_run(void *params, struct out *o);

#endif
