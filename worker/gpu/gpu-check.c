/* gpu-check: the GPU search on a real device against the reference, and
 * its speed. It runs the cases of tests/search_cases.c that check_gpu_logic
 * runs on the host build, scaled up (edges of 2^28 values, thousands of
 * seeded random ranges), then what only a device has the time for: stops
 * during searches of 2^40 values, and a range long enough to hold false
 * candidates (about one in 2^32 values) before its answer. Exits 1 on any
 * difference, 2 when it cannot run.
 *
 *   gpu-check [--seed N] [--cases N] [--device N] [--bench SECONDS]
 *
 * --bench skips the checks and times searches without an answer, beside the
 * rate of this CPU's fastest kernel on one core. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/digest.h"
#include "proto/proto.h"
#include "lib/clock.h"
#include "tests/search_cases.h"
#include "worker/gpu/gpu.h"
#include "worker/kernel.h"

#define EDGE_SPAN (UINT64_C(1) << 28)
#define MAX_EDGES 128
#define SMALL_LEN (UINT64_C(1) << 22)  /* most random ranges: up to 4M */
#define LARGE_LEN (UINT64_C(1) << 28)  /* one in LARGE_EVERY */
#define LARGE_EVERY 100
#define STOP_NS 20000000L              /* 20 ms: about 2^28 values */
#define FALSE_SPAN (UINT64_C(1) << 35) /* about 8 false candidates */
#define BENCH_START (UINT64_C(0x5eed) << 40)
#define BENCH_CALL (UINT64_C(1) << 33) /* values per timed search */
#define MAX_REPORTS 10

struct options {
	uint64_t seed;
	unsigned cases;
	int device;
	double bench; /* seconds; 0: check instead */
};

static struct gpu *dev;
static int failures;

static int dev_search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
		      uint64_t *found, const uint32_t *stop)
{
	return gpu_search(dev, digest, lo, hi, found, stop);
}

/* Count a difference; print the first MAX_REPORTS. */
static void fail(const char *part, const char *why)
{
	if (failures++ >= MAX_REPORTS)
		return;
	printf("FAIL %s: %s\n", part, why);
	if (*gpu_error(dev))
		printf("  device: %s\n", gpu_error(dev));
}

static void check_edges(void)
{
	struct search_case cs[MAX_EDGES];
	size_t n = cases_edges(EDGE_SPAN, cs, MAX_EDGES);
	uint64_t t0 = clock_ns();
	char why[256];

	for (size_t i = 0; i < n; i++)
		if (cases_check(dev_search, &cs[i], why, sizeof why))
			fail("edge", why);
	printf("edges: %zu cases in %.2f s\n", n, (clock_ns() - t0) / 1e9);
}

static void check_random(uint64_t seed, unsigned count)
{
	uint64_t state = seed, values = 0, t0 = clock_ns();
	struct search_case c;
	char why[256];

	for (unsigned i = 0; i < count; i++) {
		cases_random(&state, i % LARGE_EVERY ? SMALL_LEN : LARGE_LEN, &c);
		values += c.hi - c.lo + 1;
		if (cases_check(dev_search, &c, why, sizeof why))
			fail("random", why);
	}
	printf("random: %u cases, %.3g values, seed %llu, in %.2f s\n", count,
	       (double)values, (unsigned long long)seed, (clock_ns() - t0) / 1e9);
}

/* A stop ends a search of 2^40 values, and never skips an answer: nearer
 * ones are found before it, farther ones after resuming. */
static void check_stops(void)
{
	uint64_t lo = 0xfeedface00000000 - 12345, t0 = clock_ns();
	char why[256];

	if (cases_stop_during(dev_search, lo, lo - 1, STOP_NS, why, sizeof why))
		fail("stop", why);
	for (int bits = 16; bits <= 34; bits += 3) {
		uint64_t at = (UINT64_C(0x5eed) << 32) - 7 * (uint64_t)bits;

		if (cases_stop_during(dev_search, at, at + (UINT64_C(1) << bits) - 1,
				      STOP_NS, why, sizeof why))
			fail("stop", why);
	}
	printf("stops: in %.2f s\n", (clock_ns() - t0) / 1e9);
}

/* The answer at the end of FALSE_SPAN values: the search passes the false
 * candidates on the way (counted, as the device met them). */
