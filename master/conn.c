/* Connection I/O. Reads never ask for more than the request still needs, so
 * bytes after the 49th stay in the kernel until conn_drain throws them away;
 * a peer can therefore never make the master buffer anything. */
#include "master/conn.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void conn_list_push(struct conn_list *l, struct conn *c)
{
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

void conn_list_remove(struct conn *c)
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

size_t conn_take(struct conn *c, const uint8_t *data, size_t len)
{
	size_t want = PROTO_REQUEST_LEN - c->got;

	if (len > want)
		len = want;
	memcpy(c->in + c->got, data, len);
	c->got += (unsigned)len;
	if (c->got == PROTO_REQUEST_LEN && len > 0) {
		proto_decode_request(c->in, &c->req);
		c->prio = proto_priority(c->req.priority);
	}
	return len;
}

enum conn_io conn_read(struct conn *c)
{
	while (c->got < PROTO_REQUEST_LEN) {
		uint8_t buf[PROTO_REQUEST_LEN];
		ssize_t n = recv(c->fd, buf, PROTO_REQUEST_LEN - c->got, 0);
		if (n > 0) {
			conn_take(c, buf, (size_t)n);
			continue;
		}
		if (n == 0)
			return CONN_EOF;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? CONN_MORE : CONN_ERROR;
	}
	return CONN_DONE;
}

enum conn_io conn_drain(struct conn *c)
{
	uint8_t buf[512];

	/* Bounded: a flood of extra bytes cannot hold the loop here. */
	for (int i = 0; i < 16; i++) {
		ssize_t n = recv(c->fd, buf, sizeof buf, 0);
		if (n == 0)
			return CONN_EOF;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? CONN_MORE : CONN_ERROR;
		}
	}
	return CONN_MORE;
}

void conn_set_reply(struct conn *c, uint64_t answer)
{
	proto_encode_reply(answer, c->out);
	c->sent = 0;
	c->state = CONN_WRITING;
}

enum conn_io conn_write(struct conn *c)
{
	while (c->sent < PROTO_REPLY_LEN) {
		ssize_t n = send(c->fd, c->out + c->sent, PROTO_REPLY_LEN - c->sent,
				 MSG_NOSIGNAL);
		if (n > 0) {
			c->sent += (unsigned)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return CONN_MORE;
		return CONN_ERROR;
	}
	return CONN_DONE;
}
