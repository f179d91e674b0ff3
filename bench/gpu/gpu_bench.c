/* gpu-check --bench: what a device measures, printed for gpu-proof.sh and
 * docs/gpu.md: every variant's rate side by side, then with the fastest
 * the wall time of small searches, spinning and then sleeping in the
 * wait, the time of answers, and the stop latency (the store to the stop
 * word to the search's return: when a worker lets its lease go). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench/gpu/gpu_check.h"
#include "lib/clock.h"
#include "lib/digest.h"
#include "proto/proto.h"
#include "worker/gpu/device.h"
#include "worker/gpu/gpu_walk.h"
#include "worker/kernel.h"

#define BENCH_START (UINT64_C(0x5eed) << 40) /* ranges without the answer */
#define SMALL_RUNS 2000 /* at most: the scale's small_runs */
#define STOP_RUNS 100   /* at most: the scale's stop_runs */
#define STOP_SPAN (UINT64_C(1) << 40)

static uint64_t at = BENCH_START;
static uint8_t digest[32];

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* p50, p99, max of n samples (sorted here), in us. */
static void percentiles(uint64_t *ns, size_t n, char *out, size_t len)
{
	qsort(ns, n, sizeof *ns, cmp_u64);
	snprintf(out, len, "p50 %.1f us, p99 %.1f us, max %.1f us", ns[n / 2] / 1e3,
		 ns[n * 99 / 100] / 1e3, ns[n - 1] / 1e3);
}

/* The variant in use, searching for seconds: its rate, printed. */
static double rate(struct check_run *run, double seconds)
{
	uint64_t found, values = 0, t0, launches;
	struct gpu_stats before, after;
	double wall, busy;

	gpu_search(run->dev, digest, at, at + run->scale->bench_call / 8 - 1, &found, NULL); /* warm */
	at += run->scale->bench_call / 8;
	gpu_stats(run->dev, &before);
	t0 = clock_ns();
	while ((double)(clock_ns() - t0) / 1e9 < seconds) {
		if (gpu_search(run->dev, digest, at, at + run->scale->bench_call - 1, &found, NULL)) {
			check_fail(run, "bench", "a range without the answer: not SEARCH_NONE");
			return 0;
		}
		values += run->scale->bench_call;
		at += run->scale->bench_call;
	}
	wall = (double)(clock_ns() - t0);
	gpu_stats(run->dev, &after);
	busy = (double)(after.busy_ns - before.busy_ns);
	launches = after.launches - before.launches;
	printf("rate %-16s %6.2f G hashes/s over %.1f s; %llu launches of %.2f ms, "
	       "%u threads; device busy %.1f%%\n", gpu_variant_name(gpu_variant(run->dev)),
	       values / wall, wall / 1e9, (unsigned long long)launches,
	       launches ? busy / 1e6 / (double)launches : 0, after.threads, 100 * busy / wall);
	return values / wall;
}

