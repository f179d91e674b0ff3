/* revhash-bench: the public client's load, plus the numbers it leaves out.
 * It replays the very workload the client would (bench/workload.c), one
 * request per thread and connection at fixed absolute deadlines
 * (bench/replay.c), scores it
 * the same way, and then asks how good that score is: it measures the
 * server's hash rate first and compares the score with those of ideal
 * servers of the same rate on the same arrivals (bench/simulate.c): one
 * that follows the policy of the server under test (--schedule,
 * --no-preempt, --no-split, --workers, as the master's switches), and the
 * best of every policy. First-time requests and repeats are reported apart.
 *
 * A failed connection or a short reply is counted, never fatal, and every
 * exchange has a timeout, so a run always ends with a report.
 *
 * With --concurrency and --duration it is a closed-loop load generator
 * instead (bench/closed.c): the server's throughput, not the client's score.
 * With --ask it puts one question, whole or split (bench/ask.c). With
 * --race it plays one workload against several servers (bench/race/race.c). */
#include "bench/ask.h"
#include "bench/calibrate.h"
#include "bench/client.h"
#include "bench/closed.h"
#include "bench/options.h"
#include "bench/race/race.h"
#include "bench/replay.h"
#include "bench/runcsv.h"
#include "bench/simulate.h"
#include "bench/stats.h"
#include "bench/workload.h"
#include "lib/os.h"
#include "shm/ring.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A run to score: its requests and what became of them. */
struct run {
	const struct bench_options *opt;
	const struct wl_request *reqs;
	struct result *res;
};

/* --- the report ------------------------------------------------------- */

/* The ideal servers a run is measured against, on its actual send times:
 * one following the server's own policy, and the best of every policy on
 * as many workers (sim_best; a tie goes to the server's own). */
struct ideal {
	struct sim_policy best;
	double own, best_score;
	double *own_lat, *best_lat; /* each request's latency, for the CSV */
};

static int ideal_scores(const struct run *r, double rate, struct ideal *id)
{
	const struct sim_policy *own = &r->opt->policy;
	uint64_t n = r->opt->wl.total;
	double *arrival = malloc(n * sizeof *arrival);
	int err;

	if (!arrival)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++)
		arrival[i] = r->res[i].send_ns / 1e3;
	err = sim_run(r->reqs, arrival, n, rate, own, id->own_lat, &id->own);
	if (!err)
		err = sim_best(r->reqs, arrival, n, rate, own, &id->best,
			       &id->best_score);
	if (!err && id->own <= id->best_score) {
		id->best = *own;
		id->best_score = id->own;
	}
	if (!err)
		err = sim_run(r->reqs, arrival, n, rate, &id->best,
			      id->best_lat, NULL);
	free(arrival);
	return err;
}

/* Why a run gets no efficiency, by stats_efficiency()'s verdict. */
static const char *const no_efficiency[] = {
	[STATS_EFF_NO_WORK] = "ideal score 0: nothing to hash, every request "
		"empty (start > end) or a repeat of one answered",
	[STATS_EFF_TINY] = "ideal score under 0.5: these ranges cost an ideal "
		"server nothing, the measured score is all per-request overhead",
	[STATS_EFF_BEATEN] = "measured score below the ideal: only a server "
		"that already knew answers, e.g. a warm cache from an earlier "
		"run, can do that, or the hash rate is set too low",
};

/* "first-time: 80 requests, mean latency 12.345 ms, score contribution 9" */
static void print_part(const char *name, const struct replay_part *p, uint64_t total)
{
	printf("%s: %" PRIu64 " requests, mean latency ", name, p->n);
	if (p->n)
		printf("%.3f ms", (double)(p->latency_ns / p->n / 1e6L));
	else
		printf("n/a");
	printf(", score contribution %.0f\n", (double)(p->weighted / total));
}

/* "wsrpt, preemptive, split, 2 workers" */
static const char *describe(const struct sim_policy *p, char *buf, size_t size)
{
	char words[64];
	int len = snprintf(buf, size, "%s, %u worker%s%s",
			   policy_describe(&p->policy, words, sizeof words), p->workers,
			   p->workers == 1 ? "" : "s", p->shares ? " of unequal rates" : "");

	if (p->cores && p->cores < p->workers && len > 0 && (size_t)len < size)
		snprintf(buf + len, size - (size_t)len, " on %u CPU%s",
			 p->cores, p->cores == 1 ? "" : "s");
	return buf;
}

