/* An exact, event-driven simulation of an ideal server under one policy
 * of shm/policy.h, which decides by the server's own policy_outranks()
 * which jobs run: the model, and why jumping from event to event is
 * exact, are in docs/performance.md (The ideal server). */
#include "bench/simulate.h"
#include "shm/policy.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NONE SIZE_MAX

enum job_state { JOB_IDLE, JOB_ACTIVE, JOB_DONE };

struct sim_job {
	long double span;  /* end - start + 1: up to 2^64, exact here */
	long double work;  /* values to hash until the answer is found */
	long double done;  /* values hashed so far */
	uint64_t weight;   /* the sum of the priorities waiting on it */
	uint64_t seq;      /* order of activation, for ties and fifo */
	uint32_t started;  /* some capacity has been spent on it */
	size_t first;      /* its requests: by_key[first .. first + count) */
	size_t count;
	enum job_state state;
};

struct sim {
	const struct wl_request *reqs;
	const double *arrival;
	double *latency;
	struct policy policy;
	size_t slots;        /* jobs that run at once: 1 when shared, workers */
	long double rate_us; /* values per microsecond, the whole machine */
	size_t cpus;         /* the CPUs the running jobs share (1 with split) */
	long double *own;    /* unequal workers: each one's values per µs,
	                        fastest first; NULL when alike */
	long double now;     /* µs */
	size_t *by_key;      /* request indices grouped by job */
	size_t *job_of;      /* request -> job, NONE when start > end */
	unsigned char *waiting;
	struct sim_job *jobs;
	size_t *active;
	size_t nactive;
	size_t activated;
	size_t *running;     /* the chosen jobs, best first */
	struct rank *keys;   /* and their ranks */
	size_t nrunning;
};

/* Requests of one job compare equal: same digest, start and end. */
static int cmp_request(const struct wl_request *a, const struct wl_request *b)
{
	int c = memcmp(a->digest, b->digest, sizeof a->digest);

	if (c || a->start != b->start)
		return c ? c : a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

/* Request indices by key, then index (reqs: qsort_r's argument). */
static int cmp_key(const void *a, const void *b, void *reqs)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct wl_request *q = reqs;
	int c = cmp_request(&q[x], &q[y]);

	return c ? c : (x > y) - (x < y);
}

/* Request indices by arrival, then index. */
static int cmp_time(const void *a, const void *b, void *arrival)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const double *t = arrival;

	if (t[x] != t[y])
		return t[x] < t[y] ? -1 : 1;
	return (x > y) - (x < y);
}

static void job_init(struct sim_job *j, const struct wl_request *q, size_t first)
{
	int found = q->answer >= q->start && q->answer <= q->end;

	memset(j, 0, sizeof *j);
	j->span = (long double)(q->end - q->start) + 1;
	j->work = found ? (long double)(q->answer - q->start) + 1 : j->span;
	j->first = first;
	j->state = JOB_IDLE;
}

/* Group requests by key into jobs; requests with start > end get none. */
static void build_jobs(struct sim *s, size_t n)
{
	size_t njobs = 0;

	for (size_t i = 0; i < n; i++)
		s->by_key[i] = i;
	qsort_r(s->by_key, n, sizeof *s->by_key, cmp_key, (void *)s->reqs);
	for (size_t k = 0; k < n; k++) {
		size_t i = s->by_key[k], prev = k ? s->by_key[k - 1] : NONE;

		if (s->reqs[i].start > s->reqs[i].end) {
			s->job_of[i] = NONE;
			continue;
		}
		if (prev == NONE || s->job_of[prev] == NONE ||
		    cmp_request(&s->reqs[prev], &s->reqs[i]))
			job_init(&s->jobs[njobs++], &s->reqs[i], k);
		s->job_of[i] = njobs - 1;
		s->jobs[njobs - 1].count++;
	}
}

/* The job's rank, by the server's own builder, with the values it has
 * left rounded up to whole values, as the server counts them. Every
 * request of a bench run comes from one peer address, so its weight is
 * what the server lets one peer give one job. */
