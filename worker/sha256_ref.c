/* Scalar SHA-256 of one 8-byte message, written for clarity over speed: it
 * runs only to confirm the rare candidate (one in 2^32 values) that a fast
 * kernel's partial compare lets through. SHA-256 reads and writes its
 * words big-endian, whatever the CPU: written out with shifts here, since
 * that order is the hash's own, not the wire format's. */
#include "sha256_ref.h"

#include "lib/digest.h"

const uint32_t sha256_k[64] = { SHA256_K };

const uint32_t sha256_iv[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

uint32_t sha256_word(const uint8_t p[4])
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

/* The block of x's message: W0 and W1 from x, then the padding
 * (0x80000000, zeros) and the bit length 64. */
static void block(uint64_t x, uint32_t w[16])
{
	uint8_t msg[8];

	digest_message(x, msg);
	w[0] = sha256_word(msg);
	w[1] = sha256_word(msg + 4);
	w[2] = 0x80000000;
	for (int t = 3; t < 15; t++)
		w[t] = 0;
	w[15] = 64;
}

void sha256_segment_block(uint64_t x, uint32_t w[16])
{
	block(x, w);
	w[0] = 0;
}

/* The block's whole message schedule. */
static void schedule(uint64_t x, uint32_t w[64])
{
	block(x, w);
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ (w[t - 2] >> 10);
		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
}

uint32_t sha256_t2(uint32_t a, uint32_t b, uint32_t c)
{
	return (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
}

/* The 64 rounds on the state s; a[t] records the a word after t rounds. */
static void compress(uint64_t x, uint32_t s[8], uint32_t a[65])
{
	uint32_t w[64];

	schedule(x, w);
	for (int i = 0; i < 8; i++)
		s[i] = sha256_iv[i];
	a[0] = s[0];
	for (int t = 0; t < 64; t++) {
		uint32_t ch = (s[4] & s[5]) ^ (~s[4] & s[6]);
		uint32_t t1 = s[7] + (ror(s[4], 6) ^ ror(s[4], 11) ^ ror(s[4], 25)) +
			      ch + sha256_k[t] + w[t];
		uint32_t t2 = sha256_t2(s[0], s[1], s[2]);

		for (int i = 7; i > 0; i--)
			s[i] = s[i - 1];
		s[4] += t1;
		s[0] = t1 + t2;
		a[t + 1] = s[0];
	}
}

void sha256_le64(uint64_t x, uint8_t out[32])
{
	uint32_t s[8], a[65];

	compress(x, s, a);
	for (int i = 0; i < 8; i++)
		store_be32(out + 4 * i, sha256_iv[i] + s[i]);
}

void sha256_le64_a(uint64_t x, uint32_t a[65])
{
	uint32_t s[8];

	compress(x, s, a);
}

/* The final state is (a64, a63, a62, a61, e64, e63, e62, e61): b, c, d are
 * earlier a's and f, g, h earlier e's. Round t made a_{t+1} = T1 + T2, with
 * T2 = sha256_t2(a_t, a_{t-1}, a_{t-2}) known once those a's are, and
 * e_{t+1} = d_t + T1 = a_{t-3} + T1. So each known e gives one more a:
 * a_{t-3} = e_{t+1} - (a_{t+1} - T2), for t = 63, 62, 61, 60. */
void sha256_late_a(const uint8_t digest[32], uint32_t a[8])
{
	uint32_t h[8];

	for (int i = 0; i < 8; i++)
		h[i] = sha256_word(digest + 4 * i) - sha256_iv[i];
	for (int i = 0; i < 4; i++)
		a[7 - i] = h[i]; /* a64, a63, a62, a61 */
	for (int k = 0; k < 4; k++) {
		int n = 7 - k; /* a[n] is a_{64-k}, the a that round 63-k made */
		uint32_t t2 = sha256_t2(a[n - 1], a[n - 2], a[n - 3]);
		a[n - 4] = h[4 + k] - (a[n] - t2);
	}
}
