/* A replay (see replay.h): one detached thread per request, started at the
 * request's absolute deadline, so a slow server never delays the next one
 * (as with the public client); the last to finish wakes the caller. Every
 * exchange is bounded by the target's timeout, so a run always ends. */
#include "bench/replay.h"
#include "bench/stats.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STACK_SIZE (256 * 1024)
#define SPAWN_TRIES 1000      /* 1 ms apart, when threads run out */

static const char *const outcome_name[] = { "ok", "WRONG", "MISSING" };

struct run {
	struct target *target;
	const struct wl_request *reqs;
	struct result *res;
	uint64_t n;
	struct out *out; /* a line per request; NULL: none */
	int64_t t0;
	pthread_mutex_t lock;
	pthread_cond_t all_done;
	uint64_t finished;
};

struct task {
	struct run *run;
	uint64_t i;
};

static void sleep_until(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* Request i's line, the text's alone: the figures of every request are
 * the CSV's (--csv). */
static void print_line(const struct run *r, uint64_t i)
{
	const struct result *res = &r->res[i];

	errno = -res->err;
	out_printf(r->out, "-", "%8" PRIu64 "  prio %2u  %12.3f ms  %s%s%s%s\n", i,
		   r->reqs[i].priority, res->latency_ns / 1e6, outcome_name[res->outcome],
		   res->err ? " (" : "", res->err == -ENODATA ? "closed before the full reply" :
		   res->err ? strerror(-res->err) : "", res->err ? ")" : "");
}

static void record(struct run *r, uint64_t i, int err, int64_t begin,
		   int64_t end, uint64_t reply)
{
	struct result *res = &r->res[i];

	res->send_ns = begin - r->t0;
	res->latency_ns = end - begin;
	res->reply = reply;
	res->err = err;
	res->outcome = err ? OUT_MISSING :
		       reply == r->reqs[i].answer ? OUT_OK : OUT_WRONG;
	if (r->out)
		print_line(r, i);
	pthread_mutex_lock(&r->lock);
	if (++r->finished == r->n)
		pthread_cond_signal(&r->all_done);
	pthread_mutex_unlock(&r->lock);
}

static void *request_thread(void *arg)
{
	struct task *task = arg;
	struct run *r = task->run;
	uint64_t reply = 0;
	int64_t begin, end;
	int err = client_exchange(r->target, &r->reqs[task->i], &reply, &begin, &end);

	record(r, task->i, err, begin, end, reply);
	return NULL;
}

/* Start request i's thread; when threads run out, retry for a while and
 * then count the request as missing rather than stop the run. */
static void spawn(struct run *r, struct task *task, pthread_attr_t *attr)
{
	pthread_t tid;
	int rc = 0;

	for (int k = 0; k < SPAWN_TRIES; k++) {
		rc = pthread_create(&tid, attr, request_thread, task);
		if (rc != EAGAIN)
			break;
		usleep(1000);
	}
	if (rc) {
		int64_t t = (int64_t)clock_ns();

		errno = rc;
		fprintf(stderr, "pthread_create(request %" PRIu64 "): %m\n",
			task->i);
		record(r, task->i, -rc, t, t, 0);
	}
}

static void run_all(struct run *r, struct task *tasks, pthread_attr_t *attr,
		    int64_t delay_ns)
{
	r->t0 = (int64_t)clock_ns() + 10000000; /* a head start for the first deadline */
	for (uint64_t i = 0; i < r->n; i++) {
		tasks[i] = (struct task){ r, i };
		sleep_until(r->t0 + (int64_t)i * delay_ns);
		spawn(r, &tasks[i], attr);
	}
	pthread_mutex_lock(&r->lock);
	while (r->finished < r->n)
		pthread_cond_wait(&r->all_done, &r->lock);
	pthread_mutex_unlock(&r->lock);
}

int replay_run(struct target *t, const struct wl_request *reqs, uint64_t n,
	       uint64_t delay_us, struct out *o, struct result *res)
{
	struct run r = { .target = t, .reqs = reqs, .res = res, .n = n,
			 .out = o, .lock = PTHREAD_MUTEX_INITIALIZER,
			 .all_done = PTHREAD_COND_INITIALIZER };
	struct task *tasks = calloc(n, sizeof *tasks);
	pthread_attr_t attr;
	int err = -ENOMEM;

	if (!tasks || pthread_attr_init(&attr)) {
		free(tasks);
		return err;
	}
	if (!pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) &&
	    !pthread_attr_setstacksize(&attr, STACK_SIZE)) {
		run_all(&r, tasks, &attr, (int64_t)delay_us * 1000);
		err = 0;
	}
	pthread_attr_destroy(&attr);
	/* Every thread is done with r and tasks: each finished. */
	free(tasks);
	return err;
}

int replay_summarize(const struct wl_request *reqs, const struct result *res,
		     uint64_t n, struct replay_summary *s)
{
	int64_t *lat = malloc(n * sizeof *lat);

	if (!lat)
		return -ENOMEM;
	*s = (struct replay_summary){ 0 };
	for (uint64_t i = 0; i < n; i++) {
		int repeat = reqs[i].copy_of >= 0;
		int fast = res[i].latency_ns < REPLAY_FAST_US * 1000;
		struct replay_part *part = repeat ? &s->repeat : &s->first;

		lat[i] = res[i].latency_ns;
		part->n++;
		part->latency_ns += res[i].latency_ns;
		part->weighted += res[i].latency_ns / 1e3L * reqs[i].priority;
		s->ok += res[i].outcome == OUT_OK;
		s->repeats += repeat;
		s->fast_repeats += repeat && fast && res[i].outcome == OUT_OK;
	}
	stats_sort(lat, n);
	s->score = (double)((s->first.weighted + s->repeat.weighted) / n);
	s->p50_ms = stats_percentile_ms(lat, n, 0.50);
	s->p99_ms = stats_percentile_ms(lat, n, 0.99);
	free(lat);
	return 0;
}
