/* Connections as a set. Each is in at most one list: `timed` while reading
 * or writing (one timeout for all, so arrival order is deadline order),
 * `lingering` after its reply, a job's waiters while waiting (the list
 * jobs.c hands clients_wait), or the graveyard once closed. This file
 * alone moves a connection between lists; jobs.c alone sets c->job. */
#include "master/clients.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "master/net.h"
#include "proto/proxy.h"
#include "shm/hist.h"

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
	c->next = NULL;
	c->prev = l->tail;
	if (l->tail)
		l->tail->next = c;
	else
		l->head = c;
	l->tail = c;
	c->list = l;
	l->n++;
}

/* Remove c from whatever list holds it (no-op if none). */
static void list_remove(struct conn *c)
{
	struct conn_list *l = c->list;

	if (!l)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		l->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		l->tail = c->prev;
	c->prev = c->next = NULL;
	c->list = NULL;
	l->n--;
}

/* c waits for its answer from now on: last in the waiting list. */
static void wait_push(struct clients *cl, struct conn *c)
{
	c->wait_next = NULL;
	c->wait_prev = cl->wait_tail;
	if (cl->wait_tail)
		cl->wait_tail->wait_next = c;
	else
		cl->wait_head = c;
	cl->wait_tail = c;
	c->in_wait = 1;
}

/* c waits no more (no-op if it did not). */
static void wait_remove(struct clients *cl, struct conn *c)
{
	if (!c->in_wait)
		return;
	if (c->wait_prev)
		c->wait_prev->wait_next = c->wait_next;
	else
		cl->wait_head = c->wait_next;
	if (c->wait_next)
		c->wait_next->wait_prev = c->wait_prev;
	else
		cl->wait_tail = c->wait_prev;
	c->wait_prev = c->wait_next = NULL;
	c->in_wait = 0;
}

void clients_init(struct clients *cl, int epfd, struct seg_stats *stats,
		  unsigned timeout_ms, uint64_t max_conns, uint32_t peer_conns)
{
	memset(cl, 0, sizeof *cl);
	cl->epfd = epfd;
	cl->stats = stats;
	cl->timeout_ms = timeout_ms;
	cl->max_conns = max_conns;
	cl->peer_conns = peer_conns;
	peers_init(&cl->peers);
}

void clients_trust_proxies(struct clients *cl, const uint8_t (*addrs)[16], unsigned n)
{
	cl->nproxies = n < CLIENTS_PROXIES_MAX ? n : CLIENTS_PROXIES_MAX;
	memcpy(cl->proxies, addrs, cl->nproxies * sizeof cl->proxies[0]);
}

void clients_free(struct clients *cl)
{
	peers_free(&cl->peers);
}

/* Have epoll report events on c (none but errors and hang-ups when 0). A
 * connection joins the epoll set only when it has to wait for something. */
static int arm(struct clients *cl, struct conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = &c->src };
	int op = c->watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;

	if (epoll_ctl(cl->epfd, op, c->src.fd, &ev) < 0) {
		int err = errno; /* before the log line's calls can change it */

		log_error("epoll_ctl(%d): %s", c->src.fd, strerror(err));
		return -err;
	}
	c->watched = 1;
	return 0;
}

/* Out of the epoll set first: closing alone would not do it while a worker
 * forked a moment ago still holds a copy of the descriptor (it closes what
 * it inherits, but maybe not yet), and the set would go on reporting a
 * connection that is freed after this batch. */
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

/* Out of descriptors: say so at most once a second, with a count. */
static void turned_away(struct clients *cl)
{
	uint64_t n = log_every_due(&cl->emfile);

	shm_count(cl->stats->dropped, 1);
	if (n)
		log_warn("out of file descriptors: turned %llu connection(s) away",
			 (unsigned long long)n);
}

/* c's whole request is in: off the deadline list, and counted. */
static void request_read(struct clients *cl, struct conn *c)
{
	list_remove(c);
	c->request_ns = clock_ns();
	shm_count(cl->stats->requests, 1);
}

/* Read and throw away what fd's client sent so far: closed over unread
 * bytes, its connection would be reset instead of ended. */
static void drain(int fd)
{
	uint8_t junk[512];

	(void)!read(fd, junk, sizeof junk);
}

/* A connection refused over a cap (why: which, for the log): counted in
 * counter, and said at most once a second. */
static void refused(struct clients *cl, uint64_t *counter, const char *why)
{
	uint64_t n = log_every_due(&cl->refused);

	shm_count(*counter, 1);
	if (n)
		log_warn("refused %llu connection(s) since the last such line: the last %s",
			 (unsigned long long)n, why);
}

/* A connection over the master's cap, before it has a record: what it
 * sent with its connection is read and thrown away first, so that it
 * gets a clean end of stream, not a reset, and nobody else notices. */
static void refuse(struct clients *cl, int fd)
{
	drain(fd);
	close(fd);
	refused(cl, &cl->stats->refused_full, "over the master's connection cap");
}

/* Room for one more connection in all? Else fd is refused: -1. */
static int admit(struct clients *cl, int fd)
{
	if (cl->open < cl->max_conns)
		return 0;
	refuse(cl, fd);
	return -1;
}

/* c's peer may hold one more connection: counted in its record, 0; or -1,
 * c closed (refused, or out of memory). */
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

/* A whole request that opens with the PROXY signature came from a source
 * not trusted to send one: refused (1), so that nobody can pass for a
 * balancer; else 0. */
