/* The GPUs the master serves with, found once at start. A GPU worker is a
 * separate binary (revhash-gpu, built where nvcc is) that the master forks
 * and execs, so that the master itself never links CUDA: it asks that
 * binary which devices there are (`revhash-gpu --probe`, bounded in time)
 * and runs one worker per device wanted. Where the binary or a device is
 * missing, `--gpu auto` serves with the CPUs alone and says so once. */
#ifndef REVHASH_GPUS_H
#define REVHASH_GPUS_H

#include <limits.h>

#include "shm/ring.h"

#define GPUS_MAX 8

struct gpus {
	char path[PATH_MAX];  /* the GPU worker binary */
	unsigned n;           /* GPU workers to run */
	int dev[GPUS_MAX];    /* the device of each */
	char note[96];        /* for the log and --status: "off", "none (why)",
	                         or the devices' names */
};

/* Find the GPU workers spec asks for: "auto" (every device there is, none
 * being no error), "off", or a comma list of device numbers, which must
 * all be there. path is the GPU worker binary, NULL for revhash-gpu beside
 * the master (or in the build tree's worker/). 0, or -EINVAL with the
 * reason logged. */
int gpus_find(struct gpus *g, const char *spec, const char *path);

#endif
