/* The replay, revhash-bench's default mode: the public client's workload
 * sent at its pace to one server (bench/replay.c), then scored against
 * ideal servers of the rate it calibrated. The workload and the rate are
 * ready before anything is sent, so that the run does nothing but send at
 * its deadlines. --rescore scores again, at another hash rate, a replay
 * that a --csv recorded, without sending anything: it takes the replay's
 * words (HOST and PORT unused: "x 1"), --quiet and --no-calibrate, so a
 * script rescores a run with the words that made it.
 *
 * Both print the replay's report: the public client's figures of a run,
 * and how good its score is against ideal servers of the same hash rate
 * on the same send times (bench/simulate.h), one following the server's
 * own policy and the best of every policy. The ideal servers replay the
 * run's own send times, not the workload's deadlines, so a client that
 * sent late is not counted against the server. */
#include "bench/calibrate.h"
#include "bench/client.h"
#include "bench/options.h"
#include "bench/replay.h"
#include "bench/runcsv.h"
#include "bench/stats.h"
#include "lib/os.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

struct replay_cmd {
	struct options_host at;
	struct wl_params wl;
	struct options_policy policy; /* the server's, for its ideal */
	const char *csv;              /* the per-request CSV, or NULL */
	double rate;                  /* --rate (hashes/s); 0: calibrate */
	int quiet, no_calibrate;
	const char *run;              /* --rescore's: the recorded run's CSV */
};

/* --- the report ------------------------------------------------------ */

/* "first-time: 80 requests, mean latency 12.345 ms, score contribution 9",
 * as the object key. */
