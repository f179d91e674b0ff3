/* gpu-check: the GPU search on a real device against the reference, and
 * its speed, for every kernel variant the build holds (or those named;
 * usage() lists the options, docs/gpu.md tells the runs). It runs the
 * cases of worker/search_cases.c that check_gpu_logic runs on the host
 * build, scaled up, then what only a device has the time for: stops
 * during searches of 2^40 values, and a range long enough to hold false
 * candidates before its answer. --bench measures instead (gpu_bench.c);
 * --list needs no device. Exits 1 on any difference, 2 when it cannot
 * run. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/gpu/gpu_check.h"
#include "lib/clock.h"
#include "lib/digest.h"
#include "lib/parse.h"
#include "proto/proto.h"
#include "worker/search_cases.h"
#include "worker/gpu/gpu.h"
#include "worker/kernel.h"

#define MAX_EDGES 128
#define LARGE_EVERY 100
#define MAX_VARIANTS 64
#define MAX_REPORTS 10 /* differences printed; the rest only counted */

static const struct check_scale scales[] = {
	/* A device: edges of 2^28, random ranges up to 4M (one in a hundred
	 * up to 2^28), stops 20 ms in (about 2^28 values), about 8 false
	 * candidates in 2^35 values; rates over searches of 2^33; answers
	 * in ranges of 30M, the course's requests. */
	{ "full", UINT64_C(1) << 28, UINT64_C(1) << 22, UINT64_C(1) << 28, 20000000L, 34,
	  UINT64_C(1) << 35, UINT64_C(1) << 33, 2000, 100, 30000000, 30 },
	/* A short run: every case kind, small. */
	{ "quick", UINT64_C(1) << 14, UINT64_C(1) << 10, UINT64_C(1) << 14, 2000000L, 19,
	  0, UINT64_C(1) << 20, 100, 10, 100000, 3 },
};

struct options {
	uint64_t seed, cases;
	uint64_t device;
	const char *variant; /* names, by commas; NULL: all */
	double bench;        /* seconds; 0: check instead */
	uint64_t launches;   /* full launches to run instead; 0: none */
	int list;
};

/* The run: main's, set before any check; check_search reaches it here,
 * as the cases call a search with no context. */
static struct check_run run;

/* The scale called name, or NULL. */
static const struct check_scale *scale_named(const char *name)
{
	for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++)
		if (strcmp(scales[i].name, name) == 0)
			return &scales[i];
	return NULL;
}

/* The first few differences are printed with the variant and the
 * device's last error; the rest only counted. */
void check_fail(struct check_run *run, const char *part, const char *why)
{
	if (run->failures++ >= MAX_REPORTS)
		return;
	printf("FAIL %s (%s): %s\n", part, gpu_variant_name(gpu_variant(run->dev)), why);
	if (*gpu_error(run->dev))
		printf("  device: %s\n", gpu_error(run->dev));
}

static int check_search(const uint8_t digest[32], uint64_t lo, uint64_t hi,
			uint64_t *found, const uint32_t *stop)
{
	return gpu_search(run.dev, digest, lo, hi, found, stop);
}

static void check_edges(void)
{
	struct search_case cs[MAX_EDGES];
	size_t n = cases_edges(run.scale->edge_span, cs, MAX_EDGES);
	uint64_t t0 = clock_ns();
	char why[256];

	for (size_t i = 0; i < n; i++)
		if (cases_check(check_search, &cs[i], why, sizeof why))
			check_fail(&run, "edge", why);
	printf("  edges: %zu cases in %.2f s\n", n, (double)(clock_ns() - t0) / 1e9);
}

