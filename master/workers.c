/* Forking, reaping and replacing workers (see workers.h). A dead worker's
 * lease goes back to its job before anything else, so no value of any range
 * is ever skipped; a worker that keeps dying soon after it starts is
 * restarted with exponential back-off, so one that cannot run never makes
 * the master spin.
 *
 * The plan: the workers of the found kinds (a GPU each), fixed at start,
 * take the top slots, so that a reload never moves them; the CPU workers,
 * as many as the worker count, take the slots from 0 up. Each slot's
 * plan names its kind and unit; a forked child becomes its worker through
 * the kind's entry.
 *
 * The watchdog: every worker bumps a counter in its slot at each ring call,
 * at least every chunk (about 2 ms of hashing) and every idle wait (100 ms).
 * One whose counter stands still for STALL_FACTOR times its lease's expected
 * time at its own measured rate, and at least STALL_MIN_MS (IDLE_STALL_MS
 * when it holds no lease), is stalled if the kernel says it is stopped or
 * traced; any other silent worker (frozen, in uninterruptible sleep, or just
 * starved of CPU on a crowded machine) is given SLOW_FACTOR times longer.
 * A stalled worker is killed and replaced like any dead one. While the
 * ring's lock is held, only its holder can be the culprit: the others are
 * waiting for it. And when the master itself was held up (the machine
 * paused, the cgroup throttled), it does not blame the workers for it.
 * Before a worker has shown in its slot (an exec'd one opens its device
 * first, which takes a second or so) it is given START_WAIT_MS, and only
 * its life after it showed says whether its death was a quick one. */
#include "master/workers.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/os.h"
#include "worker/worker.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define QUICK_DEATH_MS 100    /* dying sooner, having hashed nothing, is a crash loop */
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 10000
#define WATCH_EVERY_MS 50
#define STALL_MIN_MS 250      /* silent this long with a lease: stalled */
#define STALL_FACTOR 20       /* ... or this many times the lease's time */
#define STALL_MAX_MS 60000    /* ... but never more: the lease and the rate
                                 are the worker's word */
#define IDLE_STALL_MS 600     /* silent this long without one (it waits 100 ms) */
#define SLOW_FACTOR 4         /* a silent worker that is not stopped: 4x longer */
#define LATE_MS 150           /* the master's own rounds this late: it was held up */
#define START_WAIT_MS 5000    /* at start, for the first workers to come up */

/* Which kind and unit each slot is for, from the found kinds and the
 * worker count. */
static void plan(struct workers *ws)
{
	unsigned top = RING_WORKERS, cpus = workers_target(ws);

	for (unsigned i = 0; i < RING_WORKERS; i++)
		ws->w[i].kind = -1;
	for (unsigned k = 0; k < kind_count(); k++) {
		for (unsigned u = 0; kind_is_found(kind_at(k)) && u < ws->found[k].n; u++) {
			top--;
			ws->w[top].kind = (int)k;
			ws->w[top].unit = (unsigned)ws->found[k].unit[u];
		}
	}
	for (unsigned k = 0; k < kind_count(); k++) {
		for (unsigned u = 0; !kind_is_found(kind_at(k)) && u < cpus && u < top; u++) {
			ws->w[u].kind = (int)k;
			ws->w[u].unit = u;
		}
	}
}

_Static_assert(KINDS_MAX <= SEG_KINDS, "room for every kind's note in the segment");

void workers_init(struct workers *ws, struct seg *seg,
		  const struct kernel *kernel, int notify_fd, int pin,
		  unsigned target)
{
	unsigned counted = 0;

	for (unsigned k = 0; k < kind_count(); k++)
		counted += !kind_is_found(kind_at(k));
	if (counted != 1) { /* the table is wrong: a bug */
		log_error("workers: %u kinds counted by --workers, not 1", counted);
		abort();
	}
	memset(ws, 0, sizeof *ws);
	ws->seg = seg;
	ws->ring = seg->ring;
	ws->kernel = kernel;
	ws->master = getpid();
	ws->notify_fd = notify_fd;
	ws->pin = pin;
	/* The ring's words as the master wrote them, before any worker was
	 * there to write over them: the watchdog puts them back. */
	ws->policy = seg->ring->policy;
	ws->hooks = __atomic_load_n(&seg->ring->hooks, __ATOMIC_ACQUIRE) != 0;
	workers_set_target(ws, target);
}

