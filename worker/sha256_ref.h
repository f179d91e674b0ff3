/* A plain scalar SHA-256 of the one message revhash hashes (the 8 bytes of x,
 * little-endian), plus the standard constants the fast kernels share. The
 * kernels use it to confirm a candidate their early compare let through. */
#ifndef REVHASH_SHA256_REF_H
#define REVHASH_SHA256_REF_H

#include <stdint.h>

/* The round constants K[0..63], as an initializer (the GPU's kernels
 * hold some as immediates), and as a table; the initial hash value
 * H0[0..7]. */
#define SHA256_K \
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, \
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, \
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, \
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, \
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, \
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, \
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, \
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, \
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, \
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, \
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
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
