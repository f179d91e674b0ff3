/* The live scoreboard: the worker slots and counters already sit in the
 * shared segment, so `master --status PORT` maps it read-only and prints it,
 * and SIGUSR1 writes the same to the log. */
#ifndef REVHASH_STATUS_H
#define REVHASH_STATUS_H

#include "shm/segment.h"

/* Print the status of the master on port (text or JSON) to stdout. 0, or
 * -ENOENT (no master), -ESRCH (its master is gone, the segment left over)
 * or -EPROTO (a damaged segment), said on stderr. */
int status_print(unsigned port, int json);
/* Arm test hook (enum ring_hook) once in the master on port. 0, -ENOENT
 * (no master), or -EPERM (started without REVHASH_TEST_HOOKS); said on
 * stderr. */
int status_arm_hook(unsigned port, int hook);
/* Log this master's status. */
void status_log(const struct seg *seg);

#endif
