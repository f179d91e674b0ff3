/* --concurrency, the closed loop: N threads, each sending one request on
 * its own connection and reading its reply, again and again until the
 * duration is up, so the server sets the pace (wrk's model), for the
 * server's throughput and its latencies at that concurrency. Both the
 * number of requests in flight and the duration must be given, for a
 * closed loop has no natural end and no natural size. Fresh requests are
 * drawn as the public client draws them, from a per-thread xorshift
 * seeded by getrandom; --cached sends one request answered once before
 * the clock starts. Every reply is checked; latencies are kept whole, for
 * exact percentiles. */
#include "bench/client.h"
#include "bench/options.h"
#include "bench/stats.h"
#include "lib/digest.h"
#include "proto/proto.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define STACK_SIZE (256 * 1024)
#define LAT_FIRST 4096   /* latencies a thread has room for at first */
#define ERRNO_SLOTS 256  /* missing replies counted per errno below this */
#define MAX_CONCURRENCY 10000 /* threads */
#define MAX_HOLD 1000000      /* held searches, a descriptor each */

struct closed_params {
	struct options_host at;
	uint64_t concurrency; /* threads, each with one request in flight */
	unsigned duration_ms; /* no request starts after this */
	uint64_t difficulty;  /* end = start + difficulty, as the client */
	uint8_t priority;     /* of every request, 1..16 */
	int cached;           /* every thread sends one primed request */
	uint64_t hold;        /* searches held open meanwhile */
};

/* What the threads share. The run holds gate while it starts them, and
 * sets the deadline before letting it go: 0 when they are to give up. */
struct loop {
	const struct closed_params *p;
	struct target *target;
	struct wl_request primed;
	pthread_mutex_t gate;
	int64_t deadline;
};

/* One thread's own state and counts, merged after the run. */
struct thread {
	struct loop *loop;
	pthread_t tid;
	uint64_t rng;
	int64_t *lat;                  /* ns, one per reply */
	size_t nlat, cap;
	uint64_t ok, wrong;
	uint64_t missing[ERRNO_SLOTS]; /* by errno; [0]: any larger one */
	int err;                       /* -ENOMEM: stopped early */
};

/* xorshift64* (Vigna): fast, and good enough to pick ranges. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* As the public client draws one; the modulo bias is below D / 2^64. */
static void fresh_request(uint64_t *rng, const struct closed_params *p,
			  struct wl_request *q)
{
	q->start = next_random(rng) % (UINT64_MAX - 1 - p->difficulty);
	q->end = q->start + p->difficulty;
	q->answer = q->start + next_random(rng) % p->difficulty;
	q->priority = p->priority;
	q->copy_of = -1;
	digest_of(q->answer, q->digest);
}

static int keep_latency(struct thread *th, int64_t ns)
{
	if (th->nlat == th->cap) {
		size_t cap = th->cap ? 2 * th->cap : LAT_FIRST;
		int64_t *lat = realloc(th->lat, cap * sizeof *lat);

		if (!lat)
			return -ENOMEM;
		th->lat = lat;
		th->cap = cap;
	}
	th->lat[th->nlat++] = ns;
	return 0;
}

static void count(struct thread *th, const struct wl_request *q, int err,
		  uint64_t reply)
{
	if (err)
		th->missing[-err < ERRNO_SLOTS ? -err : 0]++;
	else if (reply == q->answer)
		th->ok++;
	else
		th->wrong++;
}

static void *loop_thread(void *arg)
{
	struct thread *th = arg;
	struct loop *l = th->loop;
	struct wl_request q = l->primed;

	pthread_mutex_lock(&l->gate);
	pthread_mutex_unlock(&l->gate);
	while ((int64_t)clock_ns() < l->deadline) {
		uint64_t reply = 0;
		int64_t begin, end;
		int err;

		if (!l->p->cached)
			fresh_request(&th->rng, l->p, &q);
		err = client_exchange(l->target, &q, &reply, &begin, &end);
		count(th, &q, err, reply);
		if (!err && (th->err = keep_latency(th, end - begin)))
			break;
	}
	return NULL;
}

/* --- the report ------------------------------------------------------- */

/* The n threads' counts added up into *s (its latencies none): the
 * missing replies of every errno. */
static uint64_t add_up(const struct thread *th, size_t n, struct thread *s)
{
	uint64_t missing = 0;

	*s = (struct thread){ 0 };
	for (size_t k = 0; k < n; k++) {
		s->ok += th[k].ok;
		s->wrong += th[k].wrong;
		for (int e = 0; e < ERRNO_SLOTS; e++) {
			s->missing[e] += th[k].missing[e];
			missing += th[k].missing[e];
		}
		s->nlat += th[k].nlat;
		s->err = s->err ? s->err : th[k].err;
	}
	return missing;
}

