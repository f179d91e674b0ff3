/* Forking, reaping and replacing workers (see workers.h). A dead worker's
 * lease goes back before anything else, so no value is skipped; one that
 * keeps dying soon after start is restarted with exponential back-off.
 * The found kinds' workers (a GPU each) take the top slots, so a reload
 * never moves them; the CPU workers take the slots from 0 up. A worker
 * has WORKERS_START_WAIT_MS to show in its slot, and only its life after
 * that says whether its death was a quick one. */
#include "master/workers.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "shm/segment_create.h"
#include "worker/worker.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define QUICK_DEATH_MS 100    /* dying sooner, having hashed nothing, is a crash loop */
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 10000
#define WATCH_EVERY_MS 50     /* the watchdog's rounds */

/* Which kind and unit each slot is for. */
static void plan(struct workers *ws)
{
	int kind[RING_WORKERS];
	unsigned unit[RING_WORKERS];

	kind_plan(ws->found, ws->target, RING_WORKERS, kind, unit);
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		ws->w[i].kind = kind[i];
		ws->w[i].unit = unit[i];
	}
}

_Static_assert(KINDS_MAX <= SEG_KINDS, "room for every kind's note in the segment");

void workers_init(struct workers *ws, struct seg *seg,
		  const struct kernel *kernel, int notify_fd, int pin)
{
	/* The policy as the master wrote it, before any worker: the watchdog
	 * puts it back. */
	*ws = (struct workers){ .seg = seg, .ring = seg->ring, .kernel = kernel,
				.master = getpid(), .notify_fd = notify_fd, .pin = pin,
				.policy = seg->ring->policy };
}

int workers_find(struct workers *ws, const char *const spec[KINDS_MAX],
		 const char *const path[KINDS_MAX], const char *const kernel[KINDS_MAX])
{
	ws->fixed = 0;
	memcpy(ws->kind_kernel, kernel, sizeof ws->kind_kernel);
	for (unsigned k = 0; k < kind_count(); k++) {
		const struct worker_kind *kind = kind_at(k);
		struct seg_kind *note = &ws->seg->hdr->kinds[k];

		if (kind_find(kind, spec[k] ? spec[k] : "auto", path[k], kernel[k],
			       &ws->found[k]) < 0)
			return -EINVAL;
		ws->fixed += ws->found[k].n;
		/* Said, not refused: one command line serves machines with
		 * the devices and without. */
		if (ws->found[k].n == 0 && kernel[k])
			log_warn("--%s-kernel %s: ignored, no %s worker runs (%s)", kind->name,
				 kernel[k], kind->name, ws->found[k].note);
		seg_show_name(note->note, sizeof note->note, ws->found[k].note);
		shm_show(note->n, ws->found[k].n);
	}
	return 0;
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
				  .notify_fd = ws->notify_fd, .pin = ws->pin };

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
		shm_count(ws->seg->hdr->stats.respawns, 1);
		log_info("worker %u respawned as pid %d", slot, (int)pid);
	} else {
		log_debug("worker %u started as pid %d", slot, (int)pid);
	}
	w->pid = pid;
	w->started_ms = w->beat_ms = now;
	w->shown_ms = 0;
	w->respawn_at_ms = 0;
	w->died = w->killed = w->reset = w->retiring = 0;
	return 0;
}

int workers_start(struct workers *ws)
{
	uint64_t now = clock_ms(), until = now + WORKERS_START_WAIT_MS;
	struct timespec pause = { 0, 1000000L };
	unsigned n = 0;

	for (unsigned i = 0; i < RING_WORKERS; i++) {
		int rc = wanted(ws, i) ? spawn(ws, i, now) : 0;
		if (rc < 0)
			return rc;
		n += wanted(ws, i);
	}
	/* Each shows in its slot once set up. */
	while (ring_workers(ws->ring) < n && clock_ms() < until)
		nanosleep(&pause, NULL);
	if (ring_workers(ws->ring) < n)
		log_warn("%u of %u workers ready after %d ms; serving anyway",
			 ring_workers(ws->ring), n, WORKERS_START_WAIT_MS);
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

/* Plan the replacement of the worker that died in slot. */
static void plan_respawn(struct workers *ws, unsigned slot, uint64_t now,
			 int progressed)
{
	struct wslot *w = &ws->w[slot];
	uint64_t delay = 0;

	if (w->reset) { /* the master's doing, not the worker's */
		w->respawn_at_ms = now;
		return;
	}
	if (!progressed && (!w->shown_ms || now - w->shown_ms < QUICK_DEATH_MS)) {
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
	shm_count(st->dead_hashes, hashes);
	shm_count(st->dead_chunks, chunks);
	w->pid = 0;
	if (exit == EXIT_RETIRED) {
		log_info("worker %u (pid %d) retired", slot, (int)pid);
		return;
	}
	if (WIFSIGNALED(status))
		snprintf(how, sizeof how, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
	shm_count(st->worker_deaths, 1);
	w->died = 1;
	log_warn("worker %u (pid %d) %s; its lease is given back", slot, (int)pid, how);
	/* Also while a graceful stop waits for answers: those need workers. */
	if (!ws->shutdown && wanted(ws, slot))
		plan_respawn(ws, slot, clock_ms(), chunks > 0);
}

void workers_reap(struct workers *ws)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		int slot = workers_slot_of(ws, pid);
		if (slot >= 0)
			reaped(ws, (unsigned)slot, pid, status);
	}
	/* Ranges given back need someone awake to take them. */
	ring_wake(ws->ring);
}

uint64_t workers_tick(struct workers *ws, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	if (ws->shutdown)
		return next;
	if (workers_resetting(ws, now))
		return now + WATCH_EVERY_MS;
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
		workers_watch(ws, now);
		ws->watch_ms = now + WATCH_EVERY_MS;
	}
	return ws->watch_ms < next ? ws->watch_ms : next;
}

void workers_shutdown(struct workers *ws, unsigned wait_ms)
{
	uint64_t until = clock_ms() + wait_ms;
	struct timespec pause = { 0, 10 * 1000000L };
	pid_t pid;
	int slot;

	ws->shutdown = 1;
	ring_shutdown(ws->ring);
	while (workers_alive(ws) && clock_ms() < until) {
		nanosleep(&pause, NULL);
		workers_reap(ws);
	}
	for (unsigned i = 0; i < RING_WORKERS; i++)
		if (ws->w[i].pid)
			kill(ws->w[i].pid, SIGKILL);
	while (workers_alive(ws) && (pid = waitpid(-1, NULL, 0)) > 0)
		if ((slot = workers_slot_of(ws, pid)) >= 0)
			ws->w[slot].pid = 0;
}
