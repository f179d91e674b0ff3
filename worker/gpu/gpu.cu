/* The GPU search on a CUDA device: the launcher that gpu_walk.c drives,
 * over the kernel variants that gpu_kernel.cu builds. Launches queue on
 * one stream, two at a time, so the device never idles while the host
 * looks at a result; the host reads a launch's outcome from its report
 * slot in mapped memory, spinning on it for a short launch and sleeping on
 * its event for a long one. The lease's stop word's page is mapped for the
 * device, so a stop ends the running launch within microseconds; where it
 * cannot be, the walk sees the stop between launches. */
#include "worker/gpu/gpu.h"

#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "worker/gpu/gpu_kernel.h"
#include "worker/gpu/gpu_walk.h"
#include "lib/clock.h"
#include "lib/pick.h"

#define DEPTH 2                         /* launches queued at once */
#define CHUNK_FIRST (UINT64_C(1) << 26) /* ~4 ms at 16 G hashes/s */
#define CHUNK_MIN (UINT64_C(1) << 20)   /* below, launch costs show */
#define LAUNCH_NS 4000000               /* what a launch should take */
#define SPIN_MAX_NS 2000000             /* then sleep on the event */

/* Live launches: up to DEPTH of a search, behind up to DEPTH - 1 halted
 * ones the search before left in flight; each needs its own report slot
 * and event. */
static_assert(DEPTH <= GPU_WALK_DEPTH, "the walk keeps DEPTH launches");
static_assert(GPU_REPORTS >= 2 * DEPTH - 1, "a report slot per live launch");

struct gpu {
	int device;
	char name[256];
	cudaStream_t stream;
	cudaEvent_t ev[GPU_REPORTS];  /* after each launch, by generation */
	struct gpu_shared sh;         /* word, done; reports' device address */
	struct gpu_report *reports;   /* mapped host: one per generation slot */
	uint32_t *halt, *halt_dev;    /* mapped host: the halt word */
	char *stop_page, *stop_dev;   /* the registered page, its device address */
	const uint32_t *stop_job;     /* what launches poll: in stop_dev, or NULL */
	char *failed_page;            /* a page that would not register */
	int variant;
	uint32_t blocks[PICK_MAX];    /* of a full launch, per variant (gpu_table.h
				       * holds at most PICK_MAX), of its block size */
	struct gpu_launcher launcher;
	char err[160], watch_err[160];
};

#define GPU_ENTRY struct gpu_kernel
#define GPU_ENTRY_OF(n) gpu_kernel_##n
#include "worker/gpu/gpu_table.h"

/* 0 for success; else "call: reason" kept in g->err and -EIO. */
static int check(struct gpu *g, cudaError_t e, const char *call)
{
	if (e == cudaSuccess)
		return 0;
	snprintf(g->err, sizeof g->err, "%s: %s", call, cudaGetErrorString(e));
	return -EIO;
}

/* Map the page of stop for the device, once per page; a page that will not
 * map leaves the stop to the walk (said in watch_err). */
