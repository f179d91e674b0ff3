/* What one GPU thread does, written once for two compilers: nvcc builds it
 * into the device kernels (gpu_kernel.cu) and a plain C compiler into the
 * host build (gpu_host.c), which the tests run on any machine; both once
 * per kernel variant (gpu_variant.h). The hashing is kernel_lanes.h's
 * with one 32-bit lane a thread (two with x2): only the primitives below
 * differ from the CPU kernels'. gpu_scan() is one thread's share of a
 * launch, under the candidate word of gpu_word.h. */
#ifndef REVHASH_GPU_SEARCH_H
#define REVHASH_GPU_SEARCH_H

#include <stdint.h>

#include "worker/gpu/gpu_variant.h"
#include "worker/gpu/gpu_word.h"

#if defined(__CUDACC__) && GPU_GRAB
#include <cooperative_groups.h>
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
/* Each variant's own copies, filled at setup: the round constants; 1 and
 * the powers of two where the compiler cannot see them, so that the
 * multiplies by them stay multiplies (on the FMA pipe, not the ALU). */
static __constant__ uint32_t gpu_k[64];
static __constant__ uint32_t gpu_one;
static __constant__ uint32_t gpu_pow2[32];
#endif

/* One word's primitives; the host build computes each identity the device
 * uses with C's operators, so the tests check it. */
#if GPU_FMA && defined(__CUDA_ARCH__)
/* On the FMA pipe (IMAD), leaving the integer ALU to rotates and logic. */
#define s_add(a, b) ((a) * gpu_one + (b))
#else
#define s_add(a, b) ((a) + (b))
#endif
#define s_xor3(a, b, c) ((a) ^ (b) ^ (c))
#define s_ch(e, f, g) ((g) ^ ((e) & ((f) ^ (g))))
#define s_maj(a, b, c) ((b) ^ (((a) ^ (b)) & ((b) ^ (c))))
#ifdef __CUDA_ARCH__
/* One funnel shift a rotate, one byte permute a swap. */
#define s_ror(x, n) __funnelshift_r(x, x, n)
#define s_bswap(x) __byte_perm(x, 0, 0x0123)
#define s_pow2(e) gpu_pow2[e]
#define s_mulhi(x, m) __umulhi(x, m)
#else
#define s_ror(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define s_bswap(x) __builtin_bswap32(x)
#define s_pow2(e) ((uint32_t)1 << (e))
#define s_mulhi(x, m) ((uint32_t)((uint64_t)(x) * (m) >> 32))
#endif

/* x >> n, 0 < n < 32: with shrhi, the high half of x * 2^(32-n). */
GPU_FN uint32_t s_shr(uint32_t x, int n)
{
#if GPU_SHRHI
	return s_mulhi(x, s_pow2(32 - n));
#else
	return x >> n;
#endif
}

/* x rotated right by n, 0 < n < 32, on the FMA pipe: the two halves of
 * x * 2^(32-n), which share no bit, summed. */
GPU_FN uint32_t s_ror_mul(uint32_t x, int n)
{
	uint32_t m = s_pow2(32 - n);

	return s_mulhi(x, m) + x * m;
}

#if GPU_PER_THREAD == 1
typedef uint32_t vec;

#define v_set1(x) ((uint32_t)(x))
#define v_index() 0u
#define v_add(a, b) s_add(a, b)
#define v_xor3(a, b, c) s_xor3(a, b, c)
#define v_ch(e, f, g) s_ch(e, f, g)
#define v_maj(a, b, c) s_maj(a, b, c)
#define v_shr(x, n) s_shr(x, n)
#define v_ror(x, n) s_ror(x, n)
#define v_ror_mul(x, n) s_ror_mul(x, n)
#define v_bswap(x) s_bswap(x)
#define v_eq_mask(x, s) ((uint32_t)((x) == (s)))
#else
/* x2: a thread's two values as the lanes of a vector of two. */
typedef struct {
	uint32_t x, y;
} vec;

GPU_FN vec v_two(uint32_t x, uint32_t y)
{
	vec v = { x, y };

	return v;
}

