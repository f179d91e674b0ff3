/* The SHA-NI kernel: the blocks of kernel_shani_block.h, NWAY messages
 * each, walked over the range by kernel_range.h. */
#include "kernel.h"

#include <cpuid.h>

#include "kernel_shani_block.h"

#define LANES NWAY
#define PLAN struct shani_plan
#define PLAN_INIT shani_plan_init
#define BLOCK_CANDIDATES shani_candidates

#include "kernel_range.h"

/* Plain CPUID tests only: this runs on CPUs without SHA-NI. */
static int supported(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1))
		return 0;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
}

const struct kernel kernel_shani = {
	.name = "shani", .lanes = LANES, .supported = supported, .search = range_search
};
