/* A worker process: lease a piece of the best-ranked job, hash it, publish
 * what it found, repeat. It knows nothing of sockets or clients. */
#ifndef REVHASH_WORKER_H
#define REVHASH_WORKER_H

#include <stdint.h>
#include <sys/types.h>

#include "shm/segment.h"
#include "worker/kernel.h"

/* How a worker process starts: what the master (or the program it execs)
 * tells it, and what its kind gives it (lease lengths, clock). */
struct worker_start {
	unsigned unit;            /* which one of its kind: a CPU, a device */
	struct seg *seg;          /* the master's segment, mapped */
	unsigned slot;            /* its slot in the ring */
	const struct kernel *kernel; /* the search (a CPU kernel, a device's) */
	const char *path;         /* an exec'd kind's program, by name */
	int program_fd;           /* and as it was opened and checked */
	const char *kernel_name;  /* the search it runs (NULL: the master's
	                             CPU kernel's name, which a device takes
	                             as "measure and choose") */
	pid_t master;             /* its parent, whose death it follows */
	int notify_fd;            /* the master's eventfd */
	int pin;                  /* pin itself to the unit-th CPU */
	int wall_clock;           /* its hashing time is the wall clock's (it
	                             waits on a device), not its CPU time;
	                             else it is a batch task */
	uint64_t lease_ns;        /* a lease's length */
	uint64_t min_lease_ns;    /* the least worth a lease */
	uint64_t idle_spin_ns;    /* poll for the next lease this long after
	                             the last before sleeping (a worker with
	                             a CPU of its own); 0: sleep at once */
	uint64_t rate;            /* hashes/s measured before serving (a
	                             device's choice of its kernel), told to
	                             the ring before the first lease; 0: none */
};

/* The first thing a worker process does, before it opens anything of its
 * own: follow the master's death, ignore the signals sent to the whole
 * group, keep no descriptor but stdio and the eventfd, and run as a batch
 * task pinned to its CPU (as w asks). 0, or -ESRCH: the master is gone. */
int worker_setup(const struct worker_start *w);
/* Show in the slot, then lease and hash (leases as long as w says, timed
 * on its clock) until told to retire or the master is gone. Returns the
 * exit status. */
int worker_serve(const struct worker_start *w);
/* A forked CPU worker: worker_setup, confined (worker/sandbox.h), then
 * worker_serve; one that cannot be confined does not serve (exit 1: the
 * master backs off and says so). */
int worker_main(const struct worker_start *w);

#endif
