/* The replay's report: the public client's figures of a run, and how good
 * its score is against ideal servers of the same hash rate on the same
 * send times (bench/simulate.h): one following the server's own policy,
 * and the best of every policy. The replay and --rescore print it. */
#ifndef REVHASH_BENCH_SCORE_H
#define REVHASH_BENCH_SCORE_H

#include <stdint.h>
#include <stdio.h>

#include "bench/out.h"
#include "bench/replay.h"
#include "bench/simulate.h"
#include "bench/workload.h"

/* A run to score: its requests and what became of them. */
struct score_run {
	const struct wl_request *reqs;
	const struct result *res;
	uint64_t n;
	double rate;                     /* hashes/s; 0: unknown, no ideal */
	const struct sim_policy *policy; /* the server's, for its ideal */
};

/* Print r's report into o, and write its CSV to csv, named path, when not
 * NULL (runcsv_write closes it). The exit status: 0 when every answer was
 * right, else 1 (also when out of memory or the CSV could not be
 * written, said). */
int score_report(const struct score_run *r, FILE *csv, const char *path, struct out *o);

#endif
