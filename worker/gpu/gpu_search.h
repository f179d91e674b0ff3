/* What one GPU thread does, written once for two compilers: nvcc builds it
 * into the device kernel (gpu.cu) and a plain C compiler into the host
 * build of the same logic (gpu_host.c), which the tests run on any machine.
 *
 * The hashing is the lane algorithm of kernel_lanes.h with one 32-bit lane:
 * a thread is a lane, so the CPU kernels' plan (round 0 folded, K + W of
 * rounds 1..15 and the fixed schedule words precomputed per 2^32 segment,
 * the compare after 57 rounds against sha256_late_a's target) serves the
 * GPU unchanged, and only the primitives below differ. Around it,
 * gpu_scan() is one thread's share of a launch: values in increasing order,
 * so a thread may stop once the lowest candidate found so far lies below. */
#ifndef REVHASH_GPU_SEARCH_H
#define REVHASH_GPU_SEARCH_H

#include <stdint.h>

#ifdef __CUDACC__
#define GPU_FN static __host__ __device__ __forceinline__
#else
#define GPU_FN static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif
#include "proto/proto.h"
#include "worker/sha256_ref.h"
#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* The round constants in device memory, copied from sha256_k by gpu_open:
 * a constant-bank operand costs a round no more than an immediate. */
static __constant__ uint32_t gpu_k[64];
#endif

typedef uint32_t vec;

#define LANES_FN GPU_FN
#define v_set1(x) ((uint32_t)(x))
#define v_index() 0u
#define v_add(a, b) ((a) + (b))
#define v_xor3(a, b, c) ((a) ^ (b) ^ (c))
#define v_ch(e, f, g) ((g) ^ ((e) & ((f) ^ (g))))
#define v_maj(a, b, c) ((b) ^ (((a) ^ (b)) & ((b) ^ (c))))
#define v_shr(x, n) ((x) >> (n))
#define v_eq_mask(x, s) ((uint32_t)((x) == (s)))
#ifdef __CUDA_ARCH__
/* One funnel shift a rotate, one byte permute a swap. */
#define v_ror(x, n) __funnelshift_r(x, x, n)
#define v_bswap(x) __byte_perm(x, 0, 0x0123)
#define LANES_K(t) gpu_k[t]
#else
#define v_ror(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define v_bswap(x) __builtin_bswap32(x)
#endif

#include "worker/kernel_lanes.h"

#ifdef __CUDA_ARCH__
#define gpu_best_now(best) (*(volatile uint64_t *)(best))
#define gpu_lower(best, x)                                                   \
	atomicMin((unsigned long long *)(best), (unsigned long long)(x))
#else
/* The host build runs the threads one after another: no atomics. */
#define gpu_best_now(best) (*(best))
#define gpu_lower(best, x) (*(best) = (x) < *(best) ? (x) : *(best))
#endif

/* 1 when the value with low half low, in p's segment, may match. */
GPU_FN int gpu_candidate(const struct lanes_plan *p, uint32_t low)
{
	return lanes_candidates(p, low) != 0;
}

/* Thread tid of threads hashes the values first + tid, first + tid +
 * threads, ... below first + count (all in first's segment), lowering *best
 * to each candidate, and stops at the first value above *best: *best is
 * shared by every thread of every launch of a search, so a value above it
 * cannot be the lowest candidate. */
GPU_FN void gpu_scan(const struct lanes_plan *p, uint64_t first, uint32_t count,
		     uint32_t tid, uint32_t threads, uint64_t *best)
{
	uint64_t high = first >> 32 << 32;
	uint32_t low = (uint32_t)first;

	for (uint32_t off = tid; off < count; off += threads) {
		uint64_t x = high | (uint32_t)(low + off);

		if (x > gpu_best_now(best))
			break;
		if (gpu_candidate(p, low + off))
			gpu_lower(best, x);
	}
}

#endif
