/* The reference kernel: OpenSSL's SHA-256 of each value's message, one at a
 * time (proto_digest). Slow but obviously right; the tests compare every
 * other kernel against it, and the benchmark uses it as the baseline. */
#include "kernel.h"

#include <string.h>

#include "proto/proto.h"

static int search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
		  uint64_t *found)
{
	uint8_t out[32];

	for (uint64_t x = lo;; x++) {
		proto_digest(x, out);
		if (memcmp(out, digest, 32) == 0) {
			*found = x;
			return 1;
		}
		if (x == hi)
			return 0;
	}
}

const struct kernel kernel_openssl = { "openssl", 1, kernel_always, search };
