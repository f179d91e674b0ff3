/* The cluster tests' client (scripts/cluster/cluster-test.sh, cluster-chaos.sh): a
 * hostile flood and a well-behaved client that keeps score, each from a
 * source address of its choice, so that the balancer sees them as
 * different peers (127.0.0.2 is as much this machine as 127.0.0.1).
 *
 *   cluster-client flood HOST PORT N [--from ADDR] [--seed S]
 *     N connections one after another, each a search of [2^62, 2^63] at
 *     priority 16 followed by a plain close(): the client that walks away.
 *   cluster-client hold HOST PORT N [--seed S] [--every MS]
 *     N connections at once to an HTTP server, held open a tenth of them
 *     silent, most sending a request's first bytes one every MS ms (a
 *     slow scraper), the rest garbage; until all are closed or 10 s pass.
 *   cluster-client keep HOST PORT N [--from ADDR] [--seed S] [--all 1]
 *     N connections at once, each a search of a range that holds no
 *     answer at priority 16 (with --all 1, of every 64-bit value, for a
 *     digest that is no value's), kept open until the client is killed:
 *     one peer that takes all it can (scripts/attack.sh). HOST and ADDR
 *     may be IPv6 addresses (::1).
 *   cluster-client drip HOST PORT N [--every MS]
 *     as hold, but every connection a slow scraper (scripts/metrics-test.sh).
 *   cluster-client steady HOST PORT SECONDS [--from ADDR] [--seed S]
 *                  [--every MS] [--range R] [--threads T]
 *     T loops, each asking every MS ms (or at once when late) for a value
 *     it knows, in a range of R values around it; a connection closed
 *     without a reply is asked again (a node that died or hung), and the
 *     wait counts from the first try. Prints the count, the answers, the
 *     wrong ones, the retries and p50/p99/max of the waits; exits 1 when
 *     an answer was wrong or missing.
 *
 * The key design choice: every answer is checked against the value the
 * question was made from, so "no answer is wrong" is asserted, not
 * assumed; and the seed is printed so that a run can be replayed. */
#include "lib/clock.h"
#include "lib/digest.h"
#include "lib/parse.h"
#include "proto/proto.h"
#include "tests/reply.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_THREADS 64
#define MAX_TRIES 20
#define REPLY_WAIT_MS 30000

struct run {
	const char *host, *from;
	unsigned port, threads, every_ms;
	uint64_t seed, range, count; /* count: flood's N, or steady's seconds */
	int slow_only;               /* drip: every connection of hold slow */
	int all;                     /* keep: each search every 64-bit value */
};

/* One steady loop's record. */
struct loop {
	const struct run *run;
	unsigned id;
	uint64_t asked, answered, wrong, retries;
	uint64_t *waits_us;
	size_t cap;
};

/* addr (an IPv4 or IPv6 address in words) and port into *a; its length,
 * or 0 when addr is none. */
static socklen_t address(const char *addr, unsigned port, struct sockaddr_storage *a)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)a;
	struct sockaddr_in *a4 = (struct sockaddr_in *)a;

	memset(a, 0, sizeof *a);
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		return sizeof *a4;
	}
	if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		return sizeof *a6;
	}
	return 0;
}

/* A connection to host:port from the address from (any when NULL), IPv4
 * or IPv6. The descriptor, or -errno. */
