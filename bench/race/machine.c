/* The machine's busy share and its peak (see machine.h). /proc/stat's
 * first line sums every CPU; busy is what a program or the kernel on its
 * behalf used, idle and iowait are not (a CPU waiting on a disk is free
 * to hash). guest time is already inside user, so it is not added again.
 * The peak is the best of the kernel calibration's 1 ms rounds, over
 * every CPU online (hyperthreads counted whole): it errs high, so a fresh
 * run is never taken for memory by it. */
#include "bench/race/machine.h"
#include "worker/kernel.h"

#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int machine_parse(const char *text, struct machine_cpu *c)
{
	uint64_t v[8] = { 0 };
	const char *line = text;

	if (sscanf(text, "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 4)
		return -EINVAL;
	c->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	c->total = c->busy + v[3] + v[4];
	c->cpus = 0;
	while ((line = strchr(line, '\n')) && strncmp(++line, "cpu", 3) == 0)
		c->cpus += line[3] >= '0' && line[3] <= '9';
	return 0;
}

double machine_busy(const struct machine_cpu *a, const struct machine_cpu *b)
{
	if (b->total <= a->total || b->busy < a->busy)
		return -1;
	return (double)(b->busy - a->busy) / (double)(b->total - a->total);
}

int machine_kept_busy(double before, double after, unsigned cpus)
{
	if (!cpus || after < 0)
		return 0;
	return after - (before > 0 ? before : 0) > MACHINE_KEPT_CPU / cpus;
}

double machine_cpus_used(const struct machine_cpu *a, const struct machine_cpu *b,
			 uint64_t ticks)
{
	if (b->total <= a->total || !b->cpus)
		return -1;
	return (double)ticks * b->cpus / (double)(b->total - a->total);
}

int machine_others(const struct machine_cpu *a, const struct machine_cpu *b,
		   uint64_t own, double *others)
{
	uint64_t busy, left;
	double span;

	*others = -1;
	if (b->total <= a->total || b->busy < a->busy || !b->cpus)
		return 0;
	busy = b->busy - a->busy;
	left = busy > own ? busy - own : 0;
	span = (double)(b->total - a->total) / b->cpus; /* ticks per CPU */
	*others = left / span;
	return left > MACHINE_OTHERS_CPU * span + MACHINE_OTHERS_SLACK;
}

/* Read to its end (it holds no NUL): 4 kB held the cpu lines of some 70
 * CPUs only. */
int machine_read(struct machine_cpu *c)
{
	FILE *f = fopen("/proc/stat", "re");
	char *text = NULL;
	size_t cap = 0;
	int err = 0;

	if (!f) {
		err = -errno;
		fprintf(stderr, "fopen(/proc/stat): %m\n");
		return err;
	}
	if (getdelim(&text, &cap, '\0', f) < 0 || machine_parse(text, c)) {
		fprintf(stderr, "revhash-bench: /proc/stat: no cpu line first\n");
		err = -EINVAL;
	}
	free(text);
	fclose(f);
	return err;
}

/* --- the peak ---------------------------------------------------------- */

int machine_gpu_in(const char *dev, char *found, size_t size)
{
	static const char *const file[] = { "nvidia[0-9]*", "kfd", "dri/renderD*" };
	char pattern[512];
	glob_t g;
	int yes = 0;

	for (size_t i = 0; !yes && i < sizeof file / sizeof file[0]; i++) {
		snprintf(pattern, sizeof pattern, "%s/%s", dev, file[i]);
		if ((yes = glob(pattern, 0, NULL, &g) == 0))
			snprintf(found, size, "%s", g.gl_pathv[0]);
		globfree(&g);
	}
	return yes;
}

void machine_peak(struct machine_peak *pk)
{
	const struct kernel_calibration *c = kernel_calibrate();
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	*pk = (struct machine_peak){ .cpus = cpus > 0 ? (unsigned)cpus : 1 };
	/* The fastest measured, whatever the choice weighed it by. */
	for (size_t i = 0; i < c->pick.n; i++)
		if (c->pick.rates[i] > pk->core) {
			pk->core = c->pick.rates[i];
			pk->kernel = c->pick.names[i];
		}
	if (!machine_gpu_in("/dev", pk->gpu, sizeof pk->gpu))
		pk->rate = pk->core * pk->cpus;
}