static void check_random(uint64_t seed, uint64_t count)
{
	uint64_t state = seed, values = 0, t0 = clock_ns();
	struct search_case c;
	char why[256];

	for (uint64_t i = 0; i < count; i++) {
		cases_random(&state, i % LARGE_EVERY ? run.scale->small_len : run.scale->large_len, &c);
		values += c.hi - c.lo + 1;
		if (cases_check(check_search, &c, why, sizeof why))
			check_fail(&run, "random", why);
	}
	printf("  random: %llu cases, %.3g values, seed %llu, in %.2f s\n",
	       (unsigned long long)count, (double)values, (unsigned long long)seed,
	       (double)(clock_ns() - t0) / 1e9);
}

/* A stop ends a search of 2^40 values, and never skips an answer: nearer
 * ones are found before it, farther ones after resuming. */
static void check_stops(void)
{
	uint64_t lo = 0xfeedface00000000 - 12345, t0 = clock_ns();
	char why[256];

	if (cases_stop_during(check_search, lo, lo - 1, run.scale->stop_ns, why, sizeof why))
		check_fail(&run, "stop", why);
	for (int bits = 16; bits <= run.scale->stop_bits_max; bits += 3) {
		uint64_t at = (UINT64_C(0x5eed) << 32) - 7 * (uint64_t)bits;

		if (cases_stop_during(check_search, at, at + (UINT64_C(1) << bits) - 1,
				      run.scale->stop_ns, why, sizeof why))
			check_fail(&run, "stop", why);
	}
	printf("  stops: in %.2f s\n", (double)(clock_ns() - t0) / 1e9);
}

/* The answer at the end of the scale's false_span values: the search
 * passes the false candidates on the way (counted, as the device met
 * them). */
static void check_false_candidates(void)
{
	uint64_t lo = UINT64_C(0xfa15e) << 36, hi = lo + run.scale->false_span - 1, found = 0;
	struct gpu_stats before, after;
	uint8_t digest[32];
	char why[256];
	int r;

	if (!run.scale->false_span) {
		printf("  false candidates: not at the %s scale\n", run.scale->name);
		return;
	}
	digest_of(hi, digest);
	gpu_stats(run.dev, &before);
	r = gpu_search(run.dev, digest, lo, hi, &found, NULL);
	gpu_stats(run.dev, &after);
	if (r != SEARCH_FOUND || found != hi) {
		snprintf(why, sizeof why, "answer at the end of %.3g values: "
			 "got %d, %#llx", (double)run.scale->false_span, r,
			 (unsigned long long)found);
		check_fail(&run, "false candidates", why);
	}
	printf("  false candidates: %llu passed before the answer at the end of "
	       "%.3g values%s\n", (unsigned long long)(after.rejected - before.rejected),
	       (double)run.scale->false_span,
	       after.rejected > before.rejected ? "" : " (none met: no test of them)");
}

static void check_variant(const struct options *o)
{
	struct gpu_stats st;

	printf("variant %s:\n", gpu_variant_name(gpu_variant(run.dev)));
	check_edges();
	check_random(o->seed, o->cases);
	check_stops();
	gpu_stats(run.dev, &st); /* of the last stopped search */
	printf("  the device %s the stop word%s%s\n",
	       st.watching ? "polls" : "does not poll",
	       *gpu_watch_error(run.dev) ? ": " : "", gpu_watch_error(run.dev));
	check_false_candidates();
}

static void usage(void)
{
	fprintf(stderr, "usage: gpu-check [--seed N] [--cases N] [--device N] "
		"[--variant NAME,...|all] [--bench SECONDS | --launches N] "
		"[--scale full|quick]\n       gpu-check --list\n");
	exit(2);
}

