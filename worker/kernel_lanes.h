/* The one search algorithm of the lane-parallel kernels (portable, AVX2,
 * AVX-512, NEON, the GPU), written once: each kernel defines a vector type
 * and a dozen primitives, then includes this header, so a kernel that
 * cannot run on every test machine differs from the tested ones only in
 * its primitives.
 *
 * Only W0 (the low half of x) changes from lane to lane; W1 is fixed within
 * a 2^32 segment, whose plan holds what does not depend on W0: round 0 up
 * to "+ W0", K[t] + W[t] of rounds 1..15, the fixed parts of W16..W31. The
 * rounds stop after 57 of 64, at an a word the digest determines
 * (sha256_late_a); lanes that match go to the scalar reference.
 *
 * The includer defines, before including this file:
 *   vec              a vector of uint32_t lanes (at most 32)
 *   v_set1(x)        every lane = x
 *   v_index()        lane i = i
 *   v_add(a, b)      lane-wise a + b
 *   v_xor3(a, b, c)  a ^ b ^ c
 *   v_ch(e, f, g)    (e & f) ^ (~e & g)
 *   v_maj(a, b, c)   (a & b) ^ (a & c) ^ (b & c)
 *   v_ror(x, n)      rotate right by the constant n
 *   v_shr(x, n)      shift right by the constant n
 *   v_bswap(x)       swap the bytes of each lane
 *   v_eq_mask(x, s)  a bitmask with bit i set when lane i of x equals s
 * and gets struct lanes_plan, lanes_plan_init() and lanes_candidates(), the
 * plan and blocks that kernel_range.h walks over a range. The GPU's
 * variants (gpu_variant.h) may also define
 *   LANES_FN         how the per-block functions are declared (default
 *                    static inline)
 *   LANES_K(t)       round constant t (default sha256_k[t], host memory)
 *   LANES_PLAN_SSIG0 sigma0 of W17, W19, W21 kept in the plan, not
 *                    computed per block
 *   LANES_PLAN_FOLD  h + K + W of rounds 1..3 and K + W of rounds 17, 19,
 *                    21 kept in the plan
 *   LANES_ROR_AT(x, n, t, j)  rotate j (0..2 of BSIG0, 3..5 of BSIG1) of
 *                    round t, by n (default v_ror) */
#ifndef REVHASH_KERNEL_LANES_H
#define REVHASH_KERNEL_LANES_H

#include <stdint.h>
#include <string.h>

#include "proto/proto.h"
#include "sha256_ref.h"

#ifndef LANES_FN
#define LANES_FN static inline
#endif
#ifndef LANES_K
#define LANES_K(t) sha256_k[t]
#endif
#ifndef LANES_ROR_AT
#define LANES_ROR_AT(x, n, t, j) v_ror(x, n)
#endif

/* What one segment (fixed W1, hence fixed high half of x) shares. */
struct lanes_plan {
	uint32_t state1[8]; /* the state after round 0, less W0 in a and e */
	uint32_t kw[16];    /* K[t] + W[t] for the rounds 1..15 */
	uint32_t c16;       /* W16 = W0 + c16 */
	uint32_t w17, w19, w21; /* schedule words that depend on W1 only */
	uint32_t c23;       /* W23 = W16 + c23 */
#ifdef LANES_PLAN_SSIG0
	uint32_t s0_17, s0_19, s0_21; /* sigma0 of W17, W19, W21 */
#endif
#ifdef LANES_PLAN_FOLD
	uint32_t hkw[4];    /* [1..3]: h + K[t] + W[t] of round t */
	uint32_t kw17, kw19, kw21; /* K[t] + W[t] */
#endif
	uint32_t target;    /* the a after 57 rounds that leads to the digest */
};

