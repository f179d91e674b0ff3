/* Test helpers. The master runs as a real child process; its log goes to a
 * file under the build folder that tm_dump_log prints when a test fails. */
#include "tests/helpers.h"
#include "tests/reply.h"
#include "lib/os.h"
#include "tests/check_run.h"
#include "proto/proto.h"

#include <dirent.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint64_t th_rand64(void)
{
	static uint64_t s;

	if (!s)
		s = (th_seed() ^ 0x9e3779b97f4a7c15ull) | 1; /* never 0 */
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

uint64_t th_cpu_ms(pid_t pid)
{
	struct os_stat s;

	if (os_stat(pid, &s) < 0)
		return 0;
	return s.ticks * 1000 / (uint64_t)sysconf(_SC_CLK_TCK);
}

char th_proc_state(pid_t pid)
{
	struct os_stat s;

	return os_stat(pid, &s) < 0 ? 0 : s.state;
}

int th_signals_pending(pid_t pid)
{
	char path[64], line[256];
	unsigned long long mask;
	int pending = 0, seen = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "SigPnd: %llx", &mask) == 1 ||
		    sscanf(line, "ShdPnd: %llx", &mask) == 1) {
			pending |= mask != 0;
			seen++;
		}
	fclose(f);
	return seen ? pending : -1;
}

