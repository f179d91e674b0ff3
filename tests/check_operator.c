/* What an operator does to the master: start it right and wrong, reload
 * it, stop it gracefully (also with silent clients), send it the signals
 * one sends by habit, point it at bad config files, kill it and start
 * another on the same port, and ask for the status of a master that is
 * gone or of a segment that lies. */
#include "tests/check_run.h"
#include "tests/helpers.h"
#include "tests/fixture.h"
#include "lib/digest.h"
#include "lib/os.h"
#include "proto/proxy.h"

#include <arpa/inet.h>
#include <check.h>
#include <pwd.h>
#include <seccomp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const two[] = { "--workers", "2", NULL };

/* Start path with first (may be NULL) and then args (at most 12 words in
 * all), its output discarded; its pid. */
static pid_t spawn_quiet(const char *path, const char *first,
			 const char *const *args)
{
	const char *argv[16] = { path };
	int n = 1;
	pid_t pid;

	if (first)
		argv[n++] = first;
	for (; *args && n < 14; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* Run the binary at path with args, output discarded, and return its exit
 * status. */
static int run_binary(const char *path, const char *const *args)
{
	int status;
	pid_t pid = spawn_quiet(path, NULL, args);

	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int run_master(const char *const *args)
{
	return run_binary(th_master_path(), args);
}

START_TEST(graceful_stop_answers_what_is_in_flight)
{
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;
	int fd, status;
	char name[64];

	start(NULL, two);
	digest_of(base + 3000000, d);
	fd = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd, d, base, base + 4000000, 1), 0);
	ck_assert(TH_WAIT_UNTIL(stats_now().requests == 1, 5000)); /* in flight */
	kill(m.pid, SIGTERM);
	ck_assert_int_eq(th_read_reply(fd, &x, 60000), 0);
	ck_assert_uint_eq(x, base + 3000000);
	close(fd);
	ck_assert_int_eq(waitpid(m.pid, &status, 0), m.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(name, sizeof name, "/dev/shm/revhash-%u-%d", m.port, (int)m.pid);
	ck_assert_int_eq(access(name, F_OK), -1); /* segment removed */
	ck_assert_int_lt(th_connect(m.port), 0);   /* no longer listening */
	m.pid = 0;
}
END_TEST

START_TEST(stop_sent_to_the_whole_group_still_answers)
{
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;
	int fd, status;
	const char *const args[] = { "--workers", "2", "--kernel", "openssl", NULL };

	start(NULL, args);
	digest_of(base + 6000000, d);
	fd = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd, d, base, base + 7000000, 1), 0);
	ck_assert(TH_WAIT_UNTIL(stats_now().requests == 1, 5000)); /* in flight */
	/* What systemd and a terminal do: every process of the group. */
	ck_assert_int_eq(killpg(m.pid, SIGTERM), 0);
	ck_assert_int_eq(th_read_reply(fd, &x, 60000), 0);
	ck_assert_uint_eq(x, base + 6000000);
	close(fd);
	ck_assert_int_eq(waitpid(m.pid, &status, 0), m.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert(!tm_log_contains(&m, "killed by signal"));
	m.pid = 0;
}
END_TEST

/* A copy of the master's segment header now: what it aims for, what it
 * does, its counters. */
static struct seg_header header_now(void)
{
	struct seg_header h;
	struct seg seg;

	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	h = *seg.hdr;
	seg_close(&seg);
	return h;
}

/* Does a master listen on port? */
static int listening(unsigned port)
{
	int fd = th_connect(port);

	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* Replace the contents of the file at path with text (creating it). */
static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t len = (ssize_t)strlen(text);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, (size_t)len), len);
	close(fd);
}

START_TEST(hup_reloads_the_worker_count)
{
	char cfg[] = "/tmp/revhash-cfg-XXXXXX";
	int fd = mkstemp(cfg);
	const char *args[] = { "--config", cfg, NULL };
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_file(cfg, "# test\nworkers = 1\n");
	start(NULL, args);
	ck_assert_int_eq(tm_wait_workers(&m, 1, 5000), 0);
	write_file(cfg, "workers = 4\n");
	kill(m.pid, SIGHUP);
	ck_assert_int_eq(tm_wait_workers(&m, 4, 5000), 0);
	/* A bad config is rejected and changes nothing. */
	write_file(cfg, "workers = 1\nbogus = 3\n");
	kill(m.pid, SIGHUP);
	ck_assert(TH_WAIT_UNTIL(tm_log_contains(&m, "rejected, keeping CPU workers at 4"), 5000));
	ck_assert_uint_eq(header_now().workers, 4);
	ck_assert_int_eq(tm_wait_workers(&m, 4, 100), 0);
	write_file(cfg, "workers = 2\n");
	kill(m.pid, SIGHUP);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	digest_of(base + 99, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 1000, 1, &x), 0);
	ck_assert_uint_eq(x, base + 99);
	stop();
	unlink(cfg);
}
END_TEST

START_TEST(command_line_is_checked)
{
	const char *const help[] = { "--help", NULL };
	const char *const bad[] = { "5003", "--workers", "0", NULL };
	const char *const junk[] = { "--frobnicate", NULL };
	const char *const port[] = { "70000", NULL };
	const char *const none[] = { NULL };
	const char *const kernel[] = { "5003", "--kernel", "nonsense", NULL };
	const char *const kernel_empty[] = { "5003", "--kernel", "", NULL };
	const char *const grace[] = { "5003", "--low-latency=-1", NULL };
	const char *const words[] = { "5003", "--low-latency=soon", NULL };
	const char *const poll0[] = { "5003", "--poll=0", NULL };
	const char *const pollw[] = { "5003", "--poll=soon", NULL };
	const char *const order[] = { "5003", "--schedule", "lifo", NULL };
	const char *const listen[] = { "5003", "--listen", "localhost", NULL };
	const char *const conns[] = { "5003", "--peer-conns", "0", NULL };

	ck_assert_int_eq(run_master(help), 0);
	ck_assert_int_eq(run_master(grace), 2);
	ck_assert_int_eq(run_master(words), 2);
	ck_assert_int_eq(run_master(poll0), 2);
	ck_assert_int_eq(run_master(pollw), 2);
	ck_assert_int_eq(run_master(bad), 2);
	ck_assert_int_eq(run_master(junk), 2);
	ck_assert_int_eq(run_master(port), 2);
	ck_assert_int_eq(run_master(none), 2);
	ck_assert_int_eq(run_master(kernel), 2);
	ck_assert_int_eq(run_master(kernel_empty), 2);
	ck_assert_int_eq(run_master(order), 2);
	ck_assert_int_eq(run_master(listen), 2);
	ck_assert_int_eq(run_master(conns), 2);
}
END_TEST

/* The uid in /proc/pid/status (its real one), or -1. */
static long uid_of(pid_t pid)
{
	char path[64], line[256];
	long uid = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Uid: %ld", &uid) == 1)
			break;
	fclose(f);
	return uid;
}

/* Up to max children of pid into out; how many. */
static int children_of(pid_t pid, pid_t *out, int max)
{
	char path[64];
	long child;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (n < max && fscanf(f, "%ld", &child) == 1)
		out[n++] = (pid_t)child;
	fclose(f);
	return n;
}

/* --user: a master started as root binds its port (a privileged one too),
 * then it and its workers run as that user and serve; its segment is that
 * user's. Not root: refused unless it names the user it is. */