static struct rank rank_of(const struct sim_job *j)
{
	long double left = fminl(fmaxl(ceill(j->span - j->done), 0), j->span);

	return policy_rank(policy_peer_part(j->weight), (unsigned __int128)left, j->seq,
			   j->started);
}

/* Choose the best s->slots active jobs, best first: an insertion into a
 * short sorted list, so a job that does not make it costs one comparison. */
static void choose(struct sim *s)
{
	s->nrunning = 0;
	for (size_t k = 0; k < s->nactive; k++) {
		struct rank kj = rank_of(&s->jobs[s->active[k]]);
		size_t pos = s->nrunning;

		while (pos > 0 &&
		       policy_outranks(&s->policy, &kj, &s->keys[pos - 1]))
			pos--;
		if (pos == s->slots)
			continue;
		if (s->nrunning < s->slots)
			s->nrunning++;
		for (size_t m = s->nrunning - 1; m > pos; m--) {
			s->running[m] = s->running[m - 1];
			s->keys[m] = s->keys[m - 1];
		}
		s->running[pos] = s->active[k];
		s->keys[pos] = kj;
	}
}

/* Values per microsecond for the m-th running job (best first), while
 * the set runs. */
static long double job_rate(const struct sim *s, size_t m)
{
	size_t share = s->nrunning > s->cpus ? s->nrunning : s->cpus;

	return s->own ? s->own[m] : s->rate_us / (long double)share;
}

/* The running job that completes first, if nothing arrives: its index in
 * s->running (NONE when none runs) and the time in *t. */
static size_t next_completion(const struct sim *s, long double *t)
{
	size_t first = NONE;

	*t = INFINITY;
	for (size_t m = 0; m < s->nrunning; m++) {
		const struct sim_job *job = &s->jobs[s->running[m]];
		/* Rounding may overshoot by a hair: never go back. */
		long double end = s->now +
				  fmaxl(job->work - job->done, 0) / job_rate(s, m);

		if (first == NONE || end < *t) {
			*t = end;
			first = m;
		}
	}
	return first;
}

/* Hash on the running jobs until t. */
static void advance(struct sim *s, long double t)
{
	if (t > s->now) {
		for (size_t m = 0; m < s->nrunning; m++) {
			struct sim_job *job = &s->jobs[s->running[m]];

			job->done += (t - s->now) * job_rate(s, m);
			job->started = 1;
		}
		s->now = t;
	}
}

static void finish(struct sim *s, size_t j)
{
	struct sim_job *job = &s->jobs[j];

	for (size_t k = job->first; k < job->first + job->count; k++) {
		size_t i = s->by_key[k];

		if (s->waiting[i]) {
			s->latency[i] = (double)(s->now - s->arrival[i]);
			s->waiting[i] = 0;
		}
	}
	job->done = job->work;
	job->state = JOB_DONE;
	for (size_t k = 0; k < s->nactive; k++) {
		if (s->active[k] == j) {
			s->active[k] = s->active[--s->nactive];
			break;
		}
	}
}

static void arrive(struct sim *s, size_t i)
{
	size_t j = s->job_of[i];
	struct sim_job *job = j == NONE ? NULL : &s->jobs[j];

	s->latency[i] = 0;
	if (!job || job->state == JOB_DONE)
		return; /* invalid range, or the answer is already known */
	if (job->state == JOB_IDLE) {
		job->state = JOB_ACTIVE;
		job->seq = s->activated++;
		s->active[s->nactive++] = j;
	}
	job->weight += s->reqs[i].priority;
	s->waiting[i] = 1;
}

/* Run the events in time order: at each, choose the running jobs; then
 * either the first of them completes before the next arrival, or they all
 * hash until it. Completions go before arrivals at the same instant. */
