/* A server's processes through /proc (see proctree.h). The tree is
 * rebuilt at each reading from every /proc/PID/stat's parent, and each
 * process counts its reaped children's CPU too (cutime, cstime), so a
 * child that ends between two readings stays counted. The caller and its
 * children are never a server's: a test may serve from the very process
 * that started the race. */
#include "bench/race/proctree.h"
#include "lib/os.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_INODES 64  /* listening sockets on one port */

unsigned proctree_parse_listeners(const char *text, int v6, unsigned port,
				  uint64_t *inode, unsigned max)
{
	const char *line = text;
	unsigned n = 0;

	while (line && n < max) {
		char local[40];
		unsigned lport, state;
		unsigned long long ino;
		int used = 0;

		if (sscanf(line, " %*u: %39[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%*x %x "
			   "%*x:%*x %*x:%*x %*x %*u %*u %llu%n", local, &lport,
			   &state, &ino, &used) == 4 && used > 0 &&
		    strlen(local) == (v6 ? 32u : 8u) && lport == port &&
		    state == 0x0A /* TCP_LISTEN */ && ino)
			inode[n++] = ino;
		if ((line = strchr(line, '\n')))
			line++;
	}
	return n;
}

int proctree_add(struct proctree *t, pid_t pid)
{
	struct os_stat s;
	int err;

	if (t->n == PROCTREE_ROOTS)
		return -E2BIG;
	if ((err = os_stat(pid, &s)))
		return err;
	t->pid[t->n] = pid;
	t->start[t->n++] = s.start;
	return 0;
}

/* --- is it here? -------------------------------------------------------- */

static int same_address(const struct sockaddr *a, const struct sockaddr *b)
{
	if (!b || a->sa_family != b->sa_family)
		return 0;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		      &((const struct sockaddr_in6 *)b)->sin6_addr,
		      sizeof(struct in6_addr)) == 0;
}

