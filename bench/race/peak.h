/* The most hashes a second this machine's CPUs can do, measured by the
 * race itself: revhash's fastest search kernel on one core (its own
 * start-up calibration, worker/kernel.h), times every CPU the machine
 * has. No server here hashes faster on these CPUs (one with a better
 * kernel than revhash's by a little, and the race allows four times), so
 * a run whose fresh requests took less than their hashing at that rate
 * was answered from memory: a cache, a table. It needs no probe of the
 * server. A GPU is no CPU: on a machine with one, the CPUs' peak bounds
 * nothing, and none is given. */
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
