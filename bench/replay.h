/* One replay of a workload against one server: every request sent at its
 * own deadline on its own connection, whatever the server does, and the
 * figures of the run (the client's score, percentiles, first-time
 * requests and repeats apart). The plain replay and the race share it. */
#ifndef REVHASH_BENCH_REPLAY_H
#define REVHASH_BENCH_REPLAY_H

#include <stdint.h>

#include "bench/client.h"
#include "bench/out.h"
#include "bench/workload.h"

#define REPLAY_FAST_US 5000 /* a repeat answered faster was cached */

enum outcome { OUT_OK, OUT_WRONG, OUT_MISSING };

/* What became of one replayed request, as measured or as read back from a
 * run's CSV (bench/runcsv.c). */
struct result {
	int64_t send_ns;    /* relative to t0 */
	int64_t latency_ns;
	uint64_t reply;
	enum outcome outcome;
	int err;            /* why it is missing, as a negative errno */
};

/* First-time requests, or repeats (copy_of >= 0): how many, their mean
 * latency, and their share of the score (the two shares add up to it). */
struct replay_part {
	uint64_t n;
	long double latency_ns; /* summed */
	long double weighted;   /* sum of latency_us * priority */
};

struct replay_summary {
	uint64_t ok, repeats, fast_repeats;
	double score;          /* mean(latency_us * priority), as the client */
	double p50_ms, p99_ms; /* over every request, failures included */
	struct replay_part first, repeat;
};

/* Send reqs[0 .. n - 1] to t, request i delay_us * i after the start, each
 * from a thread of its own (one that cannot be had makes its request
 * missing), and wait until every exchange has ended. res[i] gets what
 * became of request i; o, when not NULL, a line per request as it ends
 * (the text's alone). 0, or -ENOMEM when the run could not start. */
int replay_run(struct target *t, const struct wl_request *reqs, uint64_t n,
	       uint64_t delay_us, struct out *o, struct result *res);
/* The figures of a run of n > 0 requests. 0 or -ENOMEM. */
int replay_summarize(const struct wl_request *reqs, const struct result *res,
		     uint64_t n, struct replay_summary *s);

#endif
