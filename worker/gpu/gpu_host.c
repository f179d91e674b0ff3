/* The host build of one GPU kernel variant (compiled once per GPU_VARIANT):
 * a launch runs the device's very gpu_scan() for each thread in turn,
 * which is one of the orders the device may take, under the device's
 * walk. Launches run when queued, and what each left in the word is copied
 * then. Launches of a prime number of values over a prime number of
 * threads, so that launch, thread and range ends fall everywhere against
 * each other and against the 2^32 segments. */
#include "worker/gpu/gpu_host.h"

#include "lib/clock.h"

#include "worker/gpu/gpu_search.h"

#define HOST_CHUNK 4099   /* values per launch */

static struct {
	uint64_t word;                 /* the candidate word */
	uint64_t next;                 /* the grab variants' counter */
	uint32_t halt;                 /* the halt word */
	const uint32_t *stop;          /* the stop word launches poll */
	struct gpu_outcome out[GPU_WALK_DEPTH]; /* by generation */
} dev = { .word = GPU_WORD_FRESH };

static int host_watch(void *ctx, const uint32_t *stop)
{
	(void)ctx;
	dev.stop = stop;
	return 0;
}

static int host_launch(void *ctx, const uint8_t digest[32], const struct gpu_job *j)
{
	struct gpu_outcome *o = &dev.out[j->gen % GPU_WALK_DEPTH];
	struct gpu_job job = *j;
	struct lanes_plan plan;
	uint64_t t0 = clock_ns();

	(void)ctx;
	job.stop = dev.stop;
	job.halt = &dev.halt;
	lanes_plan_init(&plan, digest, j->first);
	dev.next = 0;
	for (uint32_t tid = 0; tid < GPU_HOST_THREADS; tid++)
		gpu_scan(&plan, &job, tid, GPU_HOST_THREADS, &dev.word, &dev.next);
	o->word = dev.word;
	o->ns = clock_ns() - t0 + 1;
	return 0;
}

static int host_wait(void *ctx, const struct gpu_job *j, struct gpu_outcome *out)
{
	(void)ctx;
	*out = dev.out[j->gen % GPU_WALK_DEPTH];
	return 0;
}

static void host_halt(void *ctx, uint32_t gen)
{
	(void)ctx;
	dev.halt = gen;
}

static int host_renew(void *ctx)
{
	(void)ctx;
	dev.word = GPU_WORD_FRESH;
	dev.halt = 0;
	return 0;
}

/* Two launches in flight, as on the device: the walk then also sees a
 * launch queued after the one it waits for. */
static struct gpu_launcher host = {
	.depth = 2,
	.chunk_min = HOST_CHUNK,
	.chunk_max = HOST_CHUNK,
	.launch_ns = 1000000,
	.spin_ns = GPU_SPIN_NS,
	.watch = host_watch,
	.launch = host_launch,
	.wait = host_wait,
	.halt = host_halt,
	.renew = host_renew,
	.chunk = HOST_CHUNK,
};

static int search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
		  uint64_t *found, const uint32_t *stop)
{
	return gpu_walk(&host, digest, lo, hi, found, stop);
}

const struct gpu_host_variant GPU_VARIANT_SYM(gpu_host_) = {
	.variant = GPU_VARIANT,
	.search = search,
	.launcher = &host,
};