int workers_find(struct workers *ws, const char *const spec[KINDS_MAX],
		 const char *const path[KINDS_MAX], const char *const kernel[KINDS_MAX])
{
	ws->fixed = 0;
	memcpy(ws->kind_kernel, kernel, sizeof ws->kind_kernel);
	for (unsigned k = 0; k < kind_count(); k++) {
		const struct worker_kind *kind = kind_at(k);
		struct seg_kind *note = &ws->seg->hdr->kinds[k];

		if (!kind_is_found(kind))
			continue;
		if (kind_find(kind, spec[k] ? spec[k] : "auto", path[k], kernel[k],
			       &ws->found[k]) < 0)
			return -EINVAL;
		ws->fixed += ws->found[k].n;
		/* Said, not refused: the same command line serves a machine
		 * with the devices and one without. (Its program was asked,
		 * and the log says so: that option did its part.) */
		if (ws->found[k].n == 0 && kernel[k])
			log_warn("--%s-kernel %s: ignored, no %s worker runs (%s)", kind->name,
				 kernel[k], kind->name, ws->found[k].note);
		snprintf(note->note, sizeof note->note, "%s", ws->found[k].note);
		note->n = ws->found[k].n;
	}
	workers_set_target(ws, workers_target(ws));
	return 0;
}

unsigned workers_target(const struct workers *ws)
{
	return ws->target;
}

/* Should slot have a worker? */
static int wanted(const struct workers *ws, unsigned slot)
{
	return ws->w[slot].kind >= 0;
}

/* The child of a fork: become the worker of slot, through its kind. */
static void child(const struct workers *ws, unsigned slot)
{
	const struct wslot *p = &ws->w[slot];
	const struct worker_kind *kind = kind_at((unsigned)p->kind);
	struct worker_start w = { .unit = p->unit, .seg = ws->seg,
				  .slot = slot, .kernel = ws->kernel,
				  .path = ws->found[p->kind].path,
				  .program_fd = ws->found[p->kind].fd,
				  .kernel_name = ws->kind_kernel[p->kind], .master = ws->master,
				  .notify_fd = ws->notify_fd, .pin = ws->pin,
				  .batch = !kind->wall_clock };

	kind_become(kind, &w);
	_exit(127); /* not reached */
}

static int spawn(struct workers *ws, unsigned slot, uint64_t now)
{
	struct wslot *w = &ws->w[slot];
	pid_t pid;

	ring_slot_prepare(ws->ring, slot, (unsigned)w->kind, w->unit);
	pid = fork();
	if (pid < 0) {
		int err = errno;
		log_error("fork: %s", strerror(err));
		w->respawn_at_ms = now + BACKOFF_MIN_MS;
		return -err;
	}
	if (pid == 0)
		child(ws, slot);
	if (w->died) {
		ws->seg->hdr->stats.respawns++;
		log_info("worker %u respawned as pid %d", slot, (int)pid);
	} else {
		log_debug("worker %u started as pid %d", slot, (int)pid);
	}
	w->pid = pid;
	w->started_ms = w->beat_ms = now;
	w->shown_ms = 0;
	w->respawn_at_ms = 0;
	w->died = w->killed = w->lied = w->retiring = 0;
	return 0;
}

int workers_start(struct workers *ws)
{
	uint64_t now = clock_ms(), until = now + START_WAIT_MS;
	struct timespec pause = { 0, 1000000L };
	unsigned n = 0;

	for (unsigned i = 0; i < RING_WORKERS; i++) {
		int rc = wanted(ws, i) ? spawn(ws, i, now) : 0;
		if (rc < 0)
			return rc;
		n += wanted(ws, i);
	}
	/* A client that can connect finds them ready: each shows in its slot
	 * once it has set itself up (pinned, a batch task). */
	while (ring_workers(ws->ring) < n && clock_ms() < until)
		nanosleep(&pause, NULL);
	if (ring_workers(ws->ring) < n)
		log_warn("%u of %u workers ready after %d ms; serving anyway",
			 ring_workers(ws->ring), n, START_WAIT_MS);
	return 0;
}

void workers_set_target(struct workers *ws, unsigned n)
{
	if (n > RING_WORKERS - ws->fixed)
		n = RING_WORKERS - ws->fixed;
	ws->target = n;
	__atomic_store_n(&ws->seg->hdr->workers, n, __ATOMIC_RELAXED);
	plan(ws);
}

unsigned workers_alive(const struct workers *ws)
{
	unsigned n = 0;

	for (unsigned i = 0; i < RING_WORKERS; i++)
		n += ws->w[i].pid != 0;
	return n;
}