static void run(struct sim *s, const size_t *order, size_t n)
{
	size_t next = 0;

	while (next < n || s->nactive) {
		long double t_arr = next < n ? s->arrival[order[next]] : INFINITY;
		long double t_end;
		size_t m;

		choose(s);
		m = next_completion(s, &t_end);
		if (m != NONE && t_end <= t_arr) {
			size_t j = s->running[m];

			advance(s, t_end);
			finish(s, j);
			continue;
		}
		advance(s, t_arr);
		arrive(s, order[next++]);
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
	size_t *order = malloc((n ? n : 1) * sizeof *order);

	if (!order)
		return -ENOMEM;
	build_jobs(s, n);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof *order, cmp_time, (void *)s->arrival);
	s->now = n ? s->arrival[order[0]] : 0;
	run(s, order, n);
	free(order);
	return 0;
}

static int faster(const void *a, const void *b)
{
	long double x = *(const long double *)a, y = *(const long double *)b;

	return (x < y) - (x > y);
}

/* Unequal workers: the rate split by shares, fastest first. 0, -EINVAL
 * (a share that is not positive and finite) or -ENOMEM. */
static int own_rates(struct sim *s, const double *shares, unsigned n)
{
	long double sum = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!isfinite(shares[i]) || shares[i] <= 0)
			return -EINVAL;
		sum += shares[i];
	}
	if (!(s->own = malloc(n * sizeof *s->own)))
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		s->own[i] = s->rate_us * shares[i] / sum;
	qsort(s->own, n, sizeof *s->own, faster);
	return 0;
}

int sim_run(const struct wl_request *reqs, const double *arrival_us, size_t n,
	    double rate, const struct sim_policy *pol, double *latency_us,
	    double *score)
{
	struct sim s = { .reqs = reqs, .arrival = arrival_us,
			 .policy = pol->policy };
	size_t m = n ? n : 1;
	int err = -ENOMEM;

	if (!isfinite(rate) || rate <= 0 || !pol->workers || pol->policy.order >= policy_orders())
		return -EINVAL;
	s.slots = policy_shares_jobs(&pol->policy) ? 1 : pol->workers;
	s.rate_us = (long double)rate / 1e6L;
	s.cpus = s.slots;
	if (pol->cores && pol->cores < s.cpus)
		s.cpus = pol->cores;
	if (pol->shares && s.slots > 1 &&
	    (err = own_rates(&s, pol->shares, pol->workers)) < 0)
		return err;
	err = -ENOMEM;
	s.latency = latency_us ? latency_us : malloc(m * sizeof *s.latency);
	s.by_key = malloc(m * sizeof *s.by_key);
	s.job_of = malloc(m * sizeof *s.job_of);
	s.waiting = calloc(m, 1);
	s.jobs = malloc(m * sizeof *s.jobs);
	s.active = malloc(m * sizeof *s.active);
	s.running = malloc(s.slots * sizeof *s.running);
	s.keys = malloc(s.slots * sizeof *s.keys);
	if (!s.latency || !s.by_key || !s.job_of || !s.waiting || !s.jobs ||
	    !s.active || !s.running || !s.keys)
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
	free(s.running);
	free(s.keys);
	free(s.own);
	return err;
}

int sim_best(const struct wl_request *reqs, const double *arrival_us, size_t n,
	     double rate, const struct sim_policy *like, struct sim_policy *best,
	     double *score)
{
	struct sim_policy pol = *like, won = pol;
	double low = INFINITY;

	for (unsigned i = 0; i < policy_variants(); i++) {
		double sc;
		int err;

		pol.policy = policy_variant(i);
		if ((err = sim_run(reqs, arrival_us, n, rate, &pol, NULL, &sc)))
			return err;
		if (i == 0 || sc < low) {
			low = sc;
			won = pol;
		}
	}
	*best = won;
	*score = low;
	return 0;
}

int sim_ideal(const struct wl_request *reqs, const double *arrival_us, size_t n,
	      double rate, const struct sim_policy *own, struct sim_ideal *id)
{
	int err = sim_run(reqs, arrival_us, n, rate, own, id->own_lat, &id->own_score);

	if (!err)
		err = sim_best(reqs, arrival_us, n, rate, own, &id->best, &id->best_score);
	if (err)
		return err;
	if (id->own_score <= id->best_score) {
		id->best = *own;
		id->best_score = id->own_score;
	}
	return sim_run(reqs, arrival_us, n, rate, &id->best, id->best_lat, NULL);
}
