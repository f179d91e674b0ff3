/* --ask: one question, asked whole or in pieces (see ask.h): K requests for
 * contiguous sub-ranges at once, each on its own connection, the first
 * reply that is not 0 the answer, every other search cancelled by the
 * reset its socket makes on close (client_send). The cut uses end - start
 * (the values less one): [0, 2^64-1] holds one value more than a uint64_t
 * counts. */
#include "bench/ask.h"
#include "bench/options.h"
#include "lib/clock.h"
#include "lib/digest.h"
#include "lib/os.h"
#include "lib/parse.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

/* A piece's connection: the reply's bytes so far. */
struct piece {
	int fd;
	size_t got;
	uint8_t reply[PROTO_REPLY_LEN];
};

/* Hex digits alone, checked first: sscanf's %x would take a sign or a
 * space too. */
int ask_parse_digest(const char *hex, uint8_t digest[PROTO_DIGEST_LEN])
{
	if (strlen(hex) != 2 * PROTO_DIGEST_LEN ||
	    strspn(hex, "0123456789abcdefABCDEF") != 2 * PROTO_DIGEST_LEN)
		return -EINVAL;
	for (size_t i = 0; i < PROTO_DIGEST_LEN; i++)
		sscanf(hex + 2 * i, "%2hhx", &digest[i]);
	return 0;
}

int ask_parse(char *const words[3], struct ask_params *p)
{
	if (ask_parse_digest(words[0], p->digest))
		return options_complain("--ask: DIGEST_HEX must be 64 hex digits, not '%s'",
					words[0]);
	if (parse_u64(words[1], 0, UINT64_MAX, &p->start) ||
	    parse_u64(words[2], 0, UINT64_MAX, &p->end))
		return options_complain("--ask: START and END must be whole numbers 0 .. "
					"18446744073709551615");
	return 0;
}

uint64_t ask_pieces(uint64_t start, uint64_t end, uint64_t k)
{
	if (start > end || k == 0)
		return 1;
	/* end - start + 1 values: fewer than k when end - start < k - 1. */
	return end - start < k - 1 ? end - start + 1 : k;
}

void ask_piece(uint64_t start, uint64_t end, uint64_t n, uint64_t i,
	       uint64_t *lo, uint64_t *hi)
{
	uint64_t span = end - start, q, r, size, longer;

	if (start > end || n <= 1) {
		*lo = start;
		*hi = end;
		return;
	}
	/* span + 1 values = q n + r + 1 with r + 1 <= n: n pieces of q, and
	 * r + 1 values more, one each to the first r + 1 pieces (all n of
	 * them when r + 1 == n, which makes every piece q + 1). */
	q = span / n;
	r = span % n;
	size = r + 1 == n ? q + 1 : q;
	longer = r + 1 == n ? 0 : r + 1;
	*lo = start + i * size + (i < longer ? i : longer);
	*hi = *lo + size - 1 + (i < longer);
}

/* Connect and send every piece; fds left -1 for pieces not sent. 0, or
 * -errno after saying which piece failed. */
static int send_pieces(struct target *t, const struct ask_params *p,
		       struct piece *pc, uint64_t n)
{
	struct wl_request q = { .priority = p->priority, .copy_of = -1 };

	memcpy(q.digest, p->digest, sizeof q.digest);
	for (uint64_t i = 0; i < n; i++) {
		ask_piece(p->start, p->end, n, i, &q.start, &q.end);
		pc[i].fd = client_send(t, &q);
		if (pc[i].fd < 0) {
			errno = -pc[i].fd;
			fprintf(stderr, "revhash-bench: --ask: piece %" PRIu64
				" [%" PRIu64 ", %" PRIu64 "]: %m\n", i, q.start,
				q.end);
			return pc[i].fd;
		}
		os_keepalive(pc[i].fd); /* a vanished host ends the wait sooner */
	}
	return 0;
}

/* Read what piece c has for us: 1 when its reply is whole, 0 when more
 * is to come, -errno when the connection ended first (-ENODATA on EOF). */
static int read_reply(struct piece *c)
{
	ssize_t n = recv(c->fd, c->reply + c->got, sizeof c->reply - c->got,
			 MSG_DONTWAIT);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -ENODATA;
	c->got += (size_t)n;
	return c->got == sizeof c->reply;
}

/* Wait for the replies: the first that is not 0 into *answer, else 0
 * once every piece replied. -ENODATA when a piece got no reply and no
 * other found the answer. */
static int first_answer(struct piece *pc, struct pollfd *pf, uint64_t n,
			const struct ask_params *p, uint64_t *answer)
{
	uint64_t left = n, lost = 0;
	uint64_t until = clock_ms() + (p->timeout_ms ? p->timeout_ms : ASK_TIMEOUT_S * 1000ull);

	for (uint64_t i = 0; i < n; i++)
		pf[i] = (struct pollfd){ .fd = pc[i].fd, .events = POLLIN };
	*answer = 0;
	while (left) {
		uint64_t now = clock_ms();

		if (now >= until) {
			fprintf(stderr, "revhash-bench: --ask: no answer within %.3g s (--timeout)\n",
				p->timeout_ms / 1e3);
			return -ETIMEDOUT;
		}
		if (poll(pf, n, (int)(until - now > INT32_MAX ? INT32_MAX : until - now)) < 0 &&
		    errno != EINTR)
			return -errno;
		for (uint64_t i = 0; i < n; i++) {
			int rc = pf[i].revents ? read_reply(&pc[i]) : 0;

			if (rc == 0)
				continue;
			pf[i].fd = -1; /* done with: poll skips it */
			left--;
			lost += rc < 0;
			*answer = rc > 0 ? proto_decode_reply(pc[i].reply) : 0;
			if (*answer && !digest_answers(*answer, p->digest, p->start, p->end)) {
				fprintf(stderr, "revhash-bench: --ask: piece %" PRIu64 " replied %"
					PRIu64 ", which is no answer (not in its range, or not "
					"hashing to the digest)\n", i, *answer);
				lost++;
				*answer = 0;
				continue;
			}
			if (*answer)
				return 0;
		}
	}
	if (lost)
		fprintf(stderr, "revhash-bench: --ask: %" PRIu64 " of %" PRIu64
			" pieces got no reply\n", lost, n);
	return lost ? -ENODATA : 0;
}

int ask_run(struct target *t, const struct ask_params *p, struct out *o)
{
	uint64_t n = ask_pieces(p->start, p->end, p->split), answer = 0;
	struct piece *pc = calloc(n, sizeof *pc);
	struct pollfd *pf = calloc(n, sizeof *pf);
	int err = -ENOMEM;

	if (pc && pf) {
		for (uint64_t i = 0; i < n; i++)
			pc[i].fd = -1;
		err = send_pieces(t, p, pc, n);
	} else {
		fprintf(stderr, "revhash-bench: --ask: out of memory\n");
	}
	if (!err)
		err = first_answer(pc, pf, n, p, &answer);
	for (uint64_t i = 0; pc && i < n; i++)
		if (pc[i].fd >= 0)
			close(pc[i].fd); /* a reset (client_send), cancelling the search */
	free(pc);
	free(pf);
	if (!err)
		out_printf(o, "answer", "%" PRIu64 "\n", answer);
	return err == -ENOMEM ? 2 : err ? 1 : 0;
}

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
	int status = client_resolve(&target, p->at.host, p->at.port) ? 2 :
		     ask_run(&target, &p->ask, o);

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
