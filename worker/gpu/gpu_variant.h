/* The GPU kernel's variants, built side by side: the same source compiled
 * once per variant (gpu_kernel.cu for the device, gpu_host.c for the host
 * build), with GPU_VARIANT a number whose bits turn on one saving each:
 *
 *   1  fma     adds on the FMA pipe (IMAD by a 1 the compiler cannot see),
 *              leaving the integer ALU to the rotates and logic ops
 *   2  kimm    the round constants of rounds 16..56 as immediates, not
 *              reads of constant memory
 *   4  sigma0  sigma0 of the fixed schedule words W17, W19, W21 in the
 *              segment's plan, not recomputed for every value
 *   8  sparse  the candidate word read every GPU_SPARSE values, not every
 *              value (a halt then reaches a thread that much later)
 *
 * The build names its variants (GPU_VARIANTS in gpu.mk); which one runs is
 * chosen at start by measurement. Without GPU_VARIANT: 0, the plain one. */
#ifndef REVHASH_GPU_VARIANT_H
#define REVHASH_GPU_VARIANT_H

#ifndef GPU_VARIANT
#define GPU_VARIANT 0
#endif

#define GPU_SPARSE 32

#define GPU_FMA (GPU_VARIANT & 1)
#define GPU_KIMM (GPU_VARIANT >> 1 & 1)
#define GPU_SIGMA0 (GPU_VARIANT >> 2 & 1)
#define GPU_BEST_EVERY (GPU_VARIANT & 8 ? GPU_SPARSE : 1)

#if GPU_VARIANT == 0
#define GPU_VARIANT_NAME "base"
#elif GPU_VARIANT == 1
#define GPU_VARIANT_NAME "fma"
#elif GPU_VARIANT == 2
#define GPU_VARIANT_NAME "kimm"
#elif GPU_VARIANT == 4
#define GPU_VARIANT_NAME "sigma0"
#elif GPU_VARIANT == 8
#define GPU_VARIANT_NAME "sparse"
#elif GPU_VARIANT == 7
#define GPU_VARIANT_NAME "fma-kimm-sigma0"
#elif GPU_VARIANT == 15
#define GPU_VARIANT_NAME "all"
#else
#error "GPU_VARIANT: give this combination a name here"
#endif

/* gpu_<prefix><GPU_VARIANT>: a symbol of this variant's object. */
#define GPU_CAT2(a, b) a##b
#define GPU_CAT(a, b) GPU_CAT2(a, b)
#define GPU_VARIANT_SYM(prefix) GPU_CAT(prefix, GPU_VARIANT)

#endif
