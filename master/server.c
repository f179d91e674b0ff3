/* The master's event loop. Everything arrives as an epoll event: new
 * connections, client bytes, "something changed" from the workers (an
 * eventfd), and signals (a signalfd) -- so no work ever runs in a signal
 * handler and the loop never blocks on anything but epoll_wait.
 *
 * Connections that close while an event batch is being handled are parked
 * on a graveyard list and freed after the batch, so a later event of the same
 * batch never touches freed memory. */
#include "master/server.h"
#include "master/log.h"
#include "master/net.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

enum { SRC_LISTEN = 1, SRC_SIGNAL, SRC_NOTIFY, SRC_CONN };

/* Epoll sources other than connections share the head of struct conn. */
struct source {
	int fd;
	int kind;
};

static struct source src_listen = { -1, SRC_LISTEN };
static struct source src_signal = { -1, SRC_SIGNAL };
static struct source src_notify = { -1, SRC_NOTIFY };
static struct conn_list graveyard;

uint64_t server_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int watch(struct server *s, int op, int fd, uint32_t events, void *ptr)
{
	struct epoll_event ev = { .events = events, .data.ptr = ptr };

	if (epoll_ctl(s->epfd, op, fd, &ev) < 0) {
		log_error("epoll_ctl(%d): %s", fd, strerror(errno));
		return -errno;
	}
	return 0;
}

/* ---- connections -------------------------------------------------------- */

static void close_conn(struct server *s, struct conn *c)
{
	if (c->fd < 0)
		return;
	conn_list_remove(c);
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	s->nconns--;
	conn_list_push(&graveyard, c);
}

static void bury_closed(void)
{
	struct conn *c;

	while ((c = graveyard.head)) {
		conn_list_remove(c);
		free(c);
	}
}

void server_drop(struct server *s, struct conn *c)
{
	server_stats(s)->dropped++;
	close_conn(s, c);
}

/* Write what is left of c's reply: once whole, count it and close; on an
 * error, drop. Returns what conn_write said. */
static enum conn_io flush_reply(struct server *s, struct conn *c)
{
	enum conn_io io = conn_write(c);

	if (io == CONN_DONE) {
		server_stats(s)->answered++;
		close_conn(s, c);
	} else if (io == CONN_ERROR) {
		server_drop(s, c);
	}
	return io;
}

void server_reply(struct server *s, struct conn *c, uint64_t answer)
{
	conn_list_remove(c);
	c->job = CONN_NO_JOB;
	conn_set_reply(c, answer);
	if (log_enabled(LL_DEBUG))
		log_debug("reply %llu prio %u after %.3f ms",
			  (unsigned long long)answer, c->prio,
			  (double)(now_ns() - c->start_ns) / 1e6);
	if (flush_reply(s, c) == CONN_MORE) {
		c->since_ms = server_now_ms();
		conn_list_push(&s->timed, c);
		watch(s, EPOLL_CTL_MOD, c->fd, EPOLLOUT, c);
	}
}

/* ---- events ------------------------------------------------------------ */

/* Out of descriptors: say so at most once a second, with a count. */
static void turned_away(struct server *s)
{
	static uint64_t last_ms, count;
	uint64_t now = server_now_ms();

	count++;
	server_stats(s)->dropped++;
	if (now - last_ms >= 1000) {
		log_warn("out of file descriptors: turned %llu connection(s) away",
			 (unsigned long long)count);
		last_ms = now;
		count = 0;
	}
}

static void on_accept(struct server *s)
{
	/* Bounded, so a connection flood cannot starve the other sources. */
	for (int i = 0; i < 256; i++) {
		struct conn *c;
		int fd, rc = net_accept(s->listen_fd, &fd);

		if (rc == -EAGAIN)
			return;
		if (rc == -EMFILE) {
			turned_away(s);
			return;
		}
		if (rc < 0) {
			if (rc != -ECONNABORTED && rc != -EPROTO)
				log_warn("accept: %s", strerror(-rc));
			continue;
		}
		c = calloc(1, sizeof *c);
		if (!c) {
			close(fd);
			log_error("out of memory: turned a connection away");
			return;
		}
		c->fd = fd;
		c->kind = SRC_CONN;
		c->job = CONN_NO_JOB;
		c->start_ns = now_ns();
		c->since_ms = server_now_ms();
		if (watch(s, EPOLL_CTL_ADD, fd, EPOLLIN | EPOLLRDHUP, c) < 0) {
			close(fd);
			free(c);
			continue;
		}
		s->nconns++;
		server_stats(s)->accepted++;
		conn_list_push(&s->timed, c);
	}
}

