/* OS calls (see os.h). */
#include "lib/os.h"
#include "lib/clock.h"
#include "lib/log.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

unsigned os_cpu_count(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof set, &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (unsigned)n : 1;
}

unsigned os_cpus_upto(unsigned most)
{
	unsigned n = os_cpu_count();

	return n > most ? most : n;
}

int os_parse_stat(const char *text, struct os_stat *s)
{
	const char *close = strrchr(text, ')');
	long long pid, ppid, cutime, cstime;
	unsigned long long utime, stime, start;
	char state;

	if (!close || sscanf(text, "%lld (", &pid) != 1 || pid <= 0 ||
	    pid > INT32_MAX)
		return -EINVAL;
	if (sscanf(close + 1, " %c %lld %*d %*d %*d %*d %*u %*u %*u %*u %*u "
		   "%llu %llu %lld %lld %*d %*d %*d %*d %llu", &state, &ppid,
		   &utime, &stime, &cutime, &cstime, &start) != 7 ||
	    ppid < 0 || ppid > INT32_MAX || cutime < 0 || cstime < 0)
		return -EINVAL;
	s->pid = (pid_t)pid;
	s->ppid = (pid_t)ppid;
	s->state = state;
	s->start = start;
	s->ticks = utime + stime;
	s->child_ticks = (uint64_t)cutime + (uint64_t)cstime;
	return 0;
}

/* /proc/PID/file into buf (len bytes, NUL-terminated): 0, -ESRCH when
 * there is no such process (one that ended while it was read leaves an
 * empty file), or another -errno. */
static int read_proc(pid_t pid, const char *file, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	return 0;
}

int os_stat(pid_t pid, struct os_stat *s)
{
	char buf[4096];
	int err = read_proc(pid, "stat", buf, sizeof buf);

	if (err || (err = os_parse_stat(buf, s)))
		return err;
	return s->pid == pid ? 0 : -EINVAL;
}

pid_t os_thread_group(pid_t tid)
{
	char buf[1024], *at;
	long tgid;
	int err = read_proc(tid, "status", buf, sizeof buf);

	if (err)
		return err;
	if (!(at = strstr(buf, "\nTgid:")) || sscanf(at + 6, "%ld", &tgid) != 1 || tgid <= 0 ||
	    tgid > INT32_MAX)
		return -EINVAL;
	return (pid_t)tgid;
}

int os_become(const char *name)
{
	struct passwd *pw;

	errno = 0;
	if (!(pw = getpwnam(name))) {
		log_error("--user %s: %s", name, errno ? strerror(errno) : "no such user");
		return errno ? -errno : -ENOENT;
	}
	if (geteuid() != 0) {
		if (geteuid() == pw->pw_uid)
			return 0;
		log_error("--user %s: only root can become another user", name);
		return -EPERM;
	}
	if (initgroups(name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 ||
	    setuid(pw->pw_uid) < 0) {
		int err = errno;
		log_error("--user %s: %s", name, strerror(err));
		return -err;
	}
	if (pw->pw_uid != 0 && (setuid(0) == 0 || geteuid() == 0)) {
		log_error("--user %s: root could be taken back", name);
		return -EPERM;
	}
	log_info("running as %s (uid %u, gid %u)", name, (unsigned)pw->pw_uid,
		 (unsigned)pw->pw_gid);
	return 0;
}

int os_reap(pid_t pid, int *status, uint64_t deadline_ms)
{
	struct timespec pause = { 0, 1000000L };

	*status = -1; /* neither exited nor signalled, should waitpid fail */
	while (clock_ms() < deadline_ms) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return 0;
		nanosleep(&pause, NULL);
		if (pause.tv_nsec < 16000000L)
			pause.tv_nsec *= 2;
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return 1;
}

void os_keepalive(int fd)
{
	int on = 1, idle = 10, intvl = 5, cnt = 3;

	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
}
