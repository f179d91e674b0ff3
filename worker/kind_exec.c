/* The kinds whose workers are programs of their own (the GPU worker): how
 * their units are found and how a forked child becomes one (see kind.h).
 * The probe runs the program with --probe, which prints the number of
 * units and then one name a line; it is read with a deadline (CUDA's
 * start-up takes a second or so, a broken driver may take for ever) and
 * killed when it is late. Where the program or a unit is missing, "auto"
 * serves without them and says so once. */
#include "worker/kind.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "worker/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROBE_MS 15000
#define PROBE_BYTES 4096

/* Where k's program is when none is named: beside the running binary
 * (installed), or in the build tree's worker/ (master/master). */
static void default_path(const struct worker_kind *k, char *path, size_t len)
{
	char self[PATH_MAX - 64], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	path[0] = '\0';
	if (n <= 0 || len < PATH_MAX)
		return;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')))
		*slash = '\0';
	snprintf(path, len, "%s/%s", self, k->binary);
	if (access(path, X_OK) != 0)
		snprintf(path, len, "%s/../worker/%s", self, k->binary);
}

/* May the master exec the program at path? Only a regular file that no one
 * but its owner can write, owned by root or by the master's own user:
 * anyone else who could change it would run code as the master, with the
 * segment in hand. 0, or -ENOENT (none) / -EPERM (refused, logged). */
static int trusted_program(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0)
		return -ENOENT;
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		log_error("%s: writable by its group or by anyone: refused", path);
		return -EPERM;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		log_error("%s: owned by uid %u, neither root nor this master's user: refused",
			  path, (unsigned)st.st_uid);
		return -EPERM;
	}
	return 0;
}

