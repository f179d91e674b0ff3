/* The workers' watchdog (see workers.h). A worker bumps its slot's beat
 * at each ring call (every chunk, ~2 ms, and every idle wait, 100 ms). One
 * silent for STALL_FACTOR times its lease's expected time, at least
 * STALL_MIN_MS (IDLE_STALL_MS without a lease), is stalled if stopped or
 * traced; any other (frozen, starved of CPU) gets SLOW_FACTOR times longer.
 * A master held up itself blames nobody for it. While the ring's lock is
 * held only its holder can be the culprit: the holder is the lock's own
 * word (the kernel's robust protocol) against the master's table, never
 * lock_owner; a word naming none of ours for LOCK_JAM_MS resets the lock
 * (docs/architecture.md). Each round also puts back what the segment
 * says of the slots, the ring and the header. */
#include "master/workers.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/os.h"
#include "shm/segment_create.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define STALL_MIN_MS 250      /* silent this long with a lease: stalled */
#define STALL_FACTOR 20       /* ... or this many times the lease's time */
#define STALL_MAX_MS 60000    /* ... never more (the rate is its word) */
#define IDLE_STALL_MS 600     /* silent this long without one */
#define SLOW_FACTOR 4         /* a silent worker that is not stopped: 4x longer */
#define LATE_MS 150           /* the master's own rounds this late: it was held up */
#define LOCK_JAM_MS 1000      /* the lock's word named none of ours this long: reset */
#define RESET_WAIT_MS 2000    /* a reset waits this long at most for the killed */

/* How long the worker of v may stay silent if stopped. */
static uint64_t stall_bound(const struct ring_slot *v)
{
	uint64_t values = v->lease_hi - v->lease_lo + 1;
	unsigned __int128 expect_ms;

	if (!v->has_lease)
		return IDLE_STALL_MS;
	expect_ms = v->rate ? (unsigned __int128)values * 1000 / v->rate : 0;
	if (expect_ms <= STALL_MIN_MS / STALL_FACTOR)
		return STALL_MIN_MS;
	return expect_ms < STALL_MAX_MS / STALL_FACTOR ? (uint64_t)expect_ms * STALL_FACTOR
						       : STALL_MAX_MS;
}

/* Has a worker silent for silent ms, with that bound, stalled: silent
 * long past it, or stopped or traced (state T or t)? (/proc is read only
 * past the bound.) */
static int stalled(pid_t pid, uint64_t silent, uint64_t bound)
{
	struct os_stat s;

	return silent > bound && (silent > bound * SLOW_FACTOR ||
				  (os_stat(pid, &s) == 0 && (s.state == 'T' || s.state == 't')));
}

/* The master was held up, or a holder of the lock killed: start every
 * worker's silence from now. */
static void forgive_all(struct workers *ws, uint64_t now)
{
	for (unsigned i = 0; i < RING_WORKERS; i++)
		ws->w[i].beat_ms = now;
}

static void kill_stalled(struct workers *ws, unsigned slot, uint64_t silent,
			 const char *where)
{
	struct wslot *w = &ws->w[slot];

	log_warn("worker %u (pid %d) made no progress for %llu ms%s: stalled, killing it",
		 slot, (int)w->pid, (unsigned long long)silent, where);
	shm_count(ws->seg->hdr->stats.stalls, 1);
	w->killed = 1;
	kill(w->pid, SIGKILL); /* SIGKILL ends a stopped or traced process too */
}

/* Put back what the segment says of each slot, the ring's words and the
 * header, against the master's own record; said once a second at most. A
 * worker not yet shown in its slot writes its pid itself. */
static void restore_slots(struct workers *ws, uint64_t now)
{
	unsigned fixed = (unsigned)ring_restore_words(ws->ring, &ws->policy, ws->shutdown) +
			 (unsigned)seg_restore_header(ws->seg);

	for (unsigned i = 0; i < RING_WORKERS; i++) {
		const struct wslot *w = &ws->w[i];

		if (w->pid && !w->shown_ms)
			continue;
		fixed += (unsigned)ring_slot_restore(ws->ring, i, w->pid);
	}
	ws->restored += fixed;
	if (ws->restored && now >= ws->restored_said_ms + 1000) {
		log_warn("workers: %u slot record(s), ring or header word(s) written over (a "
			 "pid, a rate past any worker's, the policy, shutdown, the "
			 "header's layout) put back from the master's own", ws->restored);
		ws->restored = 0;
		ws->restored_said_ms = now;
	}
}

enum { LOCK_FREE = -1, LOCK_NOT_OURS = -2 };

