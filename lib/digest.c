/* The message and its digest (see digest.h). The low-level SHA-256 calls,
 * not the one-shot SHA256(): in OpenSSL 3 that one looks the algorithm up
 * on every call and runs five times slower. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "lib/digest.h"

#include <endian.h>
#include <string.h>
#include <openssl/sha.h>

void digest_message(uint64_t x, uint8_t msg[8])
{
	x = htole64(x);
	memcpy(msg, &x, sizeof x);
}

void digest_of(uint64_t x, uint8_t out[DIGEST_LEN])
{
	SHA256_CTX ctx;
	uint8_t msg[8];

	digest_message(x, msg);
	SHA256_Init(&ctx);
	SHA256_Update(&ctx, msg, sizeof msg);
	SHA256_Final(out, &ctx);
}

int digest_answers(uint64_t x, const uint8_t digest[DIGEST_LEN], uint64_t start,
		   uint64_t end)
{
	uint8_t d[DIGEST_LEN];

	if (x < start || x > end)
		return 0;
	digest_of(x, d);
	return memcmp(d, digest, sizeof d) == 0;
}
