/* gpu-check: the GPU search on a real device against the reference, and
 * its speed, for every kernel variant the build holds (or those named;
 * usage() lists the options, docs/gpu.md tells the runs). It runs the
 * cases of worker/search_cases.c that check_gpu_logic runs on the host
 * build, scaled up, then what only a device has the time for: stops
 * during searches of 2^40 values, and a range long enough to hold false
 * candidates before its answer. --bench measures instead (below);
 * --list needs no device. Exits 1 on any difference, 2 when it cannot
 * run. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/stats.h"
#include "lib/clock.h"
#include "lib/digest.h"
#include "lib/parse.h"
#include "proto/proto.h"
#include "worker/search_cases.h"
#include "worker/gpu/device.h"
#include "worker/gpu/gpu.h"
#include "worker/gpu/gpu_walk.h"
#include "worker/kernel.h"

#define MAX_EDGES 128
#define LARGE_EVERY 100
#define MAX_VARIANTS 64
#define MAX_REPORTS 10 /* differences printed; the rest only counted */

/* How big gpu-check's cases and measurements are: "full" for a device,
 * "quick" for a short run (under compute-sanitizer, or the stand-in of
 * gpu-check-standin, which hashes on one core). */
struct check_scale {
	const char *name;
	uint64_t edge_span;   /* the edges' ranges */
	uint64_t small_len;   /* most random ranges: up to this long, */
	uint64_t large_len;   /* one in a hundred up to this */
	long stop_ns;         /* a stop this long into a search */
	int stop_bits_max;    /* the stopped ranges: 2^16 .. 2^this values */
	uint64_t false_span;  /* the range passing false candidates; 0: none */
	uint64_t bench_call;  /* values per timed search of a rate */
	size_t small_runs;    /* small searches timed, of each kind */
	size_t stop_runs;     /* stops timed */
	uint64_t answer_span; /* answers timed: a request's range, */
	size_t answer_runs;   /* so many of each kind */
};

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

/* The run, set by main before any check or measurement: check_search
 * reaches it here, as the cases call a search with no context. */
static struct {
	struct gpu *dev;                 /* the device under test */
	const struct check_scale *scale; /* the scale of its run */
	int failures;                    /* differences met so far */
} run;

/* The scale called name, or NULL. */
static const struct check_scale *scale_named(const char *name)
{
	for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++)
		if (strcmp(scales[i].name, name) == 0)
			return &scales[i];
	return NULL;
}

/* Count a difference in part: the first few are printed with the variant
 * and the device's last error; the rest only counted. */
