/* revhash-bench's command line: the replay of the public client's workload
 * (its nine positional arguments) or, with --concurrency and --duration,
 * the closed loop. */
#ifndef REVHASH_BENCH_OPTIONS_H
#define REVHASH_BENCH_OPTIONS_H

#include "bench/closed.h"
#include "bench/workload.h"

struct bench_options {
	const char *host, *port;
	struct wl_params wl;         /* the replay's workload */
	const char *csv;             /* the replay's per-request CSV, or NULL */
	int quiet, calibrate;
	double rate;                 /* hashes/s; 0 when unknown */
	struct closed_params closed; /* concurrency 0: the replay */
};

/* Fill o from argv. 0, or -EINVAL after printing the usage to stderr. */
int bench_options_parse(int argc, char **argv, struct bench_options *o);

#endif