static int dial(const char *host, unsigned port, const char *from)
{
	struct sockaddr_storage to, me;
	socklen_t to_len = address(host, port, &to), me_len = from ? address(from, 0, &me) : 1;
	int one = 1, fd;

	if (!to_len || !me_len || (from && me.ss_family != to.ss_family))
		return -EINVAL;
	if ((fd = socket(to.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if ((from && bind(fd, (struct sockaddr *)&me, me_len) < 0) ||
	    connect(fd, (struct sockaddr *)&to, to_len) < 0) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

static int send_request(int fd, uint64_t x, uint64_t lo, uint64_t hi, uint8_t prio)
{
	struct proto_request q = { .start = lo, .end = hi, .priority = prio };
	uint8_t buf[PROTO_REQUEST_LEN];

	digest_of(x, q.digest);
	proto_encode_request(&q, buf);
	return send(fd, buf, sizeof buf, MSG_NOSIGNAL) == (ssize_t)sizeof buf ? 0 : -1;
}

/* A search of every 64-bit value, at priority 16, for a digest that is
 * no value's: x's with its first bit flipped. */
static int send_all(int fd, uint64_t x)
{
	struct proto_request q = { .start = 0, .end = UINT64_MAX, .priority = 16 };
	uint8_t buf[PROTO_REQUEST_LEN];

	digest_of(x, q.digest);
	q.digest[0] ^= 1;
	proto_encode_request(&q, buf);
	return send(fd, buf, sizeof buf, MSG_NOSIGNAL) == (ssize_t)sizeof buf ? 0 : -1;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ---- flood ---------------------------------------------------------------- */

static int flood(const struct run *r)
{
	uint64_t t0 = clock_ns(), s = r->seed, refused = 0;

	for (uint64_t i = 0; i < r->count; i++) {
		int fd = dial(r->host, r->port, r->from);

		if (fd < 0 || send_request(fd, splitmix(&s), 1ull << 62, 1ull << 63, 16) < 0)
			refused++;
		if (fd >= 0)
			close(fd);
	}
	printf("flood: %llu connections in %.2f s, %llu refused or reset at once\n",
	       (unsigned long long)r->count, (double)(clock_ns() - t0) / 1e9,
	       (unsigned long long)refused);
	return 0;
}

/* ---- keep ----------------------------------------------------------------- */

static volatile sig_atomic_t keep_ends;

static void keep_end(int sig)
{
	(void)sig;
	keep_ends = 1;
}

/* Close fd with a reset: its search is cancelled at once, as when a
 * client's host dies, instead of answered to nobody. */
static void reset(int fd)
{
	struct linger l = { 1, 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	close(fd);
}

static int keep(const struct run *r)
{
	int *fds = calloc(r->count, sizeof *fds);
	uint64_t s = r->seed, kept = 0;

	if (!fds)
		return 1;
	signal(SIGTERM, keep_end);
	signal(SIGINT, keep_end);
	for (uint64_t i = 0; i < r->count; i++) {
		uint64_t base = (splitmix(&s) >> 2) | (1ull << 61);

		fds[i] = dial(r->host, r->port, r->from);
		/* the digest of a value below its range: never found; or, of
		 * everything, a digest with a bit of a value's flipped: no
		 * value's */
		if (fds[i] >= 0 && (r->all ? send_all(fds[i], base) :
				    send_request(fds[i], base - 1, base, base + (1ull << 40), 16)) == 0)
			kept++;
	}
	printf("keep: %llu connections, %llu with a search sent\n",
	       (unsigned long long)r->count, (unsigned long long)kept);
	fflush(stdout);
	while (!keep_ends)
		pause();
	for (uint64_t i = 0; i < r->count; i++)
		if (fds[i] >= 0)
			reset(fds[i]);
	free(fds);
	return 0;
}

/* ---- hold ----------------------------------------------------------------- */

/* What connection i sends, a byte at a time: nothing (every tenth), a
 * request that never ends (slow), or bytes that are no HTTP (garbage). */
static const char *hold_script(uint64_t i, uint64_t *s, int slow_only)
{
	static char garbage[64];

	if (slow_only)
		return "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: 11111111111111111111111";
	if (i % 10 == 0)
		return "";
	if (i % 3 == 0) {
		for (size_t k = 0; k + 1 < sizeof garbage; k++)
			garbage[k] = (char)(splitmix(s) % 255 + 1);
		return garbage;
	}
	return "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: 11111111111111111111111";
}

static int hold(const struct run *r)
{
	int *fds = calloc(r->count, sizeof *fds);
	uint64_t s = r->seed, open_n = 0, closed = 0, until = clock_ms() + 10000;

	if (!fds)
		return 1;
	for (uint64_t i = 0; i < r->count; i++)
		if ((fds[i] = dial(r->host, r->port, r->from)) >= 0)
			open_n++;
	for (size_t step = 0; clock_ms() < until && closed < open_n; step++) {
		for (uint64_t i = 0; i < r->count; i++) {
			const char *script = hold_script(i, &s, r->slow_only);
			if (fds[i] < 0 || step >= strlen(script))
				continue;
			if (send(fds[i], script + step, 1, MSG_NOSIGNAL) != 1) {
				close(fds[i]);
				fds[i] = -1;
				closed++;
			}
		}
		usleep((useconds_t)r->every_ms * 1000u);
	}
	printf("hold: %llu of %llu connected, %llu closed by the server\n",
	       (unsigned long long)open_n, (unsigned long long)r->count,
	       (unsigned long long)closed);
	for (uint64_t i = 0; i < r->count; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return 0;
}

/* ---- steady --------------------------------------------------------------- */

/* Ask for x in [x - range/2, x + range/2] until a reply comes (at most
 * MAX_TRIES connections); 0 with the reply in *got, or -1. */
static int ask(struct loop *l, uint64_t x, uint64_t *got)
{
	const struct run *r = l->run;
	uint64_t lo = x - r->range / 2, hi = lo + r->range - 1;

	for (int t = 0; t < MAX_TRIES; t++) {
		int fd = dial(r->host, r->port, r->from), rc = -1;

		if (t)
			l->retries++;
		if (fd >= 0) {
			if (send_request(fd, x, lo, hi, 1) == 0)
				rc = reply_within(fd, got, REPLY_WAIT_MS);
			close(fd);
		}
		if (rc == 0)
			return 0;
		usleep(20000); /* a refused connection fails at once: pace it */
	}
	return -1;
}

static void record(struct loop *l, uint64_t us)
{
	if (l->answered >= l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		uint64_t *w = realloc(l->waits_us, cap * sizeof *w);

		if (!w)
			return;
		l->waits_us = w;
		l->cap = cap;
	}
	l->waits_us[l->answered] = us;
}

static void *steady_loop(void *arg)
{
	struct loop *l = arg;
	const struct run *r = l->run;
	uint64_t s = r->seed + l->id, start = clock_ns(), next = start;
	uint64_t end = start + r->count * 1000000000ull;

	while (clock_ns() < end) {
		uint64_t x = (splitmix(&s) >> 2) + r->range, got = 0, t0 = clock_ns();

		l->asked++;
		if (ask(l, x, &got) == 0) {
			record(l, (clock_ns() - t0) / 1000);
			l->answered++;
			if (got != x) {
				l->wrong++;
				fprintf(stderr, "steady: asked for %llu, got %llu\n",
					(unsigned long long)x, (unsigned long long)got);
			}
		}
		next += (uint64_t)r->every_ms * 1000000u;
		while (clock_ns() < next)
			usleep((useconds_t)((next - clock_ns()) / 1000 + 1));
		if (clock_ns() > next)
			next = clock_ns();
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Every loop's figures as one line; 0 when every question got its right
 * answer. */
static int report(struct loop *l, unsigned n)
{
	uint64_t asked = 0, answered = 0, wrong = 0, retries = 0, k = 0;
	uint64_t *all;

	for (unsigned i = 0; i < n; i++)
		answered += l[i].answered;
	all = calloc(answered ? answered : 1, sizeof *all);
	if (!all)
		return 1;
	for (unsigned i = 0; i < n; i++) {
		asked += l[i].asked;
		wrong += l[i].wrong;
		retries += l[i].retries;
		for (uint64_t j = 0; j < l[i].answered && l[i].waits_us; j++)
			all[k++] = l[i].waits_us[j];
		free(l[i].waits_us);
	}
	qsort(all, k, sizeof *all, cmp_u64);
	printf("steady: %llu asked, %llu answered, %llu wrong, %llu retries; wait "
	       "p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", (unsigned long long)asked,
	       (unsigned long long)answered, (unsigned long long)wrong,
	       (unsigned long long)retries, k ? all[k / 2] / 1e3 : 0,
	       k ? all[k * 99 / 100] / 1e3 : 0, k ? all[k - 1] / 1e3 : 0);
	free(all);
	return wrong || answered < asked;
}

static int steady(const struct run *r)
{
	struct loop loops[MAX_THREADS];
	pthread_t th[MAX_THREADS];

	memset(loops, 0, sizeof loops);
	for (unsigned i = 0; i < r->threads; i++) {
		loops[i].run = r;
		loops[i].id = i;
		if (pthread_create(&th[i], NULL, steady_loop, &loops[i]) != 0) {
			fprintf(stderr, "steady: pthread_create failed\n");
			return 1;
		}
	}
	for (unsigned i = 0; i < r->threads; i++)
		pthread_join(th[i], NULL);
	return report(loops, r->threads);
}

/* ---- the command line ----------------------------------------------------- */

static int usage(void)
{
	fputs("usage: cluster-client flood HOST PORT N [--from ADDR] [--seed S]\n"
	      "       cluster-client keep HOST PORT N [--from ADDR] [--seed S] [--all 1]\n"
	      "       cluster-client drip HOST PORT N [--every MS]\n"
	      "       cluster-client hold HOST PORT N [--seed S] [--every MS]\n"
	      "       cluster-client steady HOST PORT SECONDS [--from ADDR] [--seed S]\n"
	      "                      [--every MS] [--range R] [--threads T]\n", stderr);
	return 2;
}

static int parse(int argc, char **argv, struct run *r)
{
	uint64_t v;

	if (argc < 5 || parse_u64(argv[3], 1, 65535, &v) < 0)
		return -1;
	r->port = (unsigned)v;
	r->host = argv[2];
	if (parse_u64(argv[4], 1, 1000000, &r->count) < 0)
		return -1;
	for (int i = 5; i < argc; i += 2) {
		if (i + 1 == argc)
			return -1;
		if (strcmp(argv[i], "--from") == 0)
			r->from = argv[i + 1];
		else if (strcmp(argv[i], "--seed") == 0 && parse_u64(argv[i + 1], 0, UINT64_MAX, &v) == 0)
			r->seed = v;
		else if (strcmp(argv[i], "--every") == 0 && parse_u64(argv[i + 1], 1, 60000, &v) == 0)
			r->every_ms = (unsigned)v;
		else if (strcmp(argv[i], "--range") == 0 && parse_u64(argv[i + 1], 1, 1ull << 40, &v) == 0)
			r->range = v;
		else if (strcmp(argv[i], "--threads") == 0 && parse_u64(argv[i + 1], 1, MAX_THREADS, &v) == 0)
			r->threads = (unsigned)v;
		else if (strcmp(argv[i], "--all") == 0 && parse_u64(argv[i + 1], 0, 1, &v) == 0)
			r->all = (int)v;
		else
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct run r = { .every_ms = 100, .range = 1000, .threads = 1 };

	r.seed = clock_ns();
	if (argc < 2 || parse(argc, argv, &r) < 0)
		return usage();
	printf("seed %llu (--seed %llu replays it)\n", (unsigned long long)r.seed,
	       (unsigned long long)r.seed);
	fflush(stdout);
	if (strcmp(argv[1], "flood") == 0)
		return flood(&r);
	if (strcmp(argv[1], "steady") == 0)
		return steady(&r);
	if (strcmp(argv[1], "keep") == 0)
		return keep(&r);
	if (strcmp(argv[1], "drip") == 0) {
		r.slow_only = 1;
		return hold(&r);
	}
	if (strcmp(argv[1], "hold") == 0)
		return hold(&r);
	return usage();
}
