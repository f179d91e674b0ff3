/* revhash-bench's closed loop: a fixed number of requests always in flight,
 * as wrk makes load, for the server's throughput and its latencies at that
 * concurrency. */
#ifndef REVHASH_BENCH_CLOSED_H
#define REVHASH_BENCH_CLOSED_H

#include <stdint.h>

#include "bench/client.h"
#include "bench/out.h"

struct closed_params {
	uint64_t concurrency; /* threads, each with one request in flight */
	unsigned duration_ms; /* no request starts after this */
	uint64_t difficulty;  /* end = start + difficulty, as the client */
	uint8_t priority;     /* of every request, 1..16 */
	int cached;           /* every thread sends one primed request */
	uint64_t hold;        /* searches held open meanwhile (bench/hold.h) */
};

/* Run the closed loop on t and print its report into o. The exit status:
 * 0, 1 when a reply was wrong or missing, 2 when the run could not start. */
int closed_run(struct target *t, const struct closed_params *p, struct out *o);

#endif
