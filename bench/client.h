/* The bench's connections to the server under test. */
#ifndef REVHASH_BENCH_CLIENT_H
#define REVHASH_BENCH_CLIENT_H

#include <netdb.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/clock.h"
#include "bench/workload.h"

#define CLIENT_TIMEOUT_S 120 /* a request's bound, unless the target sets one */

/* The server's addresses; a connection tries the one that last worked
 * first, so a name with a dead address costs one refusal, not one each. */
struct target {
	struct addrinfo *list;
	size_t n; /* addresses in list */
	atomic_size_t good;
	int64_t timeout_ns; /* one exchange's bound; 0: CLIENT_TIMEOUT_S */
};

/* Resolve host:port into t (zeroed by the caller). 0, or -EINVAL
 * (printed). */
int client_resolve(struct target *t, const char *host, const char *port);
/* Release what client_resolve allocated. */
void client_free(struct target *t);
/* One request on its own connection: 0 and *reply, or -errno (-ETIMEDOUT
 * once the target's timeout has passed since *begin, whatever the server
 * does meanwhile). *begin and *end bracket the latency (monotonic ns) even
 * when it fails. */
int client_exchange(struct target *t, const struct wl_request *q,
		    uint64_t *reply, int64_t *begin, int64_t *end);
/* Connect and send q without waiting for the reply: the descriptor, set
 * to reset on close (the server cancels the search of a client that
 * resets, where a plain close reads as a half-close), or -errno. */
int client_send(struct target *t, const struct wl_request *q);

#endif
