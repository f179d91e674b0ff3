/* --rescore (see rescore_cmd.h). It takes the replay's words, HOST and
 * PORT included though nothing is sent (any host, any port: "x 1"), and
 * the replay's --quiet and --no-calibrate, which mean nothing here, so a
 * script rescores a run with the very words that made it. The CSV is read
 * whole before the new one is opened, so the two may be the same file. */
#include "bench/rescore_cmd.h"
#include "bench/runcsv.h"
#include "bench/score.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

const char rescore_cmd_usage[] =
	"HOST PORT SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA\n"
	"           --rescore CSV --rate HASHES_PER_S [--csv FILE]\n"
	"           [--schedule ORDER] [--no-RULE ...] [--workers N]\n"
	"           [--worker-rates R1,R2,...]\n";

const char rescore_cmd_help[] =
	"--rescore sends nothing: it scores the run a --csv of the same workload\n"
	"recorded, at --rate (e.g. the busy_rate of the server's --status --json\n"
	"after the run: the rate its workers hashed at while they served it), and\n"
	"--csv writes the run again with the ideal latencies at that rate.\n";

static const struct option options[] = {
	{ "rescore", required_argument, NULL, 'S' },
	{ "rate", required_argument, NULL, 'r' },
	{ "csv", required_argument, NULL, 'c' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "no-calibrate", no_argument, NULL, 'n' },
	{ NULL, 0, NULL, 0 },
};

static struct options_policy *policy(void *params)
{
	struct rescore_cmd *p = params;

	return &p->policy;
}

static void init(void *params)
{
	struct rescore_cmd *p = params;

	*p = (struct rescore_cmd){ 0 };
	options_policy_init(&p->policy);
}

static int option(int c, const char *arg, void *params)
{
	struct rescore_cmd *p = params;

	switch (c) {
	case 'S':
		p->run = arg;
		break;
	case 'r':
		return options_rate(arg, &p->rate);
	case 'c':
		p->csv = arg;
		break;
	}
	return 0; /* --quiet, --no-calibrate: nothing to say or measure */
}

static int words(int n, char **w, void *params)
{
	struct rescore_cmd *p = params;
	struct options_host at;
	int err;

	if (n != 9 || options_host(w, &at) ||
	    (err = options_workload(w + 2, &p->wl)) == -EINVAL)
		return options_complain("--rescore takes the replay's words, " OPTIONS_HOST_WORDS
					", then " OPTIONS_WORKLOAD_WORDS);
	if (!err && !p->rate)
		return options_complain("--rescore needs --rate HASHES_PER_S: the rate to "
					"score the run at");
	return err;
}

const struct options_parser rescore_cmd_parser = {
	sizeof(struct rescore_cmd), options, policy, init, option, words,
};

int rescore_cmd_run(void *params, struct out *o)
{
	struct rescore_cmd *p = params;
	uint64_t n = p->wl.total;
	struct wl_request *reqs = wl_requests(&p->wl);
	struct result *res = calloc(n, sizeof *res);
	struct score_run r = { .reqs = reqs, .res = res, .n = n, .rate = p->rate,
			       .policy = &p->policy.sim };
	FILE *csv = NULL;
	int status = 2;

	if (!res)
		fprintf(stderr, "revhash-bench: %" PRIu64 " results: out of memory\n", n);
	if (!reqs || !res)
		goto out;
	out_printf(o, "rate_mhs rate_from run", "hash rate: %.3f M hashes/s (%s); the run of %s\n",
		   p->rate / 1e6, "--rate", p->run);
	if (runcsv_load(p->run, reqs, n, res))
		goto out;
	if (p->csv && !(csv = fopen(p->csv, "w"))) {
		fprintf(stderr, "fopen(%s): %m\n", p->csv);
		goto out;
	}
	status = score_report(&r, csv, p->csv, o); /* runcsv_write closes csv */
out:
	free(reqs);
	free(res);
	return status;
}