/* The slot of worker pid, or -ENOENT when it is none of ours. */
static int slot_of(const struct workers *ws, pid_t pid)
{
	for (int i = 0; i < RING_WORKERS; i++)
		if (ws->w[i].pid == pid)
			return i;
	return -ENOENT;
}

static void describe(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
}

/* Plan the replacement of the worker that died in slot. */
static void plan_respawn(struct workers *ws, unsigned slot, uint64_t now,
			 int progressed)
{
	struct wslot *w = &ws->w[slot];
	uint64_t delay = 0;

	if (w->lied || (!progressed && (!w->shown_ms || now - w->shown_ms < QUICK_DEATH_MS))) {
		w->quick_deaths++;
		if (w->quick_deaths > 1) {
			unsigned shift = w->quick_deaths - 2;
			delay = shift > 7 ? BACKOFF_MAX_MS : (uint64_t)BACKOFF_MIN_MS << shift;
			if (delay > BACKOFF_MAX_MS)
				delay = BACKOFF_MAX_MS;
			log_warn("worker %u died %u times in a row soon after start: "
				 "next start in %llu ms", slot, w->quick_deaths,
				 (unsigned long long)delay);
		}
	} else {
		w->quick_deaths = 0;
	}
	w->respawn_at_ms = now + delay;
}

/* One exited worker of slot, with its wait status. */
static void reaped(struct workers *ws, unsigned slot, pid_t pid, int status)
{
	struct seg_stats *st = &ws->seg->hdr->stats;
	struct wslot *w = &ws->w[slot];
	enum ring_exit exit = w->killed ? EXIT_STALLED :
			      (w->retiring || ws->shutdown) && WIFEXITED(status) &&
			      WEXITSTATUS(status) == 0 ? EXIT_RETIRED : EXIT_DIED;
	uint64_t hashes, chunks;
	char how[96];

	ring_slot_dead(ws->ring, slot, exit, &hashes, &chunks);
	st->dead_hashes += hashes;
	st->dead_chunks += chunks;
	w->pid = 0;
	if (exit == EXIT_RETIRED) {
		log_info("worker %u (pid %d) retired", slot, (int)pid);
		return;
	}
	describe(status, how, sizeof how);
	st->worker_deaths++;
	w->died = 1;
	log_warn("worker %u (pid %d) %s; its lease is given back", slot, (int)pid, how);
	/* Also while a graceful stop waits for answers: those need workers.
	 * Only the final shutdown lets them go. */
	if (!ws->shutdown && wanted(ws, slot))
		plan_respawn(ws, slot, clock_ms(), chunks > 0);
}

void workers_reap(struct workers *ws)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		int slot = slot_of(ws, pid);
		if (slot >= 0)
			reaped(ws, (unsigned)slot, pid, status);
	}
	/* Ranges given back need someone awake to take them. */
	ring_wake(ws->ring);
}

/* How long the worker of v may stay silent if the kernel reports it
 * stopped; any other gets SLOW_FACTOR times as long (see stalled()). */
static uint64_t stall_bound(const struct ring_slot_view *v)
{
	unsigned __int128 expect_ms;

	if (!v->has_lease)
		return IDLE_STALL_MS;
	expect_ms = v->rate ? (unsigned __int128)v->lease_values * 1000 / v->rate : 0;
	if (expect_ms <= STALL_MIN_MS / STALL_FACTOR)
		return STALL_MIN_MS;
	return expect_ms < STALL_MAX_MS / STALL_FACTOR ? (uint64_t)expect_ms * STALL_FACTOR
						       : STALL_MAX_MS;
}

/* Has a worker silent for silent ms, with that bound, stalled? /proc is
 * read only for a worker already past the bound of a stopped one. */
static int stalled(pid_t pid, uint64_t silent, uint64_t bound)
{
	return silent > bound &&
	       (silent > bound * SLOW_FACTOR || os_proc_stopped(pid));
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
	ws->seg->hdr->stats.stalls++;
	w->killed = 1;
	kill(w->pid, SIGKILL); /* SIGKILL ends a stopped or traced process too */
}

void workers_punish(struct workers *ws, unsigned slot)
{
	struct wslot *w;

	if (slot >= RING_WORKERS || !(w = &ws->w[slot])->pid || w->lied)
		return;
	log_warn("worker %u (pid %d) wrote what cannot be (a wrong answer, or a value "
		 "out of its table): killing it", slot, (int)w->pid);
	w->lied = 1;
	kill(w->pid, SIGKILL); /* its pid is the master's own record, not the segment's */
}

