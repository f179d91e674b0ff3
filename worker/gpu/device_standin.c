/* The stand-in device (see device.h): a CPU kernel, run by an exec'd
 * worker as if it were a GPU, so the tests drive the GPU worker's whole
 * path on a machine without one. REVHASH_STANDIN_GPUS: the devices it
 * shows (default 1). Its variants, chosen as a GPU's: "standin", the CPU
 * kernel the master names (else portable); "standin-slow", a quarter of
 * its rate, which measuring must see; by name only, "gpu-host", the host
 * build of the GPU search under a worker, and "liar". REVHASH_STANDIN_KERNEL
 * names the variant instead of the master's --kernel. */
#include "worker/gpu/device.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lib/clock.h"
#include "worker/gpu/gpu.h"
#include "worker/gpu/gpu_host.h"

#define SLOWER 3      /* standin-slow idles this many times its hashing */
#define IDLE_STEP_NS 200000L /* and looks at the stop word this often */

static const struct kernel *base;
static struct kernel chosen;
static char choice[320];

/* The base kernel, then SLOWER times as long idle (or until stopped). */
static enum search_result slow(const uint8_t digest[32], uint64_t lo, uint64_t hi,
			       uint64_t *found, const uint32_t *stop)
{
	uint64_t t0 = clock_ns();
	enum search_result r = base->search(digest, lo, hi, found, stop);
	uint64_t until = clock_ns() + SLOWER * (clock_ns() - t0);
	struct timespec step = { 0, IDLE_STEP_NS };

	while (clock_ns() < until && !kernel_stopped(stop))
		nanosleep(&step, NULL);
	return r;
}

/* Every other search, the range's first value reported as the answer,
 * whatever the digest: a broken or hostile worker, for the master's check
 * of what workers report. The others, the base kernel's. */
static enum search_result liar(const uint8_t digest[32], uint64_t lo, uint64_t hi,
			       uint64_t *found, const uint32_t *stop)
{
	static unsigned calls;

	if (calls++ % 2 == 0) {
		*found = lo;
		return SEARCH_FOUND;
	}
	return base->search(digest, lo, hi, found, stop);
}

static const kernel_search_fn searches[] = { NULL, slow, gpu_host_search, liar };
static const char *const names[] = { "standin", "standin-slow", "gpu-host", "liar" };

int device_count(char names_out[][DEVICE_NAME_LEN], int max)
{
	int n = gpu_count();

	for (int i = 0; i < n && i < max; i++)
		snprintf(names_out[i], DEVICE_NAME_LEN, "stand-in %d (a CPU kernel)", i);
	return n;
}

static double run(void *ctx, size_t i, uint64_t values)
{
	(void)ctx;
	return kernel_rate(searches[i] ? searches[i] : base->search, values);
}

int device_open(int index, const char *want, uint64_t spin_ns, struct device *out, char *err,
		size_t errlen)
{
	struct pick p = { .n = 4, .names = { names[0], names[1], names[2], names[3] },
			  .probe = 4096, .sample_ns = 2000000, .rounds = 2 };
	const char *env = getenv("REVHASH_STANDIN_KERNEL");
	char line[256];

	if (index < 0 || index >= gpu_count()) {
		snprintf(err, errlen, "no stand-in device %d", index);
		return -ENODEV;
	}
	base = want ? kernel_find(want) : NULL;
	if (!base)
		base = kernel_find("portable");
	if (env && *env)
		want = env;
	/* gpu-host and liar by name only: measuring leaves them out. */
	if (device_pick(&p, 2, want, run, NULL, err, errlen) < 0)
		return -EINVAL;
	chosen = *base;
	chosen.name = names[p.chosen];
	chosen.search = searches[p.chosen] ? searches[p.chosen] : base->search;
	pick_line(&p, line, sizeof line);
	snprintf(choice, sizeof choice, "stand-in %d (a CPU kernel, %s): %s", index,
		 base->name, line);
	/* The GPU walk's test variant leases for seconds, so that only the
	 * stop word ends a lease soon; the others take their kind's. */
	(void)spin_ns; /* a CPU kernel hashes on the caller's CPU: no wait to spin */
	*out = (struct device){ .kernel = &chosen, .choice = choice,
				.rate = p.forced ? 0 : (uint64_t)p.rates[p.chosen],
				.lease_ns = chosen.search == gpu_host_search ?
					    UINT64_C(10000000000) : 0 };
	return 0;
}
