/* The most hashes a second this machine's CPUs can do: revhash's fastest
 * kernel on one core (worker/kernel.h's calibration) times every CPU. A
 * run whose fresh requests took less than their hashing at that rate was
 * answered from memory, with no probe needed (docs/race.md: Runs faster
 * than hashing allows). A GPU is no CPU: with one here, there is none. */
#ifndef REVHASH_BENCH_PEAK_H
#define REVHASH_BENCH_PEAK_H

#include <stddef.h>

struct peak {
	double rate;        /* values per second; 0: none (a GPU) */
	double core;        /* one core's, with the kernel below */
	unsigned cpus;      /* the machine's, online */
	const char *kernel; /* revhash's fastest here, by name */
	char gpu[64];       /* the GPU's device file, where there is one */
};

/* Measure this machine's peak into pk (about 30 ms, once a process). */
void peak_measure(struct peak *pk);
/* Whether the device folder dev (/dev) holds a GPU's device file:
 * nvidia0 and the like (CUDA), kfd (ROCm) or a dri/renderD* (any GPU a
 * program may compute on). 1 and its path into found, else 0. */
int peak_gpu_in(const char *dev, char *found, size_t size);

#endif
