/* The replay, revhash-bench's default mode: the public client's workload
 * sent at its pace to one server (bench/replay.c), then scored against
 * ideal servers of the rate it calibrated (bench/score.c). The workload
 * and the rate are ready before anything is sent, so that the run does
 * nothing but send at its deadlines. */
#include "bench/calibrate.h"
#include "bench/client.h"
#include "bench/options.h"
#include "bench/replay.h"
#include "bench/score.h"
#include "lib/os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

struct replay_cmd {
	struct options_host at;
	struct wl_params wl;
	struct options_policy policy; /* the server's, for its ideal */
	const char *csv;              /* the per-request CSV, or NULL */
	double rate;                  /* --rate (hashes/s); 0: calibrate */
	int quiet, no_calibrate;
};

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

static int words(int n, char **w, void *params)
{
	struct replay_cmd *p = params;
	int err;

	if (n != 9 || options_host(w, &p->at) ||
	    (err = options_workload(w + 2, &p->wl)) == -EINVAL)
		return options_complain("the replay takes " OPTIONS_HOST_WORDS ", then "
					OPTIONS_WORKLOAD_WORDS);
	return err;
}

/* Calibration hashes one request, and without split one request gets one
 * worker: the server as a whole hashes as fast on each worker that has a
 * CPU of its own. Print the rate the ideal will use, and why. */
static void scale_calibrated(struct replay_cmd *p, struct out *o)
{
	const struct sim_policy *s = &p->policy.sim;
	unsigned cpus = os_cpus_upto(RING_WORKERS);
	unsigned times = s->workers < cpus ? s->workers : cpus;
	double one = p->rate;

	if (policy_shares_jobs(&s->policy) || times == 1) {
		out_printf(o, "rate_mhs rate_from", "hash rate: %.3f M hashes/s (%s)\n",
			   one / 1e6, "calibrated");
		return;
	}
	p->rate = one * times;
	out_printf(o, "rate_mhs rate_from one_request_mhs times",
		   "hash rate: %.3f M hashes/s (%s: %.3f on one request, which one worker "
		   "hashes under --no-split; times %u workers with a CPU each)\n",
		   p->rate / 1e6, "calibrated", one / 1e6, times);
}

/* The rate the ideal servers hash at: --rate's, else calibrated on t
 * (unless --no-calibrate), else 0; said. */
static void find_rate(struct replay_cmd *p, struct target *t, struct out *o)
{
	int err;

	if (p->rate) {
		out_printf(o, "rate_mhs rate_from", "hash rate: %.3f M hashes/s (%s)\n",
			   p->rate / 1e6, "--rate");
	} else if (!p->no_calibrate) {
		out_array(o, "calibration");
		err = calibrate_rate(t, CALIBRATE_ENOUGH_S, o, NULL, &p->rate);
		out_end(o);
		if (err)
			p->rate = 0;
		else if (p->rate)
			scale_calibrated(p, o);
	}
	fflush(stdout);
}

/* Send the workload, report, and return the exit status. */
static int play(struct replay_cmd *p, struct target *t,
		const struct wl_request *reqs, FILE *csv, struct out *o)
{
	struct score_run r = { .reqs = reqs, .n = p->wl.total, .rate = p->rate,
			       .policy = &p->policy.sim };
	struct result *res = calloc(r.n, sizeof *res);
	int status = 1;

	if (!res || replay_run(t, reqs, r.n, p->wl.delay_us, p->quiet ? NULL : o, res)) {
		fprintf(stderr, "revhash-bench: out of memory\n");
	} else {
		r.res = res;
		status = score_report(&r, csv, p->csv, o);
	}
	free(res);
	return status;
}

/* Replay, report, write the CSV: the exit status, 0 when every answer
 * was right, 1 when one was not, 2 when the run could not start. */
static int run(void *params, struct out *o)
{
	struct replay_cmd *p = params;
	struct target target = { 0 };
	struct wl_request *reqs = wl_requests(&p->wl);
	FILE *csv = NULL;
	int status = 2;

	if (!reqs || client_resolve(&target, p->at.host, p->at.port))
		goto out;
	if (p->csv && !(csv = fopen(p->csv, "w"))) {
		fprintf(stderr, "fopen(%s): %m\n", p->csv);
		goto out;
	}
	find_rate(p, &target, o);
	status = play(p, &target, reqs, csv, o);
out:
	free(reqs);
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
