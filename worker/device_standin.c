/* The stand-in device (see device.h): the master's CPU kernel, run by an
 * exec'd worker as if it were a GPU, so the tests can drive the GPU
 * worker's whole path on a machine without one. REVHASH_STANDIN_GPUS says
 * how many devices it shows (default 1). */
#include "worker/device.h"

#include <stdio.h>
#include <stdlib.h>

int device_count(char names[][DEVICE_NAME_LEN], int max)
{
	const char *env = getenv("REVHASH_STANDIN_GPUS");
	int n = env ? atoi(env) : 1;

	for (int i = 0; i < n && i < max; i++)
		snprintf(names[i], DEVICE_NAME_LEN, "stand-in %d (a CPU kernel)", i);
	return n < 0 ? 0 : n;
}

const struct kernel *device_open(int index, const char *cpu_kernel, char *err,
				 size_t errlen)
{
	const struct kernel *k = kernel_find(cpu_kernel ? cpu_kernel : "portable");

	if (index < 0 || index >= device_count(NULL, 0) || !k) {
		snprintf(err, errlen, "no stand-in device %d with kernel %s", index,
			 cpu_kernel ? cpu_kernel : "portable");
		return NULL;
	}
	return k;
}

void device_lease_ns(uint64_t *lease_ns, uint64_t *min_lease_ns)
{
	*lease_ns = 0;     /* a CPU's */
	*min_lease_ns = 0;
}
