/* The GPU search on a CUDA device: the kernel, and the launcher that
 * gpu_walk.c drives.
 *
 * A launch hashes a run of values inside one 2^32 segment, each thread a
 * strided share in increasing order (gpu_scan), with the segment's plan
 * passed as a grid-constant argument. Launches queue on one stream, two at
 * a time, so the device never idles while the host looks at a result. All
 * launches of a search share one lowest-candidate word in device memory,
 * which every thread reads before each value and lowers with an atomic min:
 * after a candidate, the rest of the search falls through in microseconds.
 * The last block of each launch to end copies that word to mapped pinned
 * host memory, so the host reads a launch's outcome with no copy and no
 * atomics on host memory. Launches are sized from the rate of the last ones
 * to take about LAUNCH_NS each: a stop is seen within a few ms, and the
 * launch and wait cost well under 1% of the device's time. */
#include "worker/gpu/gpu.h"

#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/gpu/gpu_search.h"
#include "worker/gpu/gpu_walk.h"

#define BLOCK 256                       /* threads per block */
#define DEPTH 2                         /* launches queued at once */
#define CHUNK_FIRST (UINT64_C(1) << 26) /* ~4 ms at 16 G hashes/s */
#define CHUNK_MIN (UINT64_C(1) << 20)   /* below, launch costs show */
#define LAUNCH_NS 4000000.0             /* what a launch should take */

struct gpu {
	int device;
	char name[256];
	cudaStream_t stream;
	cudaEvent_t start[DEPTH], end[DEPTH]; /* around each queued launch */
	uint32_t counts[DEPTH];               /* values of each */
	unsigned head, n;                     /* queued: n from head */
	uint64_t *best;          /* device: the search's lowest candidate */
	unsigned *done;          /* device: blocks of this launch ended */
	uint64_t *seen;          /* mapped host: best after the last launch */
	uint64_t *seen_dev;      /* the device's address of seen */
	uint32_t blocks;         /* of a full launch: fills every SM */
	uint64_t chunk, launches, busy_ns;
	struct gpu_launcher launcher;
	char err[160];
};

/* The last block of a launch to end copies best to the host. The fence
 * orders this block's atomic mins, which __syncthreads gathered, before its
 * count; atomicInc wraps done to 0 for the next launch. */
static __device__ void publish(uint64_t *best, unsigned *done, uint64_t *seen)
{
	__threadfence();
	if (atomicInc(done, gridDim.x - 1) != gridDim.x - 1)
		return;
	__threadfence();
	*(volatile uint64_t *)seen = *(volatile uint64_t *)best;
}

static __global__ void __launch_bounds__(BLOCK)
search(const __grid_constant__ struct lanes_plan plan, uint64_t first,
       uint32_t count, uint64_t *best, unsigned *done, uint64_t *seen)
{
	gpu_scan(&plan, first, count, blockIdx.x * BLOCK + threadIdx.x,
		 gridDim.x * BLOCK, best);
	__syncthreads();
	if (threadIdx.x == 0)
		publish(best, done, seen);
}

/* 0 for success; else "call: reason" kept in g->err and -EIO. */
static int check(struct gpu *g, cudaError_t e, const char *call)
{
	if (e == cudaSuccess)
		return 0;
	snprintf(g->err, sizeof g->err, "%s: %s", call, cudaGetErrorString(e));
	return -EIO;
}

static uint64_t dev_chunk(void *ctx)
{
	return ((struct gpu *)ctx)->chunk;
}

static int dev_launch(void *ctx, const uint8_t digest[32], uint64_t first,
		      uint32_t count)
{
	struct gpu *g = (struct gpu *)ctx;
	unsigned i = (g->head + g->n) % DEPTH;
	uint32_t blocks = (count + BLOCK - 1) / BLOCK;
	struct lanes_plan plan;
	int r;

	lanes_plan_init(&plan, digest, first);
	if (blocks > g->blocks)
		blocks = g->blocks;
	r = check(g, cudaEventRecord(g->start[i], g->stream), "cudaEventRecord");
	if (r)
		return r;
	search<<<blocks, BLOCK, 0, g->stream>>>(plan, first, count, g->best,
						g->done, g->seen_dev);
	r = check(g, cudaGetLastError(), "cudaLaunchKernel");
	if (!r)
		r = check(g, cudaEventRecord(g->end[i], g->stream), "cudaEventRecord");
	if (r)
		return r;
	g->counts[i] = count;
	g->n++;
	g->launches++;
	return 0;
}

/* Count launch i's time; size the next launches from it if it ran whole
 * and was long enough to time: half-way to LAUNCH_NS at its rate. */
static void account(struct gpu *g, unsigned i, uint64_t best)
{
	float ms = 0;
	double want;

	if (cudaEventElapsedTime(&ms, g->start[i], g->end[i]) != cudaSuccess ||
	    ms <= 0)
		return;
	g->busy_ns += (uint64_t)(ms * 1e6);
	if (best != GPU_NO_CANDIDATE || g->counts[i] < CHUNK_MIN)
		return;
	want = g->counts[i] * (LAUNCH_NS / 1e6) / ms;
	want = (want + (double)g->chunk) / 2;
	g->chunk = want < CHUNK_MIN ? CHUNK_MIN :
		   want > GPU_CHUNK_MAX ? GPU_CHUNK_MAX : (uint64_t)want;
}

static int dev_wait(void *ctx, uint64_t *best)
{
	struct gpu *g = (struct gpu *)ctx;
	unsigned i = g->head;
	int r = check(g, cudaEventSynchronize(g->end[i]), "cudaEventSynchronize");

	if (r)
		return r;
	*best = *(volatile uint64_t *)g->seen;
	account(g, i, *best);
	g->head = (i + 1) % DEPTH;
	g->n--;
	return 0;
}