/* "errors: 0 wrong, 3 missing (Connection refused: 2, ...)" */
static void print_errors(struct out *o, const struct thread *s, uint64_t missing)
{
	const char *sep = " (";

	out_printf(o, "wrong missing", "errors: %" PRIu64 " wrong, %" PRIu64 " missing",
		   s->wrong, missing);
	out_array(o, "missing_by");
	for (int e = 0; e < ERRNO_SLOTS; e++) {
		if (!s->missing[e])
			continue;
		out_object(o, NULL);
		out_printf(o, "- why n", "%s%s: %" PRIu64, sep,
			   e == ENODATA ? "closed before the full reply" :
			   e == 0 ? "other errors" : strerror(e), s->missing[e]);
		out_end(o);
		sep = ", ";
	}
	out_end(o);
	out_printf(o, "", "%s\n", *sep == ',' ? ")" : "");
}

/* Percentiles over every reply, right or wrong; a request that got none
 * has no latency to speak of (a refused connect takes microseconds). */
static int print_latency(struct out *o, const struct thread *th, size_t n, size_t nlat)
{
	int64_t *lat;
	size_t at = 0;

	if (!nlat) {
		out_printf(o, "", "latency: no replies\n");
		return 0;
	}
	if (!(lat = malloc(nlat * sizeof *lat)))
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		memcpy(lat + at, th[k].lat, th[k].nlat * sizeof *lat);
		at += th[k].nlat;
	}
	stats_sort(lat, nlat);
	out_object(o, "latency_ms");
	out_printf(o, "p50 p90 p99 p99_9 max", "latency: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, "
		   "p99.9 %.3f ms, max %.3f ms\n", stats_percentile_ms(lat, nlat, 0.50),
		   stats_percentile_ms(lat, nlat, 0.90), stats_percentile_ms(lat, nlat, 0.99),
		   stats_percentile_ms(lat, nlat, 0.999), stats_percentile_ms(lat, nlat, 1));
	out_end(o);
	free(lat);
	return 0;
}

/* Print the figures; the exit status. */
static int report(struct out *o, const struct thread *th, const struct closed_params *p,
		  int64_t elapsed_ns)
{
	struct thread s;
	uint64_t missing = add_up(th, p->concurrency, &s);
	double secs = elapsed_ns / 1e9;

	out_printf(o, "requests seconds", "requests: %" PRIu64 " in %.3f s\n",
		   s.ok + s.wrong + missing, secs);
	out_printf(o, "requests_s", "requests/s: %.1f (correct replies)\n", s.ok / secs);
	print_errors(o, &s, missing);
	if (print_latency(o, th, p->concurrency, s.nlat) || s.err) {
		fprintf(stderr, "revhash-bench: latencies: out of memory\n");
		return 2;
	}
	return s.wrong || missing ? 1 : 0;
}

/* Searches held open for the length of a run: many connections, each with
 * its own request over a huge range that holds no answer, at priority 1,
 * so that the server has that many jobs queued (and, past its table's
 * size, parked) while the measured load runs. Every range differs, so
 * every request is a job of its own; none can end: its digest is that of
 * the value just below its range. */
struct hold {
	int *fds;
	uint64_t n;
};

/* Close them all, a reset each (client_send): the searches end. */
static void hold_close(struct hold *h)
{
	for (uint64_t i = 0; i < h->n; i++)
		close(h->fds[i]);
	free(h->fds);
}

/* Open n > 0 held searches on t, into h (zeroed): 0, or -errno (those
 * opened stay, for hold_close). */
static int hold_open(struct hold *h, struct target *t, uint64_t n)
{
	struct wl_request q = { .priority = 1, .copy_of = -1 };
	uint64_t base;

	h->fds = calloc(n, sizeof *h->fds);
	if (!h->fds)
		return -ENOMEM;
	if (getrandom(&base, sizeof base, 0) != sizeof base)
		base = (uint64_t)clock_ns();
	base = (base >> 2) + 1;
	digest_of(base - 1, q.digest);
	for (; h->n < n; h->n++) {
		int fd;

		q.start = base + h->n;
		q.end = q.start + (1ull << 60);
		if ((fd = client_send(t, &q)) < 0) {
			fprintf(stderr, "revhash-bench: held search %llu: %s\n",
				(unsigned long long)h->n, strerror(-fd));
			return fd;
		}
		h->fds[h->n] = fd;
	}
	return 0;
}

/* --- the run ---------------------------------------------------------- */

/* Start the threads; *started says how many did. 0 or -errno (printed). */
static int start_threads(struct thread *th, uint64_t n, size_t *started)
{
	pthread_attr_t attr;
	size_t k = 0;
	int rc = pthread_attr_init(&attr);

	if (!rc) {
		rc = pthread_attr_setstacksize(&attr, STACK_SIZE);
		for (; !rc && k < n; k++) {
			rc = pthread_create(&th[k].tid, &attr, loop_thread,
					    &th[k]);
			if (rc)
				break;
		}
		pthread_attr_destroy(&attr);
	}
	*started = k;
	if (rc) {
		errno = rc;
		fprintf(stderr, "revhash-bench: starting thread %zu: %m\n",
			k + 1);
	}
	return -rc;
}

/* Seed every thread's generator apart and, with --cached, answer the one
 * request once, untimed, so the cache has it. 0, or the exit status. */