/* "LABEL (POLICY): IDEAL, RATIO = X", or "RATIO: n/a (why)". */
static void print_ideal(const char *label, const struct sim_policy *p,
			double ideal, const char *ratio, const struct replay_summary *s,
			uint64_t total)
{
	char name[96];
	double eff = 0;
	enum stats_eff verdict = stats_efficiency(ideal, s->score, &eff);

	printf("%s (%s): %.0f, ", label, describe(p, name, sizeof name), ideal);
	if (verdict == STATS_EFF_OK)
		printf("%s = %.3f", ratio, eff);
	else
		printf("%s: n/a (%s)", ratio, no_efficiency[verdict]);
	printf("%s\n", s->ok < total ? " (but not every answer was right)" : "");
}

static void report(const struct replay_summary *s, uint64_t total, double rate,
		   const struct sim_policy *own, const struct ideal *id)
{
	printf("Results: %.2f %" PRIu64 "\n", 100.0 * s->ok / total,
	       (uint64_t)s->score);
	printf("latency: p50 %.3f ms, p99 %.3f ms\n", s->p50_ms, s->p99_ms);
	printf("repeats: %" PRIu64 ", answered in under %d ms: %" PRIu64 "\n",
	       s->repeats, REPLAY_FAST_US / 1000, s->fast_repeats);
	print_part("first-time", &s->first, total);
	print_part("repeated", &s->repeat, total);
	if (!rate) {
		printf("hash rate: unknown, so no ideal score\n");
		return;
	}
	printf("hash rate: %.3f M hashes/s\n", rate / 1e6);
	if (!id) {
		printf("ideal score: not computed\n");
		return;
	}
	print_ideal("ideal", own, id->own, "efficiency", s, total);
	print_ideal("best policy ideal", &id->best, id->best_score,
		    "efficiency vs best", s, total);
}

/* --- main ------------------------------------------------------------- */

/* Score the run in r (its results in), report, and write the CSV; the exit
 * status: 0 when every answer was right. */
static int score(struct run *r, FILE *csv)
{
	const struct bench_options *opt = r->opt;
	uint64_t n = opt->wl.total;
	struct ideal ideal = { 0 }, *id = NULL;
	struct replay_summary s;
	int status = 1;

	if (opt->rate) {
		ideal.own_lat = calloc(n, sizeof *ideal.own_lat);
		ideal.best_lat = calloc(n, sizeof *ideal.best_lat);
		id = &ideal;
	}
	if ((id && (!id->own_lat || !id->best_lat)) ||
	    replay_summarize(r->reqs, r->res, n, &s)) {
		fprintf(stderr, "revhash-bench: out of memory\n");
		goto out;
	}
	if (id && ideal_scores(r, opt->rate, id))
		id = NULL;
	report(&s, n, opt->rate, &opt->policy, id);
	if (csv && runcsv_write(csv, opt->csv, r->reqs, r->res, n,
				id ? id->own_lat : NULL, id ? id->best_lat : NULL))
		goto out;
	status = s.ok == n ? 0 : 1;
out:
	free(ideal.own_lat);
	free(ideal.best_lat);
	return status;
}

/* Run the workload, report, and return the exit status. */
static int bench(const struct bench_options *opt, struct target *t,
		 struct wl_request *reqs, FILE *csv)
{
	uint64_t n = opt->wl.total;
	struct run r = { .opt = opt, .reqs = reqs };
	int status = 1;

	r.res = calloc(n, sizeof *r.res);
	if (!r.res || replay_run(t, reqs, n, opt->wl.delay_us, !opt->quiet, r.res))
		fprintf(stderr, "revhash-bench: out of memory\n");
	else
		status = score(&r, csv);
	free(r.res);
	return status;
}

/* --rescore: the run a CSV recorded, scored at --rate, and with --csv
 * written again with the ideal latencies at that rate; nothing is sent.
 * The CSV is read whole before the new one is opened, so it may be the
 * same file. */