LANES_FN uint32_t ror32(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

LANES_FN uint32_t ssig0(uint32_t x)
{
	return ror32(x, 7) ^ ror32(x, 18) ^ (x >> 3);
}

LANES_FN uint32_t ssig1(uint32_t x)
{
	return ror32(x, 17) ^ ror32(x, 19) ^ (x >> 10);
}

/* Fill the plan for the segment that holds x. */
static void lanes_plan_init(struct lanes_plan *p, const uint8_t digest[32],
			    uint64_t x)
{
	const uint32_t *s = sha256_iv;
	uint32_t w[16];

	sha256_segment_block(x, w);
	uint32_t ch = (s[4] & s[5]) ^ (~s[4] & s[6]);
	uint32_t maj = (s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]);
	uint32_t t1 = s[7] + (ror32(s[4], 6) ^ ror32(s[4], 11) ^ ror32(s[4], 25)) +
		      ch + sha256_k[0];
	uint32_t t2 = (ror32(s[0], 2) ^ ror32(s[0], 13) ^ ror32(s[0], 22)) + maj;
	uint32_t state1[8] = { t1 + t2, s[0], s[1], s[2], s[3] + t1, s[4], s[5], s[6] };

	memcpy(p->state1, state1, sizeof state1);
	for (int t = 1; t < 16; t++)
		p->kw[t] = sha256_k[t] + w[t];
	/* W3..W14 are zero, which leaves most terms of W16..W23 out. */
	p->c16 = ssig0(w[1]);
	p->w17 = ssig1(w[15]) + ssig0(w[2]) + w[1];
	p->w19 = ssig1(p->w17);
	p->w21 = ssig1(p->w19);
	p->c23 = ssig1(p->w21);
#ifdef LANES_PLAN_SSIG0
	p->s0_17 = ssig0(p->w17);
	p->s0_19 = ssig0(p->w19);
	p->s0_21 = ssig0(p->w21);
#endif
#ifdef LANES_PLAN_FOLD
	/* The h of round t (1..3) is state1[8 - t], untouched until then. */
	p->hkw[0] = 0;
	for (int t = 1; t <= 3; t++)
		p->hkw[t] = state1[8 - t] + p->kw[t];
	p->kw17 = sha256_k[17] + p->w17;
	p->kw19 = sha256_k[19] + p->w19;
	p->kw21 = sha256_k[21] + p->w21;
#endif
	uint32_t late[8];
	sha256_late_a(digest, late);
	p->target = late[0];
}

/* The Sigmas of round t. */
#define BSIG0(x, t)                                                          \
	v_xor3(LANES_ROR_AT(x, 2, t, 0), LANES_ROR_AT(x, 13, t, 1),            \
	       LANES_ROR_AT(x, 22, t, 2))
#define BSIG1(x, t)                                                          \
	v_xor3(LANES_ROR_AT(x, 6, t, 3), LANES_ROR_AT(x, 11, t, 4),            \
	       LANES_ROR_AT(x, 25, t, 5))
#define SSIG0(x) v_xor3(v_ror(x, 7), v_ror(x, 18), v_shr(x, 3))
#define SSIG1(x) v_xor3(v_ror(x, 17), v_ror(x, 19), v_shr(x, 10))

/* One round t, its T1 given; the caller rotates the names instead of
 * moving the values. */
#define ROUND_T1(a, b, c, d, e, f, g, h, t, t1)                              \
	do {                                                                 \
		vec t1_ = (t1);                                              \
		d = v_add(d, t1_);                                           \
		h = v_add(t1_, v_add(BSIG0(a, t), v_maj(a, b, c)));          \
	} while (0)

#define ROUND(a, b, c, d, e, f, g, h, t, kw)                                 \
	ROUND_T1(a, b, c, d, e, f, g, h, t,                                  \
		 v_add(v_add(h, BSIG1(e, t)), v_add(v_ch(e, f, g), kw)))

/* Rounds 1..3, whose h is a constant of the plan. */
#ifdef LANES_PLAN_FOLD
#define ROUND_PLANNED_H(a, b, c, d, e, f, g, h, t)                           \
	ROUND_T1(a, b, c, d, e, f, g, h, t,                                  \
		 v_add(BSIG1(e, t), v_add(v_ch(e, f, g), v_set1(p->hkw[t]))))
#else
#define ROUND_PLANNED_H(a, b, c, d, e, f, g, h, t)                           \
	ROUND(a, b, c, d, e, f, g, h, t, KW_PLAN(t))
#endif

#define ROUND8(t, KW)                                                        \
	do {                                                                 \
		ROUND(a, b, c, d, e, f, g, h, t, KW(t));                     \
		ROUND(h, a, b, c, d, e, f, g, t + 1, KW(t + 1));             \
		ROUND(g, h, a, b, c, d, e, f, t + 2, KW(t + 2));             \
		ROUND(f, g, h, a, b, c, d, e, t + 3, KW(t + 3));             \
		ROUND(e, f, g, h, a, b, c, d, t + 4, KW(t + 4));             \
		ROUND(d, e, f, g, h, a, b, c, t + 5, KW(t + 5));             \
		ROUND(c, d, e, f, g, h, a, b, t + 6, KW(t + 6));             \
		ROUND(b, c, d, e, f, g, h, a, t + 7, KW(t + 7));             \
	} while (0)

