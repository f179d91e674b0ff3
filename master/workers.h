/* Worker supervision: finding each kind's workers (worker/kind.h),
 * forking, reaping and replacing them, with back-off for one that keeps
 * dying at start, and a watchdog for one that stops making progress. A
 * plan says which kind and unit each slot is for; the kind's entry does
 * the rest. What it asks of the workers it keeps in its own memory and
 * shows in the segment, never reading it back. */
#ifndef REVHASH_WORKERS_H
#define REVHASH_WORKERS_H

#include <errno.h>
#include <stdint.h>
#include <sys/types.h>

#include "shm/ring_master.h"
#include "shm/segment.h"
#include "worker/kernel.h"
#include "worker/kind.h"

/* How long a worker is given to show in its slot, at start and after. */
#define WORKERS_START_WAIT_MS 5000

/* The master's private view of a worker slot. */
struct wslot {
	pid_t pid;               /* 0: empty */
	uint64_t started_ms;
	uint64_t shown_ms;       /* first seen ready in its slot (0: not yet) */
	uint64_t respawn_at_ms;  /* 0: not waiting to respawn */
	unsigned quick_deaths;   /* deaths soon after start, for back-off */
	int died;                /* the last worker here died (not retired) */
	int killed;              /* the watchdog killed it */
	int reset;               /* killed by a reset: starts again at once */
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
	const char *kind_kernel[KINDS_MAX]; /* NULL: its program's choice */
	unsigned fixed;          /* their number: the top slots are theirs */
	pid_t master;
	int notify_fd;           /* the workers' eventfd to the master */
	int pin;                 /* pin worker i to the i-th CPU */
	uint64_t watch_ms;       /* next watchdog round */
	unsigned restored;       /* slot records put back, not yet said */
	uint64_t restored_said_ms;
	unsigned target;         /* the CPU workers aimed at */
	int shutdown;            /* every worker told to exit */
	int resetting;           /* workers_reset: waiting for them to be gone */
	uint64_t reset_ms;       /* ... since then */
	uint64_t jam_ms;         /* since when the lock's word names none of ours */
	struct policy policy;    /* the ring's policy, as the master set it */
	struct wslot w[RING_WORKERS];
};

/* Set up (none started yet). */
void workers_init(struct workers *ws, struct seg *seg,
		  const struct kernel *kernel, int notify_fd, int pin);
/* Find each kind's workers, as kind i's options spec[i], path[i] and
 * kernel[i] ask (NULL: the defaults); its note goes to the segment. The
 * caller then plans the slots with workers_set_target. 0, or -EINVAL
 * (logged) when a spec asks for what is not there. */
int workers_find(struct workers *ws, const char *const spec[KINDS_MAX],
		 const char *const path[KINDS_MAX], const char *const kernel[KINDS_MAX]);
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
/* Live workers (by the master's own table). */
static inline unsigned workers_alive(const struct workers *ws)
{
	unsigned n = 0;

	for (unsigned i = 0; i < RING_WORKERS; i++)
		n += ws->w[i].pid != 0;
	return n;
}
/* The slot of worker pid by the master's own table, or -ENOENT when it is
 * none of ours. */
static inline int workers_slot_of(const struct workers *ws, pid_t pid)
{
	for (int i = 0; i < RING_WORKERS; i++)
		if (ws->w[i].pid == pid)
			return i;
	return -ENOENT;
}

/* ---- the watchdog (watchdog.c) ------------------------------------------- */

/* One round at now (clock_ms()): kill the workers that show no sign of
 * life, watch the lock's holder, put back what the segment says against
 * the master's own record. */
void workers_watch(struct workers *ws, uint64_t now);
/* The ring's lock cannot be trusted (why, for the log): every worker is
 * killed, and once they are gone workers_resetting makes the lock anew
 * (ring_reset) and starts them again. */
void workers_reset(struct workers *ws, const char *why);
/* 1 while a reset waits for the killed workers, 0 once done or none. */
int workers_resetting(struct workers *ws, uint64_t now);

#endif
