/* The GPU kernel's variants, built side by side: the same source compiled
 * once per variant (gpu_kernel.cu for the device, gpu_host.c for the host
 * build), with GPU_VARIANT a number whose bits turn on one saving each.
 *
 * GPU_SAVINGS is their table: X(bits, value, name) for each, variant v
 * having the saving when (v & bits) == value. A variant's name is its
 * savings' names in the table's order, joined by dashes, "base" for none
 * (gpu_variant_label). The build names its variants (variants.mk); which
 * one runs is chosen at start by measurement. Without GPU_VARIANT: 0, the
 * plain one. */
#ifndef REVHASH_GPU_VARIANT_H
#define REVHASH_GPU_VARIANT_H

#define GPU_SAVINGS(X)                                                         \
	/* adds on the FMA pipe (IMAD by a 1 the compiler cannot see), leaving \
	 * the integer ALU to the rotates and logic ops */                     \
	X(1, 1, "fma")                                                         \
	/* the round constants of rounds 16..56 as immediates, not reads of    \
	 * constant memory */                                                  \
	X(2, 2, "kimm")                                                        \
	/* sigma0 of the fixed schedule words W17, W19, W21 in the segment's   \
	 * plan, not recomputed for every value */                             \
	X(4, 4, "sigma0")                                                      \
	/* the candidate word read every GPU_SPARSE values, not every value (a \
	 * halt then reaches a thread that much later) */                      \
	X(8, 8, "sparse")                                                      \
	/* the whole first warp polls the stop and halt words, both read before\
	 * the value is hashed: no warp runs two copies of the loop, and no    \
	 * poll waits for the other's trip */                                  \
	X(16, 16, "wpoll")                                                     \
	/* 8 blocks an SM (32 registers, a few spilled) instead of 6 (40): more\
	 * warps to hide each one's latency */                                 \
	X(32, 32, "occ")                                                       \
	/* threads take the launch's values as they go, GPU_GRAB_EACH each at a\
	 * time from a counter (a warp's lanes together), instead of a fixed   \
	 * strided share: no warp idles at the end of a launch while others,   \
	 * scheduled less, finish theirs */                                    \
	X(64 | 128, 64, "grab")                                                \
	/* grab with 4 values at a time, not 8: a finer share of the launch's  \
	 * end, for twice the counter's atomics */                             \
	X(64 | 128, 64 | 128, "grab4")                                         \
	/* blocks of 128 threads, not 256, twice as many an SM: the same       \
	 * threads an SM and registers a thread, in blocks whose end (its      \
	 * barrier before the report) waits for 4 warps, not 8 */              \
	X(256, 256, "b128")                                                    \
	/* the shifts of sigma0 and sigma1 (x >> 3, x >> 10) as the high half  \
	 * of x * 2^(32-n) (IMAD.HI), on the FMA pipe, the multipliers read    \
	 * from constant memory so that the compiler cannot make them shifts */\
	X(512, 512, "shrhi")                                                   \
	/* constants folded into the plan: h + K + W of rounds 1..3 (their h is\
	 * the plan's) and K + W of rounds 17, 19, 21 (their W is fixed per    \
	 * segment): one add fewer each */                                     \
	X(1024, 1024, "fold")                                                  \
	/* two values a thread, the rounds of both interleaved, at half the    \
	 * threads an SM (80 registers each): independent work for the         \
	 * scheduler to pair on the ALU and FMA pipes */                       \
	X(2048, 2048, "x2")                                                    \
	/* 24, 48 or 72 of the rounds' rotates, spread evenly, as the          \
	 * two halves of x * 2^(32-n) added (IMAD and IMAD.HI; the halves      \
	 * share no bit): two FMA-pipe slots for one ALU slot */               \
	X(4096 | 8192, 4096, "r24")                                            \
	X(4096 | 8192, 8192, "r48")                                            \
	X(4096 | 8192, 4096 | 8192, "r72")

#define GPU_NAME_LEN 64 /* a variant's name and its NUL, at most */

#ifdef __cplusplus
extern "C" {
#endif
/* Variant v's name, which lives as long as the process; NULL when a bit
 * of v is no saving's, or its savings' bits take a value none names. The
 * first 64 variants asked for are named; not thread-safe. */
const char *gpu_variant_label(unsigned v);
#ifdef __cplusplus
}
#endif

#ifndef GPU_VARIANT
#define GPU_VARIANT 0
#endif

#define GPU_BITS_OF(bits, value, name) | (bits)
#if GPU_VARIANT & ~(0 GPU_SAVINGS(GPU_BITS_OF))
#error "GPU_VARIANT: a bit that no saving of GPU_SAVINGS names"
#endif
#undef GPU_BITS_OF

#define GPU_SPARSE 32

#define GPU_FMA (GPU_VARIANT & 1)
#define GPU_KIMM (GPU_VARIANT >> 1 & 1)
#define GPU_SIGMA0 (GPU_VARIANT >> 2 & 1)
#define GPU_BEST_EVERY (GPU_VARIANT & 8 ? GPU_SPARSE : 1)
#define GPU_WPOLL (GPU_VARIANT >> 4 & 1)
/* Threads of a launch that poll, from thread 0: a warp, or one. */
#define GPU_POLLERS (GPU_WPOLL ? 32u : 1u)
/* Threads in a block of this variant's kernel. The launcher, built once
 * for all the variants, reads it from struct gpu_kernel (gpu_kernel.h). */
#define GPU_VARIANT_BLOCK (GPU_VARIANT >> 8 & 1 ? 128 : 256)
#define GPU_SHRHI (GPU_VARIANT >> 9 & 1)
#define GPU_FOLD (GPU_VARIANT >> 10 & 1)
/* Values a thread of variant v hashes at once: 1, or 2 (x2). */
#define GPU_PER_THREAD_OF(v) ((v) >> 11 & 1 ? 2 : 1)
#define GPU_PER_THREAD GPU_PER_THREAD_OF(GPU_VARIANT)
/* Rotates of the rounds (of 6 a round, rounds 1..56) done by multiplies. */
#define GPU_ROR_MUL (24 * (GPU_VARIANT >> 12 & 3))
/* Threads an SM must hold, and so blocks (__launch_bounds__): the compiler
 * fits the registers to it, 40 for 1,536 (left free, nvcc 13.0 took 40 to
 * 64 by small changes of the source), 32 for 2,048, 80 for 768 (x2: the
 * same values in flight an SM). */
#define GPU_SM_THREADS ((GPU_VARIANT >> 5 & 1 ? 2048 : 1536) / GPU_PER_THREAD)
#define GPU_MIN_BLOCKS (GPU_SM_THREADS / GPU_VARIANT_BLOCK)
#define GPU_GRAB (GPU_VARIANT >> 6 & 1)
#define GPU_GRAB_EACH (GPU_VARIANT >> 7 & 1 ? 4 : 8) /* values a thread takes at a time */
#if (GPU_VARIANT & 128) && !GPU_GRAB
#error "grab4 is a size of grab's: grab too"
#endif
#if GPU_GRAB && !GPU_WPOLL
#error "grab: its polling warp takes its values as one, so wpoll too"
#endif
#if GPU_PER_THREAD > 1 && !GPU_GRAB
#error "x2: the threads take their pairs from grab's counter, so grab too"
#endif

/* gpu_<prefix><GPU_VARIANT>: a symbol of this variant's object. */
#define GPU_CAT2(a, b) a##b
#define GPU_CAT(a, b) GPU_CAT2(a, b)
#define GPU_VARIANT_SYM(prefix) GPU_CAT(prefix, GPU_VARIANT)

#endif
