/* revhash-metrics PORT [--listen [ADDR:]MPORT]: serve a master's
 * scoreboard on /metrics for Prometheus, in a process of its own (never in
 * the master's loop), bounded against scrapers (docs/operations.md). HTTP
 * is libmicrohttpd's, one internal thread. Its timeout counts from a
 * connection's last byte, so a slow drip would keep its place for ever:
 * the main thread also shuts each connection's socket LIFE_MS after its
 * accept, and the library then closes it as one of its own. */
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "master/metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

#define CACHE_MS 200
#define CONNS_MAX 32       /* connections at once */
#define CONNS_PER_ADDR 8   /* of them from one address */
#define LIFE_MS 5000       /* a connection's whole life, from its accept */
#define SWEEP_MS 1000      /* the longest the sweep sleeps: below LIFE_MS */

struct conn {
	struct MHD_Connection *c;
	int fd;
	int shut;            /* past its time: its socket is shut */
	uint64_t since_ms;
};

struct exporter {
	unsigned port;       /* the master's */
	char *body;          /* the last rendering, and when it was made */
	uint64_t made_ms;
	struct log_every complaints; /* libmicrohttpd's: one a second */
	pthread_mutex_t lock; /* conns: the library's thread, the sweep */
	struct conn conns[CONNS_MAX];
	unsigned nconns;
	uint64_t swept;      /* connections shut for their time, not yet logged */
	uint64_t swept_logged_ms;
};

static const char usage[] =
	"usage: revhash-metrics PORT [--listen [ADDR:]MPORT]\n"
	"\n"
	"Serve the scoreboard of the revhash master on PORT (as master --status\n"
	"shows it) at http://ADDR:MPORT/metrics in the Prometheus text format.\n"
	"ADDR defaults to 127.0.0.1 (an IPv6 one in brackets: [::1]:9464),\n"
	"MPORT to PORT + 200.\n";

/* The body for /metrics: the last rendering while fresh, else a new one.
 * NULL when memory ran out. */
static const char *body(struct exporter *e)
{
	uint64_t now = clock_ms();
	char *fresh;
	size_t n;

	if (!e->body || now - e->made_ms >= CACHE_MS) {
		if (metrics_render(e->port, &fresh, &n) < 0)
			return NULL;
		free(e->body);
		e->body = fresh;
		e->made_ms = now;
	}
	return e->body;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *text,
			     const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	rc = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return rc;
}

/* GET (or HEAD) /metrics, answered at its first call: a body sent with
 * it is never read into memory. */
static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version,
			      const char *upload, size_t *upload_size, void **state)
{
	static const char text[] = "text/plain; charset=utf-8";
	struct exporter *e = cls;
	const char *b;

	(void)version;
	(void)upload;
	(void)state;
	*upload_size = 0;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n", text);
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, "see /metrics\n", text);
	if (!(b = body(e)))
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", text);
	return reply(c, MHD_HTTP_OK, b, "text/plain; version=0.0.4; charset=utf-8");
}

/* libmicrohttpd's messages: one line a second at most. */
static void complain(void *cls, const char *fmt, va_list ap)
{
	struct exporter *e = cls;
	char line[256];

	if (!log_every_due(&e->complaints))
		return;
	vsnprintf(line, sizeof line, fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	log_warn("http: %s (more of the kind are not logged for a second)", line);
}

/* The library says a connection opened or closed (before it closes the
 * socket: a socket in the list is still its connection's). */
static void noted(void *cls, struct MHD_Connection *c, void **context,
		  enum MHD_ConnectionNotificationCode code)
{
	struct exporter *e = cls;
	const union MHD_ConnectionInfo *info;

	(void)context;
	pthread_mutex_lock(&e->lock);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (info && e->nconns < CONNS_MAX)
			e->conns[e->nconns++] = (struct conn){ c, info->connect_fd, 0, clock_ms() };
	} else {
		for (unsigned i = 0; i < e->nconns; i++)
			if (e->conns[i].c == c) {
				e->conns[i] = e->conns[--e->nconns];
				break;
			}
	}
	pthread_mutex_unlock(&e->lock);
}

/* Shut the socket of every connection open for LIFE_MS; the ms until the
 * next one's time comes (SWEEP_MS at most). */
