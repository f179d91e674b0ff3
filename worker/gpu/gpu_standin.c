/* The GPU search's interface (gpu.h) over the host build of its variants
 * (gpu_host.h), built with the table's counts (gpu.mk): linked into
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
#include "worker/gpu/gpu_variant.h"

struct gpu {
	int device;
	int variant;
	char name[64];
	uint64_t spin_ns;
};

/* Variant v's host build, or NULL. */
static const struct gpu_host_variant *variant(int v)
{
	size_t n;
	const struct gpu_host_variant *const *all = gpu_host_variants(&n);

	return v >= 0 && (size_t)v < n ? all[v] : NULL;
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
	size_t n;

	gpu_host_variants(&n);
	return (int)n;
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
