/* Connections as a set. Each is in at most one list: `timed` while reading
 * or writing (one timeout for all: arrival order is deadline order),
 * `lingering` after its reply, its job's waiters, or the graveyard. This
 * file alone moves a connection between lists; jobs.c alone sets c->job. */
#include "master/clients.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "master/net.h"
#include "shm/segment_create.h"
#include "proto/proxy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define ACCEPT_TRIES 16        /* accept failures (aborted connections) in a row */
#define LINGER_MS 2000         /* after the reply, what a client may still send */
#define LINGER_BYTES (64 * 1024)

/* Append c to l (c must be in no list). */
static void list_push(struct conn_list *l, struct conn *c)
{
	if (c->list)
		abort(); /* in two lists at once: a bug, which would corrupt both */
	TAILQ_INSERT_TAIL(&l->q, c, link);
	c->list = l;
	l->n++;
}

/* Remove c from whatever list holds it (no-op if none). */
static void list_remove(struct conn *c)
{
	if (!c->list)
		return;
	TAILQ_REMOVE(&c->list->q, c, link);
	c->list->n--;
	c->list = NULL;
}

/* c waits no more (no-op if it did not). */
static void wait_remove(struct clients *cl, struct conn *c)
{
	if (c->in_wait)
		TAILQ_REMOVE(&cl->waiting, c, wait_link);
	c->in_wait = 0;
}

void clients_init(struct clients *cl, int epfd, struct seg_stats *stats,
		  unsigned timeout_ms, uint64_t max_conns, uint32_t peer_conns)
{
	*cl = (struct clients){ .epfd = epfd, .stats = stats, .timeout_ms = timeout_ms,
				.max_conns = max_conns, .peer_conns = peer_conns };
	TAILQ_INIT(&cl->timed.q);
	TAILQ_INIT(&cl->lingering.q);
	TAILQ_INIT(&cl->graveyard.q);
	TAILQ_INIT(&cl->ready.q);
	TAILQ_INIT(&cl->waiting);
	peers_init(&cl->peers);
}

void clients_free(struct clients *cl)
{
	peers_free(&cl->peers);
}

/* Have epoll report events on c (0: errors and hang-ups only). */
static int arm(struct clients *cl, struct conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = &c->src };
	int op = c->watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;

	if (epoll_ctl(cl->epfd, op, c->src.fd, &ev) < 0) {
		int err = errno;

		log_error("epoll_ctl(%d): %s", c->src.fd, strerror(err));
		return -err;
	}
	c->watched = 1;
	return 0;
}

/* Out of the epoll set first: a worker forked a moment ago may still hold
 * a copy of the descriptor, and the set would go on reporting it. */
static void close_conn(struct clients *cl, struct conn *c)
{
	struct peer *pe;

	if (c->src.fd < 0)
		return;
	list_remove(c);
	wait_remove(cl, c);
	if (c->watched)
		epoll_ctl(cl->epfd, EPOLL_CTL_DEL, c->src.fd, NULL);
	close(c->src.fd);
	c->src.fd = -1;
	cl->open--;
	if (c->counted && (pe = peers_find(&cl->peers, c->peer))) {
		pe->conns--;
		peers_put(&cl->peers, pe);
	}
	c->counted = 0;
	list_push(&cl->graveyard, c);
}

void clients_drop(struct clients *cl, struct conn *c)
{
	shm_count(cl->stats->dropped, 1);
	close_conn(cl, c);
}

/* Out of descriptors. */
static void turned_away(struct clients *cl)
{
	uint64_t n = log_every_due(&cl->emfile);

	shm_count(cl->stats->dropped, 1);
	if (n)
		log_warn("out of file descriptors: turned %llu connection(s) away",
			 (unsigned long long)n);
}

/* Throw away what fd's client sent: closed over unread bytes, the
 * connection would be reset instead of ended. */
static void drain(int fd)
{
	uint8_t junk[512];

	(void)!read(fd, junk, sizeof junk);
}

/* A connection refused over a cap (why: which), counted in counter. */
static void refused(struct clients *cl, uint64_t *counter, const char *why)
{
	uint64_t n = log_every_due(&cl->refused);

	shm_count(*counter, 1);
	if (n)
		log_warn("refused %llu connection(s) since the last such line: the last %s",
			 (unsigned long long)n, why);
}

/* Room for one more connection in all? Else fd is closed, drained first
 * for a clean end of stream: -1. */
static int admit(struct clients *cl, int fd)
{
	if (cl->open < cl->max_conns)
		return 0;
	drain(fd);
	close(fd);
	refused(cl, &cl->stats->refused_full, "over the master's connection cap");
	return -1;
}

