/* The GPU search's logic built for the host: the device kernel's threads
 * (gpu_search.h) run one after another under the same walk (gpu_walk.c),
 * once per kernel variant (gpu_variant.h), so the tests check what the
 * device runs on machines without one. Scalar and slow; never a kernel
 * that --kernel auto may pick. */
#ifndef REVHASH_GPU_HOST_H
#define REVHASH_GPU_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "worker/gpu/gpu_walk.h"
#include "worker/kernel.h"

#define GPU_HOST_THREADS 61 /* threads per launch: a prime, see gpu_host.c */

/* One variant's host build. */
struct gpu_host_variant {
	unsigned variant;          /* GPU_VARIANT: its savings, its name */
	kernel_search_fn search;   /* not thread-safe: one search at a time */
	struct gpu_launcher *launcher; /* its walk's state: counters, and
					* the generation (tests set it) */
};

/* The variants built (*n of them), the plain one first. */
const struct gpu_host_variant *const *gpu_host_variants(size_t *n);

/* The plain variant's search. */
enum search_result gpu_host_search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
				   uint64_t *found, const uint32_t *stop);

#endif
