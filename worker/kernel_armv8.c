/* The ARMv8 SHA-2 kernel: sha256h and sha256h2 do four rounds between
 * them, so one message takes 15 sha256h and 14 sha256h2 up to the compare,
 * the lane kernels' a after 57 rounds (sha256_late_a): rounds 56..59 are
 * one sha256h, whose D lane out is the a after round 56 alone, so the
 * compare needs neither that group's sha256h2 nor W57..W59 right. The
 * schedule uses sha256su0/su1, the words W0 does not reach precomputed per
 * segment. NWAY messages side by side hide sha256h's latency
 * (docs/performance.md). Built with the SHA-2 flags (GNUmakefile). */
#include "kernel.h"

#include <arm_neon.h>
#include <sys/auxv.h>
#include <asm/hwcap.h>

#include "sha256_ref.h"
#include "kernel_nway.h"

#define NWAY 4

/* What one segment (fixed W1) shares. Groups are four message words
 * W[4g..4g+3], as the instructions take them; W0 is still to be added. */
struct armv8_plan {
	uint32x4_t abcd, efgh;  /* the initial state */
	uint32x4_t wk[4];       /* K + W of groups 0..3 */
	uint32x4_t m3;          /* W12..W15 */
	uint32x4_t m4_part;     /* sha256su0 of groups 0 and 1, less W0 */
	uint32x4_t m6_part;     /* sha256su0 of groups 2 and 3 (W8..W11 zero) */
	uint32x4_t k[15];       /* K, four words a group */
	uint32_t target;        /* the a after 57 rounds that leads to the digest */
};

static void armv8_plan_init(struct armv8_plan *p, const uint8_t digest[32],
			    uint64_t x)
{
	uint32_t w[16], late[8];

	sha256_segment_block(x, w);
	p->abcd = vld1q_u32(sha256_iv);
	p->efgh = vld1q_u32(sha256_iv + 4);
	for (int g = 0; g < 15; g++)
		p->k[g] = vld1q_u32(sha256_k + 4 * g);
	for (int g = 0; g < 4; g++)
		p->wk[g] = vaddq_u32(vld1q_u32(w + 4 * g), p->k[g]);
	p->m3 = vld1q_u32(w + 12);
	p->m4_part = vsha256su0q_u32(vld1q_u32(w), vld1q_u32(w + 4));
	p->m6_part = vsha256su0q_u32(vld1q_u32(w + 8), p->m3);
	sha256_late_a(digest, late);
	p->target = late[0];
}

/* Four rounds with the round inputs wk: abcd and efgh hold the state
 * before and after. */
#define ROUNDS4(wk)                                                          \
	EACH(uint32x4_t in = (wk); uint32x4_t was = abcd[j];                 \
	     abcd[j] = vsha256hq_u32(abcd[j], efgh[j], in);                  \
	     efgh[j] = vsha256h2q_u32(efgh[j], was, in))

/* The schedule keeps group g in m[g % 4]. sha256su0 makes W[t-16] +
 * s0(W[t-15]) of groups g-4 and g-3; sha256su1 adds W[t-7] and s1(W[t-2])
 * from groups g-2 and g-1. */
#define SU0(g) vsha256su0q_u32(m[(g) % 4][j], m[((g) + 1) % 4][j])
#define SU1(g, part)                                                         \
	EACH(m[(g) % 4][j] = vsha256su1q_u32(part, m[((g) + 2) % 4][j],       \
					     m[((g) + 3) % 4][j]))
#define ROUNDS_OF(g) ROUNDS4(vaddq_u32(m[(g) % 4][j], p->k[g]))
#define GROUP(g)                                                             \
	do {                                                                 \
		SU1(g, SU0(g));                                              \
		ROUNDS_OF(g);                                                \
	} while (0)

/* Bit j set when the value with low half x32 + j may be the answer. */
static inline uint32_t armv8_candidates(const struct armv8_plan *p,
					uint32_t x32)
{
	uint32x4_t abcd[NWAY], efgh[NWAY], m[4][NWAY], w0[NWAY];
	uint32x4_t zero = vdupq_n_u32(0);
	uint32_t mask = 0;

	/* W0 alone, in lane 0 (the others zero), to add where it enters. */
	EACH(w0[j] = vsetq_lane_u32(__builtin_bswap32(x32 + j), zero, 0));
	EACH(abcd[j] = p->abcd; efgh[j] = p->efgh);
	/* Groups 0..3: W1..W15 are fixed, so only W0 varies. */
	ROUNDS4(vaddq_u32(p->wk[0], w0[j]));
	ROUNDS4(p->wk[1]);
	ROUNDS4(p->wk[2]);
	ROUNDS4(p->wk[3]);
	/* Groups 4..6: W4..W11 (groups 1 and 2) are zero, and with them
	 * most pieces. Group 1 is only read by the precomputed pieces. */
	EACH(m[2][j] = zero; m[3][j] = p->m3);
	SU1(4, vaddq_u32(p->m4_part, w0[j]));
	ROUNDS_OF(4);
	SU1(5, zero);
	ROUNDS_OF(5);
	SU1(6, p->m6_part);
	ROUNDS_OF(6);
	GROUP(7);
	GROUP(8);
	GROUP(9);
	GROUP(10);
	GROUP(11);
	GROUP(12);
	GROUP(13);
	/* Round 56, the first of group 14: the D lane of the new ABCD. */
	SU1(14, SU0(14));
	EACH(abcd[j] = vsha256hq_u32(abcd[j], efgh[j],
				     vaddq_u32(m[2][j], p->k[14])));
	EACH(mask |= (uint32_t)(vgetq_lane_u32(abcd[j], 3) == p->target) << j);
	return mask;
}

#define LANES NWAY
#define PLAN struct armv8_plan
#define PLAN_INIT armv8_plan_init
#define BLOCK_CANDIDATES armv8_candidates

#include "kernel_range.h"

/* The kernel's view of the CPU: this runs on cores without the SHA-2
 * instructions too (a Cortex-A72 such as the Raspberry Pi 4's). */
static int supported(void)
{
	return (getauxval(AT_HWCAP) & HWCAP_SHA2) != 0;
}

const struct kernel kernel_armv8 = {
	.name = "armv8", .lanes = LANES, .supported = supported, .search = range_search
};
