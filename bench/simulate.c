/* An exact, event-driven simulation of the ideal server. Requests for the
 * same (digest, start, end) share one job whose weight is the sum of their
 * priorities; the server always hashes the job with the highest
 * weight / remaining range (ties: the older job), preemptively, at the full
 * rate, with no overhead, and remembers every answer it has found.
 *
 * Between two events (an arrival, the current job's completion) the choice
 * cannot change: only the job being hashed shrinks, which only raises its
 * rank. So time jumps from event to event, and the result is exact up to
 * long double rounding. Requests are grouped by key once, by sorting, so a
 * job knows its requests without a hash table. */
#include "bench/simulate.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NONE SIZE_MAX

enum job_state { JOB_IDLE, JOB_ACTIVE, JOB_DONE };

struct job {
	long double span;  /* end - start + 1: up to 2^64, exact here */
	long double work;  /* values to hash until the answer is found */
	long double done;  /* values hashed so far */
	long double weight;
	size_t age;        /* order of activation, for ties */
	size_t first;      /* its requests: by_key[first .. first + count) */
	size_t count;
	enum job_state state;
};

struct sim {
	const struct wl_request *reqs;
	const double *arrival;
	double *latency;
	long double rate_us; /* values per microsecond */
	long double now;     /* µs */
	size_t *by_key;      /* request indices grouped by job */
	size_t *job_of;      /* request -> job, NONE when start > end */
	unsigned char *waiting;
	struct job *jobs;
	size_t *active;
	size_t nactive;
	size_t activated;
};

/* Sort records: a request's key (or its arrival) plus its index. */
struct by_key_rec {
	const struct wl_request *q;
	size_t i;
};

struct by_time_rec {
	double t;
	size_t i;
};

