/* revhash-bench --preset: a named workload's seven words, printed for the
 * scripts that run it (bench/workload.h's presets); its command line and
 * its run, for the command table. */
#ifndef REVHASH_BENCH_PRESET_CMD_H
#define REVHASH_BENCH_PRESET_CMD_H

#include "bench/options.h"
#include "bench/out.h"

struct preset_cmd {
	const char *name;
	double rate; /* --rate (hashes/s); 0: none given */
	struct wl_params wl;
};

/* Its synopsis, and its paragraph of --help. */
extern const char preset_cmd_usage[], preset_cmd_help[];
/* Its command line, into a struct preset_cmd. */
extern const struct options_parser preset_cmd_parser;
/* Print the words on a line: 0. */
int preset_cmd_run(void *params, struct out *o);

#endif
