/* Held searches (see hold.h). Every range differs, so every request is a
 * job of its own; none can end: its digest is that of the value just
 * below its range. */
#include "bench/hold.h"
#include "lib/digest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

int hold_open(struct hold *h, struct target *t, uint64_t n)
{
	struct wl_request q = { .priority = 1, .copy_of = -1 };
	uint64_t base;

	h->n = 0;
	h->fds = calloc(n ? n : 1, sizeof *h->fds);
	if (!h->fds)
		return -ENOMEM;
	if (getrandom(&base, sizeof base, 0) != sizeof base)
		base = (uint64_t)clock_ns();
	base = (base >> 2) + 1;
	digest_of(base - 1, q.digest);
	for (; h->n < n; h->n++) {
		int fd;

		q.start = base + h->n;
		q.end = q.start + (1ull << 60);
		if ((fd = client_send(t, &q)) < 0) {
			fprintf(stderr, "revhash-bench: held search %llu: %s\n",
				(unsigned long long)h->n, strerror(-fd));
			hold_close(h);
			return fd;
		}
		h->fds[h->n] = fd;
	}
	return 0;
}

void hold_close(struct hold *h)
{
	struct linger reset = { 1, 0 };

	for (uint64_t i = 0; i < h->n; i++) {
		setsockopt(h->fds[i], SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
		close(h->fds[i]);
	}
	free(h->fds);
	h->fds = NULL;
	h->n = 0;
}