static int dev_reset(void *ctx)
{
	struct gpu *g = (struct gpu *)ctx;
	int r = check(g, cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");

	g->head = g->n = 0;
	*(volatile uint64_t *)g->seen = GPU_NO_CANDIDATE;
	if (!r)
		r = check(g, cudaMemsetAsync(g->best, 0xff, sizeof *g->best, g->stream),
			  "cudaMemsetAsync");
	if (!r)
		r = check(g, cudaMemsetAsync(g->done, 0, sizeof *g->done, g->stream),
			  "cudaMemsetAsync");
	return r;
}

int gpu_count(void)
{
	int n = 0;

	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return n;
}

/* Make device current, blocking (not spinning) in waits, with host memory
 * mapped; its name, and the round constants in its constant memory. */
static int select_device(struct gpu *g, int *sms)
{
	struct cudaDeviceProp prop;
	cudaError_t e;
	int r = check(g, cudaSetDevice(g->device), "cudaSetDevice");

	if (r)
		return r;
	e = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost);
	if (e == cudaErrorSetOnActiveProcess) /* opened before: flags are set */
		e = cudaGetLastError();
	r = check(g, e, "cudaSetDeviceFlags");
	if (!r)
		r = check(g, cudaGetDeviceProperties(&prop, g->device),
			  "cudaGetDeviceProperties");
	if (r)
		return r;
	snprintf(g->name, sizeof g->name, "%s", prop.name);
	*sms = prop.multiProcessorCount;
	return check(g, cudaMemcpyToSymbol(gpu_k, sha256_k, sizeof gpu_k),
		     "cudaMemcpyToSymbol");
}

static int new_event(struct gpu *g, cudaEvent_t *e)
{
	return check(g, cudaEventCreateWithFlags(e, cudaEventBlockingSync),
		     "cudaEventCreateWithFlags");
}

/* The stream, its events, and the words a search shares with the host. */
static int allocate(struct gpu *g)
{
	int r = check(g, cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking),
		      "cudaStreamCreateWithFlags");

	for (int i = 0; i < DEPTH && !r; i++) {
		r = new_event(g, &g->start[i]);
		if (!r)
			r = new_event(g, &g->end[i]);
	}
	if (!r)
		r = check(g, cudaMalloc(&g->best, sizeof *g->best), "cudaMalloc");
	if (!r)
		r = check(g, cudaMalloc(&g->done, sizeof *g->done), "cudaMalloc");
	if (!r)
		r = check(g, cudaHostAlloc(&g->seen, sizeof *g->seen, cudaHostAllocMapped),
			  "cudaHostAlloc");
	if (!r)
		r = check(g, cudaHostGetDevicePointer((void **)&g->seen_dev, g->seen, 0),
			  "cudaHostGetDevicePointer");
	return r;
}

/* As many blocks as the SMs hold at once. */
static int size_grid(struct gpu *g, int sms)
{
	int per_sm = 0;
	int r = check(g, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
				 &per_sm, search, BLOCK, 0),
		      "cudaOccupancyMaxActiveBlocksPerMultiprocessor");

	g->blocks = (uint32_t)(per_sm > 0 ? per_sm : 1) * (uint32_t)sms;
	return r;
}

int gpu_open(int device, struct gpu **out, char *err, size_t errlen)
{
	struct gpu *g = (struct gpu *)calloc(1, sizeof *g);
	int sms = 1, r;

	if (!g) {
		snprintf(err, errlen, "calloc: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	g->device = device;
	g->chunk = CHUNK_FIRST;
	g->launcher = (struct gpu_launcher){ g, DEPTH, dev_chunk, dev_launch,
					     dev_wait, dev_reset, 0 };
	r = select_device(g, &sms);
	if (!r)
		r = allocate(g);
	if (!r)
		r = size_grid(g, sms);
	if (!r)
		r = dev_reset(g);
	if (r) {
		snprintf(err, errlen, "%s", g->err);
		gpu_close(g);
		return r;
	}
	*out = g;
	return 0;
}

const char *gpu_name(const struct gpu *g)
{
	return g->name;
}

int gpu_search(struct gpu *g, const uint8_t digest[32], uint64_t lo,
	       uint64_t hi, uint64_t *found, const uint32_t *stop)
{
	int r = check(g, cudaSetDevice(g->device), "cudaSetDevice");

	return r ? r : gpu_walk(&g->launcher, digest, lo, hi, found, stop);
}

const char *gpu_error(const struct gpu *g)
{
	return g->err;
}

void gpu_stats(const struct gpu *g, struct gpu_stats *st)
{
	st->launches = g->launches;
	st->rejected = g->launcher.rejected;
	st->chunk = g->chunk;
	st->threads = g->blocks * BLOCK;
	st->busy_ns = g->busy_ns;
}

void gpu_close(struct gpu *g)
{
	if (!g)
		return;
	cudaSetDevice(g->device);
	if (g->stream) {
		cudaStreamSynchronize(g->stream);
		cudaStreamDestroy(g->stream);
	}
	for (int i = 0; i < DEPTH; i++) {
		if (g->start[i])
			cudaEventDestroy(g->start[i]);
		if (g->end[i])
			cudaEventDestroy(g->end[i]);
	}
	cudaFree(g->best);
	cudaFree(g->done);
	if (g->seen)
		cudaFreeHost(g->seen);
	free(g);
}
