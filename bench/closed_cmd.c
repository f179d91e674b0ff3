/* --concurrency (see closed_cmd.h): both the number of requests in flight
 * and the duration must be given, for a closed loop has no natural end and
 * no natural size. */
#include "bench/closed_cmd.h"
#include "bench/client.h"

#include <errno.h>

#define MAX_CONCURRENCY 10000 /* threads */
#define MAX_HOLD 1000000      /* held searches, a descriptor each */

const char closed_cmd_usage[] =
	"HOST PORT --concurrency N --duration SECONDS\n"
	"           [--difficulty D] [--cached] [--priority P] [--hold N]\n";

const char closed_cmd_help[] =
	"--concurrency keeps N requests (1 .. 10000) in flight for SECONDS, a\n"
	"thread each (closed loop, as wrk), and prints requests/s, errors and\n"
	"latency percentiles:\n"
	"  --difficulty D  fresh requests, end = start + D (default 1)\n"
	"  --cached        one request, answered once before the clock starts\n"
	"  --priority P    of every request, 1 .. 16 (default 1)\n"
	"  --hold N        meanwhile hold N searches that never end (priority 1,\n"
	"                  a 2^60 range each): a full queue, or a job-table flood\n";

static const struct option options[] = {
	{ "concurrency", required_argument, NULL, 'C' },
	{ "duration", required_argument, NULL, 'd' },
	{ "difficulty", required_argument, NULL, 'D' },
	{ "cached", no_argument, NULL, 'k' },
	{ "priority", required_argument, NULL, 'p' },
	{ "hold", required_argument, NULL, 'H' },
	{ NULL, 0, NULL, 0 },
};

static void init(void *params)
{
	struct closed_cmd *p = params;

	*p = (struct closed_cmd){ .loop = { .difficulty = 1, .priority = 1 } };
}

static int option(int c, const char *arg, void *params)
{
	struct closed_params *p = &((struct closed_cmd *)params)->loop;

	switch (c) {
	case 'C':
		return options_whole("concurrency", arg, 1, MAX_CONCURRENCY, &p->concurrency);
	case 'd':
		return options_seconds("duration", arg, &p->duration_ms);
	case 'D':
		/* The client's limit: a start below 2^64 - 2 - D must exist. */
		return options_whole("difficulty", arg, 1, UINT64_MAX - 2, &p->difficulty);
	case 'k':
		p->cached = 1;
		break;
	case 'p':
		return options_priority(arg, &p->priority);
	case 'H':
		return options_whole("hold", arg, 1, MAX_HOLD, &p->hold);
	}
	return 0;
}

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

const struct options_parser closed_cmd_parser = {
	sizeof(struct closed_cmd), options, NULL, init, option, words,
};

int closed_cmd_run(void *params, struct out *o)
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
