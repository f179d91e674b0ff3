/* The bench's side of the wire: one request per connection, each exchange
 * bounded as a whole (connect, send, and a reply that may trickle in),
 * so that a dead, stuck or slow server costs a "missing", never a hang.
 * The bound rides on the sockets' own timeouts, re-armed only once an
 * exchange has spent some of it. */
#include "bench/client.h"
#include "proto/proto.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#define REARM_NS 1000000 /* spent before a wait: the wait gets what is left */

int client_resolve(struct target *t, const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	int rc = getaddrinfo(host, port, &hints, &t->list);

	if (rc) {
		fprintf(stderr, "getaddrinfo(%s, %s): %s\n", host, port,
			gai_strerror(rc));
		return -EINVAL;
	}
	for (struct addrinfo *a = t->list; a; a = a->ai_next)
		t->n++;
	atomic_init(&t->good, 0);
	return 0;
}

static int64_t timeout_of(const struct target *t)
{
	return t->timeout_ns > 0 ? t->timeout_ns : CLIENT_TIMEOUT_S * 1000000000LL;
}

static struct timeval timeval_of(int64_t ns)
{
	return (struct timeval){ .tv_sec = ns / 1000000000,
				 .tv_usec = ns % 1000000000 / 1000 };
}

/* Let the next receive on fd wait no later than deadline: 0, or
 * -ETIMEDOUT when it has passed. */
static int arm(int fd, int64_t deadline)
{
	int64_t left = deadline - (int64_t)clock_ns();
	struct timeval tv = timeval_of(left);

	if (left < 1000) /* a zero timeval would mean no bound at all */
		return -ETIMEDOUT;
	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) ? -errno : 0;
}

static int open_socket(const struct addrinfo *a, int64_t timeout)
{
	struct timeval tv = timeval_of(timeout);
	int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
			a->ai_protocol);

	if (fd < 0)
		return -errno;
	/* On Linux SO_SNDTIMEO bounds connect() too. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Connect to the first address that answers; *begin is the time just
 * before the first connect(), where latency starts. */
static int target_connect(struct target *t, int64_t *begin)
{
	size_t first = atomic_load(&t->good);
	int err = -EADDRNOTAVAIL;

	*begin = 0;
	for (size_t k = 0; k < t->n; k++) {
		size_t i = (first + k) % t->n;
		const struct addrinfo *a = t->list;
		int fd;

		for (size_t j = 0; j < i; j++)
			a = a->ai_next;
		if ((fd = open_socket(a, timeout_of(t))) < 0)
			return fd;
		if (!*begin)
			*begin = (int64_t)clock_ns();
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
			atomic_store(&t->good, i);
			return fd;
		}
		/* A connect() cut short by SO_SNDTIMEO says EINPROGRESS. */
		err = errno == EINPROGRESS ? -ETIMEDOUT : -errno;
		close(fd);
	}
	return err;
}

/* Read exactly len bytes by deadline; an early EOF is -ENODATA. The
 * socket's timeout is the whole bound, so it is cut to what is left only
 * once part of the bound is spent (a slow connect, a partial reply). */
static int recv_all(int fd, uint8_t *buf, size_t len, int64_t deadline,
		    int64_t timeout)
{
	int err;

	if ((int64_t)clock_ns() > deadline - timeout + REARM_NS &&
	    (err = arm(fd, deadline)) < 0)
		return err;
	while (len) {
		ssize_t n = recv(fd, buf, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (n == 0)
			return -ENODATA;
		buf += n;
		len -= (size_t)n;
		if (len && (err = arm(fd, deadline)) < 0)
			return err;
	}
	return 0;
}

/* Connect and send q; *begin is when latency starts. fd or -errno. The
 * request goes into a new socket's empty buffer: one blocking send takes
 * it whole, unless its timeout cuts it short. */
static int send_request(struct target *t, const struct wl_request *q,
			int64_t *begin)
{
	struct proto_request pr = { .start = q->start, .end = q->end,
				    .priority = q->priority };
	uint8_t req[PROTO_REQUEST_LEN];
	ssize_t n;
	int fd, err;

	memcpy(pr.digest, q->digest, sizeof pr.digest);
	proto_encode_request(&pr, req);
	fd = target_connect(t, begin);
	if (!*begin)
		*begin = (int64_t)clock_ns();
	if (fd < 0)
		return fd;
	do
		n = send(fd, req, sizeof req, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof req)
		return fd;
	err = n < 0 && errno != EAGAIN ? -errno : -ETIMEDOUT;
	close(fd);
	return err;
}

int client_send(struct target *t, const struct wl_request *q)
{
	struct linger reset = { .l_onoff = 1, .l_linger = 0 };
	int64_t begin;
	int fd = send_request(t, q, &begin);

	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
	return fd;
}

int client_exchange(struct target *t, const struct wl_request *q,
		    uint64_t *reply, int64_t *begin, int64_t *end)
{
	uint8_t rep[PROTO_REPLY_LEN];
	int64_t timeout = timeout_of(t);
	int fd = send_request(t, q, begin), err;

	if (fd < 0) {
		*end = (int64_t)clock_ns();
		return fd;
	}
	err = recv_all(fd, rep, sizeof rep, *begin + timeout, timeout);
	*end = (int64_t)clock_ns();
	close(fd);
	if (!err)
		*reply = proto_decode_reply(rep);
	return err;
}

void client_free(struct target *t)
{
	if (t->list)
		freeaddrinfo(t->list);
	t->list = NULL;
}
