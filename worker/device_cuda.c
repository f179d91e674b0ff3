/* A CUDA device for the GPU worker (see device.h), through worker/gpu/gpu.h.
 * Its leases are longer than a CPU's: a launch costs microseconds, so a
 * lease of a few ms keeps that under about 1%. A device that fails ends
 * the worker: the master replaces it (with back-off) and its lease goes
 * back, as for any worker that dies. */
#include "worker/device.h"
#include "lib/log.h"
#include "worker/gpu/gpu.h"

#include <stdio.h>
#include <stdlib.h>

static struct gpu *opened;

static enum search_result search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
				 uint64_t *found, const uint32_t *stop)
{
	int rc = gpu_search(opened, digest, lo, hi, found, stop);

	if (rc < 0) {
		log_error("GPU %s: %s", gpu_name(opened), gpu_error(opened));
		exit(1);
	}
	return (enum search_result)rc;
}

static const struct kernel device_kernel = {
	.name = "gpu", .lanes = 4096, .supported = kernel_always, .search = search,
	.offload = 1,
};

int device_count(char names[][DEVICE_NAME_LEN], int max)
{
	int n = gpu_count();

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

const struct kernel *device_open(int index, const char *cpu_kernel, char *err,
				 size_t errlen)
{
	(void)cpu_kernel;
	return gpu_open(index, &opened, err, errlen) == 0 ? &device_kernel : NULL;
}

void device_lease_ns(uint64_t *lease_ns, uint64_t *min_lease_ns)
{
	*lease_ns = 4000000;     /* 4 ms */
	*min_lease_ns = 500000;  /* 0.5 ms */
}