START_TEST(user_drops_root_after_the_bind)
{
	struct passwd *pw = getpwnam("nobody");
	const char *const other[] = { "5003", "--user", "nobody", NULL };
	char port[16], seg[64];
	pid_t pid, workers[2];
	uint8_t d[32];
	uint64_t x;
	struct stat st;
	int status;

	if (!pw) {
		printf("SKIP: user_drops_root_after_the_bind: no user nobody\n");
		return;
	}
	if (geteuid() != 0) {
		ck_assert_int_eq(run_master(other), 1);
		printf("SKIP: user_drops_root_after_the_bind: not root\n");
		return;
	}
	m.port = th_free_port();
	snprintf(port, sizeof port, "%u", m.port);
	if ((pid = fork()) == 0) {
		freopen("/dev/null", "w", stderr);
		execl(th_master_path(), th_master_path(), port, "--workers", "2", "--gpu", "off",
		      "--user", "nobody", (char *)NULL);
		_exit(127);
	}
	digest_of(31337, d);
	ck_assert(TH_WAIT_UNTIL(th_request(m.port, d, 31000, 32000, 1, &x) == 0, 10000));
	ck_assert_uint_eq(x, 31337);
	ck_assert_int_eq(uid_of(pid), (long)pw->pw_uid);
	snprintf(seg, sizeof seg, "/dev/shm/revhash-%u-%d", m.port, (int)pid);
	ck_assert_int_eq(stat(seg, &st), 0);
	ck_assert_uint_eq(st.st_uid, pw->pw_uid);
	ck_assert_int_eq(children_of(pid, workers, 2), 2);
	ck_assert_int_eq(uid_of(workers[0]), (long)pw->pw_uid);
	ck_assert_int_eq(uid_of(workers[1]), (long)pw->pw_uid);
	kill(pid, SIGTERM);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

/* --listen 127.0.0.1: another address of the host (127.0.0.2 is one too)
 * finds no listener; the one named is served. A port that is free on the
 * named address only is no obstacle either. */
START_TEST(listen_takes_only_the_addresses_named)
{
	const char *const args[] = { "--workers", "1", "--listen", "127.0.0.1", NULL };
	struct sockaddr_in a = { .sin_family = AF_INET };
	uint8_t d[32];
	uint64_t x;
	int fd;

	start(NULL, args);
	digest_of(77, d);
	ck_assert_int_eq(th_request(m.port, d, 0, 100, 1, &x), 0);
	ck_assert_uint_eq(x, 77);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_port = htons((uint16_t)m.port);
	inet_pton(AF_INET, "127.0.0.2", &a.sin_addr);
	ck_assert_int_ne(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(errno, ECONNREFUSED);
	close(fd);
	stop();
}
END_TEST

/* Connect to the Unix socket at path (as the user uid, where not -1: in
 * a child that becomes it) and ask for want in [lo, hi], with a PROXY v2
 * header naming client first when client is not NULL. The answer, or -1
 * when none came: -2 when the connection itself was refused (EACCES). */
static long long ask_unix(const char *path, long uid, const char *client, uint64_t want,
			  uint64_t lo, uint64_t hi)
{
	uint8_t buf[16 + 12 + PROTO_REQUEST_LEN];
	struct proto_request q = { .start = lo, .end = hi, .priority = 1 };
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd, status, pipefd[2];
	long long got = -1;
	size_t n = 0;
	uint64_t x;
	pid_t pid;

	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	if (client) {
		memcpy(buf, proxy_sig, PROXY_SIG_LEN);
		buf[12] = 0x21, buf[13] = 0x11, buf[14] = 0, buf[15] = 12;
		memset(buf + 16, 0, 12);
		ck_assert_int_eq(inet_pton(AF_INET, client, buf + 16), 1);
		n = 28;
	}
	digest_of(want, q.digest);
	proto_encode_request(&q, buf + n);
	n += PROTO_REQUEST_LEN;
	ck_assert_int_eq(pipe(pipefd), 0);
	if ((pid = fork()) == 0) {
		close(pipefd[0]);
		if (uid >= 0 && (setgid((gid_t)uid) < 0 || setuid((uid_t)uid) < 0))
			_exit(3);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
			_exit(errno == EACCES ? 2 : 1);
		got = send(fd, buf, n, MSG_NOSIGNAL) == (ssize_t)n &&
		      th_read_reply(fd, &x, 10000) == 0 ? (long long)x : -1;
		_exit(write(pipefd[1], &got, sizeof got) == sizeof got ? 0 : 1);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &got, sizeof got) != sizeof got)
		got = -1;
	close(pipefd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 2 ? -2 : got;
}

/* Start a master on port whose one listener is the balancer's socket at
 * path; its pid, once the socket answers (5 s at most), or -1 when it
 * exited first (*status then). */
static pid_t start_on_unix(unsigned port, const char *path, int *status)
{
	char p[16], arg[128];
	pid_t pid;

	snprintf(p, sizeof p, "%u", port);
	snprintf(arg, sizeof arg, "unix:%s", path);
	if ((pid = fork()) == 0) {
		freopen("/dev/null", "w", stderr);
		execl(th_master_path(), th_master_path(), p, "--workers", "1", "--gpu", "off",
		      "--listen", arg, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM, 0), ok;

		snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
		ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
		close(fd);
		if (ok)
			return pid;
		if (waitpid(pid, status, WNOHANG) == pid)
			return -1;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return -1;
}

/* --listen unix:PATH alone: the master listens on no TCP port; its
 * socket is 0600 in a folder that must be this user's own, mode 0700 and
 * no link (a 0755 one, or a link to a good one, fails the start, exit 1);
 * every connection on it opens with the balancer's PROXY header (without
 * one, no answer); another user cannot connect; a dead master's socket
 * is replaced, a live one's is not (exit 1); the socket goes at the stop. */
START_TEST(listen_unix_takes_the_balancer_alone)
{
	char dir[] = "/tmp/revhash-unix-XXXXXX", sock[96], link[96], arg[128], p[16];
	const char *args[] = { p, "--workers", "1", "--gpu", "off", "--listen", arg, NULL };
	struct passwd *pw = getpwnam("nobody");
	unsigned port = th_free_port();
	struct stat st;
	int status;
	pid_t pid;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sock, sizeof sock, "%s/n1/n1.sock", dir);
	snprintf(link, sizeof link, "%s/l/n1.sock", dir);
	snprintf(p, sizeof p, "%u", port);
	snprintf(arg, sizeof arg, "%s/n1", dir);
	ck_assert_int_eq(mkdir(arg, 0755), 0);
	snprintf(arg, sizeof arg, "unix:%s", sock);
	ck_assert_int_eq(run_master(args), 1); /* 0755 */
	snprintf(arg, sizeof arg, "%s/n1", dir);
	ck_assert_int_eq(chmod(arg, 0700), 0);
	snprintf(arg, sizeof arg, "%s/l", dir);
	ck_assert_int_eq(symlink("n1", arg), 0);
	snprintf(arg, sizeof arg, "unix:%s", link);
	ck_assert_int_eq(run_master(args), 1); /* a link */
	ck_assert_int_gt(pid = start_on_unix(port, sock, &status), 0);
	ck_assert_int_eq(stat(sock, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_lt(th_connect(port), 0); /* no TCP at all */
	ck_assert_int_eq(ask_unix(sock, -1, "10.1.2.3", 4242, 4000, 5000), 4242);
	ck_assert_int_eq(ask_unix(sock, -1, NULL, 4242, 4000, 5000), -1);
	if (geteuid() == 0 && pw)
		ck_assert_int_eq(ask_unix(sock, (long)pw->pw_uid, "10.1.2.3", 4242, 4000, 5000), -2);
	snprintf(p, sizeof p, "%u", th_free_port());
	snprintf(arg, sizeof arg, "unix:%s", sock);
	ck_assert_int_eq(run_master(args), 1); /* a live master's socket */
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ck_assert_int_eq(stat(sock, &st), 0); /* a dead master's: left, then replaced */
	ck_assert_int_gt(pid = start_on_unix(port, sock, &status), 0);
	ck_assert_int_eq(ask_unix(sock, -1, "10.1.2.4", 77, 0, 100), 77);
	kill(pid, SIGTERM);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_ne(stat(sock, &st), 0);
	snprintf(arg, sizeof arg, "rm -rf %s", dir);
	ck_assert_int_eq(system(arg), 0);
}
END_TEST

/* A listener that cannot listen is named in the log as it was given:
 * the balancer's socket by its path, never as a port (listen() is made
 * to fail by a seccomp filter the master inherits). */
START_TEST(listen_failure_names_the_unix_socket)
{
	char dir[] = "/tmp/revhash-unix-XXXXXX", log[64], arg[128], want[192], p[16];
	char text[8192] = "";
	unsigned port = th_free_port();
	int status, fd;
	ssize_t n;
	pid_t pid;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(log, sizeof log, "%s/log", dir);
	snprintf(arg, sizeof arg, "unix:%s/n.sock", dir);
	snprintf(p, sizeof p, "%u", port);
	if ((pid = fork()) == 0) {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

		if ((fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 ||
		    dup2(fd, 2) < 0 || !ctx ||
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(listen), 0) < 0 ||
		    seccomp_load(ctx) < 0)
			_exit(126);
		execl(th_master_path(), th_master_path(), p, "--workers", "1", "--gpu", "off",
		      "--no-sandbox", "--listen", arg, (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	ck_assert_int_ge(fd = open(log, O_RDONLY), 0);
	ck_assert_int_gt(n = read(fd, text, sizeof text - 1), 0);
	close(fd);
	text[n] = 0;
	snprintf(want, sizeof want, "listen(%s): Permission denied", arg);
	ck_assert_msg(strstr(text, want), "no \"%s\" in:\n%s", want, text);
	ck_assert_ptr_null(strstr(text, "every address"));
	snprintf(arg, sizeof arg, "rm -rf %s", dir);
	ck_assert_int_eq(system(arg), 0);
}
END_TEST

/* revhash-bench: --help is no error; a bad command line is (--ask's
 * words and options too). */
START_TEST(bench_command_line_is_checked)
{
	const char *const help[] = { "--help", NULL };
	const char *const junk[] = { "--frobnicate", NULL };
	const char *const few[] = { "127.0.0.1", "5003", "1", NULL };
	const char *const mixed[] = { "127.0.0.1", "5003", "--concurrency", "4",
				      "--duration", "1", "--rate", "1", NULL };
#define D64 "e1543551249113046932741cc28f36b4bbcc542233eb5094874072d3167f160a"
	const char *const ask_bad[][9] = {
		{ "127.0.0.1", "5003", "--ask", D64 "0", "1", "2", NULL },
		{ "127.0.0.1", "5003", "--ask", D64, "1", "2x", NULL },
		{ "127.0.0.1", "5003", "--ask", D64, "1", NULL },
		{ "127.0.0.1", "5003", "--ask", D64, "1", "2", "--split", "0", NULL },
		{ "127.0.0.1", "5003", "--ask", D64, "1", "2", "--split", "1025", NULL },
		{ "127.0.0.1", "5003", "--split", "2", D64, "1", "2", NULL },
		{ "127.0.0.1", "5003", "--ask", D64, "1", "2", "--cached", NULL },
	};
	const char *const lifo[] = { "127.0.0.1", "5003", "1", "1", "1", "1", "0", "1", "0",
				     "--schedule", "lifo", NULL };
	const char *const switches[] = { "--policy-switches", NULL };
	const char *bench = th_bench_path();

	ck_assert_int_eq(run_binary(bench, help), 0);
	ck_assert_int_eq(run_binary(bench, switches), 0);
	ck_assert_int_eq(run_binary(bench, lifo), 2);
	ck_assert_int_eq(run_binary(bench, junk), 2);
	ck_assert_int_eq(run_binary(bench, few), 2);
	ck_assert_int_eq(run_binary(bench, mixed), 2);
	for (size_t i = 0; i < sizeof ask_bad / sizeof ask_bad[0]; i++)
		ck_assert_int_eq(run_binary(bench, ask_bad[i]), 2);
#undef D64
}
END_TEST

/* Run revhash-bench with the words in args through the shell; its exit
 * status, and in *ideal the score of its "ideal (...)" line (or -1). */
static int bench_ideal(const char *args, double *ideal)
{
	char cmd[512], line[256];
	FILE *p;
	int status;

	snprintf(cmd, sizeof cmd, "%s %s 2>/dev/null", th_bench_path(), args);
	*ideal = -1;
	ck_assert_ptr_nonnull(p = popen(cmd, "r"));
	while (fgets(line, sizeof line, p))
		if (strncmp(line, "ideal (", 7) == 0)
			sscanf(strstr(line, "): ") + 3, "%lf", ideal);
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The sums of a run CSV's latency_us and ideal_latency_us columns (the
 * 3rd and the 11th); its number of rows. */
static int csv_sums(const char *path, double *lat, double *ideal)
{
	char line[512];
	int rows = 0;
	FILE *f = fopen(path, "r");

	ck_assert_ptr_nonnull(f);
	*lat = *ideal = 0;
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* the header */
	while (fgets(line, sizeof line, f)) {
		char *p = line;
		double v[11];

		for (int i = 0; i < 11; i++) {
			v[i] = strtod(p, &p);
			ck_assert(*p == ',' || i == 10);
			p++;
		}
		*lat += v[2];
		*ideal += v[10];
		rows++;
	}
	fclose(f);
	return rows;
}

/* A run's CSV scored again (--rescore) gives the run's own ideal at the
 * same rate, a faster ideal at a higher one, and is refused for another
 * workload or without a rate; with --csv it writes the same run with the
 * ideal latencies at the new rate, even over the file it read. */
START_TEST(bench_rescores_a_recorded_run)
{
	static const char wl[] = "9 40 0 200000 20 2000 1.5";
	char csv[] = "/tmp/revhash-rescore-XXXXXX", args[256];
	double run, same, faster, none, lat, ideal, lat4, ideal4;
	int fd = mkstemp(csv);

	ck_assert_int_ge(fd, 0);
	close(fd);
	start(NULL, two);
	snprintf(args, sizeof args, "127.0.0.1 %u %s --quiet --rate 1e8 --csv %s",
		 m.port, wl, csv);
	ck_assert_int_eq(bench_ideal(args, &run), 0);
	stop();
	ck_assert(run > 0);
	snprintf(args, sizeof args, "x 1 %s --rescore %s --rate 1e8", wl, csv);
	ck_assert_int_eq(bench_ideal(args, &same), 0);
	ck_assert(same == run);
	snprintf(args, sizeof args, "x 1 %s --rescore %s --rate 4e8", wl, csv);
	ck_assert_int_eq(bench_ideal(args, &faster), 0);
	ck_assert(faster > 0 && faster < run / 2);
	snprintf(args, sizeof args, "x 1 10 40 0 200000 20 2000 1.5 --rescore %s "
		 "--rate 1e8", csv);
	ck_assert_int_eq(bench_ideal(args, &none), 2);
	snprintf(args, sizeof args, "x 1 %s --rescore %s", wl, csv);
	ck_assert_int_eq(bench_ideal(args, &none), 2);

	ck_assert_int_eq(csv_sums(csv, &lat, &ideal), 40);
	ck_assert(lat > 0 && ideal > 0);
	snprintf(args, sizeof args, "x 1 %s --rescore %s --rate 4e8 --csv %s", wl, csv,
		 csv);
	ck_assert_int_eq(bench_ideal(args, &faster), 0);
	ck_assert_int_eq(csv_sums(csv, &lat4, &ideal4), 40);
	ck_assert(lat4 == lat);                      /* the run itself, unchanged */
	ck_assert(ideal4 > 0 && ideal4 < ideal / 2); /* its ideal, 4x faster */
	snprintf(args, sizeof args, "x 1 %s --rescore %s --rate 1e8 --csv %s", wl, csv,
		 csv);
	ck_assert_int_eq(bench_ideal(args, &same), 0);
	ck_assert(same == run);
	ck_assert_int_eq(csv_sums(csv, &lat4, &ideal4), 40);
	ck_assert(fabs(ideal4 - ideal) < 1e-6 * ideal); /* back at the run's rate */
	unlink(csv);
}
END_TEST

START_TEST(second_master_on_the_same_port_fails)
{
	char port[16];
	const char *args[] = { port, "--workers", "1", NULL };

	start(NULL, two);
	snprintf(port, sizeof port, "%u", m.port);
	ck_assert_int_eq(run_master(args), 1);
	stop();
}
END_TEST

START_TEST(killed_master_takes_its_workers_and_leaves_a_removable_segment)
{
	pid_t pids[4];
	uint8_t d[32];
	uint64_t x;
	char name[64], port[16];
	const char *args[] = { "--workers", "2", NULL };
	const char *status[] = { "--status", port, NULL };

	start(NULL, args);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	ck_assert_int_eq(tm_workers(&m, pids, 4), 2);
	kill(m.pid, SIGKILL);
	waitpid(m.pid, NULL, 0);
	/* The workers follow the master. */
	ck_assert(TH_WAIT_UNTIL(kill(pids[0], 0) != 0 && kill(pids[1], 0) != 0, 2000));
	snprintf(name, sizeof name, "/dev/shm/revhash-%u-%d", m.port, (int)m.pid);
	ck_assert_int_eq(access(name, F_OK), 0); /* left behind */
	/* --status says the master is gone, not that it serves. */
	snprintf(port, sizeof port, "%u", m.port);
	ck_assert_int_eq(run_master(status), 1);
	/* A new master on the same port removes the stale segment and serves. */
	ck_assert_int_eq(tm_start_on(&m, m.port, NULL, args), 0);
	ck_assert_int_eq(access(name, F_OK), -1);
	digest_of(12345, d);
	ck_assert_int_eq(th_request(m.port, d, 12000, 13000, 1, &x), 0);
	ck_assert_uint_eq(x, 12345);
	stop();
}
END_TEST

/* Kill m's master with SIGKILL, reap it, and wait until its workers,
 * whose mappings keep its segment (and the lock on it) alive, have
 * followed it. */
static void kill_master(struct tmaster *t)
{
	pid_t pids[RING_WORKERS];
	int n = tm_workers(t, pids, RING_WORKERS);

	kill(t->pid, SIGKILL);
	ck_assert_int_eq(waitpid(t->pid, NULL, 0), t->pid);
	for (int i = 0; i < n; i++)
		ck_assert(TH_WAIT_UNTIL(kill(pids[i], 0) != 0, 2000));
}

/* A free port that is none of the n given (a port just freed is often
 * handed out again at once). */
static unsigned other_port(const unsigned *taken, int n)
{
	for (;;) {
		unsigned p = th_free_port();
		int i = 0;

		while (i < n && taken[i] != p)
			i++;
		if (i == n)
			return p;
	}
}

/* A master killed with SIGKILL leaves its segment (52 MB of RAM) behind.
 * A master starting on another port removes it once it has been left over
 * for SEG_STALE_S (by the time its master last marked itself alive in it),
 * and leaves alone a fresh leftover (someone may still be looking at it)
 * and a live master's segment. Whoever removes the old one, it must be
 * gone: the test holds even while other masters start on this machine. */
START_TEST(stale_segments_of_any_port_are_swept)
{
	const char *args[] = { "--workers", "1", NULL };
	struct tmaster old, fresh, live;
	char old_seg[64], fresh_seg[64], live_seg[64];
	unsigned ports[3];
	struct seg seg;

	ck_assert_int_eq(tm_start(&old, NULL, args), 0);
	ck_assert_int_eq(tm_start(&fresh, NULL, args), 0);
	ck_assert_int_eq(tm_start(&live, NULL, args), 0);
	snprintf(old_seg, sizeof old_seg, "/dev/shm/revhash-%u-%d", old.port, (int)old.pid);
	snprintf(fresh_seg, sizeof fresh_seg, "/dev/shm/revhash-%u-%d", fresh.port,
		 (int)fresh.pid);
	snprintf(live_seg, sizeof live_seg, "/dev/shm/revhash-%u-%d", live.port, (int)live.pid);
	kill_master(&old);
	kill_master(&fresh);
	/* The old one was last alive longer ago than the grace. */
	ck_assert_int_eq(seg_open(old.port, 1, &seg), 0);
	ck_assert(!seg.alive);
	seg.hdr->alive_ns -= (SEG_STALE_S + 5) * 1000000000ull;
	seg_close(&seg);
	ports[0] = old.port;
	ports[1] = fresh.port;
	ports[2] = live.port;
	ck_assert_int_eq(tm_start_on(&m, other_port(ports, 3), NULL, args), 0);
	ck_assert_int_eq(access(old_seg, F_OK), -1);
	ck_assert_int_eq(access(fresh_seg, F_OK), 0);
	ck_assert_int_eq(access(live_seg, F_OK), 0);
	ck_assert_int_eq(tm_stop(&live), 0);
	/* The fresh one goes when its own port is served again. */
	ck_assert_int_eq(tm_start_on(&fresh, fresh.port, NULL, args), 0);
	ck_assert_int_eq(access(fresh_seg, F_OK), -1);
	ck_assert_int_eq(tm_stop(&fresh), 0);
	stop();
}
END_TEST

/* Master A drains a request after SIGTERM while master B takes the port:
 * B must leave A's segment alone, and A, when it exits, must remove its own
 * segment and not B's. */
START_TEST(draining_master_and_its_successor_keep_their_segments)
{
	const char *const one[] = { "--workers", "1", "--kernel", "openssl", NULL };
	struct tmaster a;
	struct seg seg;
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;
	char name[64];
	int fd, status;

	start(NULL, one);
	a = m;
	/* Long enough (about 3 s at OpenSSL's 17 M hashes/s) that A still
	 * searches while B starts, however slow the start (a sanitized build's
	 * is). */
	digest_of(base + 55000000, d);
	fd = th_connect(a.port);
	ck_assert_int_eq(th_send_request(fd, d, base, base + 60000000, 1), 0);
	ck_assert(TH_WAIT_UNTIL(stats_now().requests == 1, 5000)); /* in flight */
	kill(a.pid, SIGTERM); /* A stops listening, keeps searching */
	snprintf(name, sizeof name, "/dev/shm/revhash-%u-%d", a.port, (int)a.pid);
	ck_assert(TH_WAIT_UNTIL(!listening(a.port), 5000));
	ck_assert_int_eq(tm_start_on(&m, a.port, NULL, one), 0); /* B */
	ck_assert_int_eq(access(name, F_OK), 0);   /* A's is still there */
	ck_assert_int_eq(th_read_reply(fd, &x, 60000), 0);
	ck_assert_uint_eq(x, base + 55000000);
	close(fd);
	ck_assert_int_eq(waitpid(a.pid, &status, 0), a.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(access(name, F_OK), -1);  /* A removed its own */
	ck_assert_int_eq(tm_seg(&m, &seg), 0);     /* and B's is B's */
	ck_assert(seg.alive);
	ck_assert_int_eq(seg.hdr->master_pid, m.pid);
	seg_close(&seg);
	digest_of(base + 5, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 1000, 1, &x), 0);
	ck_assert_uint_eq(x, base + 5);
	stop();
}
END_TEST

/* Everything under /dev/shm for port: how many segments. */
static int segments_of(unsigned port)
{
	char prefix[64];
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	int n = 0;

	snprintf(prefix, sizeof prefix, "revhash-%u-", port);
	while (d && (e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return n;
}

/* Is pid running or waiting, neither gone nor dying nor stopped? */
static int alive(pid_t pid)
{
	char state = th_proc_state(pid);

	return state == 'R' || state == 'S' || state == 'D';
}

/* Signals an operator may send by habit neither kill the master nor its
 * workers; the master says it ignored each one of its table, and who sent
 * it (SIGPIPE too, which a master that only ignored it never said). */
START_TEST(habitual_signals_kill_nothing)
{
	static const int to_master[] = { SIGUSR2, SIGALRM, SIGPIPE, SIGVTALRM, SIGPROF,
					 SIGIO, SIGPWR, SIGURG, SIGWINCH };
	static const int to_worker[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
					 SIGUSR2, SIGALRM, SIGPIPE };
	pid_t pids[2];
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;

	start(NULL, two);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	ck_assert_int_eq(tm_workers(&m, pids, 2), 2);
	for (size_t i = 0; i < sizeof to_master / sizeof to_master[0]; i++)
		ck_assert_int_eq(kill(m.pid, to_master[i]), 0);
	for (size_t i = 0; i < sizeof to_worker / sizeof to_worker[0]; i++)
		ck_assert_int_eq(kill(pids[0], to_worker[i]), 0);
	/* Every signal delivered (or discarded): had one been fatal, its
	 * process would be dead or dying now. */
	ck_assert(TH_WAIT_UNTIL(th_signals_pending(m.pid) == 0 &&
				th_signals_pending(pids[0]) == 0, 5000));
	for (size_t i = 0; i < 7; i++) { /* the table's: SIGUSR2 .. SIGPWR */
		char line[96];

		snprintf(line, sizeof line, "signal %d (%s) from pid %d ignored", to_master[i],
			 strsignal(to_master[i]), (int)getpid());
		ck_assert_msg(TH_WAIT_UNTIL(tm_log_contains(&m, line), 5000), "not logged: %s",
			      line);
	}
	ck_assert(alive(m.pid));
	ck_assert(alive(pids[0]));
	ck_assert(alive(pids[1]));
	digest_of(base + 77, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 1000, 1, &x), 0);
	ck_assert_uint_eq(x, base + 77);
	stop();
}
END_TEST

/* A config that is not a regular file is an error at start, never a hang;
 * at a reload it is logged and changes nothing. */
START_TEST(config_that_is_no_file_is_refused)
{
	char dir[] = "/tmp/revhash-cfgdir-XXXXXX", cfg[64], fifo[64], big[64];
	char port[16];
	const char *zero[] = { port, "--config", "/dev/zero", NULL };
	const char *pipe_[] = { port, "--config", fifo, NULL };
	const char *large[] = { port, "--config", big, NULL };
	const char *args[] = { "--config", cfg, NULL };
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cfg, sizeof cfg, "%s/conf", dir);
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	snprintf(big, sizeof big, "%s/big", dir);
	snprintf(port, sizeof port, "%u", th_free_port());
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	fd = open(big, O_WRONLY | O_CREAT, 0600);
	for (int i = 0; i < 10000; i++)
		ck_assert_int_eq(write(fd, "# padding\n", 10), 10);
	close(fd);
	ck_assert_int_eq(run_master(zero), 2);
	ck_assert_int_eq(run_master(pipe_), 2);
	ck_assert_int_eq(run_master(large), 2);
	write_file(cfg, "workers = 2\n");
	start(NULL, args);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	ck_assert_int_eq(unlink(cfg), 0);
	ck_assert_int_eq(rename(fifo, cfg), 0);
	kill(m.pid, SIGHUP);
	ck_assert(TH_WAIT_UNTIL(tm_log_contains(&m, "not a regular file"), 5000));
	ck_assert_int_eq(tm_wait_workers(&m, 2, 100), 0);
	digest_of(base + 1, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 10, 1, &x), 0);
	ck_assert_uint_eq(x, base + 1);
	stop();
	unlink(cfg);
	unlink(big);
	rmdir(dir);
}
END_TEST

/* The command line wins over the config file, at start and at a reload:
 * `workers = auto` (or 3) in the file leaves --workers 1 as it is, and the
 * log says so; a bad value for that key still rejects the file. */
START_TEST(command_line_wins_over_the_config)
{
	char cfg[] = "/tmp/revhash-cfg-XXXXXX";
	int fd = mkstemp(cfg);
	const char *args[] = { "--workers", "1", "--config", cfg, NULL };

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_file(cfg, "workers = auto\nidle_timeout = 7\n");
	start(NULL, args);
	ck_assert_int_eq(tm_wait_workers(&m, 1, 5000), 0);
	ck_assert_uint_eq(header_now().workers, 1);
	ck_assert(tm_log_contains(&m, "workers left as --workers gave it"));
	write_file(cfg, "workers = 3\n");
	kill(m.pid, SIGHUP);
	ck_assert(TH_WAIT_UNTIL(tm_log_contains(&m, "reload: CPU workers 1"), 5000));
	ck_assert_int_eq(tm_wait_workers(&m, 1, 100), 0);
	write_file(cfg, "workers = many\n");
	kill(m.pid, SIGHUP);
	ck_assert(TH_WAIT_UNTIL(tm_log_contains(&m, "rejected, keeping CPU workers at 1"), 5000));
	stop();
	unlink(cfg);
}
END_TEST

/* Without --config a reload re-detects the CPUs only for an `auto` count:
 * an explicit --workers N stays. */
START_TEST(reload_keeps_an_explicit_worker_count)
{
	const char *const one[] = { "--workers", "1", NULL };

	start(NULL, one);
	ck_assert_int_eq(tm_wait_workers(&m, 1, 5000), 0);
	kill(m.pid, SIGHUP);
	ck_assert(TH_WAIT_UNTIL(tm_log_contains(&m, "reload: "), 5000));
	ck_assert(tm_log_contains(&m, "reload: CPU workers 1"));
	ck_assert_int_eq(tm_wait_workers(&m, 1, 100), 0);
	stop();
}
END_TEST

/* Connections that have not sent a whole request do not hold a graceful
 * stop: they are closed when it begins. */
START_TEST(stop_does_not_wait_for_silent_clients)
{
	uint8_t part[20] = { 0 };
	int idle, partial, status;
	uint64_t t0;

	start(NULL, two);
	idle = th_connect(m.port);
	partial = th_connect(m.port);
	ck_assert_int_ge(idle, 0);
	ck_assert_int_eq(send(partial, part, sizeof part, 0), (ssize_t)sizeof part);
	/* The partial one is the master's (the idle one waits in the kernel). */
	ck_assert(TH_WAIT_UNTIL(stats_now().accepted == m.conns + 1, 5000));
	t0 = clock_ms();
	kill(m.pid, SIGTERM);
	ck_assert_int_eq(waitpid(m.pid, &status, 0), m.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_uint_lt(clock_ms() - t0, 5000); /* the stop timeout is 30 s */
	m.pid = 0;
	close(idle);
	close(partial);
}
END_TEST

/* Too few descriptors to start: a clear error, exit 1, and nothing left
 * in /dev/shm. */
START_TEST(failed_start_leaves_nothing_behind)
{
	unsigned port = th_free_port();
	char p[16];
	const char *argv[] = { th_master_path(), p, NULL };
	int status;
	pid_t pid;

	snprintf(p, sizeof p, "%u", port);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit tight = { 7, 7 };
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 2);
		close(fd);
		setrlimit(RLIMIT_NOFILE, &tight);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	ck_assert_int_eq(segments_of(port), 0);
}
END_TEST

/* Start the master on port with args, stderr discarded; returns its pid
 * once the port accepts a connection (polled every 100 us), or -1. */
static pid_t start_and_connect(unsigned port, const char *const *args)
{
	char p[16];
	int fd = -1;
	pid_t pid;

	snprintf(p, sizeof p, "%u", port);
	pid = spawn_quiet(th_master_path(), p, args);
	for (int i = 0; pid > 0 && i < 50000 && fd < 0; i++)
		if ((fd = th_connect(port)) < 0)
			usleep(100);
	if (fd < 0) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return -1;
	}
	close(fd);
	return pid;
}

/* The first moment a client can connect, the server is ready: its segment
 * is there and its workers are started, so nothing waits on the set-up. */
START_TEST(connectable_means_ready)
{
	static const char *const args[] = { "--workers", "2", "--kernel", "portable", NULL };
	unsigned port = th_free_port();
	pid_t pid = start_and_connect(port, args);
	struct ring_slot v0 = { 0 }, v1 = { 0 };
	struct seg seg;
	int opened;

	ck_assert_int_gt(pid, 0);
	opened = seg_open(port, 0, &seg);
	if (opened == 0) {
		ring_slot_view(seg.ring, 0, &v0);
		ring_slot_view(seg.ring, 1, &v1);
		seg_close(&seg);
	}
	kill(pid, SIGTERM); /* stopped before any assertion can fail */
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	ck_assert_int_eq(opened, 0);
	ck_assert_int_gt(v0.pid, 0);
	ck_assert_int_gt(v1.pid, 0);
}
END_TEST

/* busy_rate in --status --json: with more workers than CPUs, the mean
 * worker's rate (hashes per second of hashing CPU time) times the CPUs,
 * not the sum, which would claim CPUs the machine does not have. */
START_TEST(busy_rate_counts_only_the_cpus_there_are)
{
	cpu_set_t mine;
	unsigned cpus, workers;
	char n[8], port[16], cmd[256], json[8192];
	const char *args[] = { "--workers", n, "--kernel", "portable", NULL };
	const char *p;
	double sum = 0, busy = -1;
	unsigned seen = 0;
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 1;
	FILE *f;
	size_t len;

	ck_assert_int_eq(sched_getaffinity(0, sizeof mine, &mine), 0);
	cpus = (unsigned)CPU_COUNT(&mine);
	workers = 2 * cpus > 64 ? 64 : 2 * cpus;
	snprintf(n, sizeof n, "%u", workers);
	start(NULL, args);
	ck_assert_int_eq(tm_wait_workers(&m, (int)workers, 5000), 0);
	digest_of(base - 1, d); /* not found: every worker hashes */
	ck_assert_int_eq(th_request(m.port, d, base, base + 4000000, 1, &x), 0);
	snprintf(port, sizeof port, "%u", m.port);
	snprintf(cmd, sizeof cmd, "%s --status %s --json", th_master_path(), port);
	ck_assert_ptr_nonnull(f = popen(cmd, "r"));
	len = fread(json, 1, sizeof json - 1, f);
	pclose(f);
	json[len] = '\0';
	stop();
	for (p = json; (p = strstr(p, "\"hashes\":")); p++) {
		unsigned long long h = 0, ns = 0;
		const char *t = strstr(p, "\"hash_cpu_ns\":");
		if (!t || sscanf(p, "\"hashes\":%llu", &h) != 1 ||
		    sscanf(t, "\"hash_cpu_ns\":%llu", &ns) != 1)
			break;
		if (ns) {
			sum += h * 1e9 / ns;
			seen++;
		}
	}
	if ((p = strstr(json, "\"busy_rate\":")))
		sscanf(p, "\"busy_rate\":%lf", &busy);
	ck_assert_uint_gt(seen, cpus); /* more workers hashed than CPUs */
	ck_assert_msg(busy > 0 && fabs(busy - sum / seen * cpus) <= busy * 0.01 + 2,
		      "busy_rate %.0f, %u workers summing %.0f, %u CPUs", busy, seen,
		      sum, cpus);
}
END_TEST

/* A segment not yet locked by its master, which is alive (here: this test
 * process, as a master between creating its segment and locking it), is
 * not stale: a master starting on the same port leaves it alone. */
START_TEST(unlocked_segment_of_a_live_owner_is_left_alone)
{
	unsigned port = th_free_port();
	char name[64];
	int fd;

	snprintf(name, sizeof name, "/dev/shm/revhash-%u-%d", port, (int)getpid());
	fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(tm_start_on(&m, port, NULL, two), 0);
	fd = access(name, F_OK);
	unlink(name);
	stop();
	ck_assert_int_eq(fd, 0);
}
END_TEST

/* Two masters started at once on one port: one serves, the other exits 1,
 * and the loser neither removes the winner's segment nor leaves its own. */
START_TEST(two_masters_started_at_once_leave_one_serving)
{
	static const char *const args[] = { "--workers", "1", "--kernel", "portable", NULL };
	unsigned port = th_free_port();
	char p[16];
	pid_t pid[2], loser = -1, winner;
	int status = 0, fd = -1;
	uint8_t d[32];
	uint64_t x;

	snprintf(p, sizeof p, "%u", port);
	pid[0] = spawn_quiet(th_master_path(), p, args);
	pid[1] = spawn_quiet(th_master_path(), p, args);
	for (int i = 0; i < 500 && loser < 0; i++) {
		for (int k = 0; k < 2 && loser < 0; k++)
			if (waitpid(pid[k], &status, WNOHANG) == pid[k])
				loser = k;
		usleep(10000);
	}
	winner = loser >= 0 ? pid[1 - loser] : pid[0];
	for (int i = 0; i < 500 && fd < 0; i++)
		if ((fd = th_connect(port)) < 0)
			usleep(10000);
	if (fd >= 0)
		close(fd);
	digest_of(777, d);
	x = 0;
	if (fd >= 0)
		th_request(port, d, 700, 800, 1, &x);
	fd = segments_of(port);
	kill(winner, SIGTERM);
	waitpid(winner, NULL, 0);
	if (loser < 0) {
		kill(pid[1], SIGTERM);
		waitpid(pid[1], NULL, 0);
	}
	ck_assert_int_ge(loser, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	ck_assert_uint_eq(x, 777);
	ck_assert_int_eq(fd, 1); /* the winner's, and only it */
	ck_assert_int_eq(segments_of(port), 0);
}
END_TEST

/* A TERM the moment the master listens is a graceful stop like any other:
 * exit 0 and no segment left behind, not death by the default action. */
START_TEST(stop_at_the_first_moment_of_listening)
{
	static const char *const args[] = { "--kernel", "portable", NULL };

	for (int round = 0; round < 3; round++) {
		unsigned port = th_free_port();
		pid_t pid = start_and_connect(port, args);
		int status;

		ck_assert_int_gt(pid, 0);
		kill(pid, SIGTERM);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "round %d: status 0x%x", round, status);
		ck_assert_int_eq(segments_of(port), 0);
	}
}
END_TEST

/* A segment with the right magic but lying offsets: --status says it is
 * damaged instead of following them. */
START_TEST(status_of_a_lying_segment)
{
	struct seg_header h = { .magic = SEG_MAGIC, .version = SEG_VERSION };
	unsigned port = th_free_port();
	char name[64], p[16];
	const char *status[] = { "--status", p, NULL };
	size_t size = 1 << 20;
	int fd;

	snprintf(name, sizeof name, "/dev/shm/revhash-%u-1", port);
	snprintf(p, sizeof p, "%u", port);
	h.size = size;
	h.ring_off = size - 64;      /* no room for a ring there */
	h.cache_off = 1ull << 40;    /* beyond the end */
	fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	ck_assert_int_eq(pwrite(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
	close(fd);
	ck_assert_int_eq(run_master(status), 1);
	unlink(name);
}
END_TEST

/* Names in /dev/shm are anyone's. A FIFO named like a segment of the
 * port, and a file with the right header but group and other bits, are no
 * segments of ours: --status neither blocks opening the FIFO (it did, for
 * ever) nor reads the file, and says within 3 s that no master serves. */
START_TEST(status_ignores_what_is_not_a_segment_of_ours)
{
	struct seg_header h = { .magic = SEG_MAGIC, .version = SEG_VERSION };
	unsigned port = th_free_port();
	char fifo[64], loose[64], p[16];
	const char *status[] = { "--status", p, NULL };
	int fd, st = 0;
	pid_t pid;

	snprintf(fifo, sizeof fifo, "/dev/shm/revhash-%u-1", port);
	snprintf(loose, sizeof loose, "/dev/shm/revhash-%u-2", port);
	snprintf(p, sizeof p, "%u", port);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	fd = open(loose, O_RDWR | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchmod(fd, 0644), 0);
	ck_assert_int_eq(pwrite(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
	close(fd);
	pid = spawn_quiet(th_master_path(), NULL, status);
	if (!TH_WAIT_UNTIL(waitpid(pid, &st, WNOHANG) == pid, 3000)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		unlink(fifo);
		unlink(loose);
		ck_abort_msg("--status blocked on a FIFO named like a segment");
	}
	unlink(fifo);
	unlink(loose);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
}
END_TEST

/* The output of the shell command cmd into buf (NUL-terminated, cut at
 * size); its exit status. */
static int output_of(const char *cmd, char *buf, size_t size)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int st;

	ck_assert_ptr_nonnull(p);
	n = fread(buf, 1, size - 1, p);
	buf[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* hashes_total counts each hash once: a worker a reload retired gave its
 * hashes to dead_hashes, and what is left in its slot is not counted
 * again (it was, until a new worker took the slot). */
START_TEST(hashes_total_counts_a_retired_workers_hashes_once)
{
	char cfg[] = "/tmp/revhash-cfg-XXXXXX", cmd[512], out[16384], *at;
	int fd = mkstemp(cfg);
	const char *args[] = { "--config", cfg, "--kernel", "openssl", NULL };
	uint64_t x, n = 4000000, base = th_rand64() >> 1;
	uint8_t d[32];

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_file(cfg, "workers = 2\n");
	start(NULL, args);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	digest_of(base - 1, d); /* no answer: each value is hashed once */
	ck_assert_int_eq(th_request(m.port, d, base, base + n - 1, 1, &x), 0);
	ck_assert_uint_eq(x, 0);
	write_file(cfg, "workers = 1\n");
	kill(m.pid, SIGHUP);
	ck_assert(TH_WAIT_UNTIL(header_now().stats.dead_hashes > 0, 5000));
	snprintf(cmd, sizeof cmd, "'%s' --status %u --json", th_master_path(), m.port);
	ck_assert_int_eq(output_of(cmd, out, sizeof out), 0);
	ck_assert_ptr_nonnull(at = strstr(out, "\"hashes_total\":"));
	ck_assert_uint_eq(strtoull(at + strlen("\"hashes_total\":"), NULL, 10), n);
	stop();
	unlink(cfg);
}
END_TEST

/* The words in the segment (the kernel's name, each kind's note, which a
 * GPU program of another build writes) are whatever bytes its writers
 * left. Start a master and leave in its segment a kernel's name that
 * fills its field without a NUL, before notes of quotes, backslashes,
 * control characters and bytes that are no UTF-8, none ended. */
static const char hostile[] = "\"},\"pid\":0,\\\x01\x1b[2J\xff(\xc3 \xe2\x82\xac\xc2\x9b" "2J";

static void start_with_hostile_words(void)
{
	struct seg seg;

	start(NULL, NULL);
	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	memset(seg.hdr->kernel, 'k', sizeof seg.hdr->kernel);
	memcpy(seg.hdr->kernel + 1, "\"\\\x02", 3);
	for (unsigned k = 0; k < SEG_KINDS; k++) {
		memset(seg.hdr->kinds[k].note, 'n', sizeof seg.hdr->kinds[k].note);
		memcpy(seg.hdr->kinds[k].note, hostile, sizeof hostile - 1);
	}
	seg_close(&seg);
}

/* --status --json is still JSON (jq reads it), each word escaped and cut
 * at its field's end; the text sends no control character to a terminal.
 * (Printed with %s, one word ran into the next and broke the JSON.) */
START_TEST(status_escapes_the_words_of_the_segment)
{
	static const char note_json[] = "\\\"},\\\"pid\\\":0,\\\\\\u0001\\u001b[2J?(? \\u20ac\\u009b2J";
	char cmd[512], out[8192], want[512], *c;

	if (system("command -v jq >/dev/null 2>&1") != 0) {
		th_skip(__func__, "no jq");
		return;
	}
	start_with_hostile_words();
	snprintf(cmd, sizeof cmd, "'%s' --status %u --json | jq -a -c '[.kernel, .gpu]'",
		 th_master_path(), m.port);
	ck_assert_int_eq(output_of(cmd, out, sizeof out), 0);
	c = want + snprintf(want, sizeof want, "[\"k\\\"\\\\\\u0002%s\",\"%s", "kkkkkkkkkkk", note_json);
	memset(c, 'n', 95 - (sizeof hostile - 1));
	strcpy(c + 95 - (sizeof hostile - 1), "\"]\n");
	ck_assert_str_eq(out, want);
	snprintf(cmd, sizeof cmd, "'%s' --status %u", th_master_path(), m.port);
	ck_assert_int_eq(output_of(cmd, out, sizeof out), 0);
	ck_assert_ptr_nonnull(strstr(out, "kernel k\"\\?kkkkkkkkkkk, "));
	for (c = out; *c; c++) {
		ck_assert_msg(*c == '\n' || ((unsigned char)*c >= 0x20 && *c != 0x7f),
			      "--status printed the control character 0x%02x", (unsigned char)*c);
		ck_assert_msg((unsigned char)c[0] != 0xc2 || (unsigned char)c[1] > 0x9f,
			      "--status printed the C1 control character U+00%02X",
			      (unsigned char)c[1]);
	}
	stop();
}
END_TEST

/* The exporter's page of the same words is still Prometheus's format,
 * which is UTF-8 (promtool checks it): a scrape of it is not refused. */
START_TEST(metrics_escape_the_words_of_the_segment)
{
	const char *exporter = getenv("REVHASH_METRICS");
	char cmd[1024], out[8192];
	unsigned mport = th_free_port();

	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		th_skip(__func__, "no promtool (scripts/install-deps.sh --prometheus)");
		return;
	}
	start_with_hostile_words();
	snprintf(cmd, sizeof cmd, "f=$(mktemp) || exit 9; '%s' %u --listen 127.0.0.1:%u 2>/dev/null &"
		 " e=$!; for i in $(seq 1 50); do curl -sf http://127.0.0.1:%u/metrics >\"$f\" && break;"
		 " sleep 0.1; done; kill $e; promtool check metrics <\"$f\" >/dev/null 2>&1 &&"
		 " grep '^revhash_info' \"$f\"; r=$?; rm -f \"$f\"; exit $r",
		 exporter ? exporter : "master/revhash-metrics", m.port, mport, mport);
	ck_assert_int_eq(output_of(cmd, out, sizeof out), 0);
	ck_assert_ptr_nonnull(strstr(out, "kernel=\"k\\\"\\\\?kkkkkkkkkkk\""));
	ck_assert_ptr_nonnull(strstr(out, "gpu=\"\\\"},\\\"pid\\\":0,\\\\??[2J?(? \xe2\x82\xac?2Jnnn"));
	stop();
}
END_TEST


/* Anyone may create names in /dev/shm. With the names of the next 300
 * pids on the port taken by files the sweep may not remove (held, as a
 * live master's are; another user's are not removable either), the
 * master takes its name with a random suffix, serves, and --status finds
 * it. (It failed to start.) */
START_TEST(a_squatted_segment_name_costs_the_master_nothing)
{
	enum { SQUATS = 300 };
	unsigned port = th_free_port();
	int fds[SQUATS], last = 0;
	char name[64], p[16];
	const char *status[] = { "--status", p, NULL };
	const char *args[] = { "--workers", "1", NULL };
	uint8_t d[32];
	uint64_t x;
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "r");

	if (!f || fscanf(f, "%d", &last) != 1) {
		if (f)
			fclose(f);
		printf("SKIP: a_squatted_segment_name_costs_the_master_nothing: no ns_last_pid\n");
		return;
	}
	fclose(f);
	for (int i = 0; i < SQUATS; i++) {
		snprintf(name, sizeof name, "/dev/shm/revhash-%u-%d", port, last + 1 + i);
		fds[i] = open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
		ck_assert_int_ge(fds[i], 0);
		ck_assert_int_eq(flock(fds[i], LOCK_EX), 0);
	}
	ck_assert_int_eq(tm_start_on(&m, port, NULL, args), 0);
	ck_assert_int_gt(m.pid, last);
	ck_assert_int_le(m.pid, last + SQUATS); /* its first name was taken */
	ck_assert(tm_log_contains(&m, "is taken (not by a master of ours): trying another"));
	digest_of(4242, d);
	ck_assert_int_eq(th_request(m.port, d, 4000, 5000, 1, &x), 0);
	ck_assert_uint_eq(x, 4242);
	snprintf(p, sizeof p, "%u", port);
	ck_assert_int_eq(run_master(status), 0);
	for (int i = 0; i < SQUATS; i++) {
		snprintf(name, sizeof name, "/dev/shm/revhash-%u-%d", port, last + 1 + i);
		unlink(name);
		close(fds[i]);
	}
	stop();
}
END_TEST

/* Has process pid path open? (Not if it is gone.) */
static int has_open(pid_t pid, const char *path)
{
	char dir[64], target[64];
	int found = 0;
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		char link[400];
		ssize_t n;

		snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
		n = readlink(link, target, sizeof target - 1);
		if (n > 0) {
			target[n] = '\0';
			found |= strcmp(target, path) == 0;
		}
	}
	closedir(d);
	return found;
}

/* Has a process other than pid (and this one) path open? */
static int open_elsewhere(pid_t pid, const char *path)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int found = 0;

	ck_assert_ptr_nonnull(d);
	while (!found && (e = readdir(d))) {
		pid_t other = (pid_t)atoi(e->d_name);

		found = other > 0 && other != pid && other != getpid() &&
			has_open(other, path);
	}
	closedir(d);
	return found;
}

/* What the master does with the CPUs' idle states, as --status shows it
 * (enum power_state: 0 off, 1 released, 2 held); *holds: how many times it
 * held them. */
static uint32_t low_latency_now(uint64_t *holds)
{
	struct seg_header h = header_now();

	*holds = h.low_latency_holds;
	return h.low_latency;
}

/* Wait up to timeout_ms for the low-latency state to be want; 1 if it was. */
static int low_latency_becomes(uint32_t want, int timeout_ms)
{
	uint64_t holds;

	return TH_WAIT_UNTIL(low_latency_now(&holds) == want, timeout_ms);
}

/* The kernel's CPU latency limit now, in us (0 while some process holds
 * the CPUs polling). */
static int32_t cpu_latency_limit(void)
{
	int32_t us = -1;
	int fd = open("/dev/cpu_dma_latency", O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, &us, sizeof us), (ssize_t)sizeof us);
	close(fd);
	return us;
}

/* --low-latency=S holds the CPUs polling (/dev/cpu_dma_latency at 0) only
 * while a search is in flight and S seconds after the last: released at
 * start, still released while a slow client sends half a request, held
 * while a never-ending search runs, released again about S after its
 * client is gone (and the kernel's limit is back, unless another process
 * may hold it too: one with the device open, as a master of another test
 * run on this machine). A master not run as root says it cannot and
 * serves on. */
START_TEST(low_latency_holds_the_cpus_only_while_busy)
{
	const char *const args[] = { "--workers", "1", "--low-latency=0.3", NULL };
	uint8_t d[32];
	uint64_t holds, base = th_rand64() >> 1, t0;
	int slow, fd;

	start(NULL, args);
	if (access("/dev/cpu_dma_latency", W_OK) != 0) {
		ck_assert(tm_log_contains(&m, "--low-latency"));
		ck_assert_uint_eq(low_latency_now(&holds), 0);
		stop();
		th_skip(__func__, "/dev/cpu_dma_latency is not writable (root only): "
			"only the refusal was checked");
		return;
	}
	ck_assert(has_open(m.pid, "/dev/cpu_dma_latency"));
	ck_assert_uint_eq(low_latency_now(&holds), 1); /* released */
	ck_assert_uint_eq(holds, 0);

	slow = th_connect(m.port);
	ck_assert_int_eq(write(slow, "0123456789", 10), 10); /* and no more */
	ck_assert(TH_WAIT_UNTIL(stats_now().accepted == m.conns + 1, 5000));
	usleep(300000); /* a sleep: the point is that nothing happens meanwhile */
	ck_assert_uint_eq(low_latency_now(&holds), 1);
	ck_assert_uint_eq(holds, 0);

	digest_of(base - 1, d); /* never found in the range */
	fd = th_connect(m.port);
	ck_assert_int_eq(th_send_request(fd, d, base, base + (1ull << 50), 1), 0);
	ck_assert(low_latency_becomes(2, 5000));
	ck_assert_int_eq(cpu_latency_limit(), 0);
	th_reset(fd); /* gone: its search is cancelled */
	t0 = clock_ms();
	ck_assert(low_latency_becomes(1, 10000));
	ck_assert_uint_ge(clock_ms() - t0, 150); /* not at once: a grace */
	ck_assert_uint_lt(clock_ms() - t0, 5000); /* about 0.3 s */
	ck_assert_uint_eq(low_latency_now(&holds), 1);
	ck_assert_uint_eq(holds, 1);
	if (!open_elsewhere(m.pid, "/dev/cpu_dma_latency")) /* nobody else may hold it */
		ck_assert_int_ne(cpu_latency_limit(), 0);
	ck_assert(tm_log_contains(&m, "polling while busy and 0.3 s after"));
	close(slow);
	stop();
}
END_TEST

/* By default the master holds the CPUs where it may (and says nothing
 * alarming where it may not); --no-low-latency never touches them, even
 * while serving. */
START_TEST(low_latency_is_on_by_default_and_can_be_turned_off)
{
	const char *const none[] = { "--workers", "1", "--no-low-latency", NULL };
	const char *const one[] = { "--workers", "1", NULL };
	int can = access("/dev/cpu_dma_latency", W_OK) == 0;
	uint64_t holds, x, base = th_rand64() >> 1;
	uint8_t d[32];

	start(NULL, one);
	ck_assert_int_eq(has_open(m.pid, "/dev/cpu_dma_latency"), can);
	ck_assert_uint_eq(low_latency_now(&holds), can ? 1 : 0);
	ck_assert(!tm_log_contains(&m, "--low-latency"));
	stop();

	start(NULL, none);
	ck_assert(!has_open(m.pid, "/dev/cpu_dma_latency"));
	digest_of(base + 5, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 100, 1, &x), 0);
	ck_assert_uint_eq(x, base + 5);
	ck_assert_uint_eq(low_latency_now(&holds), 0);
	ck_assert_uint_eq(holds, 0);
	ck_assert(!tm_log_contains(&m, "low latency"));
	stop();
}
END_TEST

/* The CPU the running master spends over the next ms milliseconds, in
 * clock ticks (100 a second). */
static uint64_t master_ticks_over(unsigned ms)
{
	struct os_stat a, b;

	ck_assert_int_eq(os_stat(m.pid, &a), 0);
	usleep(ms * 1000u);
	ck_assert_int_eq(os_stat(m.pid, &b), 0);
	return b.ticks - a.ticks;
}

/* --poll=S: the master polls for events, spending its CPU, while a search
 * is in flight and S after the last request read, and sleeps
 * otherwise: not at start, not for a client that only connects and sends
 * half a request. Without --poll (--workers given: no CPU left to it) it
 * never polls. */
START_TEST(poll_spends_the_masters_cpu_only_while_busy)
{
	const char *const poll[] = { "--workers", "1", "--poll=0.5", NULL };
	const char *const one[] = { "--workers", "1", NULL };
	uint64_t x, base = th_rand64() >> 1, t, t0;
	uint8_t d[32];
	int slow;

	start(NULL, poll);
	ck_assert(tm_log_contains(&m, "the master polls for events while busy and 0.5 s after"));
	ck_assert_uint_le(master_ticks_over(200), 3); /* asleep */
	slow = th_connect(m.port);
	ck_assert_int_eq(write(slow, "0123456789", 10), 10); /* and no more */
	ck_assert(TH_WAIT_UNTIL(stats_now().accepted == m.conns + 1, 5000));
	ck_assert_uint_le(master_ticks_over(200), 3);
	digest_of(base + 7, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 100, 1, &x), 0);
	ck_assert_uint_eq(x, base + 7);
	t0 = clock_ms();
	/* All of a CPU, or half of one beside a busy process: 15 to 30. */
	t = master_ticks_over(300);
	ck_assert_msg(t >= 6, "polling for 300 ms took %llu ticks", (unsigned long long)t);
	while (clock_ms() < t0 + 800)
		usleep(50000); /* the half second is over */
	ck_assert_uint_le(master_ticks_over(200), 3);
	close(slow);
	stop();

	start(NULL, one);
	ck_assert(!tm_log_contains(&m, "polls for events"));
	digest_of(base + 9, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 100, 1, &x), 0);
	ck_assert_uint_eq(x, base + 9);
	ck_assert_uint_le(master_ticks_over(200), 3);
	stop();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("operator");
	TCase *t = tcase_create("operator");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, graceful_stop_answers_what_is_in_flight);
	tcase_add_test(t, stop_sent_to_the_whole_group_still_answers);
	tcase_add_test(t, hup_reloads_the_worker_count);
	tcase_add_test(t, command_line_is_checked);
	tcase_add_test(t, listen_takes_only_the_addresses_named);
	tcase_add_test(t, listen_unix_takes_the_balancer_alone);
	tcase_add_test(t, listen_failure_names_the_unix_socket);
	tcase_add_test(t, user_drops_root_after_the_bind);
	tcase_add_test(t, bench_command_line_is_checked);
	tcase_add_test(t, second_master_on_the_same_port_fails);
	tcase_add_test(t, killed_master_takes_its_workers_and_leaves_a_removable_segment);
	tcase_add_test(t, stale_segments_of_any_port_are_swept);
	tcase_add_test(t, draining_master_and_its_successor_keep_their_segments);
	tcase_add_test(t, habitual_signals_kill_nothing);
	tcase_add_test(t, config_that_is_no_file_is_refused);
	tcase_add_test(t, command_line_wins_over_the_config);
	tcase_add_test(t, reload_keeps_an_explicit_worker_count);
	tcase_add_test(t, stop_does_not_wait_for_silent_clients);
	tcase_add_test(t, failed_start_leaves_nothing_behind);
	tcase_add_test(t, bench_rescores_a_recorded_run);
	tcase_add_test(t, stop_at_the_first_moment_of_listening);
	tcase_add_test(t, connectable_means_ready);
	tcase_add_test(t, two_masters_started_at_once_leave_one_serving);
	tcase_add_test(t, unlocked_segment_of_a_live_owner_is_left_alone);
	tcase_add_test(t, busy_rate_counts_only_the_cpus_there_are);
	tcase_add_test(t, status_of_a_lying_segment);
	tcase_add_test(t, status_ignores_what_is_not_a_segment_of_ours);
	tcase_add_test(t, status_escapes_the_words_of_the_segment);
	tcase_add_test(t, hashes_total_counts_a_retired_workers_hashes_once);
	tcase_add_test(t, metrics_escape_the_words_of_the_segment);
	tcase_add_test(t, a_squatted_segment_name_costs_the_master_nothing);
	tcase_add_test(t, low_latency_holds_the_cpus_only_while_busy);
	tcase_add_test(t, low_latency_is_on_by_default_and_can_be_turned_off);
	tcase_add_test(t, poll_spends_the_masters_cpu_only_while_busy);
	suite_add_tcase(s, t);
	return check_run(s);
}