static void on_conn(struct server *s, struct conn *c, uint32_t events)
{
	enum conn_io io;

	switch (c->state) {
	case CONN_READING:
		io = conn_read(c);
		if (io == CONN_DONE) {
			conn_list_remove(c); /* off the timeout list */
			server_stats(s)->requests++;
			jobs_dispatch(s, c, 0);
		} else if (io != CONN_MORE) {
			server_drop(s, c);
		}
		break;
	case CONN_WAITING:
		if (conn_drain(c) != CONN_MORE)
			jobs_client_gone(s, c);
		break;
	case CONN_WRITING:
		if (events & EPOLLERR)
			server_drop(s, c);
		else
			flush_reply(s, c);
		break;
	}
}

/* Workers flag the jobs they moved on (found, exhausted, drained), so only
 * those are looked at; a worker that died before flagging is covered by the
 * full scan after every reap. */
static void on_notify(struct server *s)
{
	static uint32_t jobs[RING_JOBS];
	uint64_t n;
	unsigned k;

	if (read(s->notify_fd, &n, sizeof n) < 0 && errno != EAGAIN)
		log_warn("read(eventfd): %s", strerror(errno));
	k = ring_changed(s->seg.ring, jobs);
	for (unsigned i = 0; i < k; i++)
		if (s->jobs[jobs[i]].in_use)
			jobs_settle(s, jobs[i]);
}

static void reload(struct server *s)
{
	struct options next = s->opt;

	server_stats(s)->reloads++;
	if (s->opt.config && options_load_config(s->opt.config, &next) < 0) {
		log_error("reload: config %s rejected, keeping %u workers",
			  s->opt.config, s->target);
		return;
	}
	if (!s->opt.config)
		next.workers = 0; /* re-detect the CPUs we may run on */
	s->opt = next;
	s->target = options_workers(&s->opt);
	s->seg.hdr->workers = s->target;
	log_info("reload: %u workers", s->target);
	workers_adjust(s);
}

static void begin_stop(struct server *s)
{
	if (s->stopping)
		return;
	s->stopping = 1;
	s->stop_deadline_ms = server_now_ms() + s->opt.stop_timeout_ms;
	if (s->listen_fd >= 0) {
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->listen_fd, NULL);
		close(s->listen_fd);
		s->listen_fd = src_listen.fd = -1; /* later events of this batch */
	}
	log_info("stopping: %llu connections in flight",
		 (unsigned long long)s->nconns);
}

/* Returns 1 when the loop must end at once (SIGQUIT). */
static int on_signal(struct server *s)
{
	struct signalfd_siginfo si;

	while (read(s->signal_fd, &si, sizeof si) == (ssize_t)sizeof si) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			workers_reap(s);
			jobs_scan(s);
			break;
		case SIGHUP:
			reload(s);
			break;
		case SIGTERM:
		case SIGINT:
			begin_stop(s);
			break;
		case SIGQUIT:
			log_info("SIGQUIT: stopping at once");
			return 1;
		case SIGUSR1:
			status_log(s);
			break;
		case SIGUSR2:
			/* Test builds only (REVHASH_TEST_HOOKS): the next lease
			 * kills its worker while it holds the ring's lock. */
			ring_lock(s->seg.ring);
			s->seg.ring->die_in_lock++;
			ring_unlock(s->seg.ring);
			log_info("test hook: a worker will die inside the ring's lock");
			break;
		}
	}
	return 0;
}

/* Drop connections past the idle timeout; returns ms until the next one.
 * One timeout for all (it may change on SIGHUP) keeps the list, in order of
 * since_ms, in deadline order too. */
static int expire(struct server *s)
{
	uint64_t now = server_now_ms(), t = s->opt.idle_timeout_ms;
	struct conn *c;

	while ((c = s->timed.head) && c->since_ms + t <= now) {
		log_debug("dropping a client too slow for %llu ms", (unsigned long long)t);
		server_stats(s)->timeouts++;
		server_drop(s, c);
	}
	return c ? (int)(c->since_ms + t - now) : -1;
}

