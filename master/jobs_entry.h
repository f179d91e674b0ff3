/* The master's handling of one entry of the ring's table, shared by the
 * job bookkeeping (jobs.c) and the audit (audit.c); not for use outside
 * them. An entry is the master's to judge by its own record alone: the
 * phases it asked for, its own copy of the key, the cursor as far as it
 * last saw it. */
#ifndef REVHASH_JOBS_ENTRY_H
#define REVHASH_JOBS_ENTRY_H

#include "master/jobs.h"

#define PARK_WAIT_MS 1000    /* a park whose leases are not all back by then is
                                done by the master (entry_take_back) */
#define RELEASE_WAIT_MS 1000 /* the same for a job let go */

/* Does entry e hold job j's key, the master's own copy? */
int entry_holds_key(const struct jobs *js, uint32_t e, const struct job *j);
/* What the workers did to the job in entry e, which its phase says: an
 * answer (checked against the master's key), none, or its leases back;
 * or a phase the master did not ask for (entry_written_over). */
void entry_end(struct jobs *js, uint32_t e);
/* Take entry e back from the workers without waiting for them: its job,
 * if any, waits in the backlog with the entry's progress and its leases
 * out given back, unsure from then on (its "not found" is searched
 * again). 0, or -EAGAIN when its phase moved meanwhile (looked at again
 * later). */
int entry_take_back(struct jobs *js, uint32_t e);
/* Entry e holds what a worker wrote (what: how, for the log): taken back,
 * its job searched on from where it got. Nobody is blamed. */
void entry_written_over(struct jobs *js, uint32_t e, const char *what);

#endif
