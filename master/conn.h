/* One client connection: read exactly 49 bytes across any number of partial
 * reads, wait for the answer without reading, write 8 bytes across partial
 * writes, then close (lingering when the client sent more than asked). The
 * byte handling (conn_take) is separate from the socket calls so that tests
 * and the fuzzer can feed it arbitrary streams. Which list a connection is
 * in, and when it is closed, is the connection set's (clients.c). */
#ifndef REVHASH_CONN_H
#define REVHASH_CONN_H

#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include "proto/proto.h"
#include "master/source.h"

enum conn_state {
	CONN_READING = 0, /* the request is not complete */
	CONN_WAITING,     /* for its answer: nothing is read meanwhile */
	CONN_WRITING,     /* the reply, across partial writes */
	CONN_LINGERING,   /* answered; reading what the client still sends */
};
enum conn_io {
	CONN_MORE = 0, /* not yet: wait for the socket */
	CONN_DONE,     /* complete */
	CONN_LINGER,   /* the reply is out, but the client sent more than its
	                  request: half-closed, drain it before closing */
	CONN_EOF,      /* the client closed its side */
	CONN_ERROR,    /* the connection failed */
	CONN_PROXIED,  /* the balancer's PROXY header is read: c->peer is now
	                  the client it forwards (read on for the request) */
};

struct job; /* what a waiting connection waits on (master/jobs.c) */

struct conn {
	struct source src;          /* first: what epoll hands back */
	enum conn_state state;
	unsigned got;               /* request bytes read */
	unsigned sent;              /* reply bytes written */
	unsigned prio;              /* priority used for ranking (1..16) */
	unsigned outcome;           /* what its reply says (enum seg_outcome) */
	uint8_t in[PROTO_REQUEST_LEN];
	uint8_t out[PROTO_REPLY_LEN];
	struct proto_request req;
	uint8_t peer[16];           /* the client's peer (see conn_peer_of) */
	uint8_t *pp;                /* a PROXY header, while one is read first
	                               (PROXY_MAX bytes; NULL: none expected) */
	unsigned pp_got;            /* its bytes read */
	int counted;                /* in its peer's record (clients.c) */
	struct job *job;            /* while waiting */
	uint64_t since_ms;          /* the state's deadline counts from here */
	uint64_t accept_ns, request_ns; /* for the stage times */
	uint64_t drained;           /* bytes thrown away while lingering */
	int watched;                /* in the epoll set (only when it must wait) */
	struct conn *prev, *next;   /* in at most one conn_list at a time */
	struct conn_list *list;
	struct conn *wait_prev, *wait_next; /* while waiting: every waiting
	                               connection, oldest first (clients.c) */
	int in_wait;                /* in that list */
};

/* An intrusive doubly linked list of connections, oldest first (its
 * operations: clients.c). */
struct conn_list {
	struct conn *head, *tail;
	size_t n;
};

/* The peer of the client's address sa, in out: an IPv4 address (as
 * IPv4-mapped IPv6), or the /64 prefix of an IPv6 one, the part one host
 * usually controls. An IPv6 address that is an IPv4 host's (NAT64, 6to4,
 * Teredo, IPv4-compatible; ::1, 127.0.0.1's twin) is that IPv4 peer: one
 * host, one share, where the address tells. */
void conn_peer_of(uint8_t out[16], const struct sockaddr *sa);
/* The whole address of sa in out, IPv4 as IPv4-mapped IPv6. */
void conn_addr_of(uint8_t out[16], const struct sockaddr *sa);
/* Reduce a whole address to its peer (as conn_peer_of), in place. */
void conn_peer_mask(uint8_t addr[16]);
/* Copy request bytes from data into c; returns the number used (never past
 * the 49th byte). When c->got reaches 49, c->req holds the decoded request. */
size_t conn_take(struct conn *c, const uint8_t *data, size_t len);
/* Read what the socket has into the request. CONN_DONE once complete,
 * CONN_MORE when more is needed, CONN_EOF/CONN_ERROR when the peer is gone.
 * With c->pp set, a PROXY header is read first: CONN_PROXIED once it is
 * (c->pp freed), CONN_ERROR when the bytes are none. */
enum conn_io conn_read(struct conn *c);
/* Set the 8-byte reply, enter the writing state and write it: as
 * conn_write. */
enum conn_io conn_reply(struct conn *c, uint64_t answer);
/* Write what is left of the reply: CONN_MORE, CONN_ERROR, or once it is
 * out, CONN_DONE (close now) or CONN_LINGER (the client sent bytes nobody
 * read, and closing over them would reset the connection and could
 * destroy the reply in flight: our side is shut, drain theirs). */
enum conn_io conn_write(struct conn *c);
/* While lingering: read and discard, at most limit bytes in all. CONN_DONE
 * at the client's end of stream or at the limit, CONN_MORE, or CONN_ERROR. */
enum conn_io conn_linger(struct conn *c, uint64_t limit);

#endif