static void fail(const char *part, const char *why)
{
	if (run.failures++ >= MAX_REPORTS)
		return;
	printf("FAIL %s (%s): %s\n", part, gpu_variant_name(gpu_variant(run.dev)), why);
	if (*gpu_error(run.dev))
		printf("  device: %s\n", gpu_error(run.dev));
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
			fail("edge", why);
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
			fail("random", why);
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
		fail("stop", why);
	for (int bits = 16; bits <= run.scale->stop_bits_max; bits += 3) {
		uint64_t at = (UINT64_C(0x5eed) << 32) - 7 * (uint64_t)bits;

		if (cases_stop_during(check_search, at, at + (UINT64_C(1) << bits) - 1,
				      run.scale->stop_ns, why, sizeof why))
			fail("stop", why);
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
		fail("false candidates", why);
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

/* --- --bench: what a device measures ----------------------------------
 *
 * Printed for gpu-proof.sh and docs/gpu.md: every variant's rate side by
 * side, then with the fastest the wall time of small searches, spinning
 * and then sleeping in the wait, the time of answers, and the stop
 * latency (the store to the stop word to the search's return: when a
 * worker lets its lease go). */
#define BENCH_START (UINT64_C(0x5eed) << 40) /* ranges without the answer */
#define STOP_SPAN (UINT64_C(1) << 40)

/* The next range's first value, and the digest none of them holds. */
static uint64_t from = BENCH_START;
static uint8_t absent[32];

/* p50, p99, max of n samples (sorted here), in us; till the next call. */
static const char *percentiles(int64_t *ns, size_t n)
{
	static char out[96];

	stats_sort(ns, n);
	snprintf(out, sizeof out, "p50 %.1f us, p99 %.1f us, max %.1f us",
		 stats_percentile_ms(ns, n, 0.5) * 1e3, stats_percentile_ms(ns, n, 0.99) * 1e3,
		 stats_percentile_ms(ns, n, 1) * 1e3);
	return out;
}

/* The variant in use, searching for seconds: its rate, printed. */
static double rate(double seconds)
{
	uint64_t found, values = 0, t0, launches;
	struct gpu_stats before, after;
	double wall, busy;

	gpu_search(run.dev, absent, from, from + run.scale->bench_call / 8 - 1, &found, NULL); /* warm */
	from += run.scale->bench_call / 8;
	gpu_stats(run.dev, &before);
	t0 = clock_ns();
	while ((double)(clock_ns() - t0) / 1e9 < seconds) {
		if (gpu_search(run.dev, absent, from, from + run.scale->bench_call - 1, &found, NULL)) {
			fail("bench", "a range without the answer: not SEARCH_NONE");
			return 0;
		}
		values += run.scale->bench_call;
		from += run.scale->bench_call;
	}
	wall = (double)(clock_ns() - t0);
	gpu_stats(run.dev, &after);
	busy = (double)(after.busy_ns - before.busy_ns);
	launches = after.launches - before.launches;
	printf("rate %-16s %6.2f G hashes/s over %.1f s; %llu launches of %.2f ms, "
	       "%u threads; device busy %.1f%%\n", gpu_variant_name(gpu_variant(run.dev)),
	       values / wall, wall / 1e9, (unsigned long long)launches,
	       launches ? busy / 1e6 / (double)launches : 0, after.threads, 100 * busy / wall);
	return values / wall;
}

/* The scale's small_runs searches of values each, as the host sees them. */
static void small(uint64_t values, const char *how)
{
	size_t runs = run.scale->small_runs;
	int64_t ns[runs];
	uint64_t found;

	for (size_t i = 0; i < runs; i++) {
		uint64_t t0 = clock_ns();

		gpu_search(run.dev, absent, from, from + values - 1, &found, NULL);
		ns[i] = (int64_t)(clock_ns() - t0);
		from += values;
	}
	printf("small %llu values, %s: %s over %zu searches\n",
	       (unsigned long long)values, how, percentiles(ns, runs), runs);
}

struct stopper {
	uint32_t word;
	long delay_ns;
	uint64_t set_ns; /* when the word was set */
};

static void *stop_later(void *arg)
{
	struct stopper *s = arg;
	struct timespec t = { 0, s->delay_ns };

	nanosleep(&t, NULL);
	s->set_ns = clock_ns();
	__atomic_store_n(&s->word, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* From the stop word's store to the search's return, the scale's
 * stop_runs times at random moments 2 to 12 ms into a search that would
 * take minutes. */
static void stop_latency(const char *how)
{
	size_t runs = run.scale->stop_runs;
	int64_t ns[runs];
	struct stopper *s = calloc(1, sizeof *s); /* one page, registered once */
	struct gpu_stats st;
	size_t n = 0;

	if (!s) {
		fail("stop latency", "out of memory");
		return;
	}
	for (size_t i = 0; i < runs; i++) {
		uint64_t found, done;
		pthread_t t;
		int r;

		s->word = 0;
		s->delay_ns = 2000000 + rand() % 10000000;
		if (pthread_create(&t, NULL, stop_later, s))
			break;
		r = gpu_search(run.dev, absent, from, from + STOP_SPAN - 1, &found, &s->word);
		done = clock_ns();
		pthread_join(t, NULL);
		if (r != SEARCH_STOPPED || found < from || found > from + STOP_SPAN - 1) {
			fail("stop latency", "a stopped search did not stop in its range");
			continue;
		}
		ns[n++] = (int64_t)(done - s->set_ns);
		from += STOP_SPAN;
	}
	gpu_stats(run.dev, &st);
	if (n)
		printf("stop latency %s, %s (stop word to return): %s over %zu stops; the "
		       "device %s the stop word\n", gpu_variant_name(gpu_variant(run.dev)), how,
		       percentiles(ns, n), n, st.watching ? "polls" : "does not poll");
	free(s);
}

/* The scale's answer_runs searches of its answer_span values, each with
 * its answer at a random place, gap_ms idle before each: the mean wall
 * time, device time and time of the answer's place at rate (hashes/ns).
 * Idling costs the device's clocks where its own time grows, the host's
 * wake-ups where only the wall time does. */
static void answers(double rate, unsigned gap_ms, const char *how)
{
	uint64_t span = run.scale->answer_span, wall = 0, dev = 0, place = 0;
	size_t runs = run.scale->answer_runs, n = 0;
	struct timespec gap = { gap_ms / 1000, (long)(gap_ms % 1000) * 1000000L };

	for (size_t i = 0; i < runs; i++) {
		uint64_t off = ((uint64_t)rand() << 16 ^ (uint64_t)rand()) % span, found, t0, t;
		struct gpu_stats before, after;
		uint8_t d[32];
		int r;

		digest_of(from + off, d);
		if (gap_ms)
			nanosleep(&gap, NULL);
		gpu_stats(run.dev, &before);
		t0 = clock_ns();
		r = gpu_search(run.dev, d, from, from + span - 1, &found, NULL);
		t = clock_ns() - t0;
		gpu_stats(run.dev, &after);
		if (r != SEARCH_FOUND || found != from + off) {
			fail("answers", "a timed search missed its answer");
		} else {
			wall += t;
			dev += after.busy_ns - before.busy_ns;
			place += off;
			n++;
		}
		from += span;
	}
	if (n)
		printf("answers in %llu values, %s, %u ms idle before each: wall %.1f us, "
		       "device %.1f us, the answer's place at the rate %.1f us (means over %zu)\n",
		       (unsigned long long)span, how, gap_ms, wall / 1e3 / (double)n,
		       dev / 1e3 / (double)n, rate > 0 ? place / rate / 1e3 / (double)n : 0, n);
}

/* Run n full launches of the variant in use, no more, searching a range
 * without the answer: for a profiler to time one of them. */
static void bench_launches(uint64_t n)
{
	struct gpu_stats before, now;
	uint64_t found;

	gpu_stats(run.dev, &before);
	now = before;
	while (now.launches - before.launches < n) {
		if (gpu_search(run.dev, absent, from, from + now.chunk - 1, &found, NULL)) {
			fail("launches", "a range without the answer: not SEARCH_NONE");
			return;
		}
		from += now.chunk;
		gpu_stats(run.dev, &now);
	}
	printf("launches %s: %llu, the last of %llu values\n",
	       gpu_variant_name(gpu_variant(run.dev)),
	       (unsigned long long)(now.launches - before.launches),
	       (unsigned long long)now.chunk);
}

/* Measure the device for about seconds per variant (the n of order, in
 * that order): the rates side by side, then with the fastest the cost of
 * small searches, spinning and sleeping, and the stop latency. */
static void bench_all(double seconds, const int *order, int n)
{
	const struct kernel_calibration *cpu = kernel_calibrate();
	double best = -1, best_rate = 0;
	int fastest = order[0];

	/* The fastest as the worker chooses (device_pick): a variant whose
	 * stops are slower must beat the rest by its handicap. */
	for (int i = 0; i < n; i++) {
		int v = order[i];
		double r, s;

		gpu_use(run.dev, v);
		r = rate(seconds);
		s = pick_weighed(r, device_stop_handicap(gpu_variant_halt_every(v)));
		if (s > best) {
			best = s;
			best_rate = r;
			fastest = v;
		}
	}
	gpu_use(run.dev, fastest);
	printf("fastest: %s, %.2f G hashes/s\n", gpu_variant_name(fastest), best_rate); /* per ns */
	small(100000, "spinning");
	small(1, "spinning");
	gpu_spin_ns(run.dev, 0);
	small(100000, "sleeping");
	small(1, "sleeping");
	answers(best_rate, 0, "sleeping");
	answers(best_rate, 100, "sleeping");
	gpu_spin_ns(run.dev, GPU_SPIN_NS);
	answers(best_rate, 0, "the worker's wait");
	answers(best_rate, 100, "the worker's wait");
	/* Where the time of a stop goes: the worker's wait (a spin), then
	 * sleeping on the launch's event (the host's wake-up added), then
	 * the plain poller's. */
	stop_latency("the worker's wait");
	gpu_spin_ns(run.dev, 0);
	stop_latency("sleeping");
	gpu_spin_ns(run.dev, GPU_SPIN_NS);
	gpu_use(run.dev, 0);
	stop_latency("the worker's wait");
	gpu_use(run.dev, fastest);
	printf("cpu %s: %.1f M hashes/s on one core\n", cpu->best->name,
	       cpu->pick.rates[cpu->pick.chosen] / 1e6);
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
	digest_of(BENCH_START - 1, absent);
	if (o.bench > 0) {
		bench_all(o.bench, order, n);
	} else {
		for (int i = 0; i < n; i++) {
			gpu_use(run.dev, order[i]);
			if (o.launches)
				bench_launches(o.launches);
			else
				check_variant(&o);
		}
	}
	gpu_close(run.dev);
	printf("%s: %d difference%s\n", run.failures ? "FAILED" : "ok", run.failures,
	       run.failures == 1 ? "" : "s");
	return run.failures ? 1 : 0;
}
