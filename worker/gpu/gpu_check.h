/* gpu-check's parts, shared by its checks (gpu-check.c) and its
 * measurements (gpu_bench.c): the device it opened and how a difference is
 * counted. */
#ifndef REVHASH_GPU_CHECK_H
#define REVHASH_GPU_CHECK_H

#include <stdint.h>

#include "worker/gpu/gpu.h"

/* The device under test. */
extern struct gpu *dev;

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
