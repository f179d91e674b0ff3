/* The reference kernel: OpenSSL's SHA-256 of each value's message, one at a
 * time (digest_of). Slow but obviously right; the tests compare every
 * other kernel against it, and the benchmark uses it as the baseline. */
#include "kernel.h"

#include <string.h>

#include "lib/digest.h"

#define STOP_VALUES 256 /* values between two reads of the stop flag: ~14 us */

static enum search_result search(const uint8_t digest[32], uint64_t lo,
				 uint64_t hi, uint64_t *found, const uint32_t *stop)
{
	uint8_t out[32];

	for (uint64_t x = lo;; x++) {
		if ((x - lo) % STOP_VALUES == 0 && kernel_stopped(stop)) {
			*found = x;
			return SEARCH_STOPPED;
		}
		digest_of(x, out);
		if (memcmp(out, digest, 32) == 0) {
			*found = x;
			return SEARCH_FOUND;
		}
		if (x == hi)
			return SEARCH_NONE;
	}
}

const struct kernel kernel_openssl = {
	.name = "openssl", .lanes = 1, .supported = kernel_always, .search = search
};
