/* The GPU search as the GPU worker calls it: a CUDA device searched with
 * the kernel_search_fn contract (worker/kernel.h). Plain C: gpu.cu, built
 * by nvcc, implements it; nothing here needs CUDA's headers. */
#ifndef REVHASH_GPU_H
#define REVHASH_GPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gpu; /* one opened device; private to gpu.cu */

/* What one device has done since gpu_open. */
struct gpu_stats {
	uint64_t launches;  /* kernel launches */
	uint64_t rejected;  /* candidates the full check turned down */
	uint64_t chunk;     /* values the next launch will take */
	uint32_t threads;   /* threads of a full launch */
	uint64_t busy_ns;   /* the launches' own time, as the device timed it */
};

/* CUDA devices visible to this process; 0 on error or without a driver. */
int gpu_count(void);

/* Open device (0..gpu_count()-1): *out, 0; or a negative errno with a
 * "call: reason" message in err (errlen bytes at most). */
int gpu_open(int device, struct gpu **out, char *err, size_t errlen);

/* The device's name, as "NVIDIA H100 80GB HBM3". */
const char *gpu_name(const struct gpu *g);

/* Search [lo, hi] for digest: a kernel_search_fn with g first. Returns
 * SEARCH_FOUND (*found the lowest match), SEARCH_NONE, SEARCH_STOPPED (*stop
 * was seen set between launches, a few ms apart: *found the first value not
 * hashed), or -EIO when the device failed (gpu_error says how). */
int gpu_search(struct gpu *g, const uint8_t digest[32], uint64_t lo,
	       uint64_t hi, uint64_t *found, const uint32_t *stop);

/* The last failure of g, as "cudaEventSynchronize: reason"; "" if none. */
const char *gpu_error(const struct gpu *g);

/* Copy g's counters into st. */
void gpu_stats(const struct gpu *g, struct gpu_stats *st);

/* Wait for g's work to end and free it (g may be NULL). */
void gpu_close(struct gpu *g);

#ifdef __cplusplus
}
#endif

#endif
