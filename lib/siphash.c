/* SipHash-2-4 (see siphash.h), from its specification: four 64-bit words
 * of state, two rounds per 8-byte word of the message (little-endian), the
 * last word holding the tail and the length, four rounds to finish. */
#include "lib/siphash.h"
#include "lib/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static uint64_t rotl(uint64_t x, unsigned b)
{
	return x << b | x >> (64 - b);
}

/* The little-endian word at p. */
static uint64_t le64(const uint8_t *p)
{
	uint64_t w = 0;

	for (int i = 7; i >= 0; i--)
		w = w << 8 | p[i];
	return w;
}

static void round4(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = rotl(v[1], 13) ^ v[0];
	v[0] = rotl(v[0], 32);
	v[2] += v[3];
	v[3] = rotl(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = rotl(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = rotl(v[1], 17) ^ v[2];
	v[2] = rotl(v[2], 32);
}

static void absorb(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	round4(v);
	round4(v);
	v[0] ^= m;
}

uint64_t siphash(const uint8_t key[SIPHASH_KEY_LEN], const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t k0 = le64(key), k1 = le64(key + 8), last = (uint64_t)len << 56;
	uint64_t v[4] = { k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
			  k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull };
	size_t i;

	for (i = 0; i + 8 <= len; i += 8)
		absorb(v, le64(p + i));
	for (size_t j = 0; i + j < len; j++)
		last |= (uint64_t)p[i + j] << (8 * j);
	absorb(v, last);
	v[2] ^= 0xff;
	for (int r = 0; r < 4; r++)
		round4(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

void siphash_key(uint8_t key[SIPHASH_KEY_LEN])
{
	uint64_t t[2];
	ssize_t n;
	int fd;

	/* Waits, only early at boot, for the kernel's pool: a key from the
	 * time and the pid is one a peer can guess, and then flood one chain
	 * of the index. */
	while ((n = getrandom(key, SIPHASH_KEY_LEN, 0)) < 0 && errno == EINTR)
		;
	if (n == SIPHASH_KEY_LEN)
		return;
	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, key, SIPHASH_KEY_LEN);
		close(fd);
		if (n == SIPHASH_KEY_LEN)
			return;
	}
	t[0] = clock_ns_of(CLOCK_REALTIME) ^ clock_ns(); /* no kernel randomness at all */
	t[1] = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
	memcpy(key, t, SIPHASH_KEY_LEN);
}
