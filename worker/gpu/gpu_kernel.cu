/* One variant of the device kernel (GPU_VARIANT, see gpu_variant.h),
 * compiled once per variant, each with its own kernel, constant memory and
 * gpu_kernel_<n>. The plan and the job are grid-constant arguments. The
 * last block of a launch to end copies the word and the device's clock to
 * its report slot in mapped host memory: the host reads the outcome and
 * run time with no copy, no event timing, no atomics on host memory. */
#include "worker/gpu/gpu_kernel.h"
#include "worker/gpu/gpu_search.h"

/* The device's nanosecond clock. */
static __device__ uint64_t now(void)
{
	uint64_t t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* The last block of a launch to end reports it. The fence orders this
 * block's atomic mins, which __syncthreads gathered, before its count;
 * atomicInc wraps done to 0 for the next launch. The report's gen goes
 * last, after a system-wide fence, for a host that spins on it. */
static __device__ void publish(const struct gpu_job *j, const struct gpu_shared *sh,
			       struct gpu_report *r)
{
	__threadfence();
	if (atomicInc(sh->done, gridDim.x - 1) != gridDim.x - 1)
		return;
	__threadfence();
	sh->next[j->gen % GPU_REPORTS] = 0; /* every block ended: none takes more */
	r->word = *(volatile uint64_t *)sh->word;
	r->t1 = now();
	__threadfence_system();
	*(volatile uint32_t *)&r->gen = j->gen;
}

/* The bounds: the block, and the blocks an SM must hold. An SM of sm_86,
 * sm_87 and sm_89 holds 1,536 threads: 6 blocks of 256 at most, 12 of 128. */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || \
			       __CUDA_ARCH__ == 890)
#define BOUNDS __launch_bounds__(GPU_VARIANT_BLOCK, \
				 (GPU_SM_THREADS < 1536 ? GPU_SM_THREADS : 1536) / GPU_VARIANT_BLOCK)
#else
#define BOUNDS __launch_bounds__(GPU_VARIANT_BLOCK, GPU_MIN_BLOCKS)
#endif

static __global__ void BOUNDS
search(const __grid_constant__ struct lanes_plan plan,
       const __grid_constant__ struct gpu_job job, const struct gpu_shared sh)
{
	struct gpu_report *r = &sh.reports[job.gen % GPU_REPORTS];

	if (blockIdx.x == 0 && threadIdx.x == 0)
		r->t0 = now();
	gpu_scan(&plan, &job, blockIdx.x * GPU_VARIANT_BLOCK + threadIdx.x,
		 gridDim.x * GPU_VARIANT_BLOCK, sh.word, &sh.next[job.gen % GPU_REPORTS]);
	__syncthreads();
	if (threadIdx.x == 0)
		publish(&job, &sh, r);
}

/* On the search stream, which does not wait for the legacy one: the caller
 * syncs it before the first launch (the copies' sources are static). */
static cudaError_t setup(cudaStream_t s)
{
	static const uint32_t one = 1;
	static uint32_t pow2[32];
	cudaError_t e = cudaMemcpyToSymbolAsync(gpu_k, sha256_k, sizeof gpu_k, 0,
						cudaMemcpyHostToDevice, s);

	for (int i = 0; i < 32; i++)
		pow2[i] = UINT32_C(1) << i;
	if (e == cudaSuccess)
		e = cudaMemcpyToSymbolAsync(gpu_pow2, pow2, sizeof pow2, 0,
					    cudaMemcpyHostToDevice, s);
	return e != cudaSuccess ? e : cudaMemcpyToSymbolAsync(gpu_one, &one, sizeof one, 0,
							      cudaMemcpyHostToDevice, s);
}

static cudaError_t occupancy(int *per_sm)
{
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, search, GPU_VARIANT_BLOCK, 0);
}

static cudaError_t launch(const uint8_t digest[32], const struct gpu_job *j,
			  unsigned blocks, cudaStream_t s, const struct gpu_shared *sh)
{
	struct lanes_plan plan;

	lanes_plan_init(&plan, digest, j->first);
	if (GPU_PER_THREAD > 1) { /* a small launch: as many threads as it has pairs */
		uint64_t need = (j->count + 2 * GPU_VARIANT_BLOCK - 1) / (2 * GPU_VARIANT_BLOCK);

		blocks = need < blocks ? (unsigned)need : blocks;
	}
	search<<<blocks, GPU_VARIANT_BLOCK, 0, s>>>(plan, *j, *sh);
	return cudaGetLastError();
}

extern "C" const struct gpu_kernel GPU_VARIANT_SYM(gpu_kernel_) = {
	GPU_VARIANT, GPU_VARIANT_BLOCK, GPU_BEST_EVERY, setup, occupancy, launch,
};
