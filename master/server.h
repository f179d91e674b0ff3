/* The master process: one epoll loop on top of the layers below it.
 *
 *   server.c   the loop: listener, signals, worker news, connection events
 *     |  calls down
 *     +-- jobs.c      cache, attaching, new jobs, parking, replies
 *     |     +-- jobset.c    the index, the backlog, the weights
 *     |     +-- clients.c   the connection set: accept, deadlines, replies
 *     |           +-- conn.c, net.c   one connection's bytes; sockets
 *     |           +-- peers.c   what each peer holds (the caps)
 *     +-- workers.c   find, fork, reap, respawn, watchdog (worker/kind.h)
 *     +-- status.c    the scoreboard
 * and everything shared with the workers goes through shm/. */
#ifndef REVHASH_SERVER_H
#define REVHASH_SERVER_H

#include <stdint.h>

#include "shm/segment.h"
#include "worker/kernel.h"
#include "master/clients.h"
#include "master/jobs.h"
#include "master/options.h"
#include "master/power.h"
#include "master/workers.h"

struct server {
	struct options opt;
	struct seg seg;
	struct cache cache;
	const struct kernel *kernel;
	int epfd;
	struct source listen[OPT_LISTEN_MAX + 1]; /* one per --listen, or one */
	unsigned nlisten;
	uint64_t unix_ino;        /* the unix: socket's, to remove it */
	struct source signals, notify;
	struct clients clients;
	struct jobs jobs;
	struct workers workers;
	uint64_t accept_again_ms; /* listeners paused (out of descriptors) */
	struct power power;
	uint64_t poll_ns;         /* polls this long after busy (0: never) */
	uint64_t busy_ns;         /* a search in flight or a request read */
	uint64_t requests;        /* stats.requests then */
	unsigned cut_short;       /* seg_cut_short() as last seen */
	int draining;             /* a graceful stop: no new connections */
	uint64_t drain_deadline_ms;
};

/* Set up everything (listener, segment, workers). 0 or -errno (logged),
 * nothing left behind. */
int server_init(struct server *s, const struct options *o);
/* Serve until stopped by a signal; then clean up. */
void server_run(struct server *s);

#endif
