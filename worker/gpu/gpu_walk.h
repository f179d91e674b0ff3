/* The range walk of the GPU search, apart from the device: it cuts [lo, hi]
 * into launches (each a run of values inside one 2^32 segment), keeps a few
 * in flight, confirms the lowest candidate they report with the scalar
 * reference, and reads the stop flag between launches. A launcher runs the
 * launches: the device (gpu.cu) or the host build of its threads
 * (gpu_host.c), so that every line here is tested on any machine. */
#ifndef REVHASH_GPU_WALK_H
#define REVHASH_GPU_WALK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_WALK_DEPTH 4 /* launches in flight, at most */
#define GPU_CHUNK_MAX (UINT64_C(1) << 31) /* values in one launch, at most */
#define GPU_NO_CANDIDATE UINT64_MAX

/* What runs the launches. Every call returns 0 or a negative errno. */
struct gpu_launcher {
	void *ctx;
	unsigned depth; /* launches in flight, 1..GPU_WALK_DEPTH */
	/* Values the next launch should take (1..GPU_CHUNK_MAX). */
	uint64_t (*chunk)(void *ctx);
	/* Queue the hashing of [first, first + count) (one segment) for
	 * digest, after the launches in flight. */
	int (*launch)(void *ctx, const uint8_t digest[32], uint64_t first,
		      uint32_t count);
	/* Wait for the oldest launch in flight; *best = the lowest candidate
	 * any launch recorded since the last reset, or GPU_NO_CANDIDATE. */
	int (*wait)(void *ctx, uint64_t *best);
	/* Let every launch in flight end, forget them and their candidates. */
	int (*reset)(void *ctx);
	uint64_t rejected; /* candidates the full check turned down */
};

/* A kernel_search_fn over l's launches (worker/kernel.h): SEARCH_FOUND with
 * the lowest match, SEARCH_NONE, SEARCH_STOPPED with the first value not
 * hashed, or the launcher's negative errno. Launches a stop leaves in
 * flight end at the next reset. */
int gpu_walk(struct gpu_launcher *l, const uint8_t digest[32], uint64_t lo,
	     uint64_t hi, uint64_t *found, const uint32_t *stop);

#ifdef __cplusplus
}
#endif

#endif
