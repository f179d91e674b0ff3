/* The AVX-512 kernel: the lane algorithm of kernel_lanes.h on the
 * primitives of kernel_avx512_vec.h, sixteen lanes a block.
 * The intrinsics are AVX-512F only, but the build adds -mavx512vl, which
 * lets the compiler use it anywhere in this file: supported() wants both. */
#include "kernel.h"

#include "kernel_avx512_vec.h"
#include "kernel_lanes.h"

#define LANES 16
#include "kernel_range.h"

/* Plain CPU-feature tests only: this runs on CPUs without AVX-512. */
static int supported(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("avx512vl");
}

const struct kernel kernel_avx512 = {
	.name = "avx512", .lanes = LANES, .supported = supported, .search = range_search
};