static void print_part(struct out *o, const char *key, const char *name,
		       const struct replay_part *p, uint64_t total)
{
	out_object(o, key);
	out_printf(o, "- n", "%s: %" PRIu64 " requests, mean latency ", name, p->n);
	if (p->n)
		out_printf(o, "mean_ms", "%.3f ms", (double)(p->latency_ns / p->n / 1e6L));
	else
		out_printf(o, "", "n/a");
	out_printf(o, "score", ", score contribution %.0f\n", (double)(p->weighted / total));
	out_end(o);
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

/* "LABEL (POLICY): IDEAL, RATIO = X", or "RATIO: n/a (why)", as the
 * object key. */
static void print_ideal(struct out *o, const char *key, const char *label,
			const struct sim_policy *p, double ideal, const char *ratio,
			const struct replay_summary *s, uint64_t total)
{
	char name[96];
	double eff = 0;
	enum stats_eff verdict = stats_efficiency(ideal, s->score, &eff);

	out_object(o, key);
	out_printf(o, "- policy score", "%s (%s): %.0f, ", label,
		   describe(p, name, sizeof name), ideal);
	if (verdict == STATS_EFF_OK)
		out_printf(o, "- efficiency", "%s = %.3f", ratio, eff);
	else
		out_printf(o, "- efficiency_na", "%s: n/a (%s)", ratio,
			   stats_no_efficiency[verdict]);
	out_printf(o, "", "%s\n", s->ok < total ? " (but not every answer was right)" : "");
	out_end(o);
}

static void report(struct out *o, const struct replay_summary *s, uint64_t total,
		   double rate, const struct sim_policy *own, const struct sim_ideal *id)
{
	out_printf(o, "reliability_pct score", "Results: %.2f %" PRIu64 "\n",
		   100.0 * s->ok / total, (uint64_t)s->score);
	out_object(o, "latency_ms");
	out_printf(o, "p50 p99", "latency: p50 %.3f ms, p99 %.3f ms\n", s->p50_ms, s->p99_ms);
	out_end(o);
	out_printf(o, "repeats - fast_repeats",
		   "repeats: %" PRIu64 ", answered in under %d ms: %" PRIu64 "\n",
		   s->repeats, REPLAY_FAST_US / 1000, s->fast_repeats);
	print_part(o, "first", "first-time", &s->first, total);
	print_part(o, "repeated", "repeated", &s->repeat, total);
	if (!rate) {
		out_printf(o, "", "hash rate: unknown, so no ideal score\n");
		return;
	}
	out_object(o, "ideal");
	out_printf(o, "rate_mhs", "hash rate: %.3f M hashes/s\n", rate / 1e6);
	if (id) {
		print_ideal(o, "own", "ideal", own, id->own_score, "efficiency", s, total);
		print_ideal(o, "best", "best policy ideal", &id->best, id->best_score,
			    "efficiency vs best", s, total);
	} else {
		out_printf(o, "", "ideal score: not computed\n");
	}
	out_end(o);
}

/* Print the report of p's run, reqs and what became of them (res), at
 * p->rate (0: unknown, no ideal) into o, and write its CSV to csv, named
 * p->csv, when not NULL, and close it. The exit status: 0 when
 * every answer was right, else 1 (also when out of memory or the CSV
 * could not be written, said). */
static int score(const struct replay_cmd *p, const struct wl_request *reqs,
		 const struct result *res, FILE *csv, struct out *o)
{
	uint64_t n = p->wl.total;
	struct sim_ideal ideal = { 0 }, *id = NULL;
	struct replay_summary s;
	double *arrival = NULL;
	int status = 1;

	if (p->rate) {
		ideal.own_lat = calloc(n, sizeof *ideal.own_lat);
		ideal.best_lat = calloc(n, sizeof *ideal.best_lat);
		arrival = malloc(n * sizeof *arrival);
		id = &ideal;
	}
	if ((id && (!id->own_lat || !id->best_lat || !arrival)) ||
	    replay_summarize(reqs, res, n, &s)) {
		fprintf(stderr, "revhash-bench: out of memory\n");
		if (csv)
			fclose(csv); /* nothing to write */
		goto out;
	}
	for (uint64_t i = 0; id && i < n; i++)
		arrival[i] = res[i].send_ns / 1e3;
	if (id && sim_ideal(reqs, arrival, n, p->rate, &p->policy.sim, id))
		id = NULL;
	report(o, &s, n, p->rate, &p->policy.sim, id);
	if (csv && runcsv_write(csv, p->csv, reqs, res, n,
				id ? id->own_lat : NULL, id ? id->best_lat : NULL))
		goto out;
	status = s.ok == n ? 0 : 1;
out:
	free(ideal.own_lat);
	free(ideal.best_lat);
	free(arrival);
	return status;
}

/* --- the replay and --rescore ---------------------------------------- */

#define F(field) OPT_FIELD(struct replay_cmd, field)

static const struct opt opts[] = {
	{ "csv", "FILE", OPT_STRING, F(csv), 0, 0, NULL,
	  "every request, a row each, with its ideal latencies" },
	{ "quiet", NULL, OPT_FLAG, F(quiet), 0, 0, NULL, "no line per request" },
	{ "rate", "HASHES_PER_S", OPT_CALL, F(rate), 0, 0, options_rate,
	  "the ideal's hash rate, instead of a calibration's" },
	{ "no-calibrate", NULL, OPT_FLAG, F(no_calibrate), 0, 0, NULL,
	  "no calibration: no ideal, unless --rate" },
	{ NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

/* The replay's words, --rescore's too (p->run set), which needs --rate. */
static int words(int n, char **w, void *params)
{
	struct replay_cmd *p = params;
	int err;

	if (n != 9 || options_host(w, &p->at) ||
	    (err = options_workload(w + 2, &p->wl)) == -EINVAL)
		return options_complain("%s takes %s" OPTIONS_HOST_WORDS ", then "
					OPTIONS_WORKLOAD_WORDS, p->run ? "--rescore" : "the replay",
					p->run ? "the replay's words, " : "");
	if (!err && p->run && !p->rate)
		return options_complain("--rescore needs --rate HASHES_PER_S: the rate to "
					"score the run at");
	return err;
}

/* The rate the ideal servers hash at: --rate's, else calibrated on t
 * (unless --no-calibrate), else 0; said. Calibration hashes one request,
 * and without split one request gets one worker: the server as a whole
 * hashes as fast on each worker that has a CPU of its own. */
static void find_rate(struct replay_cmd *p, struct target *t, struct out *o)
{
	const struct sim_policy *s = &p->policy.sim;
	unsigned cpus = os_cpus_upto(RING_WORKERS);
	unsigned times = s->workers < cpus ? s->workers : cpus;
	double one = 0;

	if (p->rate) {
		out_printf(o, "rate_mhs rate_from", "hash rate: %.3f M hashes/s (%s)\n",
			   p->rate / 1e6, "--rate");
	} else if (!p->no_calibrate) {
		out_array(o, "calibration");
		calibrate_rate(t, CALIBRATE_ENOUGH_S, o, NULL, &one); /* one stays 0 on failure */
		out_end(o);
		if (policy_shares_jobs(&s->policy))
			times = 1;
		p->rate = one * times;
		if (one && times > 1)
			out_printf(o, "rate_mhs rate_from one_request_mhs times",
				   "hash rate: %.3f M hashes/s (%s: %.3f on one request, which one "
				   "worker hashes under --no-split; times %u workers with a CPU "
				   "each)\n", p->rate / 1e6, "calibrated", one / 1e6, times);
		else if (one)
			out_printf(o, "rate_mhs rate_from", "hash rate: %.3f M hashes/s (%s)\n",
				   one / 1e6, "calibrated");
	}
	fflush(stdout);
}

static const struct opt rescore_opts[] = {
	{ "rescore", "CSV", OPT_STRING, F(run), 0, 0, NULL, NULL },
	{ "rate", "HASHES_PER_S", OPT_CALL, F(rate), 0, 0, options_rate, NULL },
	{ "csv", "FILE", OPT_STRING, F(csv), 0, 0, NULL,
	  "the run again, with the ideal latencies at --rate" },
	{ "quiet", NULL, OPT_NONE, 0, 0, 0, 0, NULL, NULL },
	{ "no-calibrate", NULL, OPT_NONE, 0, 0, 0, 0, NULL, NULL },
	{ NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

/* Replay, or read the run that --rescore names, then report and write
 * the CSV: the exit status, 0 when every answer was right, 1 when one
 * was not, 2 when the run could not start or its CSV could not be read
 * or written. The run is read whole before --csv is opened, so the two
 * may name one file. */
static int run(void *params, struct out *o)
{
	struct replay_cmd *p = params;
	uint64_t n = p->wl.total;
	struct target target = { 0 };
	struct wl_request *reqs = wl_requests(&p->wl);
	struct result *res = calloc(n, sizeof *res);
	FILE *csv = NULL;
	int status = 2;

	if (!res)
		fprintf(stderr, "revhash-bench: %" PRIu64 " results: out of memory\n", n);
	if (!reqs || !res)
		goto out;
	if (p->run)
		out_printf(o, "rate_mhs rate_from run", "hash rate: %.3f M hashes/s (%s); the run "
			   "of %s\n", p->rate / 1e6, "--rate", p->run);
	if (p->run ? runcsv_load(p->run, reqs, n, res) :
		     client_resolve(&target, p->at.host, p->at.port))
		goto out;
	if (p->csv && !(csv = fopen(p->csv, "w"))) {
		fprintf(stderr, "fopen(%s): %m\n", p->csv);
		goto out;
	}
	if (!p->run)
		find_rate(p, &target, o);
	if (!p->run && replay_run(&target, reqs, n, p->wl.delay_us, p->quiet ? NULL : o, res)) {
		fprintf(stderr, "revhash-bench: out of memory\n");
		if (csv)
			fclose(csv); /* nothing to write */
		status = 1;
	} else {
		status = score(p, reqs, res, csv, o); /* runcsv_write closes csv */
	}
out:
	free(reqs);
	free(res);
	client_free(&target);
	return status;
}

const struct mode replay_mode = {
	"the replay", "HOST PORT SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA",
	"The replay (no mode's option) plays the public client's workload at its\n"
	"pace (open loop) and compares the score with an ideal server's: one\n"
	"following the policy of the server under test, described with the\n"
	"master's switches (default: wsrpt, preemptive, split, one worker per CPU\n"
	"here), and one following the best policy for this workload. With\n"
	"--worker-rates the server's workers hash at unequal rates (a GPU beside\n"
	"CPUs: their rates per second, or any numbers in that proportion); the\n"
	"ideal without split then gives the best job the fastest worker:\n",
	opts, sizeof(struct replay_cmd), NULL, offsetof(struct replay_cmd, policy), words, run,
};

const struct mode rescore_mode = {
	"--rescore", "HOST PORT SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA --rescore CSV "
	"--rate HASHES_PER_S",
	"--rescore sends nothing: it scores the run a --csv of the same workload\n"
	"recorded, at --rate (e.g. the busy_rate of the server's --status --json\n"
	"after the run: the rate its workers hashed at while they served it):\n",
	rescore_opts, sizeof(struct replay_cmd), NULL, offsetof(struct replay_cmd, policy), words,
	run,
};
