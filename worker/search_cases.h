/* Searches with known outcomes, for checking a kernel_search_fn against the
 * reference: seeded random ranges, the edges where a range walk goes wrong,
 * a digest that fools the early compare, and stops. Shared by the Check
 * tests and by gpu-check, which runs the same cases on a device: a part of
 * a shipped tool, so it lives beside the kernels, not among the tests. */
#ifndef REVHASH_SEARCH_CASES_H
#define REVHASH_SEARCH_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "worker/kernel.h"

/* One search and what it must return. */
struct search_case {
	const char *what;   /* for messages */
	uint8_t digest[32];
	uint64_t lo, hi;
	int expect;         /* SEARCH_FOUND or SEARCH_NONE */
	uint64_t answer;    /* *found when SEARCH_FOUND */
};

/* The next value of a xorshift sequence (state never 0). */
uint64_t cases_rand(uint64_t *state);

/* A random case of 1 to max_len values (log-uniform), often across a 2^32
 * boundary or at the top of the space, its answer inside 3 times in 4. */
void cases_random(uint64_t *state, uint64_t max_len, struct search_case *c);

/* The edge cases, with ranges of up to about span values (span >= 64):
 * the answer at either end, across 2^32 boundaries, up to 2^64-1, odd
 * counts, single values, no answer, and near misses. Fills out (max entries
 * at most) and returns the count. */
size_t cases_edges(uint64_t span, struct search_case *out, size_t max);

/* A digest that is not SHA-256 of y, yet whose a words after 57 and 58
 * rounds (what the kernels compare early) are y's. */
void cases_near_miss(uint64_t y, uint8_t out[32]);

/* Run c through fn with no stop flag, with a clear one, and with one set
 * before the call (SEARCH_STOPPED, *found = lo). 0, or -1 with the first
 * difference in why (len bytes). */
int cases_check(kernel_search_fn fn, const struct search_case *c, char *why,
		size_t len);

/* Search [lo, lo + 2^40] for answer's digest with fn while another thread
 * sets the stop flag after delay_ns. Either fn finds answer, or it stops
 * inside the range, at or before answer, and a search from there finds
 * answer. 0, or -1 with why. */
int cases_stop_during(kernel_search_fn fn, uint64_t lo, uint64_t answer,
		      long delay_ns, char *why, size_t len);

#endif
