/* The candidate word that the launches of a GPU share, and what a launch
 * is: the one contract between the device threads (gpu_search.h) and the
 * host's walk (gpu_walk.c).
 *
 * The word is never reset between searches: it holds a key that orders
 * first by generation, the newer below the older, then by the low half of
 * the value. A launch reads an older launch's word as "nothing found yet",
 * lowers it with an atomic min to its lowest candidate's key, and a thread
 * stops at the first value whose key lies above the word. A halt key lies
 * below every candidate of its generation and above the next one's. No
 * memset, no stream sync: a search costs its launches alone. */
#ifndef REVHASH_GPU_WORD_H
#define REVHASH_GPU_WORD_H

#include <stdint.h>

#ifdef __CUDACC__
#define GPU_FN static __host__ __device__ __forceinline__
#else
#define GPU_FN static inline
#endif

/* Generations run from 1 to GPU_GEN_MAX; then the word is set back to
 * GPU_WORD_FRESH (which reads as generation 0) and they start again. */
#define GPU_GEN_MAX UINT32_C(0x7fffffff)
#define GPU_WORD_FRESH UINT64_MAX

/* One launch, as its threads see it. */
struct gpu_job {
	uint64_t first;        /* its first value */
	uint64_t count;        /* its values, 1..2^32, all in first's segment */
	uint32_t gen;          /* its generation, 1..GPU_GEN_MAX */
	uint32_t spin;         /* the host spins for it (a short launch) */
	const uint32_t *stop;  /* the lease's stop word, or NULL */
	const uint32_t *halt;  /* launches up to this generation end, or NULL */
};

/* What a launch left in the word, as the host reads it once it ended. */
enum gpu_found { GPU_NOTHING, GPU_CANDIDATE, GPU_HALTED };

/* The key of the value with low half low in launch gen. */
GPU_FN uint64_t gpu_key(uint32_t gen, uint32_t low)
{
	return (uint64_t)(GPU_GEN_MAX - gen) << 33 | UINT64_C(1) << 32 | low;
}

/* Below every key of gen, above every key of gen + 1. */
GPU_FN uint64_t gpu_halt_key(uint32_t gen)
{
	return (uint64_t)(GPU_GEN_MAX - gen) << 33;
}

/* What word says of launch gen (*low: its candidate's low half). */
GPU_FN enum gpu_found gpu_decode(uint64_t word, uint32_t gen, uint32_t *low)
{
	if ((uint32_t)(word >> 33) != GPU_GEN_MAX - gen)
		return GPU_NOTHING; /* an older launch's word, or the fresh one */
	if (!(word >> 32 & 1))
		return GPU_HALTED;
	*low = (uint32_t)word;
	return GPU_CANDIDATE;
}

/* Launch j must end now: its stop word or the halt word says so. */
GPU_FN int gpu_halted(const struct gpu_job *j)
{
	return (j->stop && *(const volatile uint32_t *)j->stop) ||
	       (j->halt && *(const volatile uint32_t *)j->halt >= j->gen);
}

#endif
