/* Picks a search kernel once, best first, by asking the CPU what it can run.
 *
 * The order is by one-core speed (bench/kernel-bench.c). Measured on AMD
 * EPYC Zen 3 (SHA-NI and AVX2, no AVX-512), M hashes/s: shani 56,
 * avx2 28, portable 11, openssl 14.5 (OpenSSL itself uses SHA-NI there).
 * No CPU with both SHA-NI and AVX-512 (Intel Ice Lake and later, AMD Zen 4)
 * was measured; there avx512 goes first, by counting: it takes about 93
 * instructions a hash (1493 for 16), nearly all on the two 512-bit ports,
 * so ~45-50 cycles a hash, while shani spends ~56 here and is bound by its
 * SHA instructions (31 sha256rnds2, 21 sha256msg1/msg2 a hash; without the
 * message-schedule ones it ran twice as fast). */
#include "kernel.h"

#include <string.h>

extern const struct kernel kernel_openssl, kernel_portable;
#if defined(__x86_64__) || defined(__i386__)
extern const struct kernel kernel_avx512, kernel_shani, kernel_avx2;
#endif

static const struct kernel *const all[] = {
#if defined(__x86_64__) || defined(__i386__)
	&kernel_avx512,
	&kernel_shani,
	&kernel_avx2,
#endif
	&kernel_portable,
	&kernel_openssl,
};

int kernel_always(void)
{
	return 1;
}

const struct kernel *const *kernel_all(size_t *n)
{
	*n = sizeof all / sizeof all[0];
	return all;
}

const struct kernel *kernel_find(const char *name)
{
	size_t n;
	const struct kernel *const *k = kernel_all(&n);

	for (size_t i = 0; i < n; i++) {
		if (!k[i]->supported())
			continue;
		if (strcmp(name, "auto") == 0 || strcmp(name, k[i]->name) == 0)
			return k[i];
	}
	return NULL;
}
