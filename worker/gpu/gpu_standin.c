/* The host build of the GPU kernel's variants, as one table (gpu_table.h),
 * and the GPU search's interface (gpu.h) over it. The build compiles
 * gpu_host.c once per variant of every list (variants.mk). Linked into
 * gpu-check-standin, so that gpu-check and scripts/gpu-proof.sh --dry-run
 * run every line of their own on a machine without a GPU. Slow: its
 * figures say nothing of a GPU, and its name says so.
 * REVHASH_STANDIN_GPUS: the devices it shows (default 1). */
#include "worker/gpu/gpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/gpu/gpu_host.h"

struct gpu {
	int variant;
	char name[64];
	uint64_t spin_ns;
	char err[1], watch_err[1]; /* "": the host build fails no call */
};

#define GPU_ENTRY struct gpu_host_variant
#define GPU_ENTRY_OF(n) gpu_host_##n
#include "worker/gpu/gpu_table.h"

const struct gpu_host_variant *const *gpu_host_variants(size_t *n)
{
	*n = NVARIANTS;
	return variants;
}

enum search_result gpu_host_search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
				   uint64_t *found, const uint32_t *stop)
{
	return variants[0]->search(digest, lo, hi, found, stop);
}

int gpu_count(void)
{
	const char *env = getenv("REVHASH_STANDIN_GPUS");
	int n = env ? atoi(env) : 1;

	return n < 0 ? 0 : n;
}

const char *gpu_count_error(void)
{
	return gpu_count() ? "" : "REVHASH_STANDIN_GPUS=0: the stand-in shows none";
}

int gpu_open(int device, struct gpu **out, char *err, size_t errlen)
{
	struct gpu *g;

	if (device < 0 || device >= gpu_count()) {
		snprintf(err, errlen, "no stand-in device %d", device);
		return -ENODEV;
	}
	if (!(g = calloc(1, sizeof *g))) {
		snprintf(err, errlen, "calloc: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	g->spin_ns = GPU_SPIN_NS;
	snprintf(g->name, sizeof g->name, "stand-in %d (the host build, no GPU)", device);
	*out = g;
	return 0;
}

unsigned gpu_variant_halt_every(int v)
{
	return variant(v) ? 1 : 0; /* one thread after another: no lag */
}

void gpu_spin_ns(struct gpu *g, uint64_t ns)
{
	g->spin_ns = ns; /* the variant's launcher takes it at each search */
}

int gpu_search(struct gpu *g, const uint8_t digest[32], uint64_t lo,
	       uint64_t hi, uint64_t *found, const uint32_t *stop)
{
	const struct gpu_host_variant *h = variant(g->variant);

	h->launcher->spin_ns = g->spin_ns;
	return h->search(digest, lo, hi, found, stop);
}

void gpu_stats(const struct gpu *g, struct gpu_stats *st)
{
	const struct gpu_launcher *l = variant(g->variant)->launcher;

	st->launches = l->launches;
	st->rejected = l->rejected;
	st->chunk = l->chunk;
	st->threads = GPU_HOST_THREADS;
	st->busy_ns = l->busy_ns;
	st->watching = 1; /* its threads read the stop word themselves */
}

void gpu_close(struct gpu *g)
{
	free(g);
}