static int cmp_key(const void *a, const void *b)
{
	const struct by_key_rec *x = a, *y = b;
	int c = memcmp(x->q->digest, y->q->digest, sizeof x->q->digest);

	if (c)
		return c;
	if (x->q->start != y->q->start)
		return x->q->start < y->q->start ? -1 : 1;
	if (x->q->end != y->q->end)
		return x->q->end < y->q->end ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static int cmp_time(const void *a, const void *b)
{
	const struct by_time_rec *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

static int same_key(const struct wl_request *a, const struct wl_request *b)
{
	return a->start == b->start && a->end == b->end &&
	       memcmp(a->digest, b->digest, sizeof a->digest) == 0;
}

static void job_init(struct job *j, const struct wl_request *q, size_t first)
{
	int found = q->answer >= q->start && q->answer <= q->end;

	memset(j, 0, sizeof *j);
	j->span = (long double)(q->end - q->start) + 1;
	j->work = found ? (long double)(q->answer - q->start) + 1 : j->span;
	j->first = first;
	j->state = JOB_IDLE;
}

/* Group requests by key into jobs; requests with start > end get none. */
static int build_jobs(struct sim *s, size_t n)
{
	struct by_key_rec *rec = malloc((n ? n : 1) * sizeof *rec);
	size_t njobs = 0;

	if (!rec)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		rec[i] = (struct by_key_rec){ &s->reqs[i], i };
	qsort(rec, n, sizeof *rec, cmp_key);
	for (size_t k = 0; k < n; k++) {
		size_t i = rec[k].i;

		s->by_key[k] = i;
		if (s->reqs[i].start > s->reqs[i].end) {
			s->job_of[i] = NONE;
			continue;
		}
		if (k == 0 || s->job_of[rec[k - 1].i] == NONE ||
		    !same_key(rec[k - 1].q, rec[k].q))
			job_init(&s->jobs[njobs++], rec[k].q, k);
		s->job_of[i] = njobs - 1;
		s->jobs[njobs - 1].count++;
	}
	free(rec);
	return 0;
}

/* Is a a better choice than b: higher weight / remaining, then older. */
static int better(const struct job *a, const struct job *b)
{
	long double ra = a->weight * (b->span - b->done);
	long double rb = b->weight * (a->span - a->done);

	if (ra != rb)
		return ra > rb;
	return a->age < b->age;
}

static size_t pick(const struct sim *s)
{
	size_t best = NONE;

	for (size_t k = 0; k < s->nactive; k++) {
		size_t j = s->active[k];

		if (best == NONE || better(&s->jobs[j], &s->jobs[best]))
			best = j;
	}
	return best;
}

static void finish(struct sim *s, size_t j, long double t)
{
	struct job *job = &s->jobs[j];

	for (size_t k = job->first; k < job->first + job->count; k++) {
		size_t i = s->by_key[k];

		if (s->waiting[i]) {
			s->latency[i] = (double)(t - s->arrival[i]);
			s->waiting[i] = 0;
		}
	}
	job->state = JOB_DONE;
	for (size_t k = 0; k < s->nactive; k++) {
		if (s->active[k] == j) {
			s->active[k] = s->active[--s->nactive];
			break;
		}
	}
	s->now = t;
}

static void arrive(struct sim *s, size_t i)
{
	size_t j = s->job_of[i];
	struct job *job = j == NONE ? NULL : &s->jobs[j];

	s->latency[i] = 0;
	if (!job || job->state == JOB_DONE)
		return; /* invalid range, or the answer is already known */
	if (job->state == JOB_IDLE) {
		job->state = JOB_ACTIVE;
		job->age = s->activated++;
		s->active[s->nactive++] = j;
	}
	job->weight += s->reqs[i].priority;
	s->waiting[i] = 1;
}

/* Run the events in time order: before each arrival, the best job either
 * completes (and the choice is made again) or hashes until the arrival. */
static void run(struct sim *s, const struct by_time_rec *order, size_t n)
{
	size_t next = 0;

	while (next < n || s->nactive) {
		size_t j = pick(s);
		long double t_arr = next < n ? order[next].t : INFINITY;

		if (j != NONE) {
			struct job *job = &s->jobs[j];
			long double left = job->work - job->done;
			/* Rounding may overshoot by a hair: never go back. */
			long double t_end = s->now +
					    fmaxl(left, 0) / s->rate_us;

			if (t_end <= t_arr) {
				finish(s, j, t_end);
				continue;
			}
			job->done += (t_arr - s->now) * s->rate_us;
		}
		s->now = t_arr;
		arrive(s, order[next++].i);
	}
}

static double mean_score(const struct wl_request *reqs, const double *lat,
			 size_t n)
{
	long double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += (long double)lat[i] * reqs[i].priority;
	return n ? (double)(sum / n) : 0;
}

static int simulate(struct sim *s, size_t n)
{
	struct by_time_rec *order = malloc((n ? n : 1) * sizeof *order);
	int err;

	if (!order)
		return -ENOMEM;
	err = build_jobs(s, n);
	if (!err) {
		for (size_t i = 0; i < n; i++)
			order[i] = (struct by_time_rec){ s->arrival[i], i };
		qsort(order, n, sizeof *order, cmp_time);
		s->now = n ? order[0].t : 0;
		run(s, order, n);
	}
	free(order);
	return err;
}

int sim_ideal(const struct wl_request *reqs, const double *arrival_us,
	      size_t n, double rate, double *latency_us, double *score)
{
	struct sim s = { .reqs = reqs, .arrival = arrival_us,
			 .rate_us = (long double)rate / 1e6L };
	size_t m = n ? n : 1;
	int err = -ENOMEM;

	if (!isfinite(rate) || rate <= 0)
		return -EINVAL;
	s.latency = latency_us ? latency_us : malloc(m * sizeof *s.latency);
	s.by_key = malloc(m * sizeof *s.by_key);
	s.job_of = malloc(m * sizeof *s.job_of);
	s.waiting = calloc(m, 1);
	s.jobs = malloc(m * sizeof *s.jobs);
	s.active = malloc(m * sizeof *s.active);
	if (!s.latency || !s.by_key || !s.job_of || !s.waiting || !s.jobs ||
	    !s.active)
		goto out;
	err = simulate(&s, n);
	if (!err && score)
		*score = mean_score(reqs, s.latency, n);
out:
	if (!latency_us)
		free(s.latency);
	free(s.by_key);
	free(s.job_of);
	free(s.waiting);
	free(s.jobs);
	free(s.active);
	return err;
}
