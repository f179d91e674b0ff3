/* One client connection: read exactly 49 bytes across any number of partial
 * reads, wait for the answer, write 8 bytes across partial writes. The byte
 * handling (conn_take) is separate from the socket calls so that it can be
 * fed arbitrary streams by tests and the fuzzer. */
#ifndef REVHASH_CONN_H
#define REVHASH_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "proto/proto.h"

enum conn_state { CONN_READING = 0, CONN_WAITING, CONN_WRITING };
enum conn_io { CONN_MORE = 0, CONN_DONE, CONN_EOF, CONN_ERROR };

struct conn {
	int fd;
	int kind;                   /* epoll source tag; see server.c */
	enum conn_state state;
	unsigned got;               /* request bytes read */
	unsigned sent;              /* reply bytes written */
	unsigned prio;              /* priority used for ranking (1..16) */
	uint32_t job;               /* the job waited on, or CONN_NO_JOB */
	uint8_t in[PROTO_REQUEST_LEN];
	uint8_t out[PROTO_REPLY_LEN];
	struct proto_request req;
	uint64_t since_ms;          /* reading/writing since: the idle timeout
	                               counts from here */
	uint64_t start_ns;          /* when accepted, for --verbose */
	struct conn *prev, *next;   /* in exactly one conn_list at a time */
	struct conn_list *list;
};

#define CONN_NO_JOB UINT32_MAX

/* An intrusive doubly linked list of connections, oldest first. */
struct conn_list {
	struct conn *head, *tail;
	size_t n;
};

/* Append c to l (c must be in no list). */
void conn_list_push(struct conn_list *l, struct conn *c);
/* Remove c from whatever list holds it (no-op if none). */
void conn_list_remove(struct conn *c);

/* Copy request bytes from data into c; returns the number used (never past
 * the 49th byte). When c->got reaches 49, c->req holds the decoded request. */
size_t conn_take(struct conn *c, const uint8_t *data, size_t len);
/* Read what the socket has into the request. CONN_DONE once complete,
 * CONN_MORE when more is needed, CONN_EOF/CONN_ERROR when the peer is gone. */
enum conn_io conn_read(struct conn *c);
/* While waiting: read and discard extra bytes, noticing a peer that left.
 * CONN_MORE while the peer is still there, else CONN_EOF/CONN_ERROR. */
enum conn_io conn_drain(struct conn *c);
/* Set the 8-byte reply and enter the writing state. */
void conn_set_reply(struct conn *c, uint64_t answer);
/* Write what is left of the reply: CONN_DONE, CONN_MORE or CONN_ERROR. */
enum conn_io conn_write(struct conn *c);

#endif
