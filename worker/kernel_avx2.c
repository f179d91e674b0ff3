/* The AVX2 kernel: the lane algorithm of kernel_lanes.h, eight lanes in one
 * ymm register. AVX2 has no rotate, so each rotate is two shifts joined by
 * xor rather than or: then a sigma is six shifts under one xor tree, which
 * the compiler may regroup (measured 11% faster with gcc 12). */
#include "kernel.h"

#include <immintrin.h>

typedef __m256i vec;

#define LANES 8
#define v_set1(x) _mm256_set1_epi32((int)(x))
#define v_index() _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)
#define v_add(a, b) _mm256_add_epi32(a, b)
#define v_xor(a, b) _mm256_xor_si256(a, b)
#define v_xor3(a, b, c) v_xor(v_xor(a, b), c)
#define v_ch(e, f, g) v_xor(_mm256_and_si256(e, f), _mm256_andnot_si256(e, g))
#define v_maj(a, b, c) v_xor(b, _mm256_and_si256(v_xor(a, b), v_xor(b, c)))
#define v_ror(x, n) _mm256_xor_si256(_mm256_srli_epi32(x, n), \
				    _mm256_slli_epi32(x, 32 - (n)))
#define v_shr(x, n) _mm256_srli_epi32(x, n)
#define v_bswap(x) _mm256_shuffle_epi8(x, _mm256_setr_epi8(                \
	3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,                 \
	3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12))
#define v_eq_mask(x, s) (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps( \
	_mm256_cmpeq_epi32(x, v_set1(s))))

#include "kernel_lanes.h"
#include "kernel_range.h"

/* Plain CPU-feature tests only: this runs on CPUs without AVX2. */
static int supported(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

const struct kernel kernel_avx2 = {
	.name = "avx2", .lanes = LANES, .supported = supported, .search = range_search
};
