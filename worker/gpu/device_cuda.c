/* A CUDA device for the GPU worker (see device.h), through gpu.h. Linked
 * with gpu.cu it is revhash-gpu; with the host build behind gpu.h
 * (gpu_standin.c) it is revhash-gpu-hostdev, which the tests run where
 * there is no device. A device that fails ends the worker: the master
 * replaces it and its lease goes back, as for any worker that dies. */
#include "worker/gpu/device.h"
#include "lib/log.h"
#include "worker/gpu/gpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MEASURE_PROBE (UINT64_C(1) << 24)      /* ~1 ms of an H100 */
#define MEASURE_SAMPLE_NS 10000000             /* then 10 ms a run */
#define MEASURE_ROUNDS 3

static struct gpu *opened;
static char name[80], choice[768]; /* gpu-VARIANT; every variant's rate */
static int told_watch; /* whether the device polls the stop word: said once */

static enum search_result search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
				 uint64_t *found, const uint32_t *stop)
{
	int rc = gpu_search(opened, digest, lo, hi, found, stop);

	/* SEARCH_STOPPED is negative too, and no failure: the worker lets
	 * its lease go and serves on. */
	if (rc < 0 && rc != SEARCH_STOPPED) {
		log_error("GPU %s: %s", gpu_name(opened), gpu_error(opened));
		/* No exit handlers: this may run confined (--bench's lines are
		 * flushed by hand). */
		fflush(NULL);
		_exit(1);
	}
	if (stop && !told_watch) {
		struct gpu_stats st;

		gpu_stats(opened, &st);
		told_watch = 1;
		if (st.watching)
			log_info("GPU %s: the device polls the stop word (its page mapped)",
				 gpu_name(opened));
		else
			log_info("GPU %s: the stop word is read between launches, not by the "
				 "device: %s", gpu_name(opened), gpu_watch_error(opened));
	}
	return (enum search_result)rc;
}

static struct kernel device_kernel = {
	.name = name, .lanes = 4096, .supported = kernel_always, .search = search,
};

int device_count(char names[][DEVICE_NAME_LEN], int max)
{
	int n = gpu_count();

	if (n == 0 && *gpu_count_error())
		fprintf(stderr, "revhash-gpu: no CUDA device: %s\n", gpu_count_error());

	for (int i = 0; i < n && i < max; i++) {
		struct gpu *g;
		char err[128];

		if (gpu_open(i, &g, err, sizeof err) == 0) {
			snprintf(names[i], DEVICE_NAME_LEN, "%s", gpu_name(g));
			gpu_close(g);
		} else {
			snprintf(names[i], DEVICE_NAME_LEN, "unusable: %.50s", err);
		}
	}
	return n;
}

/* Variant i's rate; a device that fails ends the worker (search). */
static double run(void *ctx, size_t i, uint64_t values)
{
	(void)ctx;
	gpu_use(opened, (int)i);
	return kernel_rate(search, values);
}

int device_open(int index, const char *want, uint64_t spin_ns, struct device *out, char *err,
		size_t errlen)
{
	struct pick p = { .probe = MEASURE_PROBE, .sample_ns = MEASURE_SAMPLE_NS,
			  .rounds = MEASURE_ROUNDS };
	char line[640];
	size_t all = (size_t)gpu_variants(); /* at most PICK_MAX: gpu_table.h */
	int r = gpu_open(index, &opened, err, errlen);

	if (r)
		return r;
	for (size_t i = 0; i < all; i++) {
		p.names[i] = gpu_variant_name((int)i);
		p.handicap[i] = device_stop_handicap(gpu_variant_halt_every((int)i));
	}
	/* The variants on trial are taken by name only: measuring leaves
	 * them out until a device has checked and timed them (variants.mk). */
	p.n = all;
	if ((r = device_pick(&p, (size_t)gpu_variants_auto(), want, run, NULL, err, errlen)))
		return r;
	gpu_use(opened, (int)p.chosen);
	gpu_spin_ns(opened, spin_ns);
	snprintf(name, sizeof name, "gpu-%s", p.names[p.chosen]);
	pick_line(&p, line, sizeof line);
	snprintf(choice, sizeof choice, "%s: %s", gpu_name(opened), line);
	/* Leases of the GPU kind's length (worker/kind.c). */
	*out = (struct device){ .kernel = &device_kernel, .choice = choice,
				.rate = p.forced ? 0 : (uint64_t)p.rates[p.chosen],
				.idle_poll_ms = 1000 };
	return 0;
}
