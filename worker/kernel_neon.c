/* The NEON kernel: the lane algorithm of kernel_lanes.h, four lanes in one
 * 128-bit register, for arm64 cores without the SHA-2 instructions. It
 * spells out what gcc does not find in the portable kernel: a rotate is a
 * shift left and a shift right that inserts (sri), two instructions where
 * gcc writes three (docs/performance.md). NEON is in every arm64 core. */
#include "kernel.h"

#include <arm_neon.h>

typedef uint32x4_t vec;

#define LANES 4
#define v_set1(x) vdupq_n_u32(x)
#define v_add(a, b) vaddq_u32(a, b)
#define v_xor3(a, b, c) veorq_u32(veorq_u32(a, b), c)
/* (e & f) | (~e & g): e selects between f and g. */
#define v_ch(e, f, g) vbslq_u32(e, f, g)
/* Where a and b agree, the majority is theirs; where not, c decides. */
#define v_maj(a, b, c) vbslq_u32(veorq_u32(a, b), c, b)
#define v_ror(x, n) vsriq_n_u32(vshlq_n_u32(x, 32 - (n)), x, n)
#define v_shr(x, n) vshrq_n_u32(x, n)
#define v_bswap(x) vreinterpretq_u32_u8(vrev32q_u8(vreinterpretq_u8_u32(x)))

static inline vec v_index(void)
{
	static const uint32_t index[LANES] = { 0, 1, 2, 3 };

	return vld1q_u32(index);
}

/* Bit i set when lane i of x equals s. */
static inline uint32_t v_eq_mask(vec x, uint32_t s)
{
	static const uint32_t bit[LANES] = { 1, 2, 4, 8 };

	return vaddvq_u32(vandq_u32(vceqq_u32(x, v_set1(s)), vld1q_u32(bit)));
}

#include "kernel_lanes.h"
#include "kernel_range.h"

const struct kernel kernel_neon = {
	.name = "neon", .lanes = LANES, .supported = kernel_always, .search = range_search
};