/* The scale's small_runs searches of values each, as the host sees them. */
static void small(struct check_run *run, uint64_t values, const char *how)
{
	static uint64_t ns[SMALL_RUNS];
	size_t runs = run->scale->small_runs < SMALL_RUNS ? run->scale->small_runs : SMALL_RUNS;
	uint64_t found;
	char line[128];

	for (size_t i = 0; i < runs; i++) {
		uint64_t t0 = clock_ns();

		gpu_search(run->dev, digest, at, at + values - 1, &found, NULL);
		ns[i] = clock_ns() - t0;
		at += values;
	}
	percentiles(ns, runs, line, sizeof line);
	printf("small %llu values, %s: %s over %zu searches\n",
	       (unsigned long long)values, how, line, runs);
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
static void stop_latency(struct check_run *run, const char *how)
{
	static uint64_t ns[STOP_RUNS];
	size_t runs = run->scale->stop_runs < STOP_RUNS ? run->scale->stop_runs : STOP_RUNS;
	struct stopper *s = calloc(1, sizeof *s); /* one page, registered once */
	struct gpu_stats st;
	char line[128];
	size_t n = 0;

	for (size_t i = 0; i < runs; i++) {
		uint64_t found, done;
		pthread_t t;
		int r;

		s->word = 0;
		s->delay_ns = 2000000 + rand() % 10000000;
		if (pthread_create(&t, NULL, stop_later, s))
			break;
		r = gpu_search(run->dev, digest, at, at + STOP_SPAN - 1, &found, &s->word);
		done = clock_ns();
		pthread_join(t, NULL);
		if (r != SEARCH_STOPPED || found < at || found > at + STOP_SPAN - 1) {
			check_fail(run, "stop latency", "a stopped search did not stop in its range");
			continue;
		}
		ns[n++] = done - s->set_ns;
		at += STOP_SPAN;
	}
	gpu_stats(run->dev, &st);
	if (n) {
		percentiles(ns, n, line, sizeof line);
		printf("stop latency %s, %s (stop word to return): %s over %zu stops; the "
		       "device %s the stop word\n", gpu_variant_name(gpu_variant(run->dev)), how,
		       line, n, st.watching ? "polls" : "does not poll");
	}
	free(s);
}

/* The scale's answer_runs searches of its answer_span values, each with
 * its answer at a random place, gap_ms idle before each: the mean wall
 * time, device time and time of the answer's place at rate (hashes/ns).
 * Idling costs the device's clocks where its own time grows, the host's
 * wake-ups where only the wall time does. */
static void answers(struct check_run *run, double rate, unsigned gap_ms, const char *how)
{
	uint64_t span = run->scale->answer_span, wall = 0, dev = 0, place = 0;
	size_t runs = run->scale->answer_runs, n = 0;
	struct timespec gap = { gap_ms / 1000, (long)(gap_ms % 1000) * 1000000L };

	for (size_t i = 0; i < runs; i++) {
		uint64_t off = ((uint64_t)rand() << 16 ^ (uint64_t)rand()) % span, found, t0, t;
		struct gpu_stats before, after;
		uint8_t d[32];
		int r;

		digest_of(at + off, d);
		if (gap_ms)
			nanosleep(&gap, NULL);
		gpu_stats(run->dev, &before);
		t0 = clock_ns();
		r = gpu_search(run->dev, d, at, at + span - 1, &found, NULL);
		t = clock_ns() - t0;
		gpu_stats(run->dev, &after);
		if (r != SEARCH_FOUND || found != at + off) {
			check_fail(run, "answers", "a timed search missed its answer");
		} else {
			wall += t;
			dev += after.busy_ns - before.busy_ns;
			place += off;
			n++;
		}
		at += span;
	}
	if (n)
		printf("answers in %llu values, %s, %u ms idle before each: wall %.1f us, "
		       "device %.1f us, the answer's place at the rate %.1f us (means over %zu)\n",
		       (unsigned long long)span, how, gap_ms, wall / 1e3 / (double)n,
		       dev / 1e3 / (double)n, rate > 0 ? place / rate / 1e3 / (double)n : 0, n);
}

void bench_launches(struct check_run *run, uint64_t n)
{
	struct gpu_stats before, now;
	uint64_t found;

	digest_of(BENCH_START - 1, digest);
	gpu_stats(run->dev, &before);
	now = before;
	while (now.launches - before.launches < n) {
		if (gpu_search(run->dev, digest, at, at + now.chunk - 1, &found, NULL)) {
			check_fail(run, "launches", "a range without the answer: not SEARCH_NONE");
			return;
		}
		at += now.chunk;
		gpu_stats(run->dev, &now);
	}
	printf("launches %s: %llu, the last of %llu values\n",
	       gpu_variant_name(gpu_variant(run->dev)),
	       (unsigned long long)(now.launches - before.launches),
	       (unsigned long long)now.chunk);
}

void bench_all(struct check_run *run, double seconds, const int *order, int n)
{
	const struct kernel_calibration *cpu = kernel_calibrate();
	double best = -1, best_rate = 0;
	int fastest = order[0];

	digest_of(BENCH_START - 1, digest);
	/* The fastest as the worker chooses (device_pick): a variant whose
	 * stops are slower must beat the rest by its handicap. */
	for (int i = 0; i < n; i++) {
		int v = order[i];
		double r, s;

		gpu_use(run->dev, v);
		r = rate(run, seconds);
		s = pick_weighed(r, device_stop_handicap(gpu_variant_halt_every(v)));
		if (s > best) {
			best = s;
			best_rate = r;
			fastest = v;
		}
	}
	gpu_use(run->dev, fastest);
	printf("fastest: %s, %.2f G hashes/s\n", gpu_variant_name(fastest), best_rate); /* per ns */
	small(run, 100000, "spinning");
	small(run, 1, "spinning");
	gpu_spin_ns(run->dev, 0);
	small(run, 100000, "sleeping");
	small(run, 1, "sleeping");
	answers(run, best_rate, 0, "sleeping");
	answers(run, best_rate, 100, "sleeping");
	gpu_spin_ns(run->dev, GPU_SPIN_NS);
	answers(run, best_rate, 0, "the worker's wait");
	answers(run, best_rate, 100, "the worker's wait");
	/* Where the time of a stop goes: the worker's wait (a spin), then
	 * sleeping on the launch's event (the host's wake-up added), then
	 * the plain poller's. */
	stop_latency(run, "the worker's wait");
	gpu_spin_ns(run->dev, 0);
	stop_latency(run, "sleeping");
	gpu_spin_ns(run->dev, GPU_SPIN_NS);
	gpu_use(run->dev, 0);
	stop_latency(run, "the worker's wait");
	gpu_use(run->dev, fastest);
	printf("cpu %s: %.1f M hashes/s on one core\n", cpu->best->name,
	       cpu->pick.rates[cpu->pick.chosen] / 1e6);
}
