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

/* What each saving does, and why: docs/gpu.md ("What is built", "The
 * variants on trial"). */
#define GPU_SAVINGS(X)                                                         \
	X(1, 1, "fma")      /* adds on the FMA pipe (IMAD by a hidden 1) */     \
	X(2, 2, "kimm")     /* K of rounds 16..56 as immediates */              \
	X(4, 4, "sigma0")   /* sigma0 of W17, W19, W21 in the plan */           \
	X(8, 8, "sparse")   /* the word read every GPU_SPARSE values */         \
	X(16, 16, "wpoll")  /* the first warp polls stop and halt at once */    \
	X(32, 32, "occ")    /* 8 blocks an SM (32 registers), not 6 */          \
	X(64 | 128, 64, "grab") /* values taken from a counter as they go */    \
	X(64 | 128, 64 | 128, "grab4") /* grab, 4 at a time, not 8 */           \
	X(256, 256, "b128") /* blocks of 128 threads, not 256 */                \
	X(512, 512, "shrhi") /* sigma shifts as IMAD.HI */                      \
	X(1024, 1024, "fold") /* h + K + W of rounds 1..3 etc. in the plan */   \
	X(2048, 2048, "x2") /* two values a thread, interleaved */              \
	X(4096 | 8192, 4096, "r24") /* 24, 48 or 72 rotates by multiplies */    \
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