/* Read what fd gives until its end or the deadline into buf. */
static ssize_t read_until(int fd, char *buf, size_t len, uint64_t deadline_ms)
{
	size_t got = 0;

	while (got < len - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = clock_ms();
		ssize_t n;

		if (now >= deadline_ms || poll(&p, 1, (int)(deadline_ms - now)) <= 0)
			return -ETIMEDOUT;
		if ((n = read(fd, buf + got, len - 1 - got)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return (ssize_t)got;
}

/* Run `path --probe [--kernel kernel]` and keep what it printed in out.
 * 0, -EINVAL when it says it has no such kernel (exit 2), or -errno. */
static int probe(const char *path, const char *kernel, char *out, size_t len)
{
	int fds[2], status;
	ssize_t got;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		if (kernel)
			execl(path, path, "--probe", "--kernel", kernel, (char *)NULL);
		else
			execl(path, path, "--probe", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	got = read_until(fds[0], out, len, clock_ms() + PROBE_MS);
	close(fds[0]);
	/* Late, or still writing when the buffer is full (it would block on
	 * the pipe, and waitpid with it, for ever): killed, and no answer. */
	if (got < 0 || (size_t)got >= len - 1) {
		kill(pid, SIGKILL);
		if (got >= 0)
			got = -EMSGSIZE;
	}
	waitpid(pid, &status, 0);
	if (got < 0)
		return (int)got;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2 && kernel)
		return -EINVAL;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ENODEV;
}

/* The units the probe said are there: their count, and their names into
 * the note. */
static unsigned units(const char *said, struct kind_found *f)
{
	unsigned long n = strtoul(said, NULL, 10);
	const char *line = strchr(said, '\n');
	size_t used = 0;

	f->note[0] = '\0';
	for (unsigned long i = 0; i < n && line && line[1]; i++) {
		const char *end = strchr(line + 1, '\n');
		int len = (int)(end ? end - line - 1 : (long)strlen(line + 1));

		used += (size_t)snprintf(f->note + used, sizeof f->note - used, "%s%u: %.*s",
					 i ? ", " : "", (unsigned)i, len, line + 1);
		if (used >= sizeof f->note)
			break;
		line = end;
	}
	return n > KIND_UNITS_MAX ? KIND_UNITS_MAX : (unsigned)n;
}

/* Take the units of list ("0,2"), each below there. 0 or -EINVAL. */
static int take_list(const struct worker_kind *k, struct kind_found *f,
		     const char *list, unsigned there)
{
	char copy[64], *save = NULL;

	snprintf(copy, sizeof copy, "%s", list);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t d;

		if (parse_u64(t, 0, KIND_UNITS_MAX - 1, &d) < 0 || f->n == KIND_UNITS_MAX) {
			log_error("--%s %s: '%s' is not a unit number (0..%d)", k->name, list,
				  t, KIND_UNITS_MAX - 1);
			return -EINVAL;
		}
		if (d >= there) {
			log_error("--%s %s: no unit %llu (%u found)", k->name, list,
				  (unsigned long long)d, there);
			return -EINVAL;
		}
		f->unit[f->n++] = (int)d;
	}
	return 0;
}

int kind_exec_find(const struct worker_kind *k, const char *spec, const char *path,
		   const char *kernel, struct kind_found *f)
{
	char said[PROBE_BYTES];
	int automatic = strcmp(spec, "auto") == 0, rc;
	unsigned there = 0;

	memset(f, 0, sizeof *f);
	snprintf(f->note, sizeof f->note, "off");
	if (strcmp(spec, "off") == 0)
		return 0;
	if (path)
		snprintf(f->path, sizeof f->path, "%s", path);
	else
		default_path(k, f->path, sizeof f->path);
	if (!f->path[0])
		rc = -ENOENT;
	else if ((rc = trusted_program(f->path)) == 0)
		rc = probe(f->path, kernel, said, sizeof said);
	if (rc == -EINVAL) {
		log_error("--%s-kernel %s: no such kernel on its units (%s said why)", k->name,
			  kernel, f->path);
		return -EINVAL;
	}
	if (rc < 0 || (there = units(said, f)) == 0) {
		snprintf(f->note, sizeof f->note, "none (%s)",
			 rc == -ENOENT ? "no worker program" :
			 rc == -EPERM ? "its program is writable by others" : rc < 0 ? strerror(-rc) :
			 "no device");
		if (!automatic) {
			log_error("--%s %s: %s, program %s", k->name, spec, f->note, f->path);
			return -EINVAL;
		}
		log_info("%s: %s; serving without %s workers (program %s)", k->name, f->note,
			 k->name, f->path[0] ? f->path : "not found");
		return 0;
	}
	if (automatic)
		for (unsigned i = 0; i < there; i++)
			f->unit[f->n++] = (int)i;
	else if (take_list(k, f, spec, there) < 0)
		return -EINVAL;
	log_info("%s: %u worker%s on %s", k->name, f->n, f->n == 1 ? "" : "s", f->note);
	return 0;
}

/* The eventfd crosses the exec; everything else of the master's is
 * close-on-exec. The signal mask the master blocks its signals with stays
 * blocked until the worker has ignored them. */
void kind_exec_become(const struct worker_kind *k, const struct worker_start *w)
{
	char s[5][24];

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != w->master)
		_exit(0);
	fcntl(w->notify_fd, F_SETFD, 0);
	snprintf(s[0], sizeof s[0], "%u", w->slot);
	snprintf(s[1], sizeof s[1], "%d", (int)w->master);
	snprintf(s[2], sizeof s[2], "%d", w->notify_fd);
	snprintf(s[3], sizeof s[3], "%u", w->unit);
	execl(w->path, w->path, "--serve", w->seg->name, "--slot", s[0], "--master", s[1],
	      "--notify", s[2], "--device", s[3], "--kind", k->name, "--kernel",
	      w->kernel_name ? w->kernel_name : w->kernel->name, (char *)NULL);
	log_error("exec %s: %s", w->path, strerror(errno));
	_exit(127);
}