/* c's peer may hold one more connection: counted, 0; or -1, c closed. */
static int count_peer(struct clients *cl, struct conn *c)
{
	struct peer *pe = peers_get(&cl->peers, c->peer);

	if (!pe) {
		log_error("out of memory: turned a connection away");
		close_conn(cl, c);
		return -1;
	}
	if (pe->conns >= cl->peer_conns) {
		peers_put(&cl->peers, pe);
		drain(c->src.fd);
		close_conn(cl, c);
		refused(cl, &cl->stats->refused_peer_conns, "over its peer's connection cap");
		return -1;
	}
	pe->conns++;
	c->counted = 1;
	return 0;
}

/* Is the whole address addr one of the balancers'? */
static int from_proxy(const struct clients *cl, const uint8_t addr[16])
{
	for (unsigned i = 0; i < cl->nproxies; i++)
		if (memcmp(cl->proxies[i], addr, 16) == 0)
			return 1;
	return 0;
}

/* Read c's request, its balancer's PROXY header first (its peer then
 * counted): 1 when whole (off the deadline list, counted), 0 when more
 * must come, -1 when c is closed. A request that opens with the PROXY
 * signature from a source not trusted to send one is dropped: nobody
 * passes for a balancer. */
static int read_request(struct clients *cl, struct conn *c)
{
	enum conn_io io = conn_read(c);
	uint64_t n;

	if (io == CONN_PROXIED)
		io = count_peer(cl, c) < 0 ? CONN_ERROR : conn_read(c);
	if (io == CONN_MORE)
		return 0;
	if (io == CONN_DONE && memcmp(c->in, proxy_sig, PROXY_SIG_LEN) != 0) {
		list_remove(c);
		c->request_ns = clock_ns();
		shm_count(cl->stats->requests, 1);
		return 1;
	}
	if (io == CONN_DONE && (n = log_every_due(&cl->bad_proxy)))
		log_warn("refused %llu PROXY header(s) from sources not named by "
			 "--proxy-from", (unsigned long long)n);
	if (c->src.fd >= 0) /* else refused, and closed */
		clients_drop(cl, c);
	return -1;
}

void clients_refuse(struct clients *cl, struct conn *c)
{
	close_conn(cl, c);
	refused(cl, &cl->stats->refused_peer_searches, "over its peer's search cap");
}

/* A new connection: read its request at once (it usually came with the
 * connection), else wait for it. */
static void add(struct clients *cl, int fd, const struct sockaddr *peer)
{
	struct conn *c;
	int rc;

	if (admit(cl, fd) < 0)
		return;
	if (!(c = calloc(1, sizeof *c))) {
		close(fd);
		log_error("out of memory: turned a connection away");
		return;
	}
	c->src.fd = fd;
	c->src.kind = SRC_CONN;
	c->accept_ns = clock_ns();
	c->since_ms = c->accept_ns / 1000000u;
	conn_addr_of(c->peer, peer);
	cl->open++;
	shm_count(cl->stats->accepted, 1);
	list_push(&cl->timed, c);
	/* The balancer's Unix socket carries its connections alone. */
	if ((peer->sa_family == AF_UNIX || from_proxy(cl, c->peer)) &&
	    !(c->pp = malloc(PROXY_MAX))) {
		clients_drop(cl, c);
		return;
	}
	conn_peer_mask(c->peer);
	if (!c->pp && count_peer(cl, c) < 0)
		return;
	rc = read_request(cl, c);
	if (rc > 0)
		list_push(&cl->ready, c);
	else if (rc == 0 && arm(cl, c, EPOLLIN) < 0)
		clients_drop(cl, c);
}

struct conn *clients_ready(struct clients *cl)
{
	struct conn *c = TAILQ_FIRST(&cl->ready.q);

	if (c)
		list_remove(c);
	return c;
}

int clients_accept(struct clients *cl, int listen_fd)
{
	/* One connection an event: the listener is level-triggered, and a
	 * loop until EAGAIN costs every lone request a failed accept. */
	for (int i = 0; i < ACCEPT_TRIES; i++) {
		struct sockaddr_storage peer;
		socklen_t len;
		int fd, err = 0;
		uint64_t n;

		switch (net_accept(listen_fd, &fd, &peer, &len, &err)) {
		case NET_ACCEPTED:
			add(cl, fd, (const struct sockaddr *)&peer);
			return 0;
		case NET_NONE:
			return 0;
		case NET_TURNED_AWAY:
			turned_away(cl);
			return 0;
		case NET_EXHAUSTED:
			turned_away(cl);
			return 1;
		case NET_FAILED: /* ENOBUFS, ENOMEM...: that one is gone, try the next */
			if (err != ECONNABORTED && err != EPROTO &&
			    (n = log_every_due(&cl->accept_error)))
				log_warn("accept: %s (%llu failed since the last such line)",
					 strerror(err), (unsigned long long)n);
			break;
		}
	}
	return 0;
}

/* c's reply is out: counted, its time since accept into its outcome's
 * histogram, and times its priority into the score. */
