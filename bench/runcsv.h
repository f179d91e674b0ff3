/* A replay's per-request CSV (--csv), written after a run and read back
 * (--rescore) to score that run again at another hash rate without sending
 * anything: e.g. at the rate the server's workers reached while serving it. */
#ifndef REVHASH_BENCH_RUNCSV_H
#define REVHASH_BENCH_RUNCSV_H

#include "bench/replay.h"

#include <stdint.h>
#include <stdio.h>

/* The CSV's columns, comma-separated, without the line's end. */
#define RUNCSV_COLUMNS "index,send_us,latency_us,priority,start,end,answer," \
	"reply,correct,copy_of,ideal_latency_us,best_ideal_latency_us"

/* Write request i's row, line end included: reqs[i] and res[i], with
 * the ideal servers' latencies own_lat[i] and best_lat[i] (NULL: unknown). */
void runcsv_row(FILE *f, uint64_t i, const struct wl_request *reqs,
		const struct result *res, const double *own_lat,
		const double *best_lat);
/* Write the header and a row per request to f, and close it: 0, or -EIO
 * after a message naming path. */
int runcsv_write(FILE *f, const char *path, const struct wl_request *reqs,
		 const struct result *res, uint64_t n, const double *own_lat,
		 const double *best_lat);
/* Fill res[0 .. n - 1] from the CSV at path. Each row must be the request
 * reqs[i] of the same workload (index, priority, range and answer). 0, or
 * -errno after a message on stderr naming the file and line. */
int runcsv_load(const char *path, const struct wl_request *reqs, uint64_t n,
		struct result *res);

#endif