static int bad_proxy(struct clients *cl, struct conn *c)
{
	uint64_t n;

	if (memcmp(c->in, proxy_sig, PROXY_SIG_LEN) != 0)
		return 0;
	if ((n = log_every_due(&cl->bad_proxy)))
		log_warn("refused %llu PROXY header(s) from sources not named by "
			 "--proxy-from", (unsigned long long)n);
	clients_drop(cl, c);
	return 1;
}

/* Read what c sent: its balancer's PROXY header first, then its peer is
 * counted, then the request. What conn_read says, but that the header is
 * handled here (CONN_ERROR, c closed, when its peer is refused). */
static enum conn_io take(struct clients *cl, struct conn *c)
{
	enum conn_io io = conn_read(c);

	if (io == CONN_PROXIED)
		io = count_peer(cl, c) < 0 ? CONN_ERROR : conn_read(c);
	return io;
}

void clients_refuse(struct clients *cl, struct conn *c)
{
	close_conn(cl, c);
	refused(cl, &cl->stats->refused_peer_searches, "over its peer's search cap");
}

/* A new connection: read its request right away (it often came with the
 * connection), else wait for it. */
static void add(struct clients *cl, int fd, const struct sockaddr *peer)
{
	struct conn *c;

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
	switch (take(cl, c)) {
	case CONN_DONE:
		if (bad_proxy(cl, c))
			break;
		request_read(cl, c);
		list_push(&cl->ready, c);
		break;
	case CONN_MORE:
		if (arm(cl, c, EPOLLIN) < 0)
			clients_drop(cl, c);
		break;
	default:
		if (c->src.fd >= 0) /* else refused, and closed */
			clients_drop(cl, c);
	}
}

struct conn *clients_ready(struct clients *cl)
{
	struct conn *c = cl->ready.head;

	if (c)
		list_remove(c);
	return c;
}

/* accept failed with err (ENOBUFS, ENOMEM...): said at most once a second,
 * with how many failed since, not once for each of a wake-up's tries. */
static void accept_failed(struct clients *cl, int err)
{
	uint64_t n = log_every_due(&cl->accept_error);

	if (n)
		log_warn("accept: %s (%llu failed since the last such line)", strerror(err),
			 (unsigned long long)n);
}

int clients_accept(struct clients *cl, int listen_fd)
{
	/* One connection an event: the listener is level-triggered, so epoll
	 * reports it again while more wait. Looping until EAGAIN cost a
	 * failed accept on the path of every lone request. */
	for (int i = 0; i < ACCEPT_TRIES; i++) {
		struct sockaddr_storage peer;
		socklen_t len;
		int fd, err = 0;

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
		case NET_FAILED:
			if (err != ECONNABORTED && err != EPROTO)
				accept_failed(cl, err);
			break; /* that one is gone: try the next */
		}
	}
	return 0;
}

/* c's reply is out, its last byte handed to the kernel: counted, and its
 * time since its accept into the latency of its outcome. */
static void answered(struct clients *cl, struct conn *c)
{
	shm_count(cl->stats->answered, 1);
	hist_reply(&cl->stats->latency, c->outcome, c->prio, clock_ns() - c->accept_ns);
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
	wait_push(cl, c);
	arm(cl, c, 0); /* errors and hang-ups only */
}

enum client_news clients_event(struct clients *cl, struct conn *c,
			       uint32_t events)
{
	switch (c->state) {
	case CONN_READING:
		switch (take(cl, c)) {
		case CONN_DONE:
			if (bad_proxy(cl, c))
				break;
			request_read(cl, c);
			return CLIENT_REQUEST;
		case CONN_MORE:
			break;
		default:
			if (c->src.fd >= 0) /* else refused, and closed */
				clients_drop(cl, c);
		}
		break;
	case CONN_WAITING:
		/* Nothing is read while waiting, so only a reset or an error
		 * gets here: an end of stream (a half-close) still gets its
		 * answer. */
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

	while ((c = cl->timed.head) && c->since_ms + t <= now_ms) {
		log_debug("dropping a client too slow for %llu ms", (unsigned long long)t);
		shm_count(cl->stats->timeouts, 1);
		clients_drop(cl, c);
	}
	if (c)
		next = c->since_ms + t;
	while ((c = cl->lingering.head) && c->since_ms + LINGER_MS <= now_ms)
		close_conn(cl, c);
	if (c && c->since_ms + LINGER_MS < next)
		next = c->since_ms + LINGER_MS;
	if ((c = cl->wait_head) && cl->max_wait_ms && c->since_ms + cl->max_wait_ms < next)
		next = c->since_ms + cl->max_wait_ms;
	return next;
}

struct conn *clients_overdue(struct clients *cl, uint64_t now_ms)
{
	struct conn *c = cl->wait_head;
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
	struct conn *c = cl->timed.head, *next;

	for (; c; c = next) {
		next = c->next;
		if (c->state == CONN_READING)
			clients_drop(cl, c);
	}
}

void clients_close_all(struct clients *cl)
{
	struct conn *c;

	while ((c = cl->timed.head))
		clients_drop(cl, c);
	while ((c = cl->lingering.head))
		close_conn(cl, c);
}

void clients_bury(struct clients *cl)
{
	struct conn *c;

	while ((c = cl->graveyard.head)) {
		list_remove(c);
		free(c->pp);
		free(c);
	}
}
