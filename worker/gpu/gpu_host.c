/* The host build of the GPU search: a launch runs the kernel's threads one
 * after another, each the very gpu_scan() the device runs, under the walk
 * the device search uses. One run of the threads in turn is one of the
 * orders the device may take, and the walk cannot tell it from the others.
 *
 * The launch geometry is odd on purpose: launches of a prime number of
 * values over a prime number of threads, so that launch, thread and range
 * ends fall everywhere against each other and against the 2^32 segments. */
#include "worker/gpu/gpu_host.h"

#include "worker/gpu/gpu_search.h"
#include "worker/gpu/gpu_walk.h"

#define HOST_CHUNK 4099   /* values per launch */
#define HOST_THREADS 61   /* threads per launch */

static uint64_t best = GPU_NO_CANDIDATE;

static uint64_t host_chunk(void *ctx)
{
	(void)ctx;
	return HOST_CHUNK;
}

static int host_launch(void *ctx, const uint8_t digest[32], uint64_t first,
		       uint32_t count)
{
	struct lanes_plan plan;

	(void)ctx;
	lanes_plan_init(&plan, digest, first);
	for (uint32_t tid = 0; tid < HOST_THREADS; tid++)
		gpu_scan(&plan, first, count, tid, HOST_THREADS, &best);
	return 0;
}

static int host_wait(void *ctx, uint64_t *out)
{
	(void)ctx;
	*out = best;
	return 0;
}

static int host_reset(void *ctx)
{
	(void)ctx;
	best = GPU_NO_CANDIDATE;
	return 0;
}

/* Two launches in flight, as on the device: the walk then also sees a
 * candidate of the launch after the one it waited for. */
static struct gpu_launcher host = {
	.depth = 2,
	.chunk = host_chunk,
	.launch = host_launch,
	.wait = host_wait,
	.reset = host_reset,
};

int gpu_host_search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
		    uint64_t *found, const uint32_t *stop)
{
	return gpu_walk(&host, digest, lo, hi, found, stop);
}

uint64_t gpu_host_rejected(void)
{
	return host.rejected;
}
