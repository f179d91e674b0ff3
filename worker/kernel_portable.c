/* The portable kernel: the lane algorithm of kernel_lanes.h on GCC vector
 * extensions, built with no -m flags, so it runs on any CPU. Four lanes,
 * one SSE2 or NEON register: eight measured 25% slower on x86-64. */
#include "kernel.h"

typedef uint32_t vec __attribute__((vector_size(16)));

#define LANES 4
#define v_set1(x) ((vec){ 0 } + (uint32_t)(x))
#define v_index() ((vec){ 0, 1, 2, 3 })
#define v_add(a, b) ((a) + (b))
#define v_xor3(a, b, c) ((a) ^ (b) ^ (c))
#define v_ch(e, f, g) ((g) ^ ((e) & ((f) ^ (g))))
#define v_maj(a, b, c) ((b) ^ (((a) ^ (b)) & ((b) ^ (c))))
#define v_ror(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define v_shr(x, n) ((x) >> (n))

static inline vec v_bswap(vec x)
{
	return (x << 24) | ((x & 0xff00) << 8) | ((x >> 8) & 0xff00) | (x >> 24);
}

static inline uint32_t v_eq_mask(vec x, uint32_t s)
{
	vec eq = (vec)(x == s);
	uint32_t mask = 0;

	for (int i = 0; i < LANES; i++)
		mask |= (eq[i] & 1) << i;
	return mask;
}

#include "kernel_lanes.h"
#include "kernel_range.h"

const struct kernel kernel_portable = {
	.name = "portable", .lanes = LANES, .supported = kernel_always, .search = range_search
};