static int dev_watch(void *ctx, const uint32_t *stop)
{
	struct gpu *g = (struct gpu *)ctx;
	long size = sysconf(_SC_PAGESIZE);
	char *page = (char *)((uintptr_t)stop & ~(uintptr_t)(size - 1));
	cudaError_t e;

	g->stop_job = NULL;
	if (!stop || page == g->failed_page)
		return 0;
	if (page != g->stop_page) {
		if (g->stop_page) { /* no launch may poll it any more */
			int r = check(g, cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");

			if (r)
				return r;
			cudaHostUnregister(g->stop_page);
			g->stop_page = NULL;
		}
		e = cudaHostRegister(page, (size_t)size, cudaHostRegisterMapped);
		if (e == cudaSuccess)
			e = cudaHostGetDevicePointer((void **)&g->stop_dev, page, 0);
		if (e != cudaSuccess) {
			cudaGetLastError();
			snprintf(g->watch_err, sizeof g->watch_err, "cudaHostRegister: %s",
				 cudaGetErrorString(e));
			g->failed_page = page;
			return 0;
		}
		g->stop_page = page;
	}
	g->stop_job = (const uint32_t *)(g->stop_dev + ((const char *)stop - page));
	return 0;
}

static int dev_launch(void *ctx, const uint8_t digest[32], const struct gpu_job *j)
{
	struct gpu *g = (struct gpu *)ctx;
	struct gpu_job job = *j;
	unsigned block = variants[g->variant]->block;
	uint64_t blocks = (j->count + block - 1) / block;
	int r;

	job.stop = g->stop_job;
	job.halt = g->halt_dev;
	if (blocks > g->blocks[g->variant])
		blocks = g->blocks[g->variant];
	r = check(g, variants[g->variant]->launch(digest, &job, (unsigned)blocks,
						  g->stream, &g->sh), "cudaLaunchKernel");
	if (!r)
		r = check(g, cudaEventRecord(g->ev[j->gen % GPU_REPORTS], g->stream),
			  "cudaEventRecord");
	return r;
}

/* Spin on j's report for a while (SPIN_MAX_NS, or the launcher's spin_ns
 * when that is longer); 1 when it came. */
static int spin(const struct gpu_report *rep, uint32_t gen, uint64_t spin_ns)
{
	uint64_t bound = spin_ns > SPIN_MAX_NS ? spin_ns : SPIN_MAX_NS;
	uint64_t now = clock_ns(), until = bound > UINT64_MAX - now ? UINT64_MAX : now + bound;

	while (*(const volatile uint32_t *)&rep->gen != gen)
		if (clock_ns() > until)
			return 0;
	__sync_synchronize(); /* read the report after its gen */
	return 1;
}

static int dev_wait(void *ctx, const struct gpu_job *j, struct gpu_outcome *out)
{
	struct gpu *g = (struct gpu *)ctx;
	const struct gpu_report *rep = &g->reports[j->gen % GPU_REPORTS];

	if (!j->spin || !spin(rep, j->gen, g->launcher.spin_ns)) {
		int r = check(g, cudaEventSynchronize(g->ev[j->gen % GPU_REPORTS]),
			      "cudaEventSynchronize");

		if (r)
			return r;
		if (*(const volatile uint32_t *)&rep->gen != j->gen) {
			snprintf(g->err, sizeof g->err, "launch %u ended without its report",
				 j->gen);
			return -EIO;
		}
	}
	out->word = rep->word;
	out->ns = rep->t1 > rep->t0 ? rep->t1 - rep->t0 : 0;
	return 0;
}

static void dev_halt(void *ctx, uint32_t gen)
{
	struct gpu *g = (struct gpu *)ctx;

	__atomic_store_n(g->halt, gen, __ATOMIC_SEQ_CST);
}

/* Everything ended, the word fresh, no halt, no report of any generation.
 * On the search stream: on the legacy one a launch could overtake the sets
 * and report a range searched that it never hashed. */
static int dev_renew(void *ctx)
{
	struct gpu *g = (struct gpu *)ctx;
	int r = check(g, cudaMemsetAsync(g->sh.word, 0xff, sizeof *g->sh.word, g->stream),
		      "cudaMemsetAsync");

	if (!r)
		r = check(g, cudaMemsetAsync(g->sh.done, 0, sizeof *g->sh.done, g->stream),
			  "cudaMemsetAsync");
	if (!r)
		r = check(g, cudaMemsetAsync(g->sh.next, 0, GPU_REPORTS * sizeof *g->sh.next,
					     g->stream), "cudaMemsetAsync");
	if (!r)
		r = check(g, cudaStreamSynchronize(g->stream), "cudaStreamSynchronize");
	*g->halt = 0;
	memset(g->reports, 0, GPU_REPORTS * sizeof *g->reports);
	return r;
}

static char count_err[160];

int gpu_count(void)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess) {
		int driver = 0, runtime = 0;

		cudaGetLastError();
		cudaDriverGetVersion(&driver);
		cudaRuntimeGetVersion(&runtime);
		snprintf(count_err, sizeof count_err, "cudaGetDeviceCount: %s (%s; driver "
			 "for CUDA %d.%d, runtime %d.%d)", cudaGetErrorName(e),
			 cudaGetErrorString(e), driver / 1000, driver % 1000 / 10,
			 runtime / 1000, runtime % 1000 / 10);
		return 0;
	}
	count_err[0] = '\0';
	return n;
}

const char *gpu_count_error(void)
{
	return count_err;
}

unsigned gpu_variant_halt_every(int v)
{
	return variant(v) ? variant(v)->best_every : 0;
}

/* Make device current, blocking (not spinning) in waits on events, with
 * host memory mapped; its name and its SMs. */
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
	return 0;
}

/* Mapped pinned host memory of size bytes: *host, and *dev its device
 * address. */
