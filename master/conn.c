/* Connection I/O. Reads never ask for more than the request still needs:
 * bytes past the 49th stay in the kernel, where TCP's window stops a
 * client that streams more; only the bounded drain after the reply reads
 * beyond. */
#include "master/conn.h"
#include "proto/proxy.h"

#include <errno.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/* out as the IPv4 address v4, IPv4-mapped. */
static void as_ipv4(uint8_t out[16], const void *v4)
{
	memset(out, 0, 10);
	out[10] = out[11] = 0xff;
	memcpy(out + 12, v4, 4);
}

void conn_addr_of(uint8_t out[16], const struct sockaddr *sa)
{
	memset(out, 0, 16);
	if (sa->sa_family == AF_INET)
		as_ipv4(out, &((const struct sockaddr_in *)sa)->sin_addr);
	else if (sa->sa_family == AF_INET6)
		memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

/* The IPv6 forms that hold the IPv4 address of their host: NAT64's
 * 64:ff9b::/96, 6to4's 2002::/16 (bits 16 to 47), Teredo's 2001::/32 (the
 * last 32, inverted), IPv4-compatible ::/96, and ::1 as 127.0.0.1. 1 and
 * v4 when addr is one of them. */
static int embedded_ipv4(const uint8_t addr[16], uint8_t v4[4])
{
	static const uint8_t nat64[12] = { 0x00, 0x64, 0xff, 0x9b };
	static const uint8_t zeros[12];
	static const uint8_t teredo[4] = { 0x20, 0x01, 0x00, 0x00 };

	if (memcmp(addr, nat64, 12) == 0 ||
	    (memcmp(addr, zeros, 12) == 0 && (addr[12] | addr[13] | addr[14]) != 0)) {
		memcpy(v4, addr + 12, 4);
		return 1;
	}
	if (addr[0] == 0x20 && addr[1] == 0x02) {
		memcpy(v4, addr + 2, 4);
		return 1;
	}
	if (memcmp(addr, teredo, 4) == 0) {
		for (int i = 0; i < 4; i++)
			v4[i] = (uint8_t)~addr[12 + i];
		return 1;
	}
	if (IN6_IS_ADDR_LOOPBACK((const struct in6_addr *)addr)) {
		v4[0] = 127, v4[1] = 0, v4[2] = 0, v4[3] = 1;
		return 1;
	}
	return 0;
}

void conn_peer_mask(uint8_t addr[16])
{
	uint8_t v4[4];

	if (IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)addr))
		return;
	if (embedded_ipv4(addr, v4))
		as_ipv4(addr, v4);
	else
		memset(addr + 8, 0, 8);
}

/* Read at most len bytes from fd into buf: how many (> 0), or 0 and in
 * *why CONN_EOF, CONN_MORE or CONN_ERROR. */
static size_t receive(int fd, uint8_t *buf, size_t len, enum conn_io *why)
{
	for (;;) {
		ssize_t n = recv(fd, buf, len, 0);

		if (n > 0)
			return (size_t)n;
		if (n < 0 && errno == EINTR)
			continue;
		*why = n == 0 ? CONN_EOF :
		       errno == EAGAIN || errno == EWOULDBLOCK ? CONN_MORE : CONN_ERROR;
		return 0;
	}
}

/* The PROXY header of a balancer's connection: no byte past it is read. */
static enum conn_io read_proxy(struct conn *c)
{
	struct proxy_header h;
	long need;

	while ((need = proxy_parse(c->pp, c->pp_got, &h)) > 0) {
		enum conn_io why;
		size_t n = receive(c->src.fd, c->pp + c->pp_got, (size_t)need, &why);

		if (!n)
			return why;
		c->pp_got += (unsigned)n;
	}
	if (need < 0)
		return CONN_ERROR;
	if (!h.local) {
		memcpy(c->peer, h.addr, sizeof c->peer);
		conn_peer_mask(c->peer);
	}
	free(c->pp);
	c->pp = NULL;
	return CONN_PROXIED;
}

enum conn_io conn_read(struct conn *c)
{
	if (c->pp)
		return read_proxy(c);
	while (c->got < PROTO_REQUEST_LEN) {
		enum conn_io why;
		size_t n = receive(c->src.fd, c->in + c->got, PROTO_REQUEST_LEN - c->got, &why);

		if (!n)
			return why;
		c->got += (unsigned)n;
	}
	proto_decode_request(c->in, &c->req);
	c->prio = proto_priority(c->req.priority);
	return CONN_DONE;
}

enum conn_io conn_reply(struct conn *c, uint64_t answer)
{
	proto_encode_reply(answer, c->out);
	c->sent = 0;
	c->state = CONN_WRITING;
	return conn_write(c);
}

enum conn_io conn_write(struct conn *c)
{
	int unread = 0;

	while (c->sent < PROTO_REPLY_LEN) {
		ssize_t n = send(c->src.fd, c->out + c->sent, PROTO_REPLY_LEN - c->sent,
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
	/* The client sent bytes nobody read: linger over them. */
	if (ioctl(c->src.fd, FIONREAD, &unread) == 0 && unread > 0 &&
	    shutdown(c->src.fd, SHUT_WR) == 0) {
		c->state = CONN_LINGERING;
		return CONN_LINGER;
	}
	return CONN_DONE;
}

enum conn_io conn_linger(struct conn *c, uint64_t limit)
{
	uint8_t buf[4096];

	while (c->drained < limit) {
		enum conn_io why;
		size_t n = receive(c->src.fd, buf, sizeof buf, &why);

		if (!n)
			return why == CONN_EOF ? CONN_DONE : why;
		c->drained += n;
	}
	return CONN_DONE;
}
