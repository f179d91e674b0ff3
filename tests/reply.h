/* Reading a reply with a deadline, for the test programs: the Check suites
 * (helpers.c) and the cluster tests' client, which links no Check. */
#ifndef REVHASH_TESTS_REPLY_H
#define REVHASH_TESTS_REPLY_H

#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>

#include "lib/clock.h"
#include "proto/proto.h"

/* The 8-byte reply on fd within timeout_ms into *x: 0, or -1 when the
 * connection ended (or the time ran out) without one. */
static inline int reply_within(int fd, uint64_t *x, int timeout_ms)
{
	uint8_t buf[PROTO_REPLY_LEN];
	size_t got = 0;
	uint64_t until = clock_ms() + (uint64_t)timeout_ms;

	while (got < sizeof buf) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = (int64_t)(until - clock_ms());
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return -1;
		n = recv(fd, buf + got, sizeof buf - got, 0);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	*x = proto_decode_reply(buf);
	return 0;
}

#endif