static int min_wait(int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

/* ---- set-up and the loop ----------------------------------------------- */

static int open_event_fds(struct server *s)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGUSR1);
	if (s->seg.ring->hooks)
		sigaddset(&set, SIGUSR2); /* test hook, see on_signal */
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	s->signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	s->notify_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->epfd < 0 || s->signal_fd < 0 || s->notify_fd < 0) {
		log_error("epoll/signalfd/eventfd: %s", strerror(errno));
		return -errno;
	}
	src_listen.fd = s->listen_fd;
	src_signal.fd = s->signal_fd;
	src_notify.fd = s->notify_fd;
	if (watch(s, EPOLL_CTL_ADD, s->listen_fd, EPOLLIN, &src_listen) < 0 ||
	    watch(s, EPOLL_CTL_ADD, s->signal_fd, EPOLLIN, &src_signal) < 0 ||
	    watch(s, EPOLL_CTL_ADD, s->notify_fd, EPOLLIN, &src_notify) < 0)
		return -EIO;
	return 0;
}

int server_init(struct server *s, const struct options *o)
{
	int rc;

	memset(s, 0, sizeof *s);
	s->opt = *o;
	s->pid = getpid();
	s->listen_fd = s->epfd = s->signal_fd = s->notify_fd = -1;
	s->kernel = kernel_find(o->kernel);
	if (!s->kernel) {
		log_error("kernel '%s' is unknown or not supported by this CPU",
			  o->kernel);
		return -EINVAL;
	}
	net_raise_nofile();
	net_reserve_init();
	if ((rc = net_listen(o->port, &s->listen_fd)) < 0) {
		log_error("listen on port %u: %s%s", o->port, strerror(-rc),
			  rc == -EADDRINUSE ? " (is another master running?)" : "");
		return rc;
	}
	if ((rc = seg_create(o->port, o->cache_entries, &s->seg)) < 0) {
		log_error("shared segment /revhash-%u: %s", o->port, strerror(-rc));
		return rc;
	}
	s->seg.ring->hooks = getenv("REVHASH_TEST_HOOKS") != NULL;
	snprintf(s->seg.hdr->kernel, sizeof s->seg.hdr->kernel, "%s",
		 s->kernel->name);
	if ((rc = open_event_fds(s)) < 0)
		return rc;
	s->target = options_workers(o);
	s->seg.hdr->workers = s->target;
	log_info("listening on port %u: %u workers, kernel %s, cache %llu answers",
		 o->port, s->target, s->kernel->name,
		 (unsigned long long)o->cache_entries);
	return workers_start(s);
}

static void close_all(struct server *s)
{
	struct conn *c;
	unsigned long n = 0;

	while ((c = s->timed.head) || (c = s->pending.head)) {
		server_drop(s, c);
		n++;
	}
	for (uint32_t i = 0; i < s->nlive; i++) {
		struct mjob *mj = &s->jobs[s->live[i]];
		while ((c = mj->waiters.head)) {
			server_drop(s, c);
			n++;
		}
	}
	if (n)
		log_warn("closed %lu connections without an answer", n);
	bury_closed();
}

int server_run(struct server *s)
{
	struct epoll_event evs[256];
	int quit = 0;

	while (!quit) {
		int wait = min_wait(expire(s), workers_adjust(s));
		int n;

		if (s->stopping) {
			uint64_t now = server_now_ms();
			if (s->nconns == 0 || now >= s->stop_deadline_ms)
				break;
			wait = min_wait(wait, (int)(s->stop_deadline_ms - now));
		}
		n = epoll_wait(s->epfd, evs, 256, min_wait(wait, 1000));
		if (n < 0 && errno != EINTR) {
			log_error("epoll_wait: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n && !quit; i++) {
			struct source *src = evs[i].data.ptr;
			if (src->fd < 0)
				continue; /* closed earlier in this batch */
			switch (src->kind) {
			case SRC_LISTEN:
				on_accept(s);
				break;
			case SRC_SIGNAL:
				quit = on_signal(s);
				break;
			case SRC_NOTIFY:
				on_notify(s);
				break;
			default:
				on_conn(s, (struct conn *)src, evs[i].events);
			}
		}
		jobs_admit_pending(s);
		bury_closed();
	}
	close_all(s);
	workers_stop(s, quit ? 0 : 2000);
	log_info("stopped: %llu requests, %llu answered",
		 (unsigned long long)server_stats(s)->requests,
		 (unsigned long long)server_stats(s)->answered);
	seg_close(&s->seg);
	return 0;
}
