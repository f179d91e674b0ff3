/* Picks a search kernel: by name, or for "auto" by timing every kernel the
 * CPU supports and taking the fastest, once per process. Measured, not
 * ranked by feature, because the order depends on the CPU and the compiler
 * (docs/performance.md). The calibration is lib/pick.c's interleaved
 * rounds, about 30 ms for six kernels. */
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
#ifdef __aarch64__
extern const struct kernel kernel_armv8, kernel_neon;
#endif

static const struct kernel *const all[] = {
#if defined(__x86_64__) || defined(__i386__)
	&kernel_hybrid,
	&kernel_avx512,
	&kernel_shani,
	&kernel_avx2,
#endif
#ifdef __aarch64__
	&kernel_armv8,
	&kernel_neon,
#endif
	&kernel_portable,
	&kernel_openssl,
};

_Static_assert(sizeof all / sizeof all[0] <= KERNEL_MAX, "KERNEL_MAX too small");
_Static_assert(KERNEL_MAX <= PICK_MAX, "the calibration picks among every kernel");

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

void kernel_names(char *buf, size_t len)
{
	size_t n = sizeof all / sizeof all[0], at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       !i ? "" : i + 1 < n ? ", " : " or ", all[i]->name);
}

double kernel_rate(kernel_search_fn search, uint64_t values)
{
	static uint64_t at = CAL_START;
	uint64_t found, t0;
	uint8_t digest[32];

	sha256_le64(CAL_START - 1, digest);
	t0 = clock_ns();
	if (search(digest, at, at + values - 1, &found, NULL) != SEARCH_NONE)
		return 0;
	at += values;
	return (double)values * 1e9 / (double)(clock_ns() - t0 + 1);
}

static double timed_search(void *ctx, size_t i, uint64_t values)
{
	(void)ctx;
	return kernel_rate(cal.kernels[i]->search, values);
}

/* Time each supported kernel: a short search to size its samples, then
 * CAL_ROUNDS rounds of one CAL_SAMPLE_NS sample each; keep the best. */
static void calibrate(void)
{
	cal.pick = (struct pick){ .probe = CAL_PROBE, .sample_ns = CAL_SAMPLE_NS,
				  .rounds = CAL_ROUNDS };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (all[i]->supported()) {
			cal.kernels[cal.pick.n] = all[i];
			cal.pick.names[cal.pick.n++] = all[i]->name;
		}
	pick_measure(&cal.pick, timed_search, NULL);
	cal.best = cal.kernels[cal.pick.chosen];
}

const struct kernel_calibration *kernel_calibrate(void)
{
	pthread_once(&cal_once, calibrate);
	return &cal;
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
