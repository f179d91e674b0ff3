/* What both sides of the ring (ring.c, the workers'; ring_master.c, the
 * master's) share beyond ring.h. Not for use outside shm/. */
#ifndef REVHASH_RING_PRIVATE_H
#define REVHASH_RING_PRIVATE_H

#include "shm/ring.h"

/* Keep the compiler from reordering the stores that crash safety depends on;
 * x86 and the kernel keep the hardware order. */
#define publish(lhs, v) __atomic_store_n(&(lhs), (v), __ATOMIC_RELEASE)
#define peek(lhs) __atomic_load_n(&(lhs), __ATOMIC_ACQUIRE)

/* Values from lo to hi inclusive, as a 128-bit count. */
static inline unsigned __int128 span(uint64_t lo, uint64_t hi)
{
	return (unsigned __int128)(hi - lo) + 1;
}

/* Set job's bit in a bitmap the other side takes from. */
static inline void flag(uint64_t *bits, uint32_t job)
{
	__atomic_fetch_or(&bits[job / 64], 1ull << (job % 64), __ATOMIC_RELEASE);
}

#endif
