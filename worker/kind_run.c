/* What a kind of worker does (kind.h): a kind without a program is forked
 * and runs the worker loop in the master's image; one with a program (the
 * GPU worker) is probed for its units and exec'd. The probe's answer is
 * read with a deadline (CUDA's start-up takes a second or so, a broken
 * driver may take for ever), and the probe killed when it is late. */
#include "worker/kind.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/os.h"
#include "worker/sandbox.h"
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
#define PROBE_EXIT_MS 2000 /* to exit once its output has ended */
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

/* Is st, a folder on the way to the program or the program itself, safe
 * from other users: owned by root or by the master's own user, and
 * writable by nobody else (a folder may be, if sticky, as /tmp is: then
 * nobody else may rename or remove what is ours in it)? Says why not. */
static int safe(const struct stat *st, const char *path, const char *what)
{
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		log_error("%s: %s is owned by uid %u, neither root nor this master's user: "
			  "refused", path, what, (unsigned)st->st_uid);
		return 0;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))) {
		log_error("%s: %s is writable by its group or by anyone: refused", path, what);
		return 0;
	}
	return 1;
}

/* Open the program at path to exec, once: only a regular executable file
 * that is no link, that no one but root or the master's user may write,
 * in folders that no one else may change. Its folders are resolved
 * (realpath), then walked down from / one at a time without following a
 * link, each checked as it is held; the program's descriptor is what
 * every probe and worker runs (fexecve), so that no later rename or link
 * changes what runs. Its fd, or -ENOENT (none) or -EPERM (refused,
 * logged). */
