/* The host build of the GPU kernel's variants, as one table, and the GPU
 * search's interface (gpu.h) over it. The build compiles gpu_host.c once
 * per variant of every list (variants.mk) and passes them here as
 * GPU_VARIANT_LIST, X(n) for each, with the counts of the first that are
 * shipped and that --kernel auto measures (gpu.mk). Linked into
 * gpu-check-standin, so that gpu-check and scripts/gpu-proof.sh --dry-run
 * run every line of their own on a machine without a GPU. Slow: its
 * figures say nothing of a GPU, and its name says so.
 * REVHASH_STANDIN_GPUS: the devices it shows (default 1). */
#include "worker/gpu/gpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pick.h"
#include "worker/gpu/gpu_host.h"
#include "worker/gpu/gpu_variant.h"

#if !defined GPU_VARIANT_LIST || !defined GPU_VARIANTS_SHIPPED || !defined GPU_VARIANTS_AUTO
#error "the build names the variants and counts the shipped and the measured (gpu.mk)"
#endif

#define X(n) extern const struct gpu_host_variant gpu_host_##n;
GPU_VARIANT_LIST
#undef X

#define X(n) &gpu_host_##n,
static const struct gpu_host_variant *const all[] = { GPU_VARIANT_LIST };
#undef X
#define NVARIANTS (int)(sizeof all / sizeof all[0])
_Static_assert(NVARIANTS <= PICK_MAX,
	       "the stand-in worker measures every variant (device_cuda.c)");
_Static_assert(GPU_VARIANTS_SHIPPED >= 1 && GPU_VARIANTS_SHIPPED <= GPU_VARIANTS_AUTO &&
	       GPU_VARIANTS_AUTO <= NVARIANTS, "the shipped first, then the other measured");

struct gpu {
	int device;
	int variant;
	char name[64];
	uint64_t spin_ns;
};

const struct gpu_host_variant *const *gpu_host_variants(size_t *n)
{
	*n = NVARIANTS;
	return all;
}

enum search_result gpu_host_search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
				   uint64_t *found, const uint32_t *stop)
{
	return all[0]->search(digest, lo, hi, found, stop);
}

uint64_t gpu_host_rejected(void)
{
	return all[0]->launcher->rejected;
}

/* Variant v's host build, or NULL. */
static const struct gpu_host_variant *variant(int v)
{
	return v >= 0 && v < NVARIANTS ? all[v] : NULL;
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
	g->device = device;
	g->spin_ns = GPU_SPIN_NS;
	snprintf(g->name, sizeof g->name, "stand-in %d (the host build, no GPU)", device);
	*out = g;
	return 0;
}

const char *gpu_name(const struct gpu *g)
{
	return g->name;
}

int gpu_variants(void)
{
	return NVARIANTS;
}

int gpu_variants_shipped(void)
{
	return GPU_VARIANTS_SHIPPED;
}

int gpu_variants_auto(void)
{
	return GPU_VARIANTS_AUTO;
}

const char *gpu_variant_name(int v)
{
	const struct gpu_host_variant *h = variant(v);

	return h ? gpu_variant_label(h->variant) : NULL;
}

unsigned gpu_variant_halt_every(int v)
{
	return variant(v) ? 1 : 0; /* one thread after another: no lag */
}

int gpu_use(struct gpu *g, int v)
{
	if (!variant(v))
		return -EINVAL;
	g->variant = v;
	return 0;
}

int gpu_variant(const struct gpu *g)
{
	return g->variant;
}

void gpu_spin_ns(struct gpu *g, uint64_t ns)
{
	g->spin_ns = ns;
	variant(g->variant)->launcher->spin_ns = ns;
}

int gpu_search(struct gpu *g, const uint8_t digest[32], uint64_t lo,
	       uint64_t hi, uint64_t *found, const uint32_t *stop)
{
	const struct gpu_host_variant *h = variant(g->variant);

	h->launcher->spin_ns = g->spin_ns;
	return h->search(digest, lo, hi, found, stop);
}

const char *gpu_error(const struct gpu *g)
{
	(void)g;
	return "";
}

const char *gpu_watch_error(const struct gpu *g)
{
	(void)g;
	return "";
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
