/* --concurrency: the closed loop (bench/closed.h). Both the number of
 * requests in flight and the duration must be given, for a closed loop
 * has no natural end and no natural size. */
#include "bench/client.h"
#include "bench/closed.h"
#include "bench/options.h"
#include "proto/proto.h"

#define MAX_CONCURRENCY 10000 /* threads */
#define MAX_HOLD 1000000      /* held searches, a descriptor each */

struct closed_cmd {
	struct options_host at;
	struct closed_params loop;
};

#define F(field) OPT_FIELD(struct closed_cmd, field)

static const struct opt opts[] = {
	{ "concurrency", "N", OPT_WHOLE, F(loop.concurrency), 1, MAX_CONCURRENCY, NULL, NULL },
	{ "duration", "SECONDS", OPT_MS, F(loop.duration_ms), 1, 86400000, NULL, NULL },
	/* The client's limit: a start below 2^64 - 2 - D must exist. */
	{ "difficulty", "D", OPT_WHOLE, F(loop.difficulty), 1, UINT64_MAX - 2, NULL,
	  "fresh requests, end = start + D" },
	{ "cached", NULL, OPT_FLAG, F(loop.cached), 0, 0, NULL,
	  "one request, answered once before the clock starts" },
	{ "priority", "P", OPT_WHOLE, F(loop.priority), PROTO_PRIORITY_MIN, PROTO_PRIORITY_MAX,
	  NULL, "of every request, 1 .. 16" },
	{ "hold", "N", OPT_WHOLE, F(loop.hold), 1, MAX_HOLD, NULL,
	  "meanwhile hold N searches that never end (priority 1, a 2^60 range each): "
	  "a full queue, or a job-table flood" },
	{ NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

static const struct closed_cmd defaults = { .loop = { .difficulty = 1, .priority = 1 } };

static int words(int n, char **w, void *params)
{
	struct closed_cmd *p = params;

	if (!p->loop.duration_ms)
		return options_complain("--concurrency needs --duration SECONDS");
	if (n != 2 || options_host(w, &p->at))
		return options_complain("--concurrency takes " OPTIONS_HOST_WORDS
					" and no other words");
	return 0;
}

/* Run the loop and print its report: closed_run's exit status, or 2
 * when the server's name does not resolve. */
static int run(void *params, struct out *o)
{
	struct closed_cmd *p = params;
	struct target target = { 0 };
	int status = 2;

	if (client_resolve(&target, p->at.host, p->at.port) == 0) {
		client_raise_fd_limit();
		status = closed_run(&target, &p->loop, o);
	}
	client_free(&target);
	return status;
}

const struct mode closed_mode = {
	"--concurrency", "HOST PORT --concurrency N --duration SECONDS",
	"--concurrency keeps N requests (1 .. 10000) in flight for SECONDS, a\n"
	"thread each (closed loop, as wrk), and prints requests/s, errors and\n"
	"latency percentiles:\n",
	opts, sizeof(struct closed_cmd), &defaults, OPT_NO_POLICY, words, run,
};
