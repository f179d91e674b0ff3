/* The GPU search's logic built for the host: the device kernel's threads
 * (gpu_search.h) run one after another under the same walk (gpu_walk.c), so
 * the tests check what the device runs on machines without one. Scalar and
 * slow; never a kernel that --kernel auto may pick. */
#ifndef REVHASH_GPU_HOST_H
#define REVHASH_GPU_HOST_H

#include <stdint.h>

/* A kernel_search_fn (worker/kernel.h) over the host build of the GPU
 * search. Not thread-safe: one search at a time in a process. */
int gpu_host_search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
		    uint64_t *found, const uint32_t *stop);

/* Candidates its full check turned down since the process started. */
uint64_t gpu_host_rejected(void);

#endif