static int rescore(const struct bench_options *opt, struct wl_request *reqs)
{
	struct run r = { .opt = opt, .reqs = reqs };
	FILE *csv = NULL;
	int status = 2;

	printf("hash rate: %.3f M hashes/s (--rate); the run of %s\n",
	       opt->rate / 1e6, opt->rescore);
	r.res = calloc(opt->wl.total, sizeof *r.res);
	if (!r.res || runcsv_load(opt->rescore, reqs, opt->wl.total, r.res))
		goto out;
	if (opt->csv && !(csv = fopen(opt->csv, "w"))) {
		fprintf(stderr, "fopen(%s): %m\n", opt->csv);
		goto out;
	}
	status = score(&r, csv); /* closed by runcsv_write(), if it gets there */
out:
	free(r.res);
	return status;
}

static struct wl_request *generate(const struct wl_params *p)
{
	struct wl_request *reqs = calloc(p->total, sizeof *reqs);

	if (!reqs) {
		fprintf(stderr, "revhash-bench: %" PRIu64
			" requests: out of memory\n", p->total);
		return NULL;
	}
	if (wl_generate(p, reqs)) {
		fprintf(stderr, "revhash-bench: DIFFICULTY must be 1 .. 2^64-3 "
			"and START + DIFFICULTY below 2^64\n");
		free(reqs);
		return NULL;
	}
	return reqs;
}

/* The closed loop and --ask: nothing to generate or calibrate. */
static int target_main(const struct bench_options *opt)
{
	struct target target = { 0 };
	int status = 2;

	if (client_resolve(&target, opt->host, opt->port) == 0) {
		client_raise_fd_limit();
		status = opt->ask.split ? ask_run(&target, &opt->ask) :
			 closed_run(&target, &opt->closed);
	}
	client_free(&target);
	return status;
}

/* Calibration hashes one request, and without split one request gets one
 * worker: the server as a whole hashes as fast on each worker that has a
 * CPU of its own. Print the rate the ideal will use, and why. */
static void scale_calibrated(struct bench_options *opt)
{
	const struct sim_policy *p = &opt->policy;
	unsigned cpus = os_cpus_upto(RING_WORKERS);
	unsigned times = p->workers < cpus ? p->workers : cpus;
	double one = opt->rate;

	if (policy_shares_jobs(&p->policy) || times == 1) {
		printf("hash rate: %.3f M hashes/s (calibrated)\n", one / 1e6);
		return;
	}
	opt->rate = one * times;
	printf("hash rate: %.3f M hashes/s (calibrated: %.3f on one request, "
	       "which one worker hashes under --no-split; times %u workers "
	       "with a CPU each)\n", opt->rate / 1e6, one / 1e6, times);
}

int main(int argc, char **argv)
{
	struct bench_options opt;
	struct target target = { 0 };
	struct wl_request *reqs = NULL;
	FILE *csv = NULL;
	int status = 2, rate_given;

	if (bench_options_parse(argc, argv, &opt))
		return 2;
	if (opt.help)
		return 0;
	if (opt.racing)
		return race_run(&opt.race);
	if (opt.preset) {
		printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %u %" PRIu64
		       " %g\n", opt.wl.seed, opt.wl.total, opt.wl.start,
		       opt.wl.difficulty, opt.wl.rep, opt.wl.delay_us, opt.wl.lambda);
		return 0;
	}
	if (opt.closed.concurrency || opt.ask.split)
		return target_main(&opt);
	reqs = generate(&opt.wl);
	if (reqs && opt.rescore) {
		status = rescore(&opt, reqs);
		goto out;
	}
	if (!reqs || client_resolve(&target, opt.host, opt.port))
		goto out;
	if (opt.csv && !(csv = fopen(opt.csv, "w"))) {
		fprintf(stderr, "fopen(%s): %m\n", opt.csv);
		goto out;
	}
	client_raise_fd_limit();
	rate_given = opt.rate > 0;
	if (!rate_given && opt.calibrate &&
	    calibrate_rate(&target, CALIBRATE_ENOUGH_S, 1, &opt.rate))
		opt.rate = 0;
	if (opt.rate && !rate_given)
		scale_calibrated(&opt);
	else if (opt.rate)
		printf("hash rate: %.3f M hashes/s (--rate)\n", opt.rate / 1e6);
	fflush(stdout);
	status = bench(&opt, &target, reqs, csv);
out:
	free(reqs);
	client_free(&target);
	return status;
}
