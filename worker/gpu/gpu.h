/* The GPU search as the GPU worker calls it: a CUDA device searched with
 * the kernel_search_fn contract (worker/kernel.h), by one of the kernel
 * variants the build holds (gpu_variant.h). Plain C: gpu.cu, built by
 * nvcc, implements it; nothing here needs CUDA's headers. */
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
	uint64_t chunk;     /* values the next full launch will take */
	uint32_t threads;   /* threads of a full launch */
	uint64_t busy_ns;   /* the launches' own time, as the device timed it */
	int watching;       /* the last search's stop word was polled by the
			     * device (else the host read it between launches) */
};

/* CUDA devices visible to this process; 0 on error or without a driver,
 * and then gpu_count_error() says why (with the driver's and runtime's
 * CUDA versions; "" after a count). */
int gpu_count(void);
const char *gpu_count_error(void);

/* Open device (0..gpu_count()-1), searching with variant 0: *out, 0; or a
 * negative errno with a "call: reason" message in err (errlen bytes). */
int gpu_open(int device, struct gpu **out, char *err, size_t errlen);

/* The device's name, as "NVIDIA H100 80GB HBM3". */
const char *gpu_name(const struct gpu *g);

/* The kernel variants built in: how many; the name of variant v. */
int gpu_variants(void);
const char *gpu_variant_name(int v);

/* How many of the first variants are shipped (variants.mk), and how many
 * --kernel auto measures; those after them are on trial, by name only. */
int gpu_variants_shipped(void);
int gpu_variants_auto(void);

/* Values a thread of variant v hashes between its reads of the candidate
 * word: 1, or more when a halt reaches it that much later; 0: no such v. */
unsigned gpu_variant_halt_every(int v);

/* Search with variant v (0..gpu_variants()-1) from now on: 0, or -EINVAL. */
int gpu_use(struct gpu *g, int v);

/* The variant g searches with. */
int gpu_variant(const struct gpu *g);

/* Wait for launches expected to take less than ns by spinning, for longer
 * ones by sleeping (default GPU_SPIN_NS; 0: always sleep). */
void gpu_spin_ns(struct gpu *g, uint64_t ns);

/* Search [lo, hi] for digest: a kernel_search_fn with g first, or -EIO
 * when the device failed (gpu_error says how). The device polls *stop
 * while it hashes when it can map its page (gpu_stats' watching). */
int gpu_search(struct gpu *g, const uint8_t digest[32], uint64_t lo,
	       uint64_t hi, uint64_t *found, const uint32_t *stop);

/* The last failure of g, as "cudaEventSynchronize: reason"; "" if none. */
const char *gpu_error(const struct gpu *g);

/* Why the device does not poll the stop word itself; "" when it does or
 * no search has asked yet. */
const char *gpu_watch_error(const struct gpu *g);

/* Copy g's counters into st. */
void gpu_stats(const struct gpu *g, struct gpu_stats *st);

/* Wait for g's work to end and free it (g may be NULL). */
void gpu_close(struct gpu *g);

#ifdef __cplusplus
}
#endif

#endif
