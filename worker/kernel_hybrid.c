/* The hybrid kernel: one block is 16 AVX-512 lanes (kernel_lanes.h) and
 * NWAY SHA-NI messages (kernel_shani_block.h) side by side, so that one
 * thread keeps the 512-bit ALUs and the SHA unit busy at once. The overlap
 * is gcc's scheduler's, run before register allocation with a Zen pipeline
 * model (GNUmakefile); without it the pair is slower than avx512 alone.
 * NWAY 8 beat 2 to 7 (too little SHA work to hide in) and 10 to 16
 * (which spill). */
#include "kernel.h"

#define NWAY 8
#include "kernel_avx512_vec.h"
#include "kernel_lanes.h"
#include "kernel_shani_block.h"

#define LANES (16 + NWAY)

/* What one segment shares: each half's plan. */
struct hybrid_plan {
	struct lanes_plan lanes;
	struct shani_plan shani;
};

static void hybrid_plan_init(struct hybrid_plan *p, const uint8_t digest[32],
			     uint64_t x)
{
	lanes_plan_init(&p->lanes, digest, x);
	shani_plan_init(&p->shani, digest, x);
}

/* Values x32 + 0..15 in the lanes, x32 + 16.. in the SHA-NI messages. */
static inline uint32_t hybrid_candidates(const struct hybrid_plan *p,
					 uint32_t x32)
{
	return lanes_candidates(&p->lanes, x32) |
	       shani_candidates(&p->shani, x32 + 16) << 16;
}

#define PLAN struct hybrid_plan
#define PLAN_INIT hybrid_plan_init
#define BLOCK_CANDIDATES hybrid_candidates
#include "kernel_range.h"

extern const struct kernel kernel_avx512, kernel_shani;

static int supported(void)
{
	return kernel_avx512.supported() && kernel_shani.supported();
}

const struct kernel kernel_hybrid = {
	.name = "hybrid", .lanes = LANES, .supported = supported, .search = range_search
};