#define v_set1(c) v_two((uint32_t)(c), (uint32_t)(c))
#define v_index() v_two(0, 1)
GPU_FN vec v_add(vec a, vec b) { return v_two(s_add(a.x, b.x), s_add(a.y, b.y)); }
GPU_FN vec v_xor3(vec a, vec b, vec c)
{
	return v_two(s_xor3(a.x, b.x, c.x), s_xor3(a.y, b.y, c.y));
}
GPU_FN vec v_ch(vec e, vec f, vec g)
{
	return v_two(s_ch(e.x, f.x, g.x), s_ch(e.y, f.y, g.y));
}
GPU_FN vec v_maj(vec a, vec b, vec c)
{
	return v_two(s_maj(a.x, b.x, c.x), s_maj(a.y, b.y, c.y));
}
GPU_FN vec v_shr(vec x, int n) { return v_two(s_shr(x.x, n), s_shr(x.y, n)); }
GPU_FN vec v_ror(vec x, int n) { return v_two(s_ror(x.x, n), s_ror(x.y, n)); }
GPU_FN vec v_ror_mul(vec x, int n) { return v_two(s_ror_mul(x.x, n), s_ror_mul(x.y, n)); }
GPU_FN vec v_bswap(vec x) { return v_two(s_bswap(x.x), s_bswap(x.y)); }
GPU_FN uint32_t v_eq_mask(vec x, uint32_t s)
{
	return (uint32_t)(x.x == s) | (uint32_t)(x.y == s) << 1;
}
#endif

#if GPU_ROR_MUL
/* Rotate j of round t (t 1..56, j 0..5: the 336 of the rounds, in order)
 * is done by multiplies when it is one of GPU_ROR_MUL spread evenly. */
#define GPU_ROR_I(t, j) (6 * ((t) - 1) + (j))
#define GPU_ROR_PICKED(t, j)                                                 \
	((GPU_ROR_I(t, j) + 1) * GPU_ROR_MUL / 336 != GPU_ROR_I(t, j) * GPU_ROR_MUL / 336)
#define LANES_ROR_AT(x, n, t, j) (GPU_ROR_PICKED(t, j) ? v_ror_mul(x, n) : v_ror(x, n))
#endif

#define LANES_FN GPU_FN
#if GPU_KIMM
#define LANES_K(t) gpu_k_imm(t)
#elif defined(__CUDA_ARCH__)
#define LANES_K(t) gpu_k[t]
#endif
#if GPU_SIGMA0
#define LANES_PLAN_SSIG0 1
#endif
#if GPU_FOLD
#define LANES_PLAN_FOLD 1
#endif

#if GPU_KIMM
/* Round constant t (16..56: those not in the plan) as an immediate once
 * the rounds are unrolled. Any other t gives 0, a wrong hash that
 * check_gpu_logic would see. */
GPU_FN uint32_t gpu_k_imm(int t)
{
	static const uint32_t k[64] = { SHA256_K };

	return t >= 16 && t <= 56 ? k[t] : 0;
}
#endif

#include "worker/kernel_lanes.h"

#ifdef __CUDA_ARCH__
#define gpu_read(word) (*(volatile uint64_t *)(word))
#define gpu_lower(word, key)                                                 \
	atomicMin((unsigned long long *)(word), (unsigned long long)(key))
#else
/* The host build runs the threads one after another: no atomics. */
#define gpu_read(word) (*(word))
#define gpu_lower(word, key) (*(word) = (key) < *(word) ? (key) : *(word))
#endif

/* One value of launch j, low, by a thread that read the word as seen
 * (with x2, also low + 1 where lanes has its bit 1): 0 to go on, 1 when
 * the thread is done (the value lies above the word). A poller reads the
 * stop and halt words before hashing and acts after, so the reads' trip
 * over the bus overlaps the hashing; with wpoll, both reads at once. */
GPU_FN int gpu_value(const struct lanes_plan *p, const struct gpu_job *j,
		     uint32_t low, uint32_t lanes, uint64_t seen, uint64_t *word,
		     const int poller)
{
	uint32_t hits;

#if GPU_WPOLL
	uint32_t stop = poller && j->stop ? *(const volatile uint32_t *)j->stop : 0;
	uint32_t halt_at = poller && j->halt ? *(const volatile uint32_t *)j->halt : 0;
#else
	int halt = poller && gpu_halted(j);
#endif

	if (gpu_key(j->gen, low) > seen)
		return 1;
	hits = lanes_candidates(p, low) & lanes;
	if (hits) /* the lower of the two, when both may match */
		gpu_lower(word, gpu_key(j->gen, hits & 1 ? low : low + 1));
#if GPU_WPOLL
	if (stop || halt_at >= j->gen)
#else
	if (halt)
#endif
		gpu_lower(word, gpu_halt_key(j->gen));
	return 0;
}

