/* For the tests that drive master/clients.c themselves: accept the way the
 * loop does when a client connects. */
#ifndef REVHASH_TESTS_ACCEPT_H
#define REVHASH_TESTS_ACCEPT_H

#include "master/clients.h"
#include "master/net.h"

#include <check.h>
#include <unistd.h>

/* A listener on port, every address, as the master's. */
static inline void listen_on(unsigned port, int *fd)
{
	ck_assert_int_eq(net_bind(NULL, port, fd), 0);
	ck_assert_int_eq(net_open(*fd), 0);
}

/* Accept on lfd until cl holds a connection whose whole request is in (for
 * up to a second), and return it. */
static inline struct conn *accept_request(struct clients *cl, int lfd)
{
	struct conn *c = NULL;

	for (int i = 0; i < 200 && !c; i++) {
		ck_assert_int_eq(clients_accept(cl, lfd), 0);
		if (!(c = clients_ready(cl)))
			usleep(5000);
	}
	ck_assert_ptr_nonnull(c);
	return c;
}

#endif
