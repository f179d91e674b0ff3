/* The one clock of the project: CLOCK_MONOTONIC, which every process on the
 * host reads alike, so a time a worker writes into the segment means the
 * same to the master, and tests and tools measure on the same scale. */
#ifndef REVHASH_CLOCK_H
#define REVHASH_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Monotonic nanoseconds. */
static inline uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Monotonic milliseconds. */
static inline uint64_t clock_ms(void)
{
	return clock_ns() / 1000000u;
}

#endif
