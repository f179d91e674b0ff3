/* Forking, reaping and replacing workers. A worker that dies is replaced at
 * once; one that keeps dying soon after it starts is restarted with
 * exponential back-off, so a worker that cannot run never makes the master
 * spin. A dead worker's lease goes back to its job before anything else, so
 * no value of any range is ever skipped. */
#include "master/log.h"
#include "master/server.h"
#include "worker/worker.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QUICK_DEATH_MS 100    /* dying sooner, having hashed nothing, is a crash loop */
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 10000

/* In the child: keep only stdio and the eventfd; the listener and every
 * client socket belong to the master alone. */
static void close_inherited(int keep)
{
	struct dirent *e;
	DIR *d;

	if (keep > 3)
		syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u);
	if (syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0)
		return;
	/* A kernel without close_range (before 5.9): close what is open, not
	 * every number up to a limit that may be a million. */
	d = opendir("/proc/self/fd");
	if (!d)
		return;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		if (fd > 2 && fd != keep && fd != dirfd(d))
			close(fd);
	}
	closedir(d);
}

/* Pin worker pid of slot to one CPU of those the master may use, slot i to
 * the i-th (round robin). Left to itself the scheduler often wakes two
 * workers on the same CPU and moves one away only milliseconds later, which
 * on short jobs costs up to half the hash rate. The master does it before it
 * publishes the pid, so a worker seen in the segment is already pinned. */
static void pin(pid_t pid, unsigned slot)
{
	cpu_set_t allowed, one;
	int n = 0, want;

	if (sched_getaffinity(0, sizeof allowed, &allowed) < 0)
		return;
	want = (int)(slot % (unsigned)CPU_COUNT(&allowed));
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || n++ != want)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(pid, sizeof one, &one) < 0)
			log_warn("sched_setaffinity(worker %u): %s", slot, strerror(errno));
		return;
	}
}

static void child(struct server *s, unsigned slot)
{
	sigset_t none;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != s->pid)
		_exit(0); /* the master died before we could ask to follow it */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* Stop requests sent to the whole process group (a terminal's ^C,
	 * systemd's SIGTERM) are the master's business: it finishes what is in
	 * flight with us, then stops us through the ring. */
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	close_inherited(s->notify_fd);
	_exit(worker_run(&s->seg, slot, s->kernel, s->pid, s->notify_fd));
}

static int spawn(struct server *s, unsigned slot)
{
	struct wslot *w = &s->wslots[slot];
	struct ring_slot *rs = &s->seg.ring->slots[slot];
	pid_t pid;

	rs->retire = 0;
	rs->hashes = rs->chunks = rs->rate = 0;
	rs->state = SLOT_IDLE;
	pid = fork();
	if (pid < 0) {
		log_error("fork: %s", strerror(errno));
		w->respawn_at_ms = server_now_ms() + BACKOFF_MIN_MS;
		return -errno;
	}
	if (pid == 0)
		child(s, slot);
	if (s->opt.pin)
		pin(pid, slot);
	w->pid = pid;
	w->started_ms = server_now_ms();
	w->respawn_at_ms = 0;
	__atomic_store_n(&rs->pid, pid, __ATOMIC_RELEASE);
	log_debug("worker %u started as pid %d", slot, (int)pid);
	return 0;
}

int workers_start(struct server *s)
{
	for (unsigned i = 0; i < s->target; i++) {
		int rc = spawn(s, i);
		if (rc < 0)
			return rc;
	}
	return 0;
}

unsigned workers_alive(const struct server *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < RING_WORKERS; i++)
		n += s->wslots[i].pid != 0;
	return n;
}

static int slot_of(const struct server *s, pid_t pid)
{
	for (int i = 0; i < RING_WORKERS; i++)
		if (s->wslots[i].pid == pid)
			return i;
	return -1;
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
static void plan_respawn(struct server *s, unsigned slot, uint64_t lived_ms,
			 int progressed)
{
	struct wslot *w = &s->wslots[slot];
	uint64_t delay = 0;

	if (lived_ms < QUICK_DEATH_MS && !progressed) {
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
	w->respawn_at_ms = server_now_ms() + delay;
}

void workers_reap(struct server *s)
{
	struct ring *r = s->seg.ring;
	struct seg_stats *st = &s->seg.hdr->stats;
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		int slot = slot_of(s, pid);
		struct wslot *w;
		int retired, progressed;
		char how[96];

		if (slot < 0)
			continue;
		w = &s->wslots[slot];
		retired = r->slots[slot].retire || r->shutdown;
		progressed = r->slots[slot].chunks > 0;
		st->dead_hashes += r->slots[slot].hashes;
		st->dead_chunks += r->slots[slot].chunks;
		ring_reclaim(r, (unsigned)slot);
		w->pid = 0;
		describe(status, how, sizeof how);
		if (retired && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			log_info("worker %u (pid %d) retired", slot, (int)pid);
			continue;
		}
		st->worker_deaths++;
		w->restarts++;
		r->slots[slot].restarts = w->restarts;
		log_warn("worker %u (pid %d) %s; its lease is requeued", slot,
			 (int)pid, how);
		/* Also while a graceful stop waits for answers: those need
		 * workers. Only the final shutdown lets them go. */
		if (!r->shutdown && (unsigned)slot < s->target)
			plan_respawn(s, (unsigned)slot, server_now_ms() - w->started_ms,
				     progressed);
	}
	/* Requeued ranges need someone awake to take them. */
	ring_wake(r, s->target);
}

int workers_adjust(struct server *s)
{
	uint64_t now = server_now_ms();
	int wait = -1;

	if (s->seg.ring->shutdown)
		return -1;
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct wslot *w = &s->wslots[i];
		if (i >= s->target) {
			if (w->pid && !s->seg.ring->slots[i].retire) {
				__atomic_store_n(&s->seg.ring->slots[i].retire, 1,
						 __ATOMIC_RELEASE);
				ring_wake(s->seg.ring, RING_WORKERS);
			}
			w->respawn_at_ms = 0;
			continue;
		}
		if (w->pid)
			continue;
		if (w->respawn_at_ms > now) {
			int left = (int)(w->respawn_at_ms - now);
			wait = wait < 0 || left < wait ? left : wait;
			continue;
		}
		if (spawn(s, i) == 0 && w->restarts) {
			s->seg.hdr->stats.respawns++;
			log_info("worker %u respawned as pid %d", i, (int)w->pid);
		}
	}
	return wait;
}

void workers_stop(struct server *s, unsigned wait_ms)
{
	uint64_t until = server_now_ms() + wait_ms;
	struct timespec pause = { 0, 10 * 1000000L };

	__atomic_store_n(&s->seg.ring->shutdown, 1, __ATOMIC_RELEASE);
	ring_wake(s->seg.ring, RING_WORKERS);
	while (workers_alive(s) && server_now_ms() < until) {
		nanosleep(&pause, NULL);
		workers_reap(s);
	}
	for (unsigned i = 0; i < RING_WORKERS; i++)
		if (s->wslots[i].pid)
			kill(s->wslots[i].pid, SIGKILL);
	while (workers_alive(s)) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		int slot;
		if (pid < 0)
			break;
		if ((slot = slot_of(s, pid)) >= 0)
			s->wslots[slot].pid = 0;
	}
}
