/* SHA-256 search kernels: find x in [lo, hi] with SHA256(le64(x)) == digest.
 * One implementation per instruction set, each in its own file compiled with
 * only its own -m flags; kernel_find() picks the best the CPU supports once. */
#ifndef REVHASH_KERNEL_H
#define REVHASH_KERNEL_H

#include <stdint.h>
#include <stddef.h>

/* Search [lo, hi] (inclusive, any values, hi may be 2^64-1) for digest.
 * Returns 1 and stores the matching value in *found, or 0 if none matches. */
typedef int (*kernel_search_fn)(const uint8_t digest[32], uint64_t lo,
				uint64_t hi, uint64_t *found);

struct kernel {
	const char *name;      /* "shani", "avx512", "avx2", "portable", "openssl" */
	unsigned lanes;        /* values hashed side by side */
	int (*supported)(void); /* 1 when this CPU can run it */
	kernel_search_fn search;
};

/* The kernel named name ("auto" = best supported), or NULL when the name is
 * unknown or the CPU cannot run it. */
const struct kernel *kernel_find(const char *name);

/* A supported() for kernels that run on any CPU. */
int kernel_always(void);

/* Every compiled-in kernel, best first; *n receives the count. */
const struct kernel *const *kernel_all(size_t *n);

#endif
