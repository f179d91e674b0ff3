/* A plain scalar SHA-256 of the one message revhash hashes (the 8 bytes of x,
 * little-endian), plus the standard constants the fast kernels share. The
 * kernels use it to confirm a candidate their early compare let through. */
#ifndef REVHASH_SHA256_REF_H
#define REVHASH_SHA256_REF_H

#include <stdint.h>

/* The round constants K[0..63] and the initial hash value H0[0..7]. */
extern const uint32_t sha256_k[64], sha256_iv[8];

/* out = SHA-256 of the 8 bytes of x in little-endian order. */
void sha256_le64(uint64_t x, uint8_t out[32]);
/* The big-endian word SHA-256 reads at p (a message's, a digest's). */
uint32_t sha256_word(const uint8_t p[4]);
/* A round's T2 with a, b, c its state's first words: BSIG0(a) + Maj. */
uint32_t sha256_t2(uint32_t a, uint32_t b, uint32_t c);

/* The one block x's message makes, as 16 words (W0 and W1 from x, the
 * padding, the bit length 64), with W0 (the low half of x, which differs
 * within the segment of values that share x's high half) left 0. */
void sha256_segment_block(uint64_t x, uint32_t w[16]);

/* Undo the last rounds: the a word of the state after rounds 57..64
 * (a[i] after 57 + i rounds) follows from the digest alone, with no message
 * word, so a kernel may compare after 57 rounds instead of finishing all 64. */
void sha256_late_a(const uint8_t digest[32], uint32_t a[8]);

/* The a word after each of the 64 rounds of x's block (a[0] is the initial
 * value); for checking sha256_late_a. */
void sha256_le64_a(uint64_t x, uint32_t a[65]);

#endif