int th_open_fds(pid_t pid)
{
	char path[64];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	if (!(d = opendir(path)))
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

void th_skip(const char *test, const char *fmt, ...)
{
	size_t len = strlen(test);
	va_list ap;

	if (len > 3 && strcmp(test + len - 3, "_fn") == 0) /* Check's name */
		len -= 3;
	printf("SKIP: %.*s: ", (int)len, test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

const char *th_no_robust_locks(void)
{
	const char *why = getenv("REVHASH_NO_ROBUST_LOCKS");

	return why && *why ? why : NULL;
}

unsigned th_free_port(void)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	unsigned port = 0;

	if (fd < 0)
		return 0;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin6_port);
	close(fd);
	return port;
}

int th_connect(unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int th_send_request(int fd, const uint8_t d[32], uint64_t start, uint64_t end,
		    uint8_t prio)
{
	struct proto_request q;
	uint8_t buf[PROTO_REQUEST_LEN];

	memcpy(q.digest, d, 32);
	q.start = start;
	q.end = end;
	q.priority = prio;
	proto_encode_request(&q, buf);
	return send(fd, buf, sizeof buf, MSG_NOSIGNAL) == (ssize_t)sizeof buf ? 0 : -1;
}

int th_read_reply(int fd, uint64_t *x, int timeout_ms)
{
	return reply_within(fd, x, timeout_ms);
}

void th_reset(int fd)
{
	struct linger lg = { 1, 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
	close(fd);
}

int th_request(unsigned port, const uint8_t d[32], uint64_t start,
	       uint64_t end, uint8_t prio, uint64_t *x)
{
	int fd = th_connect(port), rc = -1;

	if (fd < 0)
		return -1;
	if (th_send_request(fd, d, start, end, prio) == 0)
		rc = th_read_reply(fd, x, 60000);
	close(fd);
	return rc;
}

const char *th_master_path(void)
{
	const char *p = getenv("REVHASH_MASTER");

	return p ? p : "master/master";
}

int th_jq(const char *json, const char *filter, char *out, size_t size)
{
	char path[] = "/tmp/revhash-jq-XXXXXX", cmd[1024];
	int fd = mkstemp(path);
	size_t n = 0, len = strlen(json);
	FILE *p;

	if (fd < 0 || write(fd, json, len) != (ssize_t)len)
		return -1;
	close(fd);
	snprintf(cmd, sizeof cmd, "jq -r '%s' %s", filter, path);
	if ((p = popen(cmd, "r"))) {
		n = fread(out, 1, size - 1, p);
		fd = pclose(p);
	}
	out[n] = '\0';
	unlink(path);
	return p && fd == 0 ? 0 : -1;
}

const char *th_bench_path(void)
{
	const char *p = getenv("REVHASH_BENCH");

	return p ? p : "revhash-bench";
}

/* Where the masters' logs go: $REVHASH_TEST_LOGS (set by run-tests.sh to
 * a folder of the build), else build/test-logs. */
static const char *log_dir(void)
{
	const char *dir = getenv("REVHASH_TEST_LOGS");

	if (!dir)
		dir = "build/test-logs";
	mkdir(dir, 0755);
	return dir;
}

int tm_start(struct tmaster *m, const char *env, const char *const *args)
{
	return tm_start_on(m, th_free_port(), env, args);
}

unsigned long th_master_nofile;

/* th_connect_from over IPv6: from ::1 (or another address of lo) to ::1. */
static int connect_from6(const char *from, unsigned port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (inet_pton(AF_INET6, from, &a.sin6_addr) != 1 ||
	    bind(fd, (struct sockaddr *)&a, sizeof a) < 0)
		goto fail;
	a.sin6_port = htons((uint16_t)port);
	a.sin6_addr = in6addr_loopback;
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

int th_connect_from(const char *from, unsigned port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd;

	if (strchr(from, ':'))
		return connect_from6(from, port);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	inet_pton(AF_INET, from, &a.sin_addr);
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0)
		goto fail;
	a.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

int tm_start_on(struct tmaster *m, unsigned port_no, const char *env,
		const char *const *args)
{
	char port[16];
	const char *argv[32];
	int n = 0, gpu = 0;

	m->port = port_no;
	m->conns = 0;
	snprintf(port, sizeof port, "%u", m->port);
	snprintf(m->log, sizeof m->log, "%s/master-%u.log", log_dir(), m->port);
	argv[n++] = th_master_path();
	argv[n++] = port;
	for (; args && *args && n < 28; args++) {
		gpu |= strncmp(*args, "--gpu", 5) == 0;
		argv[n++] = *args;
	}
	if (!gpu) { /* the CPU workers the test counts, on a GPU machine too */
		argv[n++] = "--gpu";
		argv[n++] = "off";
	}
	argv[n] = NULL;
	m->pid = fork();
	if (m->pid < 0)
		return -1;
	if (m->pid == 0) {
		int fd = open(m->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			dup2(fd, 2);
		if (env)
			putenv((char *)env);
		setpgid(0, 0); /* its own group, as a service manager starts it */
		/* A failed test exits without stopping it: then stop by itself. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (th_master_nofile) {
			struct rlimit rl = { th_master_nofile, th_master_nofile };
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		int fd = th_connect(m->port);
		struct seg seg;
		if (fd >= 0) {
			close(fd);
			m->conns++;
			if (tm_seg(m, &seg) == 0) {
				/* Serving: listener, segment and a first worker. */
				struct ring_slot v;
				int ready;

				ring_slot_view(seg.ring, 0, &v);
				ready = v.pid > 0;
				seg_close(&seg);
				if (ready)
					return 0;
			}
		}
		if (waitpid(m->pid, NULL, WNOHANG) == m->pid)
			break;
		usleep(10000);
	}
	tm_dump_log(m);
	return -1;
}

int tm_stop(struct tmaster *m)
{
	int status;

	if (m->pid <= 0)
		return -1;
	kill(m->pid, SIGTERM);
	for (int i = 0; i < 2000; i++) {
		if (waitpid(m->pid, &status, WNOHANG) == m->pid) {
			m->pid = 0;
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		}
		usleep(10000);
	}
	kill(m->pid, SIGKILL);
	waitpid(m->pid, &status, 0);
	m->pid = 0;
	return -1;
}

int tm_seg(const struct tmaster *m, struct seg *seg)
{
	return seg_open(m->port, 1, seg);
}

int tm_workers(const struct tmaster *m, pid_t *pids, int max)
{
	struct seg seg;
	int n = 0;

	if (tm_seg(m, &seg) < 0)
		return 0;
	for (unsigned i = 0; i < RING_WORKERS && n < max; i++) {
		struct ring_slot v;

		ring_slot_view(seg.ring, i, &v);
		if (v.pid > 0)
			pids[n++] = v.pid;
	}
	seg_close(&seg);
	return n;
}

int tm_wait_workers(const struct tmaster *m, int n, int timeout_ms)
{
	pid_t pids[RING_WORKERS];

	return TH_WAIT_UNTIL(tm_workers(m, pids, RING_WORKERS) == n, timeout_ms) ? 0 : -1;
}

/* A live worker of seg whose slot holds a lease, or 0. */
static pid_t lease_holder(const struct seg *seg)
{
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct ring_slot v;
		char state;

		ring_slot_view(seg->ring, i, &v);
		state = v.pid > 0 && v.has_lease ? th_proc_state(v.pid) : 0;
		if (state && state != 'Z' && state != 'X')
			return v.pid;
	}
	return 0;
}

/* Does the slot of worker pid hold a lease? */
static int holds_lease(const struct seg *seg, pid_t pid)
{
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct ring_slot v;

		ring_slot_view(seg->ring, i, &v);
		if (v.pid == pid)
			return v.has_lease;
	}
	return 0;
}

pid_t tm_worker_with_lease(const struct tmaster *m, int timeout_ms)
{
	struct seg seg;
	pid_t pid = 0;

	if (tm_seg(m, &seg) < 0)
		return 0;
	TH_WAIT_UNTIL((pid = lease_holder(&seg)) > 0, timeout_ms);
	seg_close(&seg);
	return pid;
}

pid_t tm_freeze_worker_with_lease(const struct tmaster *m, int timeout_ms)
{
	uint64_t until = clock_ms() + (uint64_t)timeout_ms;
	struct seg seg;
	pid_t pid = 0;
	char state = 0;

	if (tm_seg(m, &seg) < 0)
		return 0;
	while (TH_WAIT_UNTIL((pid = lease_holder(&seg)) > 0,
			     until > clock_ms() ? until - clock_ms() : 0)) {
		/* Stopping takes effect when the kernel next runs it. */
		if (kill(pid, SIGSTOP) == 0 &&
		    TH_WAIT_UNTIL((state = th_proc_state(pid)) == 'T' || !state ||
				  state == 'Z', 5000) &&
		    state == 'T' && holds_lease(&seg, pid))
			break;
		kill(pid, SIGCONT); /* between two leases: another try */
		pid = 0;
	}
	seg_close(&seg);
	return pid;
}

void tm_dump_log(const struct tmaster *m)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(m->log, "r");

	if (!f)
		return;
	fprintf(stderr, "---- master log %s ----\n", m->log);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(f);
}

const char *tm_log_find(const struct tmaster *m, const char *needle, char *line, size_t len)
{
	const char *at = NULL;
	FILE *f = fopen(m->log, "r");

	if (!f)
		return NULL;
	while (!at && fgets(line, (int)len, f))
		at = strstr(line, needle);
	fclose(f);
	return at;
}

int tm_log_contains(const struct tmaster *m, const char *needle)
{
	char line[1024];

	return tm_log_find(m, needle, line, sizeof line) != NULL;
}

int tm_stats(const struct tmaster *m, struct seg_stats *st)
{
	struct seg seg;

	if (tm_seg(m, &seg) < 0)
		return -1;
	*st = seg.hdr->stats;
	seg_close(&seg);
	return 0;
}
