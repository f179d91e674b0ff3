/* The range walk of the GPU search, apart from the device: it cuts [lo, hi]
 * into launches inside one 2^32 segment each, numbers them (gpu_word.h),
 * keeps a few in flight, confirms a candidate with the reference (OpenSSL),
 * and sizes launches by the measured rate. A launcher runs them: the
 * device (gpu.cu) or the host build (gpu_host.c), so every line here is
 * tested on any machine. */
#ifndef REVHASH_GPU_WALK_H
#define REVHASH_GPU_WALK_H

#include <stdint.h>

#include "worker/gpu/gpu_word.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_WALK_DEPTH 4                   /* live launches in flight, at most */
#define GPU_CHUNK_MAX (UINT64_C(1) << 32)  /* values in one launch: a segment */
/* Launches expected shorter than this (every one: they are sized to about
 * 4 ms) are waited for by spinning: a sleep on the event cost 200-250 us a
 * search on an H200's host, a spin 40. */
#define GPU_SPIN_NS 5000000

/* What a launch left, as the host reads it once the launch has ended. */
struct gpu_outcome {
	uint64_t word; /* the candidate word after it (gpu_word.h) */
	uint64_t ns;   /* how long it ran, as the device timed it; 0: unknown */
};

/* What runs the launches, and what the walk keeps across searches. Every
 * call returns 0 or a negative errno. */
struct gpu_launcher {
	void *ctx;
	unsigned depth;        /* live launches in flight, 1..GPU_WALK_DEPTH */
	uint64_t chunk_min;    /* a launch's values: at least (where the
				* range leaves that many), */
	uint64_t chunk_max;    /* at most (<= GPU_CHUNK_MAX), */
	uint64_t launch_ns;    /* and what it should take */
	uint64_t spin_ns;      /* spin for launches expected shorter */
	/* The launches from now on poll stop (NULL: none). */
	int (*watch)(void *ctx, const uint32_t *stop);
	/* Queue launch j for digest after the launches in flight. */
	int (*launch)(void *ctx, const uint8_t digest[32], const struct gpu_job *j);
	/* Wait for launch j, the oldest live one, to end (spinning if j->spin)
	 * and read what it left. */
	int (*wait)(void *ctx, const struct gpu_job *j, struct gpu_outcome *out);
	/* Launches up to generation gen end soon (they are not waited for). */
	void (*halt)(void *ctx, uint32_t gen);
	/* Let every launch end, set the word fresh and the halt word to 0:
	 * generations start again from 1. */
	int (*renew)(void *ctx);

	/* The walk's own, kept across searches. */
	uint32_t gen;      /* the last launch's generation */
	uint64_t chunk;    /* values of the next full launch */
	double rate;       /* values per second, as the last full launch ran */
	uint64_t launches; /* launches queued */
	uint64_t rejected; /* candidates the full check turned down */
	uint64_t busy_ns;  /* the launches waited for: their run time */
};

/* A kernel_search_fn over l's launches (worker/kernel.h): SEARCH_FOUND with
 * the lowest match, SEARCH_NONE, SEARCH_STOPPED with the first value not
 * hashed (a launch that halted on the stop word counts as not hashed), or
 * the launcher's negative errno. Launches a search leaves in flight are
 * halted and never waited for: the next launch queues behind them. */
int gpu_walk(struct gpu_launcher *l, const uint8_t digest[32], uint64_t lo,
	     uint64_t hi, uint64_t *found, const uint32_t *stop);

/* Whether a launch of count values, at l's rate (0: not known yet), is
 * expected to end within l's spin_ns: then its wait spins. */
int gpu_walk_spins(const struct gpu_launcher *l, uint64_t count);

#ifdef __cplusplus
}
#endif

#endif
