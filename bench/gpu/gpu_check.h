/* gpu-check's run, which its checks (gpu-check.c) and its measurements
 * (gpu_bench.c) share: the device under test, the scale, and the
 * differences met. */
#ifndef REVHASH_GPU_CHECK_H
#define REVHASH_GPU_CHECK_H

#include <stdint.h>

#include "worker/gpu/gpu.h"

/* How big gpu-check's cases and measurements are: "full" for a device,
 * "quick" for a short run (under compute-sanitizer, or the stand-in of
 * gpu-check-standin, which hashes on one core). */
struct check_scale {
	const char *name;
	uint64_t edge_span;   /* the edges' ranges */
	uint64_t small_len;   /* most random ranges: up to this long, */
	uint64_t large_len;   /* one in a hundred up to this */
	long stop_ns;         /* a stop this long into a search */
	int stop_bits_max;    /* the stopped ranges: 2^16 .. 2^this values */
	uint64_t false_span;  /* the range passing false candidates; 0: none */
	uint64_t bench_call;  /* values per timed search of a rate */
	size_t small_runs;    /* small searches timed, of each kind */
	size_t stop_runs;     /* stops timed */
	uint64_t answer_span; /* answers timed: a request's range, */
	size_t answer_runs;   /* so many of each kind */
};

/* One run of gpu-check. */
struct check_run {
	struct gpu *dev;                 /* the device under test */
	const struct check_scale *scale; /* the scale of its run */
	int failures;                    /* differences met so far */
};

/* Count a difference of run's in part, and print the first few. */
void check_fail(struct check_run *run, const char *part, const char *why);

/* Measure run's device for about seconds per variant (the n of order, in
 * that order): the rates side by side, then with the fastest the cost of
 * small searches, spinning and sleeping, and the stop latency
 * (gpu_bench.c). */
void bench_all(struct check_run *run, double seconds, const int *order, int n);

/* Run n full launches of the variant in use, no more, searching a range
 * without the answer: for a profiler to time one of them. */
void bench_launches(struct check_run *run, uint64_t n);

#endif
