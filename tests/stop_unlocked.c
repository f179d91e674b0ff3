/* stop_unlocked: stop a worker of the master on PORT where it does not
 * hold the ring's lock, for scripts/chaos.sh where a dead holder's lock is
 * not given back (an emulator: tests/robust_probe). It sends PID SIGSTOP,
 * waits until it is stopped, then tries the lock: free, so not PID's, it
 * is let go at once and PID stays stopped (exit 0: a SIGKILL now ends it
 * outside the lock); taken, PID goes on (SIGCONT, exit 1). Exit 2 when PID
 * is no worker of that master, or does not stop.
 *
 *   stop_unlocked PORT PID */
#include "shm/ring_master.h"
#include "shm/segment.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Is process pid stopped (state T or t in /proc/PID/stat)? */
static int stopped(pid_t pid)
{
	char path[64], line[512], *end;
	FILE *f;
	int yes = 0;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fgets(line, sizeof line, f) && (end = strrchr(line, ')')) && end[1] == ' ')
		yes = end[2] == 'T' || end[2] == 't';
	fclose(f);
	return yes;
}

/* Is pid the worker of one of the master's slots? */
static int is_worker(const struct seg *seg, pid_t pid)
{
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct ring_slot v;

		ring_slot_view(seg->ring, i, &v);
		if (v.pid == pid)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct seg seg = { .fd = -1 };
	pid_t pid;
	int rc = 2;

	if (argc != 3 || (pid = (pid_t)atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: stop_unlocked PORT PID\n");
		return 2;
	}
	if (seg_open((unsigned)atoi(argv[1]), 1, &seg) < 0 || !is_worker(&seg, pid) ||
	    kill(pid, SIGSTOP) < 0)
		goto out;
	for (int i = 0; i < 2000 && !stopped(pid); i++)
		usleep(1000);
	if (!stopped(pid)) {
		kill(pid, SIGCONT);
		goto out;
	}
	switch (pthread_mutex_trylock(&seg.ring->lock)) {
	case 0:
		pthread_mutex_unlock(&seg.ring->lock);
		rc = 0;
		break;
	case EOWNERDEAD:
		/* A holder died in it: the next worker to take it repairs the
		 * ring. Exiting without a word passes that on (this process's
		 * death marks it so again). */
		_exit(1);
	default:
		kill(pid, SIGCONT);
		rc = 1;
	}
out:
	seg_close(&seg);
	return rc;
}