#if GPU_GRAB
#ifdef __CUDA_ARCH__
/* The lanes of a warp here together take their next each values as one
 * add to the launch's counter. *first: this lane's first offset; *stride:
 * the lanes. */
GPU_FN void gpu_grab(uint64_t *next, uint32_t each, uint64_t *first, uint32_t *stride)
{
	cooperative_groups::coalesced_group g = cooperative_groups::coalesced_threads();
	unsigned long long base = 0;

	if (g.thread_rank() == 0)
		base = atomicAdd((unsigned long long *)next, (unsigned long long)g.size() * each);
	base = g.shfl(base, 0);
	*first = base + g.thread_rank();
	*stride = g.size();
}
#else
/* The host build runs one thread after another: each takes its own. */
GPU_FN void gpu_grab(uint64_t *next, uint32_t each, uint64_t *first, uint32_t *stride)
{
	*first = *next;
	*next += each;
	*stride = 1;
}
#endif

/* A thread's values of launch j, each at a time with its warp, from the
 * counter next: the counter passes a value only once every value below it
 * was taken by a thread that hashes it unless it lies above the word, so
 * the word still ends at the launch's lowest candidate. With x2 it counts
 * pairs, the second of an odd launch's last pair left out. */
GPU_FN void scan(const struct lanes_plan *p, const struct gpu_job *j, uint32_t each,
		 uint64_t *next, uint64_t *word, const int poller)
{
	for (;;) {
		uint64_t first;
		uint32_t stride;

		gpu_grab(next, each, &first, &stride);
		for (uint32_t k = 0; k < each; k++) {
			uint64_t at = (first + (uint64_t)k * stride) * GPU_PER_THREAD;
#if GPU_PER_THREAD == 1
			uint32_t lanes = 1;
#else
			uint32_t lanes = j->count - at >= 2 ? 3 : 1;
#endif

			if (at >= j->count ||
			    gpu_value(p, j, (uint32_t)(j->first + at), lanes, gpu_read(word), word,
				      poller))
				return;
		}
	}
}

/* Thread tid of launch j takes its values from the counter next:
 * GPU_GRAB_EACH at a time, or fewer when the launch holds fewer a thread
 * (docs/gpu.md). The first GPU_POLLERS threads poll. */
GPU_FN void gpu_scan(const struct lanes_plan *p, const struct gpu_job *j,
		     uint32_t tid, uint32_t threads, uint64_t *word, uint64_t *next)
{
	uint64_t per = (j->count + GPU_PER_THREAD - 1) / GPU_PER_THREAD / threads;
	uint32_t each = per >= GPU_GRAB_EACH ? GPU_GRAB_EACH : per ? (uint32_t)per : 1;

	if (tid < GPU_POLLERS)
		scan(p, j, each, next, word, 1);
	else
		scan(p, j, each, next, word, 0);
}
#else
/* Thread tid's share of launch j from value low on: two copies of the
 * loop, so that the threads that do not poll carry no poll in theirs. */
GPU_FN void scan(const struct lanes_plan *p, const struct gpu_job *j,
		 uint32_t low, uint32_t last, uint32_t threads, uint64_t *word,
		 const int poller)
{
	for (;;) {
		uint64_t seen = gpu_read(word);

		for (int k = 0; k < GPU_BEST_EVERY; k++) {
			if (gpu_value(p, j, low, 1, seen, word, poller) || last - low < threads)
				return;
			low += threads;
		}
	}
}

/* Thread tid of threads hashes the values j->first + tid, + threads, ...
 * of launch j, lowering *word to each candidate's key; it reads *word every
 * GPU_BEST_EVERY values and stops at the first value whose key lies above
 * it. The first GPU_POLLERS threads poll. next: the grab variants'. */
GPU_FN void gpu_scan(const struct lanes_plan *p, const struct gpu_job *j,
		     uint32_t tid, uint32_t threads, uint64_t *word, uint64_t *next)
{
	uint32_t low = (uint32_t)j->first + tid;
	uint32_t last = (uint32_t)(j->first + j->count - 1);

	(void)next;
	if (tid >= j->count)
		return;
	if (tid < GPU_POLLERS)
		scan(p, j, low, last, threads, word, 1);
	else
		scan(p, j, low, last, threads, word, 0);
}
#endif

#endif
