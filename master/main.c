/* revhash master: parse the options, then either print a running master's
 * status or become the master (listener, shared segment, pre-forked
 * workers) and serve until stopped. */
#include "master/log.h"
#include "master/options.h"
#include "master/server.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
	static struct server server; /* large: keep it off the stack */
	struct options o;
	int rc = options_parse(argc, argv, &o);

	if (rc == 1)
		return 0;
	if (rc < 0)
		return 2;
	if (o.status)
		return status_print(o.port, o.json);
	if (o.quiet)
		log_set_level(LL_ERROR);
	else if (o.verbose)
		log_set_level(LL_DEBUG);
	if (server_init(&server, &o) < 0)
		return 1;
	return server_run(&server);
}