/* The slot of the worker the lock's word names (a thread counts as its
 * worker); LOCK_FREE, or LOCK_NOT_OURS (a pid a worker wrote, another's
 * process, a holder reaped before the kernel freed its lock). */
static int lock_holder(const struct workers *ws)
{
	pid_t named = ring_lock_holder(ws->ring), group;
	int slot;

	if (!named)
		return LOCK_FREE;
	if ((slot = workers_slot_of(ws, named)) >= 0)
		return slot;
	group = os_thread_group(named);
	return group > 0 && (slot = workers_slot_of(ws, group)) >= 0 ? slot : LOCK_NOT_OURS;
}

void workers_reset(struct workers *ws, const char *why)
{
	if (ws->resetting)
		return;
	log_error("%s: every worker is killed, and the ring's lock made anew once they "
		  "are gone", why);
	ws->resetting = 1;
	ws->reset_ms = clock_ms();
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct wslot *w = &ws->w[i];

		if (!w->pid)
			continue;
		w->reset = 1;
		kill(w->pid, SIGKILL); /* its pid is the master's own record */
	}
}

int workers_resetting(struct workers *ws, uint64_t now)
{
	int rc;

	if (!ws->resetting)
		return 0;
	restore_slots(ws, now);
	if (workers_alive(ws) && now - ws->reset_ms < RESET_WAIT_MS)
		return 1;
	if ((rc = ring_reset(ws->ring)) < 0) {
		log_error("ring reset: %s: trying again", strerror(-rc));
		ws->reset_ms = now;
		return 1;
	}
	ws->resetting = 0;
	ws->jam_ms = 0;
	forgive_all(ws, now);
	log_info("ring reset: the lock is made anew; starting the workers again");
	/* The loop looks at the ring's news, as a worker tells it to (a full
	 * counter: it has news to read already). */
	(void)!write(ws->notify_fd, &(uint64_t){ 1 }, sizeof(uint64_t));
	return 0;
}

/* The lock's word named none of ours for LOCK_JAM_MS: nobody will free it. */
static void watch_jam(struct workers *ws, int holder, uint64_t now)
{
	if (holder != LOCK_NOT_OURS || !ws->jam_ms) {
		ws->jam_ms = holder == LOCK_NOT_OURS ? now : 0;
		return;
	}
	if (now - ws->jam_ms >= LOCK_JAM_MS) {
		char why[96];

		snprintf(why, sizeof why, "the ring's lock is held by pid %d, none of ours, "
			 "for %llu ms", (int)ring_lock_holder(ws->ring),
			 (unsigned long long)(now - ws->jam_ms));
		workers_reset(ws, why);
	}
}

/* Kill workers that show no sign of life. */
static void watchdog(struct workers *ws, uint64_t now)
{
	int holder = lock_holder(ws);
	uint64_t silent[RING_WORKERS] = { 0 }, bound[RING_WORKERS] = { 0 };

	watch_jam(ws, holder, now);
	if (ws->resetting)
		return;
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct wslot *w = &ws->w[i];
		struct ring_slot v;

		if (!w->pid || w->killed)
			continue;
		ring_slot_view(ws->ring, i, &v);
		if (!w->shown_ms && v.pid == w->pid) {
			w->shown_ms = now;
		} else if (!w->shown_ms) {
			if (now - w->started_ms > WORKERS_START_WAIT_MS)
				kill_stalled(ws, i, now - w->started_ms, " before it came up");
			continue;
		}
		if (v.beat != w->beat) {
			w->beat = v.beat;
			w->beat_ms = now;
			continue;
		}
		silent[i] = now - w->beat_ms;
		bound[i] = stall_bound(&v);
	}
	if (holder >= 0) {
		/* The others may only be waiting for the holder. */
		if (bound[holder] && stalled(ws->w[holder].pid, silent[holder], bound[holder])) {
			kill_stalled(ws, (unsigned)holder, silent[holder],
				     " inside the ring's lock");
			forgive_all(ws, now);
		}
		return;
	}
	if (holder == LOCK_NOT_OURS)
		return; /* they wait for a lock none of them holds: watch_jam */
	for (unsigned i = 0; i < RING_WORKERS; i++)
		if (bound[i] && stalled(ws->w[i].pid, silent[i], bound[i]))
			kill_stalled(ws, i, silent[i], "");
}

void workers_watch(struct workers *ws, uint64_t now)
{
	if (ws->watch_ms && now - ws->watch_ms > LATE_MS)
		forgive_all(ws, now); /* so, likely, was everyone */
	watchdog(ws, now);
	restore_slots(ws, now);
}
