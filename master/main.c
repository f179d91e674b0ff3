/* revhash master: parse the options, then either print a running master's
 * status or become the master (listener, shared segment, pre-forked
 * workers) and serve until stopped. Exit status: 0 after a clean stop, 1
 * when it could not start (or --status found no master), 2 for bad usage. */
#include "lib/log.h"
#include "master/options.h"
#include "master/server.h"
#include "master/status.h"
#include "shm/ring_master.h"

#include <fcntl.h>
#include <stdio.h>

/* Descriptors 0-2 must be taken before anything opens a socket: one
 * started without them would get its listener or a client there, and every
 * worker keeps 0-2 for its whole life. */
static void hold_stdio(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			return;
}

/* master --hook NAME [PORT]: the tests' client that arms a fault hook once
 * in the master on port, started with REVHASH_TEST_HOOKS=1. 0, -ENOENT
 * (no master), or -EPERM (started without); said on stderr. */
static int hook_arm(unsigned port, int hook)
{
	struct seg seg = { .fd = -1 };
	int rc = status_open("--hook", port, 1, &seg);

	if (rc == 0 && (rc = ring_arm_hook(seg.ring, (enum ring_hook)hook, 1)) < 0)
		fprintf(stderr, "master --hook: the master on port %u was started "
			"without REVHASH_TEST_HOOKS\n", port);
	seg_close(&seg);
	return rc;
}

int main(int argc, char **argv)
{
	static struct server server; /* large: keep it off the stack */
	struct options o;

	hold_stdio();
	if (options_parse(argc, argv, &o) < 0)
		return 2;
	if (o.help)
		return 0;
	if (o.hook >= 0)
		return hook_arm(o.port, o.hook) < 0 ? 1 : 0;
	if (o.status)
		return status_print(o.port, o.json) < 0 ? 1 : 0;
	if (o.quiet)
		log_set_level(LL_ERROR);
	else if (o.verbose)
		log_set_level(LL_DEBUG);
	if (server_init(&server, &o) < 0)
		return 1;
	server_run(&server);
	return 0;
}
