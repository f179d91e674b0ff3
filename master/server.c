/* The master's event loop. Everything is an epoll event: connections,
 * client bytes, the workers' eventfd, signals (a signalfd); it blocks on
 * nothing but epoll_wait, and never takes the ring's lock. */
#include "master/server.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/os.h"
#include "lib/signals.h"
#include "master/net.h"
#include "master/power.h"
#include "master/status.h"
#include "shm/segment_create.h"
#include "worker/sandbox.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#define BATCH 256
#define ACCEPT_PAUSE_MS 100

/* Add one of the loop's own descriptors to the epoll set. */
static int add_source(struct server *s, struct source *src, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = src };

	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, src->fd, &ev) < 0) {
		int err = errno;
		log_error("epoll_ctl(%d): %s", src->fd, strerror(err));
		return -err;
	}
	return 0;
}

/* The segment was cut short (given its size back, zeros where cut): the
 * lock too, so the workers are reset; the watchdog puts the header back,
 * the audit what the job table lost. */
static void see_cut_short(struct server *s)
{
	unsigned n = seg_cut_short();

	if (n == s->cut_short)
		return;
	s->cut_short = n;
	seg_restore_header(&s->seg);
	workers_reset(&s->workers, "the shared segment was cut short by a process of "
		      "our user (given its size back, zeros where it was cut)");
}

static void on_notify(struct server *s)
{
	uint64_t n;

	if (read(s->notify.fd, &n, sizeof n) < 0 && errno != EAGAIN)
		log_warn("read(eventfd): %s", strerror(errno));
	jobs_news(&s->jobs);
}

/* The CPU workers o asks for. auto: one per CPU, less one for each other
 * worker (a GPU's) and one for the master beside them
 * (docs/performance.md). */
static unsigned cpu_workers(const struct server *s, const struct options *o)
{
	unsigned n = options_workers(o), others = s->workers.fixed;

	if (o->workers || !others)
		return n;
	return n > others + 1 ? n - others - 1 : 1;
}

/* How long the master polls after it was last busy, with cpu CPU
 * workers: --poll's, by default where the workers left it a CPU of its
 * own (docs/performance.md). */
static uint64_t poll_ns(const struct server *s, const struct options *o, unsigned cpu)
{
	if (o->poll == OPT_OFF ||
	    (o->poll == OPT_AUTO && cpu + s->workers.fixed >= options_workers(o)))
		return 0;
	return (uint64_t)o->poll_ms * 1000000u;
}

static void say_poll(const struct server *s)
{
	if (s->poll_ns)
		log_info("the master polls for events while busy and %.3g s after",
			 s->poll_ns / 1e9);
}

static void reload(struct server *s)
{
	struct options next = s->opt;
	uint64_t was;
	unsigned n;

	shm_count(s->seg.hdr->stats.reloads, 1);
	if (s->opt.config && options_load(&next, s->opt.config) < 0) {
		log_error("reload: config %s rejected, keeping CPU workers at %u",
			  s->opt.config, s->workers.target);
		return;
	}
	s->opt = next;
	n = cpu_workers(s, &s->opt); /* re-detects the CPUs only for auto */
	s->clients.timeout_ms = s->opt.idle_timeout_ms;
	shm_show(s->seg.hdr->cpus, os_cpu_count());
	workers_set_target(&s->workers, n);
	log_info("reload: CPU workers %u", s->workers.target);
	was = s->poll_ns;
	s->poll_ns = poll_ns(s, &s->opt, n);
	if (was && !s->poll_ns)
		log_info("the master no longer polls");
	else if (!was)
		say_poll(s);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void begin_drain(struct server *s)
{
	if (s->draining)
		return;
	s->draining = 1;
	s->drain_deadline_ms = clock_ms() + s->opt.stop_timeout_ms;
	for (unsigned i = 0; i < s->nlisten; i++) {
		if (s->listen[i].fd >= 0)
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->listen[i].fd, NULL);
		close_fd(&s->listen[i].fd); /* -1: for later events of this batch */
	}
	clients_close_unsent(&s->clients);
	log_info("stopping: %llu requests in flight",
		 (unsigned long long)clients_owed(&s->clients));
}

