/* --ask (see ask_cmd.h). The words after the options are the question,
 * read by bench/ask.c, which says which of them is wrong; a question is
 * asked whole unless --split cuts it. */
#include "bench/ask_cmd.h"
#include "bench/client.h"

#include <errno.h>

const char ask_cmd_usage[] =
	"HOST PORT --ask DIGEST_HEX START END [--priority P]\n"
	"           [--split K] [--timeout SECONDS]\n";

const char ask_cmd_help[] =
	"--ask asks one question and prints the answer: the x in [START, END]\n"
	"whose SHA-256 (of its 8 bytes, little-endian) is DIGEST_HEX (64 hex\n"
	"digits), or 0 when there is none. Exit 0 on a reply, 1 when none came.\n"
	"It waits as long as the search takes, up to --timeout (default 3600 s;\n"
	"a server whose host vanished is noticed in about 25 s); a connection it\n"
	"drops is reset, so an interrupted question cancels its search:\n"
	"  --priority P    of the request, 1 .. 16 (default 1)\n"
	"  --split K       send K requests at once (1 .. 1024, default 1), for K\n"
	"                  contiguous pieces of the range (fewer when it holds\n"
	"                  fewer values); the first answer that is not 0 wins\n"
	"                  and the other pieces are reset (cancelled). Through a\n"
	"                  balancer that hashes the range (scripts/cluster/cluster.sh)\n"
	"                  the pieces spread over its nodes\n";

static const struct option options[] = {
	{ "ask", no_argument, NULL, 'A' },
	{ "priority", required_argument, NULL, 'p' },
	{ "split", required_argument, NULL, 'K' },
	{ "timeout", required_argument, NULL, 'T' },
	{ NULL, 0, NULL, 0 },
};

static void init(void *params)
{
	struct ask_cmd *p = params;

	*p = (struct ask_cmd){ .ask = { .priority = 1, .split = 1,
					.timeout_ms = ASK_TIMEOUT_S * 1000 } };
}

static int option(int c, const char *arg, void *params)
{
	struct ask_params *p = &((struct ask_cmd *)params)->ask;

	switch (c) {
	case 'p':
		return options_priority(arg, &p->priority);
	case 'K':
		return options_whole("split", arg, 1, ASK_MAX_SPLIT, &p->split);
	case 'T':
		return options_seconds("timeout", arg, &p->timeout_ms);
	}
	return 0; /* --ask */
}

static int words(int n, char **w, void *params)
{
	struct ask_cmd *p = params;

	if (n != 5 || options_host(w, &p->at))
		return options_complain("--ask takes " OPTIONS_HOST_WORDS
					", then DIGEST_HEX START END");
	return ask_parse(w + 2, &p->ask);
}

const struct options_parser ask_cmd_parser = {
	sizeof(struct ask_cmd), options, NULL, init, option, words,
};

int ask_cmd_run(void *params, struct out *o)
{
	struct ask_cmd *p = params;
	struct target target = { 0 };
	int status = 2;

	if (client_resolve(&target, p->at.host, p->at.port) == 0) {
		client_raise_fd_limit();
		status = ask_run(&target, &p->ask, o);
	}
	client_free(&target);
	return status;
}