static void parse(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "seed", required_argument, NULL, 's' }, { "cases", required_argument, NULL, 'c' },
		{ "device", required_argument, NULL, 'd' }, { "bench", required_argument, NULL, 'b' },
		{ "launches", required_argument, NULL, 'l' }, { "scale", required_argument, NULL, 'S' },
		{ "variant", required_argument, NULL, 'v' }, { "list", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct options){ .seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32,
			       .cases = 10000 };
	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		if (c == 'L')
			o->list = 1;
		else if (c == 'v')
			o->variant = strcmp(optarg, "all") == 0 ? NULL : optarg;
		else if (c == 'S' ? !(run.scale = scale_named(optarg)) :
			 c == 's' ? parse_u64(optarg, 0, UINT64_MAX, &o->seed) :
			 c == 'c' ? parse_u64(optarg, 0, 100000000, &o->cases) :
			 c == 'd' ? parse_u64(optarg, 0, 255, &o->device) :
			 c == 'b' ? parse_double(optarg, 0.01, 3600, &o->bench) :
			 c == 'l' ? parse_u64(optarg, 1, 1000, &o->launches) : 1)
			usage();
	}
	if (optind < argc || (o->bench > 0 && o->launches))
		usage();
	if (!o->seed)
		o->seed = 1; /* xorshift's one fixed point */
}

/* The variant named by len bytes of name, or -1 (said). */
static int find_variant(const char *name, size_t len)
{
	for (int v = 0; v < gpu_variants(); v++)
		if (strlen(gpu_variant_name(v)) == len && strncmp(gpu_variant_name(v), name, len) == 0)
			return v;
	fprintf(stderr, "gpu-check: no variant %.*s (", (int)len, name);
	for (int v = 0; v < gpu_variants(); v++)
		fprintf(stderr, "%s%s", v ? ", " : "", gpu_variant_name(v));
	fprintf(stderr, ", all)\n");
	return -1;
}

/* The variants names lists by commas (every one for NULL), in its order,
 * into order: how many, or -1 (said). */
static int find_variants(const char *names, int order[MAX_VARIANTS])
{
	int n = 0;

	for (int v = 0; !names && v < gpu_variants() && v < MAX_VARIANTS; v++)
		order[n++] = v;
	for (const char *at = names; at; n++) {
		const char *comma = strchr(at, ',');
		size_t len = comma ? (size_t)(comma - at) : strlen(at);

		if (n == MAX_VARIANTS || (order[n] = find_variant(at, len)) < 0)
			return -1;
		at = comma ? comma + 1 : NULL;
	}
	return n;
}

static void list(void)
{
	for (int v = 0; v < gpu_variants(); v++)
		printf("%s %s\n", gpu_variant_name(v), v < gpu_variants_shipped() ? "shipped" :
		       v < gpu_variants_auto() ? "timed" : "trial");
}

int main(int argc, char **argv)
{
	struct options o;
	char err[200];
	int order[MAX_VARIANTS], n, r;

	run.scale = scale_named("full");
	parse(argc, argv, &o);
	if (o.list) {
		list();
		return 0;
	}
	if ((n = find_variants(o.variant, order)) < 0)
		return 2;
	if ((int)o.device >= (r = gpu_count())) {
		fprintf(stderr, "gpu-check: no CUDA device %d (%d visible)%s%s\n",
			(int)o.device, r, *gpu_count_error() ? ": " : "", gpu_count_error());
		return 2;
	}
	if ((r = gpu_open((int)o.device, &run.dev, err, sizeof err))) {
		fprintf(stderr, "gpu-check: device %d: %s\n", (int)o.device, err);
		return 2;
	}
	printf("gpu-check: device %d, %s; %d kernel variants; %s scale\n", (int)o.device,
	       gpu_name(run.dev), gpu_variants(), run.scale->name);
	if (o.bench > 0) {
		bench_all(&run, o.bench, order, n);
	} else {
		for (int i = 0; i < n; i++) {
			gpu_use(run.dev, order[i]);
			if (o.launches)
				bench_launches(&run, o.launches);
			else
				check_variant(&o);
		}
	}
	gpu_close(run.dev);
	printf("%s: %d difference%s\n", run.failures ? "FAILED" : "ok", run.failures,
	       run.failures == 1 ? "" : "s");
	return run.failures ? 1 : 0;
}
