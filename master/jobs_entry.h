/* One entry of the ring's table as the master judges it, by its own
 * record alone: shared by jobs.c and audit.c, for them only. */
#ifndef REVHASH_JOBS_ENTRY_H
#define REVHASH_JOBS_ENTRY_H

#include <stdint.h>

struct jobs;
struct job;

#define PARK_WAIT_MS 1000    /* a park or a release not done by then is */
#define RELEASE_WAIT_MS 1000 /* done by the master (entry_take_back) */

/* Does entry e hold job j's key, the master's own copy? */
int entry_holds_key(const struct jobs *js, uint32_t e, const struct job *j);
/* Act on the end entry e's phase says, or on a phase not asked for. */
void entry_end(struct jobs *js, uint32_t e);
/* Take entry e back without waiting for the workers: its job waits in
 * the backlog with the entry's progress, unsure. 0, or -EAGAIN when its
 * phase moved meanwhile. */
int entry_take_back(struct jobs *js, uint32_t e);
/* Entry e holds what a worker wrote (fmt: how, for the log): taken back,
 * its job searched on from where it got. */
void entry_written_over(struct jobs *js, uint32_t e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
