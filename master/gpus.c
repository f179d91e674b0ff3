/* Finding the GPUs (see gpus.h). The probe runs the GPU worker binary with
 * --probe, which prints the number of devices and then one name a line;
 * the master reads it with a deadline (CUDA's start-up takes a second or
 * so, a broken driver may take for ever) and kills it when it is late. */
#include "master/gpus.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/parse.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROBE_MS 15000
#define PROBE_BYTES 4096

/* Where the GPU worker binary is when none is named: beside the master
 * (installed), or in the build tree's worker/ (master/master). */
static void default_path(char *path, size_t len)
{
	char self[PATH_MAX - 32], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	path[0] = '\0';
	if (n <= 0 || len < PATH_MAX)
		return;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')))
		*slash = '\0';
	snprintf(path, PATH_MAX, "%s/revhash-gpu", self);
	if (access(path, X_OK) != 0)
		snprintf(path, PATH_MAX, "%s/../worker/revhash-gpu", self);
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

/* Run `path --probe` and keep what it printed in out. 0 or -errno. */
static int probe(const char *path, char *out, size_t len)
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
		execl(path, path, "--probe", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	got = read_until(fds[0], out, len, clock_ms() + PROBE_MS);
	close(fds[0]);
	if (got < 0)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (got < 0)
		return (int)got;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ENODEV;
}

/* The devices the probe said are there: their count, and their names
 * into the note. */
static unsigned devices(const char *said, struct gpus *g)
{
	unsigned long n = strtoul(said, NULL, 10);
	const char *line = strchr(said, '\n');
	size_t used = 0;

	g->note[0] = '\0';
	for (unsigned long i = 0; i < n && line && line[1]; i++) {
		const char *end = strchr(line + 1, '\n');
		int len = (int)(end ? end - line - 1 : (long)strlen(line + 1));

		used += (size_t)snprintf(g->note + used, sizeof g->note - used, "%s%u: %.*s",
					 i ? ", " : "", (unsigned)i, len, line + 1);
		if (used >= sizeof g->note)
			break;
		line = end;
	}
	return n > GPUS_MAX ? GPUS_MAX : (unsigned)n;
}

/* Take the devices of list ("0,2"), each below there. 0 or -EINVAL. */
static int take_list(struct gpus *g, const char *list, unsigned there)
{
	char copy[64], *save = NULL;

	snprintf(copy, sizeof copy, "%s", list);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		uint64_t d;

		if (parse_u64(t, 0, GPUS_MAX - 1, &d) < 0 || g->n == GPUS_MAX) {
			log_error("--gpu %s: '%s' is not a device number (0..%d)", list, t,
				  GPUS_MAX - 1);
			return -EINVAL;
		}
		if (d >= there) {
			log_error("--gpu %s: no device %llu (%u found)", list,
				  (unsigned long long)d, there);
			return -EINVAL;
		}
		g->dev[g->n++] = (int)d;
	}
	return 0;
}

int gpus_find(struct gpus *g, const char *spec, const char *path)
{
	char said[PROBE_BYTES];
	int automatic = strcmp(spec, "auto") == 0, rc;
	unsigned there;

	memset(g, 0, sizeof *g);
	snprintf(g->note, sizeof g->note, "off");
	if (strcmp(spec, "off") == 0)
		return 0;
	if (path)
		snprintf(g->path, sizeof g->path, "%s", path);
	else
		default_path(g->path, sizeof g->path);
	if (!g->path[0] || access(g->path, X_OK) != 0)
		rc = -ENOENT;
	else
		rc = probe(g->path, said, sizeof said);
	if (rc < 0 || (there = devices(said, g)) == 0) {
		snprintf(g->note, sizeof g->note, "none (%s)",
			 rc == -ENOENT ? "no GPU worker: built without nvcc" :
			 rc < 0 ? strerror(-rc) : "no CUDA device");
		if (!automatic) {
			log_error("--gpu %s: %s, GPU worker %s", spec, g->note, g->path);
			return -EINVAL;
		}
		log_info("GPU: %s; serving with the CPUs only", g->note);
		return 0;
	}
	if (automatic)
		for (unsigned i = 0; i < there; i++)
			g->dev[g->n++] = (int)i;
	else if (take_list(g, spec, there) < 0)
		return -EINVAL;
	log_info("GPU: %u worker%s on %s", g->n, g->n == 1 ? "" : "s", g->note);
	return 0;
}
