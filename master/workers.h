/* Worker supervision: finding the workers of each kind (worker/kind.h),
 * forking, reaping and replacing them, with back-off for a worker that
 * keeps dying at start, and a watchdog for one that stops making progress
 * (stopped, traced, frozen): it is killed, its lease given back and a new
 * worker forked. What a worker does once forked is its kind's. Nothing
 * here asks which kind a worker is: a plan says which kind and unit each
 * slot is for, and the kind's entry does the rest. Beside the job
 * bookkeeping, below the loop; it reaches the workers only through the
 * ring. What it asked of the workers (the count it aims for, retire, shut
 * down) it keeps in its own memory and shows in the segment, never reading
 * it back: a worker could have written it. */
#ifndef REVHASH_WORKERS_H
#define REVHASH_WORKERS_H

#include <stdint.h>
#include <sys/types.h>

#include "shm/segment.h"
#include "worker/kernel.h"
#include "worker/kind.h"

/* The master's private view of a worker slot. */
struct wslot {
	pid_t pid;               /* 0: empty */
	uint64_t started_ms;
	uint64_t shown_ms;       /* when the master first saw it in its slot,
	                            set up and ready (0: not yet) */
	uint64_t respawn_at_ms;  /* 0: not waiting to respawn */
	unsigned quick_deaths;   /* deaths soon after start, for back-off */
	int died;                /* the last worker here died (not retired) */
	int killed;              /* the watchdog killed it */
	int lied;                /* killed for what it wrote (a wrong answer,
	                            a phase out of the table): its slot backs
	                            off as after a quick death */
	int retiring;            /* asked to exit after its lease */
	uint64_t beat;           /* its last sign of life ... */
	uint64_t beat_ms;        /* ... and when the master saw it change */
	int kind;                /* the plan: the kind it is for (-1: none) */
	unsigned unit;           /* ... and which one of that kind */
};

struct workers {
	struct seg *seg;
	struct ring *ring;
	const struct kernel *kernel;
	struct kind_found found[KINDS_MAX]; /* the workers of each found kind */
	const char *kind_kernel[KINDS_MAX]; /* the search each kind runs (NULL:
	                                       its program's choice) */
	unsigned fixed;          /* their number: the top slots are theirs */
	pid_t master;
	int notify_fd;           /* the workers' eventfd to the master */
	int pin;                 /* pin worker i to the i-th CPU */
	uint64_t watch_ms;       /* next watchdog round */
	unsigned restored;       /* slot records put back, not yet said */
	uint64_t restored_said_ms; /* when that was last said */
	unsigned target;         /* the CPU workers aimed at (shown in the
	                            segment's header, never read back) */
	int shutdown;            /* every worker told to exit */
	struct policy policy;    /* the ring's policy, as the master set it */
	int hooks;               /* test hooks allowed, as the master set it */
	struct wslot w[RING_WORKERS];
};

/* Set up, aiming at target CPU workers (none started yet). */
void workers_init(struct workers *ws, struct seg *seg,
		  const struct kernel *kernel, int notify_fd, int pin,
		  unsigned target);
/* Find the workers of every found kind: spec[i], path[i] and kernel[i]
 * are what kind i's options ask for (NULL: "auto", its program where it is
 * looked for, the search its program measures as fastest). Each kind's
 * note goes to the segment. 0, or -EINVAL (logged) when a spec asks for
 * what is not there. */
int workers_find(struct workers *ws, const char *const spec[KINDS_MAX],
		 const char *const path[KINDS_MAX], const char *const kernel[KINDS_MAX]);
/* The CPU worker count aimed at. */
unsigned workers_target(const struct workers *ws);
/* Start the wanted workers, and wait (at most a few seconds) until they
 * show in their slots. 0 or -errno. */
int workers_start(struct workers *ws);
/* Aim at n CPU workers from now on (workers_tick forks or retires); at
 * most the slots the found kinds leave. */
void workers_set_target(struct workers *ws, unsigned n);
/* Reap exited workers; their leases go back, their respawns are planned. */
void workers_reap(struct workers *ws);
/* Fork or retire toward the target, respawn whose back-off has passed,
 * and watch for stalled workers. Returns when it wants to run next
 * (clock_ms()), or UINT64_MAX when it has nothing planned. */
uint64_t workers_tick(struct workers *ws, uint64_t now_ms);
/* Shut every worker down: ask, wait up to wait_ms, then kill. */
void workers_shutdown(struct workers *ws, unsigned wait_ms);
/* Live workers. */
unsigned workers_alive(const struct workers *ws);
/* Kill the worker in slot (it wrote what cannot be: a wrong answer, a
 * phase out of the table): it is replaced after a back-off that grows with
 * each such death in a row. */
void workers_punish(struct workers *ws, unsigned slot);

#endif