int proctree_is_local(const struct sockaddr *a)
{
	struct ifaddrs *list, *i;
	int local = 0;

	if (a->sa_family == AF_INET) {
		if ((ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127)
			return 1;
	} else if (a->sa_family == AF_INET6) {
		const struct in6_addr *x = &((const struct sockaddr_in6 *)a)->sin6_addr;

		if (IN6_IS_ADDR_LOOPBACK(x) ||
		    (IN6_IS_ADDR_V4MAPPED(x) && x->s6_addr[12] == 127))
			return 1;
	} else {
		return 0;
	}
	if (getifaddrs(&list))
		return -errno;
	for (i = list; i && !local; i = i->ifa_next)
		local = i->ifa_addr && same_address(a, i->ifa_addr);
	freeifaddrs(list);
	return local;
}

/* --- every process ------------------------------------------------------ */

/* Is e a process's folder of /proc, its name all digits? */
static int is_pid(const struct dirent *e)
{
	return e->d_name[0] && e->d_name[strspn(e->d_name, "0123456789")] == '\0';
}

/* A process as /proc gave it, and a mark of the caller's. */
struct proc {
	struct os_stat s;
	int mark;
};

/* Every process's stat into *all, unmarked (the caller frees it): how
 * many, or -errno (-EINVAL: one did not parse; one that ended meanwhile
 * is left out). */
static int every_process(struct proc **all)
{
	struct dirent **pid;
	int n = scandir("/proc", &pid, is_pid, NULL), m = 0, err = 0;
	struct proc *v = n < 0 ? NULL : calloc((size_t)n + 1, sizeof *v);

	if (n < 0)
		return -errno;
	for (int k = 0; k < n; k++) {
		int got = v ? os_stat((pid_t)atol(pid[k]->d_name), &v[m].s) : 0;

		m += !got;
		err = got == -EINVAL ? got : err;
		free(pid[k]);
	}
	free(pid);
	if (!v || err) {
		free(v);
		return v ? err : -ENOMEM;
	}
	*all = v;
	return m;
}

/* --- who listens on the port? ------------------------------------------- */

/* The listening sockets' inodes on port, IPv4 and IPv6: how many. A
 * /proc/net file holds no NUL, so getdelim reads it to its end. */
static unsigned listeners(unsigned port, uint64_t *inode)
{
	static const char *const file[2] = { "/proc/net/tcp", "/proc/net/tcp6" };
	unsigned n = 0;

	for (int v6 = 0; v6 < 2; v6++) {
		FILE *f = fopen(file[v6], "re");
		char *text = NULL;
		size_t cap = 0;

		if (!f)
			continue; /* no IPv6 here, say */
		if (getdelim(&text, &cap, '\0', f) > 0)
			n += proctree_parse_listeners(text, v6, port, inode + n,
						      MAX_INODES - n);
		free(text);
		fclose(f);
	}
	return n;
}

/* Does process pid hold one of inode[0 .. n - 1]? Its descriptors are
 * read only where this user may. */
static int holds(pid_t pid, const uint64_t *inode, unsigned n)
{
	char path[64], link[64];
	struct dirent *e;
	DIR *d;
	int found = 0;

	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	if (!(d = opendir(path)))
		return 0;
	while (!found && (e = readdir(d))) {
		unsigned long long ino;
		ssize_t len;

		snprintf(path, sizeof path, "/proc/%d/fd/%.20s", (int)pid, e->d_name);
		if ((len = readlink(path, link, sizeof link - 1)) <= 0)
			continue;
		link[len] = '\0';
		if (sscanf(link, "socket:[%llu]", &ino) != 1)
			continue;
		for (unsigned k = 0; k < n; k++)
			found |= ino == inode[k];
	}
	closedir(d);
	return found;
}

int proctree_find_port(const struct sockaddr *a, struct proctree *t)
{
	uint64_t inode[MAX_INODES];
	unsigned port = ntohs(a->sa_family == AF_INET ? ((const struct sockaddr_in *)a)->sin_port :
			      ((const struct sockaddr_in6 *)a)->sin6_port);
	unsigned n = listeners(port, inode);
	struct proc *all;
	int m;

	t->n = 0;
	if (!n)
		return 0;
	if ((m = every_process(&all)) < 0)
		return m;
	for (int k = 0; k < m; k++)
		all[k].mark = all[k].s.pid != getpid() && holds(all[k].s.pid, inode, n);
	for (int k = 0; k < m && t->n < PROCTREE_ROOTS; k++) {
		int top = all[k].mark;

		for (int j = 0; j < m && top; j++)
			top = !all[j].mark || all[j].s.pid != all[k].s.ppid;
		if (top) {
			t->pid[t->n] = all[k].s.pid;
			t->start[t->n++] = all[k].s.start;
		}
	}
	free(all);
	return (int)t->n;
}

/* --- the tree's CPU ------------------------------------------------------ */

int proctree_ticks(const struct proctree *t, uint64_t *ticks)
{
	struct proc *all;
	pid_t self = getpid();
	int n = every_process(&all), found = 0, grew = 1;

	if (n < 0)
		return n;
	for (int k = 0; k < n; k++)
		for (unsigned r = 0; r < t->n; r++)
			if (all[k].s.pid == t->pid[r] && all[k].s.start == t->start[r]) {
				all[k].mark = 1;
				found++;
			}
	/* Then every process whose parent is in, until none is added. */
	while (grew) {
		grew = 0;
		for (int k = 0; k < n; k++) {
			if (all[k].mark || all[k].s.pid == self)
				continue;
			for (int j = 0; j < n && !all[k].mark; j++)
				all[k].mark = all[j].mark && all[j].s.pid == all[k].s.ppid;
			grew |= all[k].mark;
		}
	}
	*ticks = 0;
	for (int k = 0; k < n; k++)
		*ticks += all[k].mark ? all[k].s.ticks + all[k].s.child_ticks : 0;
	free(all);
	return found == (int)t->n ? 0 : -ESRCH;
}
