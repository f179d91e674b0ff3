/* OS calls (see os.h). close_range where the kernel has it (5.9 and
 * later), else the descriptors /proc lists, never every number up to a
 * limit that may be a million. */
#include "lib/os.h"
#include "lib/log.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/syscall.h>
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

int os_pin(pid_t pid, unsigned n)
{
	cpu_set_t allowed, one;
	unsigned seen = 0, want;

	if (sched_getaffinity(0, sizeof allowed, &allowed) < 0)
		return -errno;
	want = n % (unsigned)CPU_COUNT(&allowed);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || seen++ != want)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		return sched_setaffinity(pid, sizeof one, &one) < 0 ? -errno : 0;
	}
	return -EINVAL;
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

int os_stat(pid_t pid, struct os_stat *s)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	/* A process that ended while it was read leaves an empty file, or
	 * none to read. */
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	if ((err = os_parse_stat(buf, s)))
		return err;
	return s->pid == pid ? 0 : -EINVAL;
}

int os_proc_stat(pid_t pid, char *state, uint64_t *ticks)
{
	struct os_stat s;
	int err = os_stat(pid, &s);

	if (!err) {
		*state = s.state;
		*ticks = s.ticks;
	}
	return err;
}

int os_proc_stopped(pid_t pid)
{
	uint64_t ticks;
	char state;

	return os_proc_stat(pid, &state, &ticks) == 0 && (state == 'T' || state == 't');
}

pid_t os_thread_group(pid_t tid)
{
	char path[64], buf[1024], *at;
	ssize_t n;
	long tgid;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	if (!(at = strstr(buf, "\nTgid:")) || sscanf(at + 6, "%ld", &tgid) != 1 || tgid <= 0 ||
	    tgid > INT32_MAX)
		return -EINVAL;
	return (pid_t)tgid;
}

void os_close_inherited(int keep)
{
	struct dirent *e;
	DIR *d;

	if (keep > 3)
		syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u);
	if (syscall(SYS_close_range, keep < 3 ? 3u : (unsigned)keep + 1, ~0u, 0u) == 0)
		return;
	if (!(d = opendir("/proc/self/fd")))
		return;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		if (fd > 2 && fd != keep && fd != dirfd(d))
			close(fd);
	}
	closedir(d);
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

void os_keepalive(int fd)
{
	int on = 1, idle = 10, intvl = 5, cnt = 3;

	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
}
