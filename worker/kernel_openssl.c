/* The reference kernel: OpenSSL's SHA256_Init/Update/Final on one reused
 * context. Slow but obviously right; the tests compare every other kernel
 * against it, and the benchmark uses it as the baseline. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "kernel.h"

#include <string.h>
#include <openssl/sha.h>

static int always(void)
{
	return 1;
}

static int search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
		  uint64_t *found)
{
	SHA256_CTX ctx;
	uint8_t msg[8], out[32];

	for (uint64_t x = lo;; x++) {
		for (int i = 0; i < 8; i++)
			msg[i] = (uint8_t)(x >> (8 * i));
		SHA256_Init(&ctx);
		SHA256_Update(&ctx, msg, sizeof msg);
		SHA256_Final(out, &ctx);
		if (memcmp(out, digest, 32) == 0) {
			*found = x;
			return 1;
		}
		if (x == hi)
			return 0;
	}
}

const struct kernel kernel_openssl = { "openssl", 1, always, search };
