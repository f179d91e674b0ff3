/* The message revhash hashes and its digest: a value x is the 8 bytes of x
 * in little-endian order, and the digest a request carries is their
 * SHA-256, by OpenSSL: the reference the fast kernels are checked against. */
#ifndef REVHASH_DIGEST_H
#define REVHASH_DIGEST_H

#include <stdint.h>

#define DIGEST_LEN 32

/* The message of x: its 8 bytes, little-endian. */
void digest_message(uint64_t x, uint8_t msg[8]);
/* out = SHA-256 of the message of x (OpenSSL). */
void digest_of(uint64_t x, uint8_t out[DIGEST_LEN]);
/* Does x answer the question (digest, [start, end]): in the range, and
 * hashing to the digest? How a reply that someone else computed (a
 * worker, a server) is checked before it is believed. */
int digest_answers(uint64_t x, const uint8_t digest[DIGEST_LEN], uint64_t start,
		   uint64_t end);

#endif