/* One signal (lib/signals.c's table). 1 when the loop must end at once. */
static int on_signal(struct server *s, const struct signalfd_siginfo *si)
{
	switch (sig_role((int)si->ssi_signo)) {
	case SIG_REAP:
		workers_reap(&s->workers);
		jobs_news(&s->jobs); /* a worker may have died flagging */
		break;
	case SIG_RELOAD:
		reload(s);
		break;
	case SIG_DRAIN:
		begin_drain(s);
		break;
	case SIG_QUIT:
		log_info("SIGQUIT: stopping at once");
		return 1;
	case SIG_STATUS:
		status_log(&s->seg);
		break;
	case SIG_LOG:
		/* One the master raised on itself already failed its call. */
		if (si->ssi_pid != (uint32_t)s->workers.master)
			log_info("signal %u (%s) from pid %u ignored", si->ssi_signo,
				 strsignal((int)si->ssi_signo), si->ssi_pid);
		break;
	}
	return 0;
}

static int on_signals(struct server *s)
{
	struct signalfd_siginfo si;

	while (read(s->signals.fd, &si, sizeof si) == (ssize_t)sizeof si)
		if (on_signal(s, &si))
			return 1;
	return 0;
}

static void on_conn(struct server *s, struct conn *c, uint32_t events)
{
	switch (clients_event(&s->clients, c, events)) {
	case CLIENT_REQUEST:
		jobs_dispatch(&s->jobs, c);
		break;
	case CLIENT_GONE:
		jobs_client_gone(&s->jobs, c);
		break;
	case CLIENT_NOTHING:
		break;
	}
}

/* ---- set-up --------------------------------------------------------------- */

/* A set-up call failed: logged. -errno. */
static int failed(const char *call)
{
	int err = errno;

	log_error("%s: %s", call, strerror(err));
	return -err;
}