static uint64_t sweep(struct exporter *e)
{
	uint64_t now = clock_ms(), next = now + SWEEP_MS;

	pthread_mutex_lock(&e->lock);
	for (unsigned i = 0; i < e->nconns; i++) {
		struct conn *k = &e->conns[i];

		if (k->shut)
			continue;
		if (now - k->since_ms >= LIFE_MS) {
			shutdown(k->fd, SHUT_RDWR);
			k->shut = 1;
			e->swept++;
		} else if (k->since_ms + LIFE_MS < next) {
			next = k->since_ms + LIFE_MS;
		}
	}
	pthread_mutex_unlock(&e->lock);
	if (e->swept && now - e->swept_logged_ms >= 1000) {
		log_warn("closed %llu connection(s) still open %d s after their accept",
			 (unsigned long long)e->swept, LIFE_MS / 1000);
		e->swept = 0;
		e->swept_logged_ms = now;
	}
	return next - now;
}

/* Sweep until SIGTERM or SIGINT (blocked in every thread); its number. */
static int sweep_until_stopped(struct exporter *e, const sigset_t *stop)
{
	uint64_t ms = SWEEP_MS;
	int sig;

	for (;;) {
		struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };

		if ((sig = sigtimedwait(stop, NULL, &ts)) > 0)
			return sig;
		ms = sweep(e);
	}
}

/* --listen [ADDR:]MPORT, IPv4 or [IPv6], into ss. 0 or -EINVAL. */
static int parse_listen(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	const char *colon = strrchr(s, ':');
	char host[64] = "127.0.0.1";
	uint64_t port;

	if (colon) {
		size_t n = (size_t)(colon - s);
		if (n >= sizeof host)
			return -EINVAL;
		memcpy(host, s, n);
		host[n] = '\0';
		s = colon + 1;
	}
	if (parse_u64(s, 1, 65535, &port) < 0)
		return -EINVAL;
	memset(ss, 0, sizeof *ss);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		host[strlen(host) - 1] = '\0';
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		return inet_pton(AF_INET6, host + 1, &a6->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	a4->sin_family = AF_INET;
	a4->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &a4->sin_addr) == 1 ? 0 : -EINVAL;
}

static int parse(int argc, char **argv, struct exporter *e, struct sockaddr_storage *ss)
{
	uint64_t port;
	char def[16];

	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		fputs(usage, stdout);
		exit(0);
	}
	if ((argc != 2 && argc != 4) || (argc == 4 && strcmp(argv[2], "--listen") != 0)) {
		fputs(usage, stderr);
		return -EINVAL;
	}
	if (parse_u64(argv[1], 1, 65535, &port) < 0) {
		fprintf(stderr, "revhash-metrics: invalid PORT '%s' (1 .. 65535; "
			"--help says more)\n", argv[1]);
		return -EINVAL;
	}
	e->port = (unsigned)port;
	if (argc == 2 && port + 200 > 65535) {
		fprintf(stderr, "revhash-metrics: PORT + 200 (%llu), its default, is past "
			"65535: give --listen [ADDR:]PORT\n", (unsigned long long)port + 200);
		return -EINVAL;
	}
	snprintf(def, sizeof def, "%llu", (unsigned long long)port + 200);
	if (parse_listen(argc == 4 ? argv[3] : def, ss) < 0) {
		fprintf(stderr, "revhash-metrics: invalid --listen '%s' ([ADDR:]PORT)\n",
			argc == 4 ? argv[3] : def);
		return -EINVAL;
	}
	return 0;
}

static struct MHD_Daemon *serve(struct exporter *e, struct sockaddr_storage *ss)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;

	if (ss->ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* The logger first: the library says so of any option before it. */
	return MHD_start_daemon(flags, 0, NULL, NULL, handle, e,
		MHD_OPTION_EXTERNAL_LOGGER, complain, e,
		MHD_OPTION_NOTIFY_CONNECTION, noted, e,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)ss,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNS_MAX,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)CONNS_PER_ADDR,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)(LIFE_MS / 1000),
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
		MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)64,
		MHD_OPTION_END);
}

int main(int argc, char **argv)
{
	struct exporter e = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	sigset_t stop;
	int sig;

	if (parse(argc, argv, &e, &ss) < 0)
		return 2;
	/* Before the daemon's thread starts: it inherits the mask. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (setpriority(PRIO_PROCESS, 0, 10) < 0)
		log_warn("setpriority(10): %s", strerror(errno));
	if (!(d = serve(&e, &ss))) {
		log_error("revhash-metrics: cannot serve on %s (taken, or not an address here)",
			  argc == 4 ? argv[3] : "the default port");
		return 1;
	}
	log_info("serving the metrics of the master on port %u", e.port);
	sig = sweep_until_stopped(&e, &stop);
	MHD_stop_daemon(d);
	free(e.body);
	log_info("stopped by signal %d", sig);
	return 0;
}
