/* The block algorithm of the SHA-NI kernel: sha256rnds2 does two rounds per
 * instruction, 29 of them up to the compare (the A of ABEF after 58 rounds,
 * which the digest determines: sha256_late_a), their latency hidden by NWAY
 * messages side by side. The schedule uses sha256msg1/msg2, the words W0
 * does not reach precomputed per segment. A header so that kernel_hybrid.c
 * may combine these blocks with others; the includer may define NWAY
 * first, and is compiled with -msha -msse4.1. */
#ifndef REVHASH_KERNEL_SHANI_BLOCK_H
#define REVHASH_KERNEL_SHANI_BLOCK_H

#include <immintrin.h>
#include <stdint.h>

#include "sha256_ref.h"
#include "kernel_nway.h"

#ifndef NWAY
#define NWAY 4
#endif

/* What one segment (fixed W1) shares. The round inputs K + W of groups
 * 0..3 (W0..W15, four words a group) are split into the low pair (first
 * sha256rnds2) and the high pair (second); W0 is still to be added. */
struct shani_plan {
	__m128i abef, cdgh;     /* the initial state, as sha256rnds2 wants it */
	__m128i wk_lo[4], wk_hi[4];
	__m128i m3;             /* W12..W15 */
	__m128i m4_part;        /* W16..W19 before sha256msg2, less W0 */
	__m128i k[16];          /* K, four words a group */
	uint32_t target;        /* the a after 58 rounds that leads to the digest */
};

static __m128i load4(const uint32_t *w)
{
	return _mm_loadu_si128((const __m128i *)w);
}

static void shani_plan_init(struct shani_plan *p, const uint8_t digest[32],
			    uint64_t x)
{
	const uint32_t *iv = sha256_iv;
	uint32_t w[16];

	sha256_segment_block(x, w);
	p->abef = _mm_setr_epi32((int)iv[5], (int)iv[4], (int)iv[1], (int)iv[0]);
	p->cdgh = _mm_setr_epi32((int)iv[7], (int)iv[6], (int)iv[3], (int)iv[2]);
	for (int g = 0; g < 16; g++)
		p->k[g] = load4(sha256_k + 4 * g);
	for (int g = 0; g < 4; g++) {
		p->wk_lo[g] = _mm_add_epi32(load4(w + 4 * g), p->k[g]);
		p->wk_hi[g] = _mm_shuffle_epi32(p->wk_lo[g], 0x0e);
	}
	p->m3 = load4(w + 12);
	p->m4_part = _mm_sha256msg1_epu32(load4(w), load4(w + 4));
	uint32_t late[8];
	sha256_late_a(digest, late);
	p->target = late[1];
}

/* Four rounds: s0 holds ABEF and s1 CDGH before and after. */
#define ROUNDS4(lo, hi)                                                      \
	EACH(s1[j] = _mm_sha256rnds2_epu32(s1[j], s0[j], lo);                \
	     s0[j] = _mm_sha256rnds2_epu32(s0[j], s1[j], hi))

/* The message schedule keeps group g (W[4g..4g+3]) in m[g % 4]. From the
 * pieces W[t-16] + s0(W[t-15]) (MSG1) and W[t-7] (ALIGN), MSG2 adds the
 * s1(W[t-2]) terms. */
#define MSG1(g) _mm_sha256msg1_epu32(m[(g) % 4][j], m[((g) + 1) % 4][j])
#define ALIGN(g) _mm_alignr_epi8(m[((g) - 1) % 4][j], m[((g) - 2) % 4][j], 4)
#define MSG2(g, part)                                                        \
	EACH(m[(g) % 4][j] = _mm_sha256msg2_epu32(part, m[((g) - 1) % 4][j]))

/* The rounds 4g..4g+3 of a scheduled group. */
#define ROUNDS_OF(g)                                                         \
	do {                                                                 \
		EACH(wk[j] = _mm_add_epi32(m[(g) % 4][j], p->k[g]));         \
		ROUNDS4(wk[j], _mm_shuffle_epi32(wk[j], 0x0e));              \
	} while (0)

#define GROUP(g)                                                             \
	do {                                                                 \
		MSG2(g, _mm_add_epi32(MSG1((g) - 4), ALIGN(g)));             \
		ROUNDS_OF(g);                                                \
	} while (0)

/* Bit j set when the value with low half x32 + j may be the answer. */
static inline uint32_t shani_candidates(const struct shani_plan *p,
					uint32_t x32)
{
	__m128i s0[NWAY], s1[NWAY], m[4][NWAY], wk[NWAY];
	uint32_t w0[NWAY], mask = 0;

	EACH(w0[j] = __builtin_bswap32(x32 + j));
	EACH(s0[j] = p->abef; s1[j] = p->cdgh);
	/* Groups 0..3: W1..W15 are fixed, so only the first pair varies. */
	ROUNDS4(_mm_add_epi32(p->wk_lo[0], _mm_cvtsi32_si128((int)w0[j])),
		p->wk_hi[0]);
	ROUNDS4(p->wk_lo[1], p->wk_hi[1]);
	ROUNDS4(p->wk_lo[2], p->wk_hi[2]);
	ROUNDS4(p->wk_lo[3], p->wk_hi[3]);
	/* Groups 4..6: W4..W11 are zero, and with them most pieces. */
	EACH(m[3][j] = p->m3);
	MSG2(4, _mm_add_epi32(p->m4_part, _mm_cvtsi32_si128((int)w0[j])));
	ROUNDS_OF(4);
	MSG2(5, ALIGN(5));
	ROUNDS_OF(5);
	MSG2(6, ALIGN(6));
	ROUNDS_OF(6);
	GROUP(7);
	GROUP(8);
	GROUP(9);
	GROUP(10);
	GROUP(11);
	GROUP(12);
	GROUP(13);
	/* Rounds 56 and 57 only: A of the new ABEF is the a after 58 rounds. */
	MSG2(14, _mm_add_epi32(MSG1(10), ALIGN(14)));
	EACH(s1[j] = _mm_sha256rnds2_epu32(s1[j], s0[j],
					   _mm_add_epi32(m[2][j], p->k[14])));
	EACH(mask |= (uint32_t)((uint32_t)_mm_extract_epi32(s1[j], 3) ==
				p->target) << j);
	return mask;
}

#endif
