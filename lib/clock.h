/* The one clock of the project: CLOCK_MONOTONIC, which every process on the
 * host reads alike, so a time a worker writes into the segment means the
 * same to the master, and tests and tools measure on the same scale. */
#ifndef REVHASH_CLOCK_H
#define REVHASH_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds of clock id: CLOCK_MONOTONIC for every time the processes
 * share, another only for what it alone measures (a thread's CPU time, a
 * wall-clock date). */
static inline uint64_t clock_ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Monotonic nanoseconds. */
static inline uint64_t clock_ns(void)
{
	return clock_ns_of(CLOCK_MONOTONIC);
}

/* Monotonic milliseconds. */
static inline uint64_t clock_ms(void)
{
	return clock_ns() / 1000000u;
}

#endif