static int open_event_fds(struct server *s)
{
	sigset_t set;
	int rc;

	sig_table_set(&set);
	if ((s->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return failed("epoll_create1");
	if ((s->signals.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
		return failed("signalfd");
	if ((s->notify.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
		return failed("eventfd");
	for (unsigned i = 0; i < s->nlisten; i++)
		if ((rc = add_source(s, &s->listen[i], EPOLLIN)) < 0)
			return rc;
	if ((rc = add_source(s, &s->signals, EPOLLIN)) < 0 ||
	    (rc = add_source(s, &s->notify, EPOLLIN)) < 0)
		return rc;
	return 0;
}

/* Undo server_init, whatever it reached. */
static void teardown(struct server *s)
{
	jobs_free(&s->jobs);
	clients_free(&s->clients);
	for (unsigned i = 0; i < s->nlisten; i++)
		close_fd(&s->listen[i].fd);
	if (s->unix_ino)
		net_unbind_unix(s->opt.listen_unix, s->unix_ino);
	close_fd(&s->signals.fd);
	close_fd(&s->notify.fd);
	close_fd(&s->epfd);
	power_free(&s->power);
	seg_remove(&s->seg);
}

/* The listeners on addresses: one for each --listen address, or one for
 * every address (none beside the balancer's Unix socket alone). */
static unsigned ip_listeners(const struct options *o)
{
	return o->nlisten ? o->nlisten : o->listen_unix ? 0 : 1;
}

/* call on listener i failed with rc: said, naming its address. rc. */
static int listen_failed(const char *call, const struct options *o, unsigned i, int rc)
{
	const char *in_use = rc == -EADDRINUSE ? " (is another master running?)" : "";
	char ip[INET6_ADDRSTRLEN] = "every address";

	if (i == ip_listeners(o)) {
		log_error("%s(unix:%s): %s%s", call, o->listen_unix, strerror(-rc), in_use);
		return rc;
	}
	if (o->nlisten)
		net_address_text(o->listen[i], ip, sizeof ip);
	log_error("%s(%s port %u): %s%s", call, ip, o->port, strerror(-rc), in_use);
	return rc;
}

static int bind_all(struct server *s, const struct options *o)
{
	int rc;

	for (s->nlisten = 0; s->nlisten < ip_listeners(o); s->nlisten++) {
		const uint8_t *ip = o->nlisten ? o->listen[s->nlisten] : NULL;

		if ((rc = net_bind(ip, o->port, &s->listen[s->nlisten].fd)) < 0)
			return listen_failed("bind", o, s->nlisten, rc);
	}
	return 0;
}

/* The balancer's Unix socket, the last listener, bound after --user. */
static int bind_unix(struct server *s, const struct options *o)
{
	int rc;

	if (!o->listen_unix)
		return 0;
	rc = net_bind_unix(o->listen_unix, &s->listen[s->nlisten].fd, &s->unix_ino);
	if (rc < 0)
		return rc == -EPERM ? rc : listen_failed("bind", o, s->nlisten, rc);
	s->nlisten++;
	return 0;
}

/* From now on connections are accepted into the listeners' queues. */
static int open_all(struct server *s, const struct options *o)
{
	int rc;

	for (unsigned i = 0; i < s->nlisten; i++)
		if ((rc = net_open(s->listen[i].fd)) < 0)
			return listen_failed("listen", o, i, rc);
	return 0;
}

/* A master on its Unix socket alone has no port to make its number its
 * own (its segment, --status): one a live master has is refused. */
static int number_free(const struct options *o)
{
	struct seg seg;
	int alive;

	if (o->nlisten || !o->listen_unix || seg_open(o->port, 0, &seg) < 0)
		return 0;
	alive = seg.alive;
	seg_close(&seg);
	if (!alive)
		return 0;
	log_error("port %u: a live master already serves as it (--status %u): choose another",
		  o->port, o->port);
	return -EADDRINUSE;
}

static int start(struct server *s, const struct options *o)
{
	unsigned cpu;
	char policy[64];
	int rc;

	if ((rc = bind_all(s, o)) < 0)
		return rc;
	/* What needs root first. */
	power_init(&s->power, (enum opt_auto)o->low_latency, o->low_latency_ms);
	if ((o->user && (rc = os_become(o->user)) < 0) || (rc = number_free(o)) < 0 ||
	    (rc = bind_unix(s, o)) < 0)
		return rc;
	if (!o->sandbox) {
		sandbox_off();
	} else if ((rc = sandbox_probe()) < 0) {
		log_error("workers cannot be confined here (their seccomp filter did not load, "
			  "above): --no-sandbox runs them unconfined");
		return rc;
	}
	if ((rc = seg_create(o->port, o->cache_entries, &o->policy, &s->seg)) < 0 ||
	    (rc = seg_guard(&s->seg)) < 0)
		return rc;
	shm_show(s->seg.hdr->low_latency, power_state(&s->power));
	seg_show_name(s->seg.hdr->kernel, sizeof s->seg.hdr->kernel, s->kernel->name);
	shm_show(s->seg.hdr->cpus, os_cpu_count());
	if ((rc = open_event_fds(s)) < 0)
		return rc;
	clients_init(&s->clients, s->epfd, &s->seg.hdr->stats, o->idle_timeout_ms,
		     o->max_conns, (uint32_t)o->peer_conns);
	s->clients.proxies = o->proxy_from;
	s->clients.nproxies = o->nproxy;
	s->clients.max_wait_ms = o->max_wait_ms;
	cache_init(&s->cache, s->seg.cache, o->cache_entries);
	if ((rc = jobs_init(&s->jobs, s->seg.ring, &s->cache, &s->clients,
			    &s->seg.hdr->stats, &o->policy, o->attach_repeats,
			    o->peer_searches, o->peer_weight)) < 0)
		return rc;
	workers_init(&s->workers, &s->seg, s->kernel, s->notify.fd, o->pin);
	if ((rc = workers_find(&s->workers, o->kind_spec, o->kind_path, o->kind_kernel)) < 0)
		return rc;
	cpu = cpu_workers(s, o);
	workers_set_target(&s->workers, cpu);
	s->poll_ns = poll_ns(s, o, cpu);
	say_poll(s);
	if ((rc = workers_start(&s->workers)) < 0)
		return rc;
	/* Only now: a client that connects finds a server ready. */
	if ((rc = open_all(s, o)) < 0)
		return rc;
	if (o->listen_unix)
		log_info("the balancer's socket: unix:%s (PROXY headers)", o->listen_unix);
	log_info("listening on port %u: CPU workers %u (kernel %s), other workers %u, "
		 "cache %llu answers, schedule %s", o->port, s->workers.target,
		 s->kernel->name, s->workers.fixed,
		 (unsigned long long)o->cache_entries,
		 policy_describe(&o->policy, policy, sizeof policy));
	if (sandbox_on())
		log_info("workers confined: %u system calls a CPU worker's, %u a device "
			 "worker's (seccomp)", sandbox_allowed(SANDBOX_CPU),
			 sandbox_allowed(SANDBOX_DEVICE));
	else
		log_warn("workers not confined (--no-sandbox): a worker may signal the master, "
			 "open files and sockets, exec");
	log_info("caps: %llu connections, %llu a peer; %llu searches a peer, fair share "
		 "past weight %llu; a wait of %u s at most", (unsigned long long)o->max_conns,
		 (unsigned long long)o->peer_conns, (unsigned long long)o->peer_searches,
		 (unsigned long long)o->peer_weight, o->max_wait_ms / 1000);
	return 0;
}

int server_init(struct server *s, const struct options *o)
{
	sigset_t set;
	int rc;

	/* Blocked before anything is seen from outside: an early TERM is a
	 * stop, not death with the segment left behind. */
	sig_table_set(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
	memset(s, 0, sizeof *s);
	s->opt = *o;
	s->epfd = s->seg.fd = s->power.fd = -1;
	for (unsigned i = 0; i <= OPT_LISTEN_MAX; i++)
		s->listen[i] = (struct source){ .fd = -1, .kind = SRC_LISTEN };
	s->signals = (struct source){ .fd = -1, .kind = SRC_SIGNAL };
	s->notify = (struct source){ .fd = -1, .kind = SRC_NOTIFY };
	s->kernel = kernel_find(o->kernel);
	if (!s->kernel) {
		log_error("kernel '%s' is unknown or not supported by this CPU",
			  o->kernel);
		return -EINVAL;
	}
	if (strcmp(o->kernel, "auto") == 0) {
		char line[256];

		pick_line(&kernel_calibrate()->pick, line, sizeof line);
		log_info("kernel auto: %s", line);
	}
	options_caps(&s->opt, net_raise_nofile());
	net_reserve_init();
	if ((rc = start(s, &s->opt)) < 0) {
		if (s->workers.ring)
			workers_shutdown(&s->workers, 0);
		teardown(s);
	}
	return rc;
}

/* Watch the listeners for connections (events EPOLLIN), or not (0). */
static void watch_listeners(struct server *s, uint32_t events)
{
	for (unsigned i = 0; i < s->nlisten; i++) {
		struct epoll_event ev = { .events = events, .data.ptr = &s->listen[i] };

		if (s->listen[i].fd >= 0)
			epoll_ctl(s->epfd, EPOLL_CTL_MOD, s->listen[i].fd, &ev);
	}
}

/* Out of descriptors with no reserve: stop watching the listeners a
 * moment rather than spin on them. */
static void pause_accepting(struct server *s)
{
	watch_listeners(s, 0);
	s->accept_again_ms = clock_ms() + ACCEPT_PAUSE_MS;
}

static uint64_t resume_accepting(struct server *s, uint64_t now)
{
	if (!s->accept_again_ms)
		return UINT64_MAX;
	if (now < s->accept_again_ms)
		return s->accept_again_ms;
	watch_listeners(s, EPOLLIN);
	s->accept_again_ms = 0;
	return UINT64_MAX;
}

/* ---- the loop ------------------------------------------------------------- */

static int wait_ms(uint64_t next, uint64_t now)
{
	if (next == UINT64_MAX)
		return 1000;
	return next <= now ? 0 : next - now > 1000 ? 1000 : (int)(next - now);
}

/* Hold the CPUs polling while busy (power.h), shown to --status. When
 * to look again. */
static uint64_t keep_awake(struct server *s, uint64_t now)
{
	uint64_t next = power_update(&s->power, jobs_in_flight(&s->jobs) > 0, now);

	shm_show(s->seg.hdr->low_latency, power_state(&s->power));
	shm_show(s->seg.hdr->low_latency_holds, s->power.holds);
	return next;
}

static void close_all(struct server *s)
{
	uint64_t owed = clients_owed(&s->clients);

	jobs_drop_all(&s->jobs);
	clients_close_all(&s->clients);
	if (owed)
		log_warn("closed %llu connections without an answer",
			 (unsigned long long)owed);
	clients_bury(&s->clients);
}

/* Wait for events until next (ms); polling first while busy (a search in
 * flight, a request read) and s->poll_ns after, not past next. */
static int wait_events(struct server *s, struct epoll_event *evs, uint64_t next,
		       uint64_t now_ms)
{
	int ms = wait_ms(next, now_ms), n;

	if (s->poll_ns && ms > 0) {
		uint64_t t = clock_ns(), until;

		if (jobs_in_flight(&s->jobs) || s->requests != s->seg.hdr->stats.requests) {
			s->busy_ns = t;
			s->requests = s->seg.hdr->stats.requests;
		}
		until = s->busy_ns + s->poll_ns;
		if (next != UINT64_MAX && until > next * 1000000u)
			until = next * 1000000u;
		while (t < until) {
			if ((n = epoll_wait(s->epfd, evs, BATCH, 0)) != 0)
				return n;
			t = clock_ns();
		}
		if (t < s->busy_ns + s->poll_ns)
			return 0; /* a timer is due: the loop sees to it, then polls on */
		ms = wait_ms(next, clock_ms());
	}
	return epoll_wait(s->epfd, evs, BATCH, ms);
}

void server_run(struct server *s)
{
	struct epoll_event evs[BATCH];
	int quit = 0;

	while (!quit) {
		uint64_t now = clock_ms(), next = clients_expire(&s->clients, now);
		uint64_t w = workers_tick(&s->workers, now);
		struct conn *late;
		uint64_t a = resume_accepting(s, now);
		uint64_t p = keep_awake(s, now);
		uint64_t j = jobs_audit(&s->jobs, now);
		int n;

		see_cut_short(s);
		while ((late = clients_overdue(&s->clients, now)))
			jobs_client_gone(&s->jobs, late);
		next = j < next ? j : next;
		next = w < next ? w : next;
		next = a < next ? a : next;
		next = p < next ? p : next;
		shm_show(s->seg.hdr->alive_ns, clock_ns()); /* alive at every turn */
		if (s->draining) {
			/* Lingering ones too: their replies are still in flight. */
			if (s->clients.open == 0 || now >= s->drain_deadline_ms)
				break;
			next = s->drain_deadline_ms < next ? s->drain_deadline_ms : next;
		}
		n = wait_events(s, evs, next, now);
		if (n < 0 && errno != EINTR) {
			log_error("epoll_wait: %s", strerror(errno));
			abort(); /* a bad descriptor or argument: a bug */
		}
		if (n > 0)
			shm_count(s->seg.hdr->stats.wakeups, 1);
		for (int i = 0; i < n && !quit; i++) {
			struct source *src = evs[i].data.ptr;
			struct conn *c;

			if (src->fd < 0)
				continue; /* closed earlier in this batch */
			switch (src->kind) {
			case SRC_LISTEN:
				if (clients_accept(&s->clients, src->fd))
					pause_accepting(s);
				while ((c = clients_ready(&s->clients)))
					jobs_dispatch(&s->jobs, c);
				break;
			case SRC_SIGNAL:
				quit = on_signals(s);
				break;
			case SRC_NOTIFY:
				on_notify(s);
				break;
			case SRC_CONN:
				on_conn(s, (struct conn *)src, evs[i].events);
				break;
			}
		}
		jobs_balance(&s->jobs);
		clients_bury(&s->clients);
	}
	close_all(s);
	workers_shutdown(&s->workers, quit ? 0 : 2000);
	log_info("stopped: %llu requests, %llu answered",
		 (unsigned long long)s->seg.hdr->stats.requests,
		 (unsigned long long)s->seg.hdr->stats.answered);
	teardown(s);
}
