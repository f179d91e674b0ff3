/* SHA-256 search kernels: find x in [lo, hi] with SHA256(le64(x)) == digest.
 * One implementation per instruction set, each in its own file compiled with
 * only its own -m flags; kernel_find("auto") times the ones the CPU supports,
 * once per process, and picks the fastest. */
#ifndef REVHASH_KERNEL_H
#define REVHASH_KERNEL_H

#include <stdint.h>
#include <stddef.h>

#include "lib/pick.h"
#include "lib/search.h"

/* Search [lo, hi] (inclusive, hi may be 2^64-1) for digest. The kernel
 * reads *stop (NULL: never stop) often enough that a stop takes effect
 * within about 20 us; once it is set, the search returns SEARCH_STOPPED
 * with *found the first value not hashed (lo when set before the call). */
typedef enum search_result (*kernel_search_fn)(const uint8_t digest[32], uint64_t lo,
				uint64_t hi, uint64_t *found,
				const uint32_t *stop);

struct kernel {
	const char *name;      /* as --kernel takes it: "avx512", "openssl"... */
	unsigned lanes;        /* values hashed side by side */
	int (*supported)(void); /* 1 when this CPU can run it */
	kernel_search_fn search;
};

/* The kernel named name, or NULL when the name is unknown or the CPU cannot
 * run it. "auto" is the fastest supported kernel as kernel_calibrate()
 * measured it (calibrating first if no one has). */
const struct kernel *kernel_find(const char *name);

#define KERNEL_MAX 8 /* compiled-in kernels, at most */

/* What the calibration measured. */
struct kernel_calibration {
	struct pick pick;  /* the supported kernels by name, in kernel_all()
			    * order, their rates on one core and the choice */
	const struct kernel *kernels[KERNEL_MAX]; /* those kernels */
	const struct kernel *best;                /* the one chosen */
};

/* Time every supported kernel (about 30 ms, once per process; any thread).
 * pick_line() says what it measured and chose. */
const struct kernel_calibration *kernel_calibrate(void);

/* The rate of search (hashes/s, wall clock) over values values without
 * the answer, each call further along one range; 0 when it finds one. What
 * the calibration and a device's choice of variant measure (one thread at
 * a time: the calibration runs once, a device chooses at its start). */
double kernel_rate(kernel_search_fn search, uint64_t values);

/* A supported() for kernels that run on any CPU. */
int kernel_always(void);

/* How a kernel reads the stop flag: relaxed, as it only says "soon". */
static inline int kernel_stopped(const uint32_t *stop)
{
	return stop && __atomic_load_n(stop, __ATOMIC_RELAXED);
}

/* Every compiled-in kernel, supported or not, in a fixed order (openssl
 * last); *n receives the count. */
const struct kernel *const *kernel_all(size_t *n);

/* Their names for a person, from the same table: "hybrid, avx512, shani,
 * avx2, portable or openssl" (truncated to len). */
void kernel_names(char *buf, size_t len);

#endif
