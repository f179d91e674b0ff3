/* revhash-bench --race: the race (bench/race/race.h), its command line
 * (the servers as NAME=HOST:PORT, then a workload or a preset) and its
 * run, for the command table. */
#ifndef REVHASH_BENCH_RACE_CMD_H
#define REVHASH_BENCH_RACE_CMD_H

#include "bench/options.h"
#include "bench/out.h"
#include "bench/race/race.h"

struct race_cmd {
	struct race_params race;
	/* --pid's words, read once the servers they name are known */
	const char *pid[RACE_MAX_SERVERS * PROCTREE_ROOTS];
	unsigned pids;
};

/* Its synopsis, and its paragraph of --help. */
extern const char race_cmd_usage[], race_cmd_help[];
/* Its command line, into a struct race_cmd. */
extern const struct options_parser race_cmd_parser;
/* Run the race and print it: race_run's exit status. */
int race_cmd_run(void *params, struct out *o);

#endif