static void check_false_candidates(void)
{
	uint64_t lo = UINT64_C(0xfa15e) << 36, hi = lo + FALSE_SPAN - 1, found = 0;
	struct gpu_stats before, after;
	uint8_t digest[32];
	char why[256];
	int r;

	digest_of(hi, digest);
	gpu_stats(dev, &before);
	r = gpu_search(dev, digest, lo, hi, &found, NULL);
	gpu_stats(dev, &after);
	if (r != SEARCH_FOUND || found != hi) {
		snprintf(why, sizeof why, "answer at the end of 2^35 values: "
			 "got %d, %#llx", r, (unsigned long long)found);
		fail("false candidates", why);
	}
	printf("false candidates: %llu passed before the answer at the end of "
	       "2^35 values%s\n", (unsigned long long)(after.rejected - before.rejected),
	       after.rejected > before.rejected ? "" : " (none met: no test of them)");
}

/* The rate the calibration measured for the kernel it picked. */
static double best_rate(const struct kernel_calibration *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->rates[i].kernel == c->best)
			return c->rates[i].hashes_per_s;
	return 0;
}

/* Searches of BENCH_CALL values without the answer for seconds; the CPU's
 * fastest kernel on one core beside it, for scale. */
static void bench(double seconds)
{
	uint64_t found, values = 0, at = BENCH_START, t0, launches;
	const struct kernel_calibration *cpu = kernel_calibrate();
	struct gpu_stats before, after;
	uint8_t digest[32];
	double wall, busy;

	digest_of(BENCH_START - 1, digest);
	gpu_search(dev, digest, at, at + BENCH_CALL / 8 - 1, &found, NULL); /* warm */
	gpu_stats(dev, &before);
	t0 = clock_ns();
	while ((clock_ns() - t0) / 1e9 < seconds) {
		if (gpu_search(dev, digest, at, at + BENCH_CALL - 1, &found, NULL)) {
			fail("bench", "a range without the answer: not SEARCH_NONE");
			break;
		}
		values += BENCH_CALL;
		at += BENCH_CALL;
	}
	wall = (double)(clock_ns() - t0);
	gpu_stats(dev, &after);
	launches = after.launches - before.launches;
	busy = (double)(after.busy_ns - before.busy_ns);
	printf("gpu %s: %.2f G hashes/s over %.1f s; %llu launches of %.2f ms "
	       "(next %llu values), %u threads; device busy %.2f%% of the time\n",
	       gpu_name(dev), values / wall, wall / 1e9, (unsigned long long)launches,
	       launches ? busy / 1e6 / launches : 0, (unsigned long long)after.chunk,
	       after.threads, 100 * busy / wall);
	printf("cpu %s: %.1f M hashes/s on one core\n", cpu->best->name,
	       best_rate(cpu) / 1e6);
}

static void usage(void)
{
	fprintf(stderr, "usage: gpu-check [--seed N] [--cases N] [--device N] "
		"[--bench SECONDS]\n");
	exit(2);
}

static void parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32,
			       .cases = 10000 };
	for (int i = 1; i < argc; i += 2) { /* every option takes a value */
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		if (strcmp(argv[i], "--seed") == 0)
			o->seed = strtoull(v, NULL, 0);
		else if (strcmp(argv[i], "--cases") == 0)
			o->cases = (unsigned)strtoul(v, NULL, 0);
		else if (strcmp(argv[i], "--device") == 0)
			o->device = atoi(v);
		else if (strcmp(argv[i], "--bench") == 0 && atof(v) > 0)
			o->bench = atof(v);
		else
			usage();
	}
	if (!o->seed)
		o->seed = 1; /* xorshift's one fixed point */
}

int main(int argc, char **argv)
{
	struct options o;
	char err[200];
	int r;

	parse(argc, argv, &o);
	if (o.device >= gpu_count()) {
		fprintf(stderr, "gpu-check: no CUDA device %d (%d visible)\n",
			o.device, gpu_count());
		return 2;
	}
	r = gpu_open(o.device, &dev, err, sizeof err);
	if (r) {
		fprintf(stderr, "gpu-check: device %d: %s\n", o.device, err);
		return 2;
	}
	printf("gpu-check: device %d, %s\n", o.device, gpu_name(dev));
	if (o.bench > 0) {
		bench(o.bench);
	} else {
		check_edges();
		check_random(o.seed, o.cases);
		check_stops();
		check_false_candidates();
	}
	gpu_close(dev);
	printf("%s: %d difference%s\n", failures ? "FAILED" : "ok", failures,
	       failures == 1 ? "" : "s");
	return failures ? 1 : 0;
}
