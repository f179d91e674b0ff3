/* gpu-check's parts, shared by its checks (gpu-check.c) and its
 * measurements (gpu_bench.c): the device it opened and how a difference is
 * counted. */
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
};

/* The device under test, and the scale of its run. */
extern struct gpu *dev;
extern const struct check_scale *scale;

/* A kernel_search_fn on dev, with the variant in use. */
int check_search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
		 uint64_t *found, const uint32_t *stop);

/* Count a difference in part, and print the first few. */
void check_fail(const char *part, const char *why);

/* Measure for about seconds per variant (only: that variant, or -1 for
 * all): the rates side by side, then with the fastest the cost of small
 * searches, spinning and sleeping, and the stop latency. */
void bench_all(double seconds, int only);

#endif