static int mapped(struct gpu *g, size_t size, void **host, void **dev)
{
	int r = check(g, cudaHostAlloc(host, size, cudaHostAllocMapped), "cudaHostAlloc");

	if (!r)
		memset(*host, 0, size);
	return r ? r : check(g, cudaHostGetDevicePointer(dev, *host, 0),
			     "cudaHostGetDevicePointer");
}

/* The stream, its events, and the words the launches share. */
static int allocate(struct gpu *g)
{
	int r = check(g, cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking),
		      "cudaStreamCreateWithFlags");

	for (int i = 0; i < GPU_REPORTS && !r; i++)
		r = check(g, cudaEventCreateWithFlags(&g->ev[i], cudaEventBlockingSync |
						      cudaEventDisableTiming),
			  "cudaEventCreateWithFlags");
	if (!r)
		r = check(g, cudaMalloc(&g->sh.word, sizeof *g->sh.word), "cudaMalloc");
	if (!r)
		r = check(g, cudaMalloc(&g->sh.done, sizeof *g->sh.done), "cudaMalloc");
	if (!r)
		r = check(g, cudaMalloc(&g->sh.next, GPU_REPORTS * sizeof *g->sh.next),
			  "cudaMalloc");
	if (!r)
		r = mapped(g, GPU_REPORTS * sizeof *g->reports, (void **)&g->reports,
			   (void **)&g->sh.reports);
	if (!r)
		r = mapped(g, sizeof *g->halt, (void **)&g->halt, (void **)&g->halt_dev);
	return r;
}

/* Each variant's constants, on the search stream (dev_renew syncs it),
 * and its full launch: as many blocks as the SMs hold at once. */
static int setup_variants(struct gpu *g, int sms)
{
	int r = 0;

	for (int v = 0; v < NVARIANTS && !r; v++) {
		int per_sm = 0;

		r = check(g, variants[v]->setup(g->stream), "cudaMemcpyToSymbolAsync");
		if (!r)
			r = check(g, variants[v]->occupancy(&per_sm),
				  "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
		g->blocks[v] = (uint32_t)(per_sm > 0 ? per_sm : 1) * (uint32_t)sms;
	}
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
	g->launcher.ctx = g;
	g->launcher.depth = DEPTH;
	g->launcher.chunk_min = CHUNK_MIN;
	g->launcher.chunk_max = GPU_CHUNK_MAX;
	g->launcher.launch_ns = LAUNCH_NS;
	g->launcher.spin_ns = GPU_SPIN_NS;
	g->launcher.watch = dev_watch;
	g->launcher.launch = dev_launch;
	g->launcher.wait = dev_wait;
	g->launcher.halt = dev_halt;
	g->launcher.renew = dev_renew;
	g->launcher.chunk = CHUNK_FIRST;
	r = select_device(g, &sms);
	if (!r)
		r = allocate(g);
	if (!r)
		r = setup_variants(g, sms);
	if (!r)
		r = dev_renew(g);
	if (r) {
		snprintf(err, errlen, "%s", g->err);
		gpu_close(g);
		return r;
	}
	*out = g;
	return 0;
}

void gpu_spin_ns(struct gpu *g, uint64_t ns)
{
	g->launcher.spin_ns = ns;
}

int gpu_search(struct gpu *g, const uint8_t digest[32], uint64_t lo,
	       uint64_t hi, uint64_t *found, const uint32_t *stop)
{
	int r = check(g, cudaSetDevice(g->device), "cudaSetDevice");

	return r ? r : gpu_walk(&g->launcher, digest, lo, hi, found, stop);
}

void gpu_stats(const struct gpu *g, struct gpu_stats *st)
{
	st->launches = g->launcher.launches;
	st->rejected = g->launcher.rejected;
	st->chunk = g->launcher.chunk;
	st->threads = g->blocks[g->variant] * variants[g->variant]->block;
	st->busy_ns = g->launcher.busy_ns;
	st->watching = g->stop_job != NULL;
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
	for (int i = 0; i < GPU_REPORTS; i++)
		if (g->ev[i])
			cudaEventDestroy(g->ev[i]);
	if (g->stop_page)
		cudaHostUnregister(g->stop_page);
	cudaFree(g->sh.word);
	cudaFree(g->sh.done);
	cudaFree(g->sh.next);
	if (g->reports)
		cudaFreeHost(g->reports);
	if (g->halt)
		cudaFreeHost(g->halt);
	free(g);
}