/* Round inputs: planned constants, the words of w[], or the words computed
 * on the way by the general schedule. */
#define KW_PLAN(t) v_set1(p->kw[t])
#ifdef LANES_PLAN_FOLD
#define KW_W(t)                                                              \
	((t) == 17 ? v_set1(p->kw17) : (t) == 19 ? v_set1(p->kw19) :          \
	 (t) == 21 ? v_set1(p->kw21) : v_add(v_set1(LANES_K(t)), w[t]))
#else
#define KW_W(t) v_add(v_set1(LANES_K(t)), w[t])
#endif
#ifdef LANES_PLAN_SSIG0
#define SSIG0_OF(t)                                                          \
	((t) == 17 ? v_set1(p->s0_17) : (t) == 19 ? v_set1(p->s0_19) :        \
	 (t) == 21 ? v_set1(p->s0_21) : SSIG0(w[t]))
#else
#define SSIG0_OF(t) SSIG0(w[t])
#endif
#define KW_SCHED(t)                                                          \
	(w[t] = v_add(v_add(SSIG1(w[t - 2]), w[t - 7]),                      \
		      v_add(SSIG0_OF(t - 15), w[t - 16])),                   \
	 KW_W(t))

/* W16..W31 with every zero term of the padding left out. */
LANES_FN void schedule16(const struct lanes_plan *p, vec w0, vec w[57])
{
	w[16] = v_add(w0, v_set1(p->c16));
	w[17] = v_set1(p->w17);
	w[18] = v_add(SSIG1(w[16]), v_set1(0x80000000));
	w[19] = v_set1(p->w19);
	w[20] = SSIG1(w[18]);
	w[21] = v_set1(p->w21);
	w[22] = v_add(SSIG1(w[20]), v_set1(64));
	w[23] = v_add(w[16], v_set1(p->c23));
	w[24] = v_add(SSIG1(w[22]), w[17]);
	w[25] = v_add(SSIG1(w[23]), w[18]);
	w[26] = v_add(SSIG1(w[24]), w[19]);
	w[27] = v_add(SSIG1(w[25]), w[20]);
	w[28] = v_add(SSIG1(w[26]), w[21]);
	w[29] = v_add(SSIG1(w[27]), w[22]);
	w[30] = v_add(v_add(SSIG1(w[28]), w[23]), v_set1(ssig0(64)));
	w[31] = v_add(v_add(SSIG1(w[29]), w[24]),
		      v_add(SSIG0(w[16]), v_set1(64)));
}

/* The a after 57 rounds of the messages whose first words are w0. Fully
 * unrolled; the compiler drops the e that the last round makes. */
LANES_FN vec rounds_to_57(const struct lanes_plan *p, vec w0)
{
	/* The names start rotated by one: round 0 is in the plan. */
	const uint32_t *s = p->state1;
	vec h = v_add(w0, v_set1(s[0])), a = v_set1(s[1]), b = v_set1(s[2]),
	    c = v_set1(s[3]), d = v_add(w0, v_set1(s[4])), e = v_set1(s[5]),
	    f = v_set1(s[6]), g = v_set1(s[7]);
	vec w[57];

	ROUND_PLANNED_H(h, a, b, c, d, e, f, g, 1);
	ROUND_PLANNED_H(g, h, a, b, c, d, e, f, 2);
	ROUND_PLANNED_H(f, g, h, a, b, c, d, e, 3);
	ROUND(e, f, g, h, a, b, c, d, 4, KW_PLAN(4));
	ROUND(d, e, f, g, h, a, b, c, 5, KW_PLAN(5));
	ROUND(c, d, e, f, g, h, a, b, 6, KW_PLAN(6));
	ROUND(b, c, d, e, f, g, h, a, 7, KW_PLAN(7));
	ROUND8(8, KW_PLAN);
	schedule16(p, w0, w);
	ROUND8(16, KW_W);
	ROUND8(24, KW_W);
	ROUND8(32, KW_SCHED);
	ROUND8(40, KW_SCHED);
	ROUND8(48, KW_SCHED);
	ROUND(a, b, c, d, e, f, g, h, 56, KW_SCHED(56));
	return h; /* round 56 wrote its a where the h of its naming is */
}

/* Bit i set when x32 + i, in the low half of x, may be the answer. */
LANES_FN uint32_t lanes_candidates(const struct lanes_plan *p, uint32_t x32)
{
	vec w0 = v_bswap(v_add(v_set1(x32), v_index()));

	return v_eq_mask(rounds_to_57(p, w0), p->target);
}

#endif