static int prepare(struct loop *l, struct thread *th)
{
	uint64_t reply = 0;
	int64_t begin, end;
	int err;

	for (uint64_t k = 0; k < l->p->concurrency; k++) {
		th[k].loop = l;
		if (getrandom(&th[k].rng, sizeof th[k].rng, 0) != sizeof th[k].rng) {
			fprintf(stderr, "revhash-bench: getrandom: %m\n");
			return 2;
		}
		th[k].rng |= 1; /* xorshift never leaves 0 */
	}
	if (!l->p->cached)
		return 0;
	fresh_request(&th[0].rng, l->p, &l->primed);
	err = client_exchange(l->target, &l->primed, &reply, &begin, &end);
	errno = -err;
	if (err)
		fprintf(stderr, "revhash-bench: priming request: %m\n");
	else if (reply != l->primed.answer)
		fprintf(stderr, "revhash-bench: priming request: answer %" PRIu64 ", expected %"
			PRIu64 "\n", reply, l->primed.answer);
	return err || reply != l->primed.answer ? 1 : 0;
}

#define F(field) OPT_FIELD(struct closed_params, field)

static const struct opt opts[] = {
	{ "concurrency", "N", OPT_WHOLE, F(concurrency), 1, MAX_CONCURRENCY, NULL, NULL },
	{ "duration", "SECONDS", OPT_MS, F(duration_ms), 1, 86400000, NULL, NULL },
	/* The client's limit: a start below 2^64 - 2 - D must exist. */
	{ "difficulty", "D", OPT_WHOLE, F(difficulty), 1, UINT64_MAX - 2, NULL,
	  "fresh requests, end = start + D" },
	{ "cached", NULL, OPT_FLAG, F(cached), 0, 0, NULL,
	  "one request, answered once before the clock starts" },
	{ "priority", "P", OPT_WHOLE, F(priority), PROTO_PRIORITY_MIN, PROTO_PRIORITY_MAX,
	  NULL, "of every request, 1 .. 16" },
	{ "hold", "N", OPT_WHOLE, F(hold), 1, MAX_HOLD, NULL,
	  "meanwhile hold N searches that never end (priority 1, a 2^60 range each): "
	  "a full queue, or a job-table flood" },
	{ NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

static const struct closed_params defaults = { .difficulty = 1, .priority = 1 };

static int words(int n, char **w, void *params)
{
	struct closed_params *p = params;

	if (!p->duration_ms)
		return options_complain("--concurrency needs --duration SECONDS");
	if (n != 2 || options_host(w, &p->at))
		return options_complain("--concurrency takes " OPTIONS_HOST_WORDS
					" and no other words");
	return 0;
}

/* Resolve the server, run the loop and print its report. The exit
 * status: 0, 1 when a reply was wrong or missing, 2 when the run could
 * not start. */
static int run(void *params, struct out *o)
{
	const struct closed_params *p = params;
	struct target target = { 0 };
	struct loop l = { .p = p, .target = &target,
			  .gate = PTHREAD_MUTEX_INITIALIZER };
	struct thread *th = NULL;
	struct hold held = { 0 };
	size_t started = 0;
	int64_t t0 = 0;
	int status = 2;

	if (client_resolve(&target, p->at.host, p->at.port))
		goto out;
	out_printf(o, "concurrency duration_s difficulty priority kind",
		   "closed loop: %" PRIu64 " in flight for %.3f s, difficulty %" PRIu64
		   ", priority %u, %s requests\n", p->concurrency, p->duration_ms / 1e3,
		   p->difficulty, p->priority, p->cached ? "cached" : "fresh");
	fflush(stdout);
	if (!(th = calloc(p->concurrency, sizeof *th))) {
		fprintf(stderr, "revhash-bench: out of memory\n");
		goto out;
	}
	if ((status = prepare(&l, th)))
		goto out;
	if (p->hold) {
		if (hold_open(&held, &target, p->hold) < 0) {
			status = 2;
			goto out;
		}
		out_printf(o, "holding", "holding %" PRIu64 " searches that never end\n", p->hold);
		fflush(stdout);
	}
	pthread_mutex_lock(&l.gate);
	if (start_threads(th, p->concurrency, &started) == 0) {
		t0 = (int64_t)clock_ns();
		l.deadline = t0 + (int64_t)p->duration_ms * 1000000;
	}
	pthread_mutex_unlock(&l.gate);
	for (size_t k = 0; k < started; k++)
		pthread_join(th[k].tid, NULL);
	status = started < p->concurrency ? 2 :
		 report(o, th, p, (int64_t)clock_ns() - t0);
out:
	hold_close(&held);
	for (uint64_t k = 0; th && k < p->concurrency; k++)
		free(th[k].lat);
	free(th);
	client_free(&target);
	return status;
}

const struct mode closed_mode = {
	"--concurrency", "HOST PORT --concurrency N --duration SECONDS",
	"--concurrency keeps N requests (1 .. 10000) in flight for SECONDS, a\n"
	"thread each (closed loop, as wrk), and prints requests/s, errors and\n"
	"latency percentiles:\n",
	opts, sizeof(struct closed_params), &defaults, OPT_NO_POLICY, words, run,
};
