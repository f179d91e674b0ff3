/* --rescore: a replay that a --csv recorded, scored again at another hash
 * rate without sending anything (bench/score.c). It takes the replay's
 * words (HOST and PORT unused: "x 1"), --quiet and --no-calibrate, so a
 * script rescores a run with the words that made it. The CSV is read
 * whole before the new one is opened, so the two may be one file. */
#include "bench/options.h"
#include "bench/runcsv.h"
#include "bench/score.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

struct rescore_cmd {
	struct wl_params wl;          /* the recorded run's workload */
	struct options_policy policy; /* the server's, for its ideal */
	const char *run;              /* the recorded run's CSV */
	const char *csv;              /* the run written again, or NULL */
	double rate;                  /* --rate (hashes/s) */
};

#define F(field) OPT_FIELD(struct rescore_cmd, field)

static const struct opt opts[] = {
	{ "rescore", "CSV", OPT_STRING, F(run), 0, 0, NULL, NULL },
	{ "rate", "HASHES_PER_S", OPT_CALL, F(rate), 0, 0, options_rate, NULL },
	{ "csv", "FILE", OPT_STRING, F(csv), 0, 0, NULL,
	  "the run again, with the ideal latencies at --rate" },
	{ "quiet", NULL, OPT_NONE, 0, 0, 0, 0, NULL, NULL },
	{ "no-calibrate", NULL, OPT_NONE, 0, 0, 0, 0, NULL, NULL },
	{ NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

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

/* Score the run and print the replay's report: the exit status, 0 when
 * every answer was right, 1 when one was not, 2 when the CSV could not be
 * read or written. */
static int run(void *params, struct out *o)
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

const struct mode rescore_mode = {
	"--rescore", "HOST PORT SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA --rescore CSV "
	"--rate HASHES_PER_S",
	"--rescore sends nothing: it scores the run a --csv of the same workload\n"
	"recorded, at --rate (e.g. the busy_rate of the server's --status --json\n"
	"after the run: the rate its workers hashed at while they served it):\n",
	opts, sizeof(struct rescore_cmd), NULL, offsetof(struct rescore_cmd, policy), words, run,
};
