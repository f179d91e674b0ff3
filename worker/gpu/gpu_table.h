/* The table of the kernel variants a build holds, and the functions of
 * gpu.h that are the same for the device (gpu.cu) and the host build
 * (gpu_standin.c). Each of them includes this once, after gpu.h and its
 * struct gpu (with the fields name, variant, err and watch_err), naming
 * the type of its variants' entries (GPU_ENTRY, with the field variant)
 * and the entry of variant n (GPU_ENTRY_OF(n)). The build passes the list
 * as GPU_VARIANT_LIST, X(n) for each, with the counts of the first that
 * are shipped and that --kernel auto measures (gpu.mk). */
#ifndef REVHASH_GPU_TABLE_H
#define REVHASH_GPU_TABLE_H

#include <assert.h>
#include <errno.h>

#include "lib/pick.h"
#include "worker/gpu/gpu_variant.h"

#if !defined GPU_VARIANT_LIST || !defined GPU_VARIANTS_SHIPPED || !defined GPU_VARIANTS_AUTO
#error "the build names the variants and counts the shipped and the measured (gpu.mk)"
#endif

#ifdef __cplusplus
extern "C" {
#endif
#define X(n) extern const GPU_ENTRY GPU_ENTRY_OF(n);
GPU_VARIANT_LIST
#undef X
#ifdef __cplusplus
}
#endif

#define X(n) &GPU_ENTRY_OF(n),
static const GPU_ENTRY *const variants[] = { GPU_VARIANT_LIST };
#undef X
#define NVARIANTS (int)(sizeof variants / sizeof variants[0])
static_assert(NVARIANTS <= PICK_MAX, "the worker measures every variant (device_cuda.c)");
static_assert(GPU_VARIANTS_SHIPPED >= 1 && GPU_VARIANTS_SHIPPED <= GPU_VARIANTS_AUTO &&
	      GPU_VARIANTS_AUTO <= NVARIANTS, "the shipped first, then the other measured");

/* Variant v's entry, or NULL. */
static const GPU_ENTRY *variant(int v)
{
	return v >= 0 && v < NVARIANTS ? variants[v] : NULL;
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
	return variant(v) ? gpu_variant_label(variant(v)->variant) : NULL;
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

const char *gpu_name(const struct gpu *g)
{
	return g->name;
}

const char *gpu_error(const struct gpu *g)
{
	return g->err;
}

const char *gpu_watch_error(const struct gpu *g)
{
	return g->watch_err;
}

#endif
