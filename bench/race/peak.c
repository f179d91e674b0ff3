/* The machine's peak (see peak.h). The best of the kernel calibration's
 * 1 ms rounds, over every CPU online (hyperthreads counted whole): the
 * peak errs high, so a fresh run is never taken for memory by it. */
#include "bench/race/peak.h"
#include "worker/kernel.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Whether name, in folder dir, is a GPU's device file. */
static int gpu_name(const char *dir, const char *name)
{
	if (strcmp(dir, "dri") == 0)
		return strncmp(name, "renderD", 7) == 0;
	return strcmp(name, "kfd") == 0 ||
	       (strncmp(name, "nvidia", 6) == 0 && name[6] >= '0' && name[6] <= '9');
}

/* Whether folder dev/sub holds one: 1 and its path into found. */
static int gpu_in(const char *dev, const char *sub, char *found, size_t size)
{
	char path[512];
	struct dirent *e;
	DIR *d;
	int yes = 0;

	snprintf(path, sizeof path, "%s%s%s", dev, *sub ? "/" : "", sub);
	if (!(d = opendir(path)))
		return 0;
	while (!yes && (e = readdir(d)))
		if ((yes = gpu_name(sub, e->d_name)))
			snprintf(found, size, "%s/%s", path, e->d_name);
	closedir(d);
	return yes;
}

int peak_gpu_in(const char *dev, char *found, size_t size)
{
	return gpu_in(dev, "", found, size) || gpu_in(dev, "dri", found, size);
}

void peak_measure(struct peak *pk)
{
	const struct kernel_calibration *c = kernel_calibrate();
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	*pk = (struct peak){ .cpus = cpus > 0 ? (unsigned)cpus : 1 };
	/* The fastest measured, whatever the choice weighed it by. */
	for (size_t i = 0; i < c->pick.n; i++)
		if (c->pick.rates[i] > pk->core) {
			pk->core = c->pick.rates[i];
			pk->kernel = c->pick.names[i];
		}
	if (!peak_gpu_in("/dev", pk->gpu, sizeof pk->gpu))
		pk->rate = pk->core * pk->cpus;
}
