/* --ask: one question (bench/ask.h). The words after the options are the
 * question, read by bench/ask.c, which says which of them is wrong; a
 * question is asked whole unless --split cuts it. */
#include "bench/ask.h"
#include "bench/client.h"
#include "bench/options.h"

struct ask_cmd {
	struct options_host at;
	struct ask_params ask;
};

#define F(field) OPT_FIELD(struct ask_cmd, field)

static const struct opt opts[] = {
	{ "ask", NULL, OPT_NONE, 0, 0, 0, 0, NULL, NULL },
	{ "priority", "P", OPT_WHOLE, F(ask.priority), PROTO_PRIORITY_MIN, PROTO_PRIORITY_MAX,
	  NULL, "of the request, 1 .. 16" },
	{ "split", "K", OPT_WHOLE, F(ask.split), 1, ASK_MAX_SPLIT, NULL,
	  "send K requests at once (1 .. 1024), for K contiguous pieces of the range "
	  "(fewer when it holds fewer values); the first answer that is not 0 wins and "
	  "the other pieces are reset (cancelled). Through a balancer that hashes the "
	  "range (scripts/cluster/cluster.sh) the pieces spread over its nodes" },
	{ "timeout", "SECONDS", OPT_MS, F(ask.timeout_ms), 1, 86400000, NULL,
	  "the longest wait for the answer" },
	{ NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

static const struct ask_cmd defaults = {
	.ask = { .priority = 1, .split = 1, .timeout_ms = ASK_TIMEOUT_S * 1000 },
};

static int words(int n, char **w, void *params)
{
	struct ask_cmd *p = params;

	if (n != 5 || options_host(w, &p->at))
		return options_complain("--ask takes " OPTIONS_HOST_WORDS
					", then DIGEST_HEX START END");
	return ask_parse(w + 2, &p->ask);
}

/* Ask and print the answer: ask_run's exit status, or 2 when the
 * server's name does not resolve. */
static int run(void *params, struct out *o)
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

const struct mode ask_mode = {
	"--ask", "HOST PORT --ask DIGEST_HEX START END",
	"--ask asks one question and prints the answer: the x in [START, END]\n"
	"whose SHA-256 (of its 8 bytes, little-endian) is DIGEST_HEX (64 hex\n"
	"digits), or 0 when there is none. Exit 0 on a reply, 1 when none came.\n"
	"It waits as long as the search takes, up to --timeout (a server whose\n"
	"host vanished is noticed in about 25 s); a connection it drops is\n"
	"reset, so an interrupted question cancels its search:\n",
	opts, sizeof(struct ask_cmd), &defaults, OPT_NO_POLICY, words, run,
};
