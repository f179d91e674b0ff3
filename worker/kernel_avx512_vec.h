/* The primitives of kernel_lanes.h on AVX-512: sixteen lanes in one zmm
 * register. Native rotates and three-input logic (vpternlogd) make a round
 * about half the instructions of AVX2's, on twice the lanes. A header for
 * the kernels built on them (kernel_avx512.c, kernel_hybrid.c), compiled
 * with -mavx512f -mavx512vl. */
#ifndef REVHASH_KERNEL_AVX512_VEC_H
#define REVHASH_KERNEL_AVX512_VEC_H

#include <immintrin.h>
#include <stdint.h>

typedef __m512i vec;

/* vpternlogd truth tables, bit (a << 2 | b << 1 | c) of the result. */
#define TL_XOR3 0x96 /* a ^ b ^ c */
#define TL_CH 0xca   /* a ? b : c */
#define TL_MAJ 0xe8  /* at least two of a, b, c */
#define TL_MERGE 0xd8 /* c ? b : a */

#define v_set1(x) _mm512_set1_epi32((int)(x))
#define v_index() _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, \
				    12, 13, 14, 15)
#define v_add(a, b) _mm512_add_epi32(a, b)
#define v_xor3(a, b, c) _mm512_ternarylogic_epi32(a, b, c, TL_XOR3)
#define v_ch(e, f, g) _mm512_ternarylogic_epi32(e, f, g, TL_CH)
#define v_maj(a, b, c) _mm512_ternarylogic_epi32(a, b, c, TL_MAJ)
#define v_ror(x, n) _mm512_ror_epi32(x, n)
#define v_shr(x, n) _mm512_srli_epi32(x, n)
/* A byte shuffle would need AVX-512BW: take bytes 3 and 1 of the rotate by
 * 8 and bytes 2 and 0 of the rotate by 24 instead. */
#define v_bswap(x) _mm512_ternarylogic_epi32(_mm512_ror_epi32(x, 8),       \
	_mm512_ror_epi32(x, 24), v_set1(0x00ff00ff), TL_MERGE)
#define v_eq_mask(x, s) (uint32_t)_mm512_cmpeq_epi32_mask(x, v_set1(s))

#endif
