/* The range walk every fast kernel shares: split [lo, hi] into segments
 * within which the high half of x (message word W1) stays fixed, hash each
 * segment LANES values at a time, and confirm in order the candidates a
 * block reports with the scalar reference, so the lowest match wins.
 *
 * The stop flag is read every STOP_BLOCKS blocks (the kernels differ less
 * in time per block than per value): on Zen 5 a block takes 0.06-0.27 us,
 * so a stop takes effect within 4-17 us.
 *
 * The includer defines, before including this file:
 *   LANES                       values per block (at most 32)
 *   PLAN                        the type of what one segment shares
 *   PLAN_INIT(p, digest, x)     fill the plan of the segment holding x
 *   BLOCK_CANDIDATES(p, x32)    bit i set when the value with low half
 *                               x32 + i (mod 2^32) may match
 * (the last three by default kernel_lanes.h's), and gets static
 * range_search(), a kernel_search_fn. */
#ifndef REVHASH_KERNEL_RANGE_H
#define REVHASH_KERNEL_RANGE_H

#include <stdint.h>
#include <string.h>

#include "kernel.h"
#include "sha256_ref.h"

#define STOP_BLOCKS 64 /* blocks between two reads of the stop flag */

#ifndef PLAN
#define PLAN struct lanes_plan
#define PLAN_INIT lanes_plan_init
#define BLOCK_CANDIDATES lanes_candidates
#endif

/* Check the candidates of the block at x in order, none past last. */
static int confirm(const uint8_t digest[32], uint64_t x, uint64_t last,
		   uint32_t mask, uint64_t *found)
{
	uint8_t out[32];

	for (uint64_t i = 0; i < LANES && i <= last - x; i++) {
		if (!(mask >> i & 1))
			continue;
		sha256_le64(x + i, out);
		if (memcmp(out, digest, sizeof out) == 0) {
			*found = x + i;
			return 1;
		}
	}
	return 0;
}

/* Search [first, last], which lies inside one 2^32-aligned block. The last
 * block may run past last (and wrap in the low half): confirm() stops. */
static enum search_result search_segment(const PLAN *p, const uint8_t digest[32],
			  uint64_t first, uint64_t last, uint64_t *found,
			  const uint32_t *stop)
{
	for (uint64_t x = first;;) {
		if (kernel_stopped(stop)) {
			*found = x;
			return SEARCH_STOPPED;
		}
		for (int n = 0; n < STOP_BLOCKS; n++, x += LANES) {
			uint32_t mask = BLOCK_CANDIDATES(p, (uint32_t)x);

			if (mask && confirm(digest, x, last, mask, found))
				return SEARCH_FOUND;
			if (last - x < LANES)
				return SEARCH_NONE;
		}
	}
}

/* The kernel_search_fn. An empty range (lo > hi) finds nothing. */
static enum search_result range_search(const uint8_t digest[32], uint64_t lo,
				       uint64_t hi, uint64_t *found,
				       const uint32_t *stop)
{
	PLAN plan;

	for (uint64_t first = lo; first <= hi;) {
		uint64_t last = first | 0xffffffff;
		enum search_result r;

		if (last > hi)
			last = hi;
		PLAN_INIT(&plan, digest, first);
		r = search_segment(&plan, digest, first, last, found, stop);
		if (r != SEARCH_NONE)
			return r;
		if (last == hi)
			break;
		first = last + 1;
	}
	return SEARCH_NONE;
}

#endif