static void answered(struct clients *cl, struct conn *c)
{
	struct seg_latency *l = &cl->stats->latency;
	uint64_t ns = clock_ns() - c->accept_ns;

	shm_count(cl->stats->answered, 1);
	if (c->outcome >= OUTCOME_COUNT)
		return;
	hist_add(&l->reply[c->outcome], ns);
	shm_count(l->score_ns, ns * c->prio);
}

/* Go on with c's reply after conn_reply or conn_write said io. */
static void replying(struct clients *cl, struct conn *c, enum conn_io io)
{
	switch (io) {
	case CONN_DONE:
		answered(cl, c);
		close_conn(cl, c);
		break;
	case CONN_LINGER:
		answered(cl, c);
		if (arm(cl, c, EPOLLIN) < 0) {
			close_conn(cl, c);
			break;
		}
		list_remove(c);
		c->since_ms = clock_ms();
		list_push(&cl->lingering, c);
		break;
	case CONN_MORE:
		if (c->list != &cl->timed) {
			list_remove(c);
			c->since_ms = clock_ms();
			list_push(&cl->timed, c);
			arm(cl, c, EPOLLOUT);
		}
		break;
	default:
		clients_drop(cl, c);
	}
}

void clients_reply(struct clients *cl, struct conn *c, uint64_t answer, unsigned outcome)
{
	c->outcome = outcome;
	wait_remove(cl, c);
	replying(cl, c, conn_reply(c, answer));
}

void clients_wait(struct clients *cl, struct conn *c, struct conn_list *waiters)
{
	c->state = CONN_WAITING;
	c->since_ms = clock_ms();
	list_remove(c);
	list_push(waiters, c);
	TAILQ_INSERT_TAIL(&cl->waiting, c, wait_link);
	c->in_wait = 1;
	arm(cl, c, 0);
}

enum client_news clients_event(struct clients *cl, struct conn *c,
			       uint32_t events)
{
	switch (c->state) {
	case CONN_READING:
		if (read_request(cl, c) > 0)
			return CLIENT_REQUEST;
		break;
	case CONN_WAITING:
		/* Only a reset or an error: a half-close still gets its answer. */
		return CLIENT_GONE;
	case CONN_WRITING:
		if (events & EPOLLERR)
			clients_drop(cl, c);
		else
			replying(cl, c, conn_write(c));
		break;
	case CONN_LINGERING:
		if (conn_linger(c, LINGER_BYTES) != CONN_MORE)
			close_conn(cl, c);
		break;
	}
	return CLIENT_NOTHING;
}

uint64_t clients_expire(struct clients *cl, uint64_t now_ms)
{
	uint64_t t = cl->timeout_ms, next = UINT64_MAX;
	struct conn *c;

	while ((c = TAILQ_FIRST(&cl->timed.q)) && c->since_ms + t <= now_ms) {
		log_debug("dropping a client too slow for %llu ms", (unsigned long long)t);
		shm_count(cl->stats->timeouts, 1);
		clients_drop(cl, c);
	}
	if (c)
		next = c->since_ms + t;
	while ((c = TAILQ_FIRST(&cl->lingering.q)) && c->since_ms + LINGER_MS <= now_ms)
		close_conn(cl, c);
	if (c && c->since_ms + LINGER_MS < next)
		next = c->since_ms + LINGER_MS;
	if ((c = TAILQ_FIRST(&cl->waiting)) && cl->max_wait_ms &&
	    c->since_ms + cl->max_wait_ms < next)
		next = c->since_ms + cl->max_wait_ms;
	return next;
}

struct conn *clients_overdue(struct clients *cl, uint64_t now_ms)
{
	struct conn *c = TAILQ_FIRST(&cl->waiting);
	uint64_t n;

	if (!c || !cl->max_wait_ms || c->since_ms + cl->max_wait_ms > now_ms)
		return NULL;
	wait_remove(cl, c);
	shm_count(cl->stats->expired, 1);
	if ((n = log_every_due(&cl->expired_said)))
		log_warn("closed %llu connection(s) unanswered after --max-wait %u s of waiting",
			 (unsigned long long)n, cl->max_wait_ms / 1000);
	return c;
}

uint64_t clients_owed(const struct clients *cl)
{
	return cl->open - cl->lingering.n;
}

void clients_close_unsent(struct clients *cl)
{
	struct conn *c = TAILQ_FIRST(&cl->timed.q), *next;

	for (; c; c = next) {
		next = TAILQ_NEXT(c, link);
		if (c->state == CONN_READING)
			clients_drop(cl, c);
	}
}

void clients_close_all(struct clients *cl)
{
	struct conn *c;

	while ((c = TAILQ_FIRST(&cl->timed.q)))
		clients_drop(cl, c);
	while ((c = TAILQ_FIRST(&cl->lingering.q)))
		close_conn(cl, c);
}

void clients_bury(struct clients *cl)
{
	struct conn *c;

	while ((c = TAILQ_FIRST(&cl->graveyard.q))) {
		list_remove(c);
		free(c->pp);
		free(c);
	}
}
