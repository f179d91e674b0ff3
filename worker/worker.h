/* A worker process: lease a chunk of the best-ranked job, hash it, publish
 * what it found, repeat. It knows nothing of sockets or clients. */
#ifndef REVHASH_WORKER_H
#define REVHASH_WORKER_H

#include <sys/types.h>

#include "shm/segment.h"
#include "worker/kernel.h"

/* Run the worker of slot until it is told to retire or shut down, or the
 * master (pid master) is gone. notify_fd is the master's eventfd. Returns the
 * process exit status. */
int worker_run(struct seg *seg, unsigned slot, const struct kernel *k,
	       pid_t master, int notify_fd);

#endif