static int open_program(const char *path)
{
	char copy[PATH_MAX], real[PATH_MAX], *base, *save = NULL;
	int dir, next, fd = -ENOENT;
	struct stat st;

	snprintf(copy, sizeof copy, "%s", path);
	if ((base = strrchr(copy, '/')))
		*base++ = '\0';
	if (!realpath(!base ? "." : copy[0] ? copy : "/", real) || !*(base = base ? base : copy) ||
	    (dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -ENOENT;
	for (char *c = strtok_r(real, "/", &save);; c = strtok_r(NULL, "/", &save)) {
		if (fstat(dir, &st) < 0 || !safe(&st, path, "a folder on its way")) {
			close(dir);
			return -EPERM;
		}
		if (!c)
			break;
		next = openat(dir, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		if (next < 0)
			return -ENOENT; /* gone, or made a link since */
		dir = next;
	}
	next = openat(dir, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	close(dir);
	if (next < 0 || fstat(next, &st) < 0)
		goto out;
	if (S_ISLNK(st.st_mode)) {
		log_error("%s: a link (name the program itself): refused", path);
		fd = -EPERM;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || !(st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
		goto out; /* not a program */
	if (!safe(&st, path, "it")) {
		fd = -EPERM;
		goto out;
	}
	return next;
out:
	if (next >= 0)
		close(next);
	return fd;
}

/* In a child of the master: run the program fd (named path) with argv,
 * once its mode is checked again (its owner could have changed it). Its
 * descriptor crosses the exec so that a script's interpreter can read it;
 * returns only when it could not run. */
static void run_program(int fd, const char *path, char *const argv[])
{
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !safe(&st, path, "it"))
		return;
	fcntl(fd, F_SETFD, 0);
	fexecve(fd, argv, environ);
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

/* Run program fd (named path) with --probe [--kernel kernel] and keep
 * what it printed in out, all within PROBE_MS. 0, -EINVAL when it says it
 * has no such kernel (exit 2), or -errno. */
static int probe(int fd, const char *path, const char *kernel, char *out, size_t len)
{
	char *argv[] = { (char *)path, "--probe", kernel ? "--kernel" : NULL, (char *)kernel,
			 NULL };
	uint64_t deadline = clock_ms() + PROBE_MS;
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
		run_program(fd, path, argv);
		_exit(127);
	}
	close(fds[1]);
	got = read_until(fds[0], out, len, deadline);
	close(fds[0]);
	/* Late, or still writing when the buffer is full (it would block on
	 * the pipe for ever): killed, and no answer. */
	if (got < 0 || (size_t)got >= len - 1) {
		kill(pid, SIGKILL);
		if (got >= 0)
			got = -EMSGSIZE;
	}
	/* Its answer is whole: it has PROBE_EXIT_MS to end, then is killed,
	 * and its answer stands (a driver slow to let go costs no device). */
	if (got >= 0 && clock_ms() + PROBE_EXIT_MS < deadline)
		deadline = clock_ms() + PROBE_EXIT_MS;
	if (os_reap(pid, &status, deadline) && got >= 0) {
		log_warn("%s --probe: still running %d ms after its answer: killed", path,
			 PROBE_EXIT_MS);
		status = 0;
	}
	if (got < 0)
		return (int)got;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2 && kernel)
		return -EINVAL;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ENODEV;
}

/* The units the probe said are there: their count, and their names into
 * the note, which the log and --status show: each byte that is not
 * printable ASCII (a control character, C1's, anything a terminal could
 * take for an escape) as '?'. */
static unsigned units(const char *said, struct kind_found *f)
{
	unsigned long n = strtoul(said, NULL, 10);
	const char *line = strchr(said, '\n');
	size_t used = 0;

	f->note[0] = '\0';
	for (unsigned long i = 0; i < n && line && line[1]; i++) {
		const char *end = strchr(line + 1, '\n');
		int len = (int)(end ? end - line - 1 : (long)strlen(line + 1));
		size_t from = used;

		used += (size_t)snprintf(f->note + used, sizeof f->note - used, "%s%u: %.*s",
					 i ? ", " : "", (unsigned)i, len, line + 1);
		for (size_t j = from; j < used && j < sizeof f->note - 1; j++)
			if (f->note[j] < 0x20 || f->note[j] > 0x7e)
				f->note[j] = '?';
		if (used >= sizeof f->note)
			break;
		line = end;
	}
	return n > KIND_UNITS_MAX ? KIND_UNITS_MAX : (unsigned)n;
}

/* Take the units of list ("0,2": digits, checked by kind_spec_valid),
 * each below there. 0 or -EINVAL. */
static int take_list(const struct worker_kind *k, struct kind_found *f,
		     const char *list, unsigned there)
{
	if (!kind_spec_valid(list)) {
		log_error("--%s %s: not a list of unit numbers (0..%d)", k->name, list,
			  KIND_UNITS_MAX - 1);
		return -EINVAL;
	}
	for (const char *c = list; *c; c += c[1] ? 2 : 1) {
		if ((unsigned)(*c - '0') >= there) {
			log_error("--%s %s: no unit %c (%u found)", k->name, list, *c, there);
			return -EINVAL;
		}
		f->unit[f->n++] = *c - '0';
	}
	return 0;
}

int kind_find(const struct worker_kind *k, const char *spec, const char *path,
	      const char *kernel, struct kind_found *f)
{
	char said[PROBE_BYTES];
	int automatic, rc;
	unsigned there = 0;

	memset(f, 0, sizeof *f);
	f->fd = -1;
	if (!k->binary) /* counted (--workers, re-read on HUP), not found */
		return 0;
	automatic = strcmp(spec, "auto") == 0;
	snprintf(f->note, sizeof f->note, "off");
	if (strcmp(spec, "off") == 0)
		return 0;
	if (path)
		snprintf(f->path, sizeof f->path, "%s", path);
	else
		default_path(k, f->path, sizeof f->path);
	if (!f->path[0])
		rc = -ENOENT;
	else if ((rc = open_program(f->path)) >= 0)
		rc = probe(f->fd = rc, f->path, kernel, said, sizeof said);
	if (rc == -EINVAL) {
		log_error("--%s-kernel %s: no such kernel on its units (%s said why)", k->name,
			  kernel, f->path);
		goto drop;
	}
	if (rc < 0 || (there = units(said, f)) == 0) {
		snprintf(f->note, sizeof f->note, "none (%s)",
			 rc == -ENOENT ? "no worker program" :
			 rc == -EPERM ? "its program refused: another could change it" : rc < 0 ? strerror(-rc) :
			 "no device");
		rc = automatic ? 0 : -EINVAL;
		if (!automatic)
			log_error("--%s %s: %s, program %s", k->name, spec, f->note, f->path);
		else
			log_info("%s: %s; serving without %s workers (program %s)", k->name,
				 f->note, k->name, f->path[0] ? f->path : "not found");
		goto drop;
	}
	if (automatic)
		for (unsigned i = 0; i < there; i++)
			f->unit[f->n++] = (int)i;
	else if ((rc = take_list(k, f, spec, there)) < 0)
		goto drop;
	log_info("%s: %u worker%s on %s", k->name, f->n, f->n == 1 ? "" : "s", f->note);
	return 0;
drop: /* none there, or refused: the program is held open no longer */
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	return rc;
}

/* Exec k's program with --serve and the worker's segment, slot, master,
 * eventfd, unit, kind's name and kernel. The eventfd crosses the exec;
 * everything else of the master's is close-on-exec. The signal mask the
 * master blocks its signals with stays blocked until the worker has
 * ignored them. */
static void exec_program(const struct worker_kind *k, const struct worker_start *w)
{
	char s[5][24];
	char *argv[] = { (char *)w->path, "--serve", (char *)w->seg->name, "--slot", s[0],
			 "--master", s[1], "--notify", s[2], "--device", s[3], "--kind",
			 (char *)k->name, "--kernel",
			 (char *)(w->kernel_name ? w->kernel_name : w->kernel->name),
			 sandbox_on() ? NULL : "--no-sandbox", NULL };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != w->master)
		_exit(0);
	fcntl(w->notify_fd, F_SETFD, 0);
	snprintf(s[0], sizeof s[0], "%u", w->slot);
	snprintf(s[1], sizeof s[1], "%d", (int)w->master);
	snprintf(s[2], sizeof s[2], "%d", w->notify_fd);
	snprintf(s[3], sizeof s[3], "%u", w->unit);
	errno = EPERM; /* what a program that is no longer safe to run fails with */
	run_program(w->program_fd, w->path, argv);
	log_error("exec %s: %s", w->path, strerror(errno));
	_exit(127);
}

void kind_plan(const struct kind_found f[KINDS_MAX], unsigned target, unsigned nslots,
	       int kind[], unsigned unit[])
{
	unsigned top = nslots, counted = 0;

	for (unsigned i = 0; i < nslots; i++)
		kind[i] = -1;
	for (unsigned k = 0; k < kind_count(); k++)
		for (unsigned u = 0; kind_at(k)->binary && u < f[k].n && top; u++) {
			top--;
			kind[top] = (int)k;
			unit[top] = (unsigned)f[k].unit[u];
		}
	for (unsigned k = 0; k < kind_count(); k++) {
		if (kind_at(k)->binary)
			continue;
		for (unsigned u = 0; u < target && u < top; u++) {
			kind[u] = (int)k;
			unit[u] = u;
		}
		counted++;
	}
	if (counted != 1) { /* the table is wrong: a bug */
		log_error("kinds: %u counted by --workers, not 1", counted);
		abort();
	}
}

void kind_become(const struct worker_kind *k, const struct worker_start *start)
{
	struct worker_start w = *start;

	if (k->binary)
		exec_program(k, start);
	kind_fill(k, &w);
	_exit(worker_main(&w));
}

void kind_fill(const struct worker_kind *k, struct worker_start *w)
{
	w->wall_clock = k->wall_clock;
	w->lease_ns = k->lease_ns;
	w->min_lease_ns = k->min_lease_ns;
}
