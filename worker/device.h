/* What the GPU worker (worker/gpu_main.c) searches with: a CUDA device
 * (device_cuda.c, linked where nvcc built the GPU search), or, where there
 * is none, the stand-in (device_standin.c): a CPU kernel behind the same
 * door, so that the path of an exec'd worker (lease, stop word, kill,
 * respawn) is tested on any machine. */
#ifndef REVHASH_DEVICE_H
#define REVHASH_DEVICE_H

#include <stddef.h>

#include "worker/kernel.h"

#define DEVICE_NAME_LEN 64

/* The devices there are; their names into names[0..max). */
int device_count(char names[][DEVICE_NAME_LEN], int max);
/* Open device index: the kernel that searches on it, or NULL and why in
 * err. cpu_kernel names the master's CPU kernel (the stand-in's). */
const struct kernel *device_open(int index, const char *cpu_kernel, char *err,
				 size_t errlen);
/* How long a lease on it should take, and the least worth one, in ns. */
void device_lease_ns(uint64_t *lease_ns, uint64_t *min_lease_ns);

#endif
