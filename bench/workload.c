/* Generates the public client's workload. The client draws everything from
 * glibc's srand()/rand(), so reproducing it means making exactly the same
 * rand() calls in exactly the same order; every call below is one the
 * client makes, and the comments mark the places where the order matters.
 * The client's text is the specification:
 *   start  = START, or a random 64-bit value below 2^64 - 2 - DIFFICULTY;
 *   r      = rand() % 100; if i > 0 && r <= REP, repeat request rand() % i;
 *   else   answer = start + rand() % DIFFICULTY, end = start + DIFFICULTY;
 *   prio   = 1 + (int)(-ln(1 - rand() / 2^31) / LAMBDA), at most 16. */
#include "bench/workload.h"
#include "lib/digest.h"
#include "proto/proto.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRESET_SEED 3435245 /* the milestone's */
#define PRESET_REP 20       /* percent of repeats, the course's */
#define PRESET_LAMBDA 1.5   /* of the priorities, the course's */

/* The course's runs, then the benchmark's small rows at a quarter load,
 * all with 20% repeats and lambda 1.5 at random starts. */
static const struct wl_preset presets[] = {
	{ "milestone", PRESET_SEED, 100, 30000000, 600000, 0 },
	{ "final", PRESET_SEED, 500, 30000000, 600000, 0 },
	{ "1M", PRESET_SEED, 200, 1000000, 0, 0.25 },
	{ "300k", PRESET_SEED, 300, 300000, 0, 0.25 },
	{ "100k", PRESET_SEED, 300, 100000, 0, 0.25 },
};

#define PRESETS (sizeof presets / sizeof presets[0])

const struct wl_preset *wl_preset_find(const char *name)
{
	for (size_t i = 0; i < PRESETS; i++)
		if (strcmp(presets[i].name, name) == 0)
			return &presets[i];
	return NULL;
}

void wl_preset_names(char *buf, size_t size)
{
	size_t len = 0;

	for (size_t i = 0; i < PRESETS && len < size; i++) {
		int n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
				 presets[i].name);

		len += n > 0 ? (size_t)n : 0;
	}
}

void wl_preset_help(FILE *out)
{
	for (size_t i = 0; i < PRESETS; i++) {
		const struct wl_preset *p = &presets[i];

		fprintf(out, "  %-10s %" PRIu64 " requests of %" PRIu64 " values, ", p->name,
			p->total, p->difficulty);
		if (p->load > 0)
			fprintf(out, "%.0f%% load at the probed rate\n", p->load * 100);
		else
			fprintf(out, "one every %" PRIu64 " us\n", p->delay_us);
	}
	fprintf(out, "  each with %d%% repeats and priorities of lambda %.1f\n", PRESET_REP,
		PRESET_LAMBDA);
}

/* A fresh request hashes half its range on average, and about a fifth of
 * the requests are repeats, answered without hashing: the delay between
 * requests that keeps a server of rate busy load of the time. */
int wl_preset_params(const struct wl_preset *w, double rate,
		     struct wl_params *p)
{
	*p = (struct wl_params){ .seed = w->seed, .total = w->total,
				 .difficulty = w->difficulty, .rep = PRESET_REP,
				 .delay_us = w->delay_us, .lambda = PRESET_LAMBDA };
	if (w->load == 0)
		return 0;
	if (!(rate > 0) || !isfinite(rate))
		return -EINVAL;
	p->delay_us = (uint64_t)(0.8 * w->difficulty / 2 / (rate / 1e6) / w->load);
	return 0;
}

/* Two rand() calls make a 64-bit start, the first the high half: two
 * statements, for the order of |'s operands is unspecified. */
static uint64_t draw_start(uint64_t difficulty)
{
	uint64_t hi = (uint64_t)rand();
	uint64_t lo = (uint64_t)rand();
	uint64_t modulus = UINT64_MAX - 1 - difficulty; /* 2^64 - 2 - D */

	return ((hi << 32) | lo) % modulus;
}

/* Exponential with rate lambda, floored, plus one, capped at 16 in floating
 * point first (a huge quotient must not meet the int conversion). With
 * lambda 0 the client's priority is constant: it draws nothing. */
static uint8_t draw_priority(double lambda)
{
	if (lambda == 0)
		return 1;

	double u = rand() / 2147483648.0;
	double x = -log(1 - u) / lambda;

	if (x >= PROTO_PRIORITY_MAX - 1)
		return PROTO_PRIORITY_MAX;
	return (uint8_t)(1 + (int)x);
}

static void fresh_request(struct wl_request *q, uint64_t start,
			  uint64_t difficulty)
{
	q->start = start;
	q->end = start + difficulty;
	q->answer = start + (uint64_t)rand() % difficulty;
	q->copy_of = -1;
	digest_of(q->answer, q->digest);
}

int wl_check(const struct wl_params *p)
{
	if (p->difficulty == 0 || p->difficulty > UINT64_MAX - 2)
		return -EINVAL;
	if (p->start != 0 && p->difficulty > UINT64_MAX - p->start)
		return -EINVAL;
	if (p->rep > 100)
		return -EINVAL;
	if (!isfinite(p->lambda) || p->lambda < 0)
		return -EINVAL;
	return 0;
}

int wl_generate(const struct wl_params *p, struct wl_request *out)
{
	int err = wl_check(p);

	if (err)
		return err;
	srand((unsigned)p->seed);
	for (uint64_t i = 0; i < p->total; i++) {
		/* Drawn even for a repeat, which then throws it away. */
		uint64_t start = p->start ? p->start :
					    draw_start(p->difficulty);
		unsigned r = (unsigned)(rand() % 100);

		/* <=, as in the client: even REP 0 repeats when r is 0. */
		if (i > 0 && r <= p->rep) {
			uint64_t from = (uint64_t)rand() % i;

			out[i] = out[from];
			out[i].copy_of = (int64_t)from;
		} else {
			fresh_request(&out[i], start, p->difficulty);
		}
		/* Every request draws its own priority, repeats included. */
		out[i].priority = draw_priority(p->lambda);
	}
	return 0;
}

struct wl_request *wl_requests(const struct wl_params *p)
{
	struct wl_request *reqs = calloc(p->total, sizeof *reqs);

	if (!reqs)
		fprintf(stderr, "revhash-bench: %" PRIu64 " requests: out of memory\n", p->total);
	else if (wl_generate(p, reqs) < 0)
		abort(); /* the caller's wl_check let p through: a bug */
	return reqs;
}
