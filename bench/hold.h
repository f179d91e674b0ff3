/* Searches held open for the length of a run: many connections, each with
 * its own request over a huge range that holds no answer, at priority 1,
 * so that the server has that many jobs queued (and, past its table's
 * size, parked) while the measured load runs. */
#ifndef REVHASH_BENCH_HOLD_H
#define REVHASH_BENCH_HOLD_H

#include <stdint.h>

#include "bench/client.h"

struct hold {
	int *fds;
	uint64_t n;
};

/* Open n held searches on t. 0, or -errno (what was opened is closed). */
int hold_open(struct hold *h, struct target *t, uint64_t n);
/* Close them all with a reset: their clients are gone, the searches end. */
void hold_close(struct hold *h);

#endif
