/* The table of the host builds of the GPU kernel's variants. The build
 * compiles gpu_host.c once per variant of every list (worker/gpu/
 * variants.mk) and passes them here as GPU_VARIANT_LIST, X(n) for each,
 * with the counts of the first that are shipped and that --kernel auto
 * measures. */
#include "worker/gpu/gpu_host.h"

#include "lib/pick.h"

#if !defined GPU_VARIANT_LIST || !defined GPU_VARIANTS_SHIPPED || !defined GPU_VARIANTS_AUTO
#error "the build names the variants and counts the shipped and the measured (gpu.mk)"
#endif

#define X(n) extern const struct gpu_host_variant gpu_host_##n;
GPU_VARIANT_LIST
#undef X

#define X(n) &gpu_host_##n,
static const struct gpu_host_variant *const all[] = { GPU_VARIANT_LIST };
#undef X
_Static_assert(sizeof all / sizeof all[0] <= PICK_MAX,
	       "the stand-in worker measures every variant (device_cuda.c)");
_Static_assert(GPU_VARIANTS_SHIPPED >= 1 && GPU_VARIANTS_SHIPPED <= GPU_VARIANTS_AUTO &&
	       GPU_VARIANTS_AUTO <= sizeof all / sizeof all[0],
	       "the shipped first, then the other measured");

const struct gpu_host_variant *const *gpu_host_variants(size_t *n)
{
	*n = sizeof all / sizeof all[0];
	return all;
}

int gpu_host_search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
		    uint64_t *found, const uint32_t *stop)
{
	return all[0]->search(digest, lo, hi, found, stop);
}

uint64_t gpu_host_rejected(void)
{
	return all[0]->launcher->rejected;
}
