/* One client connection: read exactly 49 bytes, wait for the answer
 * without reading, write 8 bytes, close (lingering when the client sent
 * more). Its list and its closing are clients.c's. */
#ifndef REVHASH_CONN_H
#define REVHASH_CONN_H

#include <stddef.h>
#include <stdint.h>

#include <sys/queue.h>
#include <sys/socket.h>

#include "proto/proto.h"

/* What epoll hands back: every descriptor the master watches starts with a
 * struct source, so the loop can tell a listener from a signal from a
 * connection before it knows which one it holds. Connections embed it as
 * their first member; the loop's own sources are plain ones. */
enum source_kind { SRC_LISTEN = 1, SRC_SIGNAL, SRC_NOTIFY, SRC_CONN };

struct source {
	int fd;               /* -1 once closed */
	enum source_kind kind;
};

enum conn_state {
	CONN_READING = 0, /* the request is not complete */
	CONN_WAITING,     /* for its answer: nothing is read meanwhile */
	CONN_WRITING,     /* the reply, across partial writes */
	CONN_LINGERING,   /* answered; reading what the client still sends */
};
enum conn_io {
	CONN_MORE = 0, /* not yet: wait for the socket */
	CONN_DONE,     /* complete */
	CONN_LINGER,   /* the reply is out, the client sent more: drain it */
	CONN_EOF,      /* the client closed its side */
	CONN_ERROR,    /* the connection failed */
	CONN_PROXIED,  /* the PROXY header is read: c->peer is its client's */
};

struct job; /* what a waiting connection waits on (master/jobs.c) */
struct conn_list;

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
	uint8_t peer[16];           /* the client's peer (conn_peer_mask) */
	uint8_t *pp;                /* a PROXY header to read first, or NULL */
	unsigned pp_got;            /* its bytes read */
	int counted;                /* in its peer's record (clients.c) */
	struct job *job;            /* while waiting */
	uint64_t since_ms;          /* the state's deadline counts from here */
	uint64_t accept_ns, request_ns; /* for the stage times */
	uint64_t drained;           /* bytes thrown away while lingering */
	int watched;                /* in the epoll set (only when it must wait) */
	TAILQ_ENTRY(conn) link;     /* in at most one conn_list at a time */
	struct conn_list *list;
	TAILQ_ENTRY(conn) wait_link; /* in clients.c's waiting list */
	int in_wait;
};

/* Connections, oldest first (its operations: clients.c); TAILQ_INIT it. */
struct conn_list {
	TAILQ_HEAD(, conn) q;
	size_t n;
};

/* The whole address of sa in out, IPv4 as IPv4-mapped IPv6. */
void conn_addr_of(uint8_t out[16], const struct sockaddr *sa);
/* Reduce a whole address to its peer, in place: an IPv4 address (as
 * IPv4-mapped IPv6), or the /64 of an IPv6 one; an IPv6 address that
 * holds an IPv4 host's (NAT64, 6to4, Teredo, IPv4-compatible, ::1) is that
 * IPv4 peer (docs/security.md). */
void conn_peer_mask(uint8_t addr[16]);
/* Read the request, decoded into c->req once whole: CONN_DONE, CONN_MORE,
 * CONN_EOF or CONN_ERROR. With c->pp set, the PROXY header first:
 * CONN_PROXIED once read (c->pp freed). */
enum conn_io conn_read(struct conn *c);
/* Set the 8-byte reply and write it, as conn_write. */
enum conn_io conn_reply(struct conn *c, uint64_t answer);
/* Write the rest of the reply: CONN_MORE, CONN_ERROR, CONN_DONE (close),
 * or CONN_LINGER (the client sent bytes nobody read: closing over them
 * would reset the connection and could destroy the reply, so our side is
 * shut and theirs drained). */
enum conn_io conn_write(struct conn *c);
/* While lingering: read and discard, at most limit bytes in all. CONN_DONE
 * at the client's end of stream or at the limit, CONN_MORE, or CONN_ERROR. */
enum conn_io conn_linger(struct conn *c, uint64_t limit);

#endif