/* What the segment says of each slot's worker, against the master's own
 * table: a pid in a slot without a worker (or with another), a rate no
 * worker gives, put back (ring_slot_restore); and the ring-wide words the
 * master owns (its policy, the hooks' permission, the shutdown flag); said
 * at most once a second. A worker not yet shown in its slot writes its
 * pid itself. */
static void restore_slots(struct workers *ws, uint64_t now)
{
	unsigned fixed = (unsigned)ring_restore_words(ws->ring, &ws->policy, ws->hooks,
						      ws->shutdown);

	for (unsigned i = 0; i < RING_WORKERS; i++) {
		const struct wslot *w = &ws->w[i];

		if (w->pid && !w->shown_ms)
			continue;
		fixed += (unsigned)ring_slot_restore(ws->ring, i, w->pid);
	}
	ws->restored += fixed;
	if (ws->restored && now >= ws->restored_said_ms + 1000) {
		log_warn("workers: %u slot record(s) or ring word(s) written over (a pid, a "
			 "rate past any worker's, the policy, hooks, shutdown) put back from "
			 "the master's own", ws->restored);
		ws->restored = 0;
		ws->restored_said_ms = now;
	}
}

/* Kill workers that show no sign of life. */
static void watchdog(struct workers *ws, uint64_t now)
{
	pid_t holder = ring_lock_holder(ws->ring);
	uint64_t silent[RING_WORKERS] = { 0 }, bound[RING_WORKERS] = { 0 };
	int culprit = -1;

	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct wslot *w = &ws->w[i];
		struct ring_slot_view v;

		if (!w->pid || w->killed)
			continue;
		ring_slot_view(ws->ring, i, &v);
		if (!w->shown_ms && v.pid == w->pid) {
			w->shown_ms = now;
		} else if (!w->shown_ms) {
			if (now - w->started_ms > START_WAIT_MS)
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
		if (holder && holder == w->pid)
			culprit = (int)i;
	}
	if (holder) {
		/* The others may only be waiting for the holder. */
		if (culprit >= 0 && stalled(ws->w[culprit].pid, silent[culprit],
					    bound[culprit])) {
			kill_stalled(ws, (unsigned)culprit, silent[culprit],
				     " inside the ring's lock");
			forgive_all(ws, now);
		}
		return;
	}
	for (unsigned i = 0; i < RING_WORKERS; i++)
		if (bound[i] && stalled(ws->w[i].pid, silent[i], bound[i]))
			kill_stalled(ws, i, silent[i], "");
}

uint64_t workers_tick(struct workers *ws, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	if (ws->shutdown)
		return next;
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct wslot *w = &ws->w[i];
		if (!wanted(ws, i)) {
			if (w->pid && !w->retiring) {
				w->retiring = 1;
				ring_slot_retire(ws->ring, i);
			}
			w->respawn_at_ms = 0;
			w->died = 0; /* a later grow starts a worker, not a replacement */
			continue;
		}
		if (w->pid)
			continue;
		if (w->respawn_at_ms > now) {
			next = w->respawn_at_ms < next ? w->respawn_at_ms : next;
			continue;
		}
		spawn(ws, i, now);
	}
	if (now >= ws->watch_ms) {
		if (ws->watch_ms && now - ws->watch_ms > LATE_MS)
			forgive_all(ws, now); /* so, likely, was everyone */
		watchdog(ws, now);
		restore_slots(ws, now);
		ws->watch_ms = now + WATCH_EVERY_MS;
	}
	return ws->watch_ms < next ? ws->watch_ms : next;
}

void workers_shutdown(struct workers *ws, unsigned wait_ms)
{
	uint64_t until = clock_ms() + wait_ms;
	struct timespec pause = { 0, 10 * 1000000L };

	ws->shutdown = 1;
	ring_shutdown(ws->ring);
	while (workers_alive(ws) && clock_ms() < until) {
		nanosleep(&pause, NULL);
		workers_reap(ws);
	}
	for (unsigned i = 0; i < RING_WORKERS; i++)
		if (ws->w[i].pid)
			kill(ws->w[i].pid, SIGKILL);
	while (workers_alive(ws)) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		int slot;
		if (pid < 0)
			break;
		if ((slot = slot_of(ws, pid)) >= 0)
			ws->w[slot].pid = 0;
	}
}
