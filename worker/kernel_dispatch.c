/* Picks a search kernel: by name, or for "auto" by timing every kernel the
 * CPU supports and taking the fastest, once per process.
 *
 * Measured, not ranked by feature, because the order depends on the CPU.
 * M hashes/s on one core: on AMD EPYC Zen 3 (SHA-NI, AVX2) shani 56, avx2
 * 28, portable 11, openssl 14.5; on AMD EPYC Zen 5 (SHA-NI, AVX-512;
 * the calibration, eight runs) hybrid 105-110, avx512 89-91, shani 62-64,
 * avx2 30-31, portable 16-16.5, openssl 18-18.5 (OpenSSL uses SHA-NI on
 * both). A CPU that splits 512-bit operations in two (Zen 4) or clocks down
 * under them may well rank shani first, and built with clang 14 the avx512
 * kernel beats the hybrid here (107 against 91): not fixed, measured.
 *
 * The calibration interleaves rounds, each timing every kernel once for
 * about a millisecond, and keeps each kernel's best round, as
 * bench/kernel-bench.c does: a noisy neighbour slows some samples, never
 * speeds one up. About 30 ms here for the six kernels (up to 55 ms of wall
 * time while other processes shared the two cores). */
#include "kernel.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "lib/clock.h"
#include "sha256_ref.h"

#define CAL_ROUNDS 5                         /* after the sizing round */
#define CAL_SAMPLE_NS 1000000                /* one kernel's turn in a round */
#define CAL_PROBE 4096                       /* values of the sizing search */
#define CAL_START (UINT64_C(0xca1b) << 40)   /* a range without the answer */

extern const struct kernel kernel_openssl, kernel_portable;
#if defined(__x86_64__) || defined(__i386__)
extern const struct kernel kernel_hybrid, kernel_avx512, kernel_shani, kernel_avx2;
#endif

static const struct kernel *const all[] = {
#if defined(__x86_64__) || defined(__i386__)
	&kernel_hybrid,
	&kernel_avx512,
	&kernel_shani,
	&kernel_avx2,
#endif
	&kernel_portable,
	&kernel_openssl,
};

_Static_assert(sizeof all / sizeof all[0] <= KERNEL_MAX, "KERNEL_MAX too small");

static struct kernel_calibration cal;
static pthread_once_t cal_once = PTHREAD_ONCE_INIT;

int kernel_always(void)
{
	return 1;
}

const struct kernel *const *kernel_all(size_t *n)
{
	*n = sizeof all / sizeof all[0];
	return all;
}

/* Hashes per second of k searching n values that do not hold the answer. */
static double timed_search(const struct kernel *k, const uint8_t digest[32],
			   uint64_t n)
{
	uint64_t found, ns = clock_ns();

	k->search(digest, CAL_START, CAL_START + n - 1, &found, NULL);
	ns = clock_ns() - ns;
	return n * 1e9 / (ns ? ns : 1);
}

/* The kernel with the highest rate (the first of equals). */
static const struct kernel *fastest(const struct kernel_calibration *c)
{
	size_t best = 0;

	for (size_t i = 1; i < c->n; i++)
		if (c->rates[i].hashes_per_s > c->rates[best].hashes_per_s)
			best = i;
	return c->rates[best].kernel;
}

/* Time each supported kernel: a short search to size its samples, then
 * CAL_ROUNDS rounds of one CAL_SAMPLE_NS sample each; keep the best. */
static void calibrate(void)
{
	uint64_t t0 = clock_ns();
	uint8_t digest[32];

	sha256_le64(CAL_START - 1, digest);
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (all[i]->supported())
			cal.rates[cal.n++].kernel = all[i];
	for (int round = 0; round <= CAL_ROUNDS; round++) {
		for (size_t i = 0; i < cal.n; i++) {
			struct kernel_rate *r = &cal.rates[i];
			uint64_t n = round ? (uint64_t)(r->hashes_per_s / 1e9 *
							CAL_SAMPLE_NS) + 1
					   : CAL_PROBE;
			double rate = timed_search(r->kernel, digest, n);

			if (rate > r->hashes_per_s)
				r->hashes_per_s = rate;
		}
	}
	cal.best = fastest(&cal);
	cal.ns = clock_ns() - t0;
}

const struct kernel_calibration *kernel_calibrate(void)
{
	pthread_once(&cal_once, calibrate);
	return &cal;
}

void kernel_calibration_line(const struct kernel_calibration *c, char *buf,
			     size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < c->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s %.1f",
					i ? ", " : "", c->rates[i].kernel->name,
					c->rates[i].hashes_per_s / 1e6);
	if (len < size)
		snprintf(buf + len, size - len, " M hashes/s, measured in %llu ms: %s",
			 (unsigned long long)(c->ns / 1000000),
			 c->best ? c->best->name : "none");
}

const struct kernel *kernel_find(const char *name)
{
	if (strcmp(name, "auto") == 0)
		return kernel_calibrate()->best;
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (strcmp(name, all[i]->name) == 0)
			return all[i]->supported() ? all[i] : NULL;
	return NULL;
}
