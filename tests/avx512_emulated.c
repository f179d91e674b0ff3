/* The AVX-512 kernel's own source, compiled against a portable emulation of
 * the seven intrinsics it uses, so that its logic is checked against OpenSSL
 * on any CPU (check_kernel.c). Only the hardware's meaning of those seven
 * intrinsics, emulated here from their documented definitions, is left to a
 * CPU that has AVX-512. */
#include <stdint.h>

/* Keep the compiler's real intrinsics header out (gcc, clang). */
#define _IMMINTRIN_H_INCLUDED
#define __IMMINTRIN_H

typedef struct {
	uint32_t v[16];
} __m512i;
typedef uint16_t __mmask16;

static __attribute__((noinline)) __m512i _mm512_set1_epi32(int x)
{
	__m512i r;

	for (int i = 0; i < 16; i++)
		r.v[i] = (uint32_t)x;
	return r;
}

static __attribute__((noinline)) __m512i _mm512_setr_epi32(int e0, int e1, int e2, int e3, int e4,
				 int e5, int e6, int e7, int e8, int e9,
				 int e10, int e11, int e12, int e13, int e14,
				 int e15)
{
	__m512i r = { { (uint32_t)e0, (uint32_t)e1, (uint32_t)e2, (uint32_t)e3,
			(uint32_t)e4, (uint32_t)e5, (uint32_t)e6, (uint32_t)e7,
			(uint32_t)e8, (uint32_t)e9, (uint32_t)e10, (uint32_t)e11,
			(uint32_t)e12, (uint32_t)e13, (uint32_t)e14, (uint32_t)e15 } };
	return r;
}

static __attribute__((noinline)) __m512i _mm512_add_epi32(__m512i a, __m512i b)
{
	for (int i = 0; i < 16; i++)
		a.v[i] += b.v[i];
	return a;
}

/* Bit k of each result lane is bit (a_k << 2 | b_k << 1 | c_k) of imm:
 * the OR of the minterms imm selects. */
static __attribute__((noinline)) __m512i _mm512_ternarylogic_epi32(__m512i a, __m512i b, __m512i c,
					 int imm)
{
	__m512i r;

	for (int i = 0; i < 16; i++) {
		r.v[i] = 0;
		for (int idx = 0; idx < 8; idx++) {
			if (!(imm >> idx & 1))
				continue;
			r.v[i] |= (idx & 4 ? a.v[i] : ~a.v[i]) &
				  (idx & 2 ? b.v[i] : ~b.v[i]) &
				  (idx & 1 ? c.v[i] : ~c.v[i]);
		}
	}
	return r;
}

static __attribute__((noinline)) __m512i _mm512_ror_epi32(__m512i a, int n)
{
	for (int i = 0; i < 16; i++)
		a.v[i] = a.v[i] >> (n & 31) | a.v[i] << ((32 - n) & 31);
	return a;
}

static __attribute__((noinline)) __m512i _mm512_srli_epi32(__m512i a, unsigned n)
{
	for (int i = 0; i < 16; i++)
		a.v[i] = n > 31 ? 0 : a.v[i] >> n;
	return a;
}

static __attribute__((noinline)) __mmask16 _mm512_cmpeq_epi32_mask(__m512i a, __m512i b)
{
	__mmask16 m = 0;

	for (int i = 0; i < 16; i++)
		m |= (__mmask16)((a.v[i] == b.v[i]) << i);
	return m;
}

/* The kernel itself, under another name so it can sit beside the real one. */
#define kernel_avx512 kernel_avx512_hidden
#include "worker/kernel_avx512.c"
#undef kernel_avx512

static int always(void)
{
	return 1;
}

const struct kernel kernel_avx512_emulated = {
	.name = "avx512-emulated", .lanes = LANES, .supported = always, .search = range_search
};
