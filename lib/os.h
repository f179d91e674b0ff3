/* The few operating-system calls the processes share, in one small file. */
#ifndef REVHASH_OS_H
#define REVHASH_OS_H

#include <stdint.h>
#include <sys/types.h>

/* The CPUs in this process's affinity mask, at least 1: what a worker
 * count of `auto` means. */
unsigned os_cpu_count(void);
/* os_cpu_count(), at most most: what `auto` comes to where a table holds
 * at most that many workers. */
unsigned os_cpus_upto(unsigned most);
/* What one /proc/PID/stat says. */
struct os_stat {
	pid_t pid, ppid;
	char state;           /* the scheduler's letter: R, S, T, t, Z... */
	uint64_t start;       /* since boot, in clock ticks: tells a reused pid */
	uint64_t ticks;       /* CPU used, user and system (utime, stime) */
	uint64_t child_ticks; /* that of the children it reaped (cutime, cstime) */
};
/* Parse text, the contents of a /proc/PID/stat, into s. The command's
 * name may hold spaces and parentheses: the fields after it are found
 * from its last ')'. 0, or -EINVAL. */
int os_parse_stat(const char *text, struct os_stat *s);
/* Read /proc/PID/stat into s: 0, -ESRCH (no such process), -EINVAL (its
 * file does not parse, or is another pid's), or another -errno. */
int os_stat(pid_t pid, struct os_stat *s);
/* The process whose thread tid is (its thread group: tid itself for a
 * process's first thread), or -errno (-ESRCH: no such thread). */
pid_t os_thread_group(pid_t tid);
/* Become user name for good (its uid, gid and groups): for a process
 * started as root, once what needs root is done. Not root: 0 when it is
 * that user already. 0, or -errno (-ENOENT: no such user; -EPERM: the
 * change could not be made, or could be undone), logged. */
int os_become(const char *name);
/* Reap child pid, waiting until deadline_ms (clock_ms) at most, then
 * killing it: a child that went on past its time must not hold the
 * caller. *status, and 1 when it was late (killed). */
int os_reap(pid_t pid, int *status, uint64_t deadline_ms);
/* Have the kernel probe the peer of TCP socket fd once it has been idle
 * 10 s, every 5 s, 3 probes: a host that vanished is noticed in about
 * 25 s, where a socket that only waits would wait for ever. */
void os_keepalive(int fd);

#endif
