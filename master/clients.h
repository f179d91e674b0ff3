/* The master's client connections as a set: accepting, watching them in
 * the epoll set, deadlines, replies, closing. Above conn.c and net.c,
 * below jobs.c and the loop. A closed connection is freed only after the
 * event batch (clients_bury): a later event of the batch may name it. */
#ifndef REVHASH_CLIENTS_H
#define REVHASH_CLIENTS_H

#include <stdint.h>

#include "lib/log.h"
#include "shm/segment.h"
#include "master/conn.h"
#include "master/peers.h"

/* What a connection's event means for the layers above. */
enum client_news {
	CLIENT_NOTHING = 0, /* handled here */
	CLIENT_REQUEST,     /* its request is complete: answer it */
	CLIENT_GONE,        /* a waiting client reset or failed: detach, drop */
};

struct clients {
	int epfd;
	struct seg_stats *stats;
	unsigned timeout_ms;         /* to send the request, to read the reply */
	struct conn_list timed;      /* reading or writing, oldest first */
	struct conn_list lingering;  /* answered, draining what they still send */
	struct conn_list graveyard;  /* closed in this batch */
	struct conn_list ready;      /* whole requests read at accept */
	uint64_t open;               /* connections open */
	struct peers peers;          /* each peer's counts (clients.c, jobset.c) */
	uint64_t max_conns;          /* open at most; more are turned away */
	uint32_t peer_conns;         /* open at most from one peer */
	struct log_every refused;    /* connections over a cap: their log lines */
	const uint8_t (*proxies)[16]; /* balancers (PROXY v2): whole addresses */
	unsigned nproxies;
	struct log_every bad_proxy;  /* PROXY headers refused */
	struct log_every emfile;       /* out of descriptors */
	struct log_every accept_error; /* other accept errors */
	TAILQ_HEAD(, conn) waiting;  /* waiting for an answer, oldest first */
	unsigned max_wait_ms;        /* how long one may (0: for ever) */
	struct log_every expired_said; /* waits cut short */
};

/* An empty set on epoll instance epfd: at most max_conns connections
 * open, peer_conns of them from one peer. */
void clients_init(struct clients *cl, int epfd, struct seg_stats *stats,
		  unsigned timeout_ms, uint64_t max_conns, uint32_t peer_conns);
/* Free what the set holds itself (at exit, after clients_close_all). */
void clients_free(struct clients *cl);
/* Accept a connection and read its request at once (whole: clients_ready
 * hands it over). 1 when descriptors ran out and it could not even be
 * turned away: stop watching the listener a while; else 0. */
int clients_accept(struct clients *cl, int listen_fd);
/* The next connection whose whole request came with its accept, or NULL. */
struct conn *clients_ready(struct clients *cl);
/* Handle events on c; says what the layers above must do. */
enum client_news clients_event(struct clients *cl, struct conn *c,
			       uint32_t events);
/* c waits in waiters (its job's), watched only for a reset or an error. */
void clients_wait(struct clients *cl, struct conn *c, struct conn_list *waiters);
/* Send answer to c; closed once written, its latency counted under
 * outcome (enum seg_outcome). */
void clients_reply(struct clients *cl, struct conn *c, uint64_t answer, unsigned outcome);
/* Close c without an answer, counted as dropped. */
void clients_drop(struct clients *cl, struct conn *c);
/* Close c unanswered: its peer has as many searches as it may. */
void clients_refuse(struct clients *cl, struct conn *c);
/* Close what is past its deadline; the next deadline (clock_ms()), a
 * waiting connection's included, or UINT64_MAX. */
uint64_t clients_expire(struct clients *cl, uint64_t now_ms);
/* The oldest connection that has waited max_wait_ms by now_ms, counted as
 * expired, or NULL: the caller drops it (jobs_client_gone). */
struct conn *clients_overdue(struct clients *cl, uint64_t now_ms);
/* Connections still owed something: reading, waiting or writing. */
uint64_t clients_owed(const struct clients *cl);
/* A stop begins: close every connection that has not sent a whole request. */
void clients_close_unsent(struct clients *cl);
/* Close every connection on a timer (at exit; waiting ones are the jobs'). */
void clients_close_all(struct clients *cl);
/* Free the connections closed since the last call. */
void clients_bury(struct clients *cl);

#endif
