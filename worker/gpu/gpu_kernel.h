/* One variant of the device kernel, as the launcher (gpu.cu) drives it:
 * gpu_kernel.cu, built once per variant (gpu_variant.h), defines one of
 * these each. CUDA's types: included by the .cu files alone. */
#ifndef REVHASH_GPU_KERNEL_H
#define REVHASH_GPU_KERNEL_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "worker/gpu/gpu_word.h"

#define GPU_REPORTS 4  /* report slots, by generation: one per live launch
			* (gpu.cu asserts it against its depth) */

/* What a launch's last block leaves in mapped host memory, gen last, so
 * that a host that sees gen sees the rest. */
struct gpu_report {
	uint64_t word;
	uint64_t t0, t1;  /* %globaltimer ns: block 0's start, the end */
	uint32_t gen;
	uint32_t pad;
};

/* The device memory every launch shares. */
struct gpu_shared {
	uint64_t *word;             /* the candidate word (gpu_word.h) */
	unsigned *done;             /* blocks of the running launch ended */
	uint64_t *next;             /* by report slot: the grab variants'
				     * counter of values taken, 0 between
				     * launches (the last block resets it) */
	struct gpu_report *reports; /* device address of the mapped slots */
};

struct gpu_kernel {
	unsigned variant; /* GPU_VARIANT: its savings (gpu_variant.h) */
	unsigned block;  /* threads per block (GPU_VARIANT_BLOCK) */
	/* Values a thread hashes between its reads of the word: how late a
	 * halt reaches it (1, or GPU_SPARSE). */
	unsigned best_every;
	/* Queue on s the copies of the round constants and the hidden 1 into
	 * this variant's constant memory (the device current). */
	cudaError_t (*setup)(cudaStream_t s);
	/* Blocks (of block threads) that one SM holds at once. */
	cudaError_t (*occupancy)(int *per_sm);
	/* Queue job j for digest on s over blocks blocks. */
	cudaError_t (*launch)(const uint8_t digest[32], const struct gpu_job *j,
			      unsigned blocks, cudaStream_t s,
			      const struct gpu_shared *sh);
};

#endif
