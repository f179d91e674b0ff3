/* kernel-bench: how many SHA-256 search hashes per second each kernel does
 * on one core. Every kernel searches a range that does not hold the answer,
 * so it hashes the whole range, as a worker does on most chunks.
 *
 * The machine may be shared and noisy, so the kernels run side by side in
 * rounds (openssl first, then the others), each round timing every kernel
 * once, and the table keeps each kernel's best round.
 *
 * Last, what --kernel auto measures at start and picks (kernel_calibrate),
 * and a GPU's rate beside them where the GPU worker binary finds a device
 * (it links CUDA; kernel-bench asks it, `revhash-gpu --bench`, as the
 * master asks it for its devices).
 *
 *   ./kernel-bench [--seconds S] [--kernel NAME] [--gpu-worker PATH]
 *   (S per kernel, default 1; PATH default worker/revhash-gpu) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "worker/kernel.h"
#include "worker/sha256_ref.h"

#define ROUNDS 3
#define RANGE_START (UINT64_C(0x5eed) << 40) /* any range without answer */
#define MAX_KERNELS 16

struct entry {
	const struct kernel *k;
	uint64_t values;    /* values per timed search */
	double best;        /* hashes per second, best round */
};

static double now(void)
{
	return clock_ns() / 1e9;
}

/* Hashes per second of one search of n values that finds nothing. */
static double measure(const struct kernel *k, uint64_t n)
{
	uint8_t digest[32];
	uint64_t found;
	double t;

	sha256_le64(RANGE_START - 1, digest);
	t = now();
	if (k->search(digest, RANGE_START, RANGE_START + n - 1, &found,
		      NULL))
		fprintf(stderr, "kernel %s: false match %#llx\n", k->name,
			(unsigned long long)found);
	return n / (now() - t);
}

/* Size each kernel's search to take about seconds / ROUNDS. */
static uint64_t calibrate(const struct kernel *k, double seconds)
{
	uint64_t n = 1 << 14;
	double rate;

	while ((rate = measure(k, n)) * 0.05 > n)
		n *= 4; /* until one search takes at least 50 ms */
	return (uint64_t)(rate * seconds / ROUNDS) + 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: kernel-bench [--seconds S] [--kernel NAME] "
		"[--gpu-worker PATH]\n");
	exit(2);
}

/* The first line `path args` prints into line, or "" when it prints none
 * or the program is not there. */
static void first_line(const char *path, const char *args, char *line, size_t len)
{
	char cmd[512];
	FILE *f;

	line[0] = '\0';
	if (access(path, X_OK) != 0 || strchr(path, '\''))
		return;
	snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", path, args);
	if (!(f = popen(cmd, "r")))
		return;
	if (!fgets(line, (int)len, f))
		line[0] = '\0';
	pclose(f);
	line[strcspn(line, "\n")] = '\0';
}

/* The GPU beside the CPU kernels: device 0's rate, from the GPU worker. */
static void gpu_row(const char *path, double seconds, double openssl)
{
	char line[256], args[64], name[32];
	double g;

	first_line(path, "--probe", line, sizeof line);
	if (atoi(line) <= 0) {
		printf("%-9s none here (%s)\n", "gpu",
		       line[0] ? "no CUDA device" : "no GPU worker: built without nvcc");
		return;
	}
	snprintf(args, sizeof args, "--bench %.3f --device 0", seconds * ROUNDS);
	first_line(path, args, line, sizeof line);
	if (sscanf(line, "%31[^:]: %lf G hashes/s", name, &g) != 2) {
		printf("%-9s failed: %s\n", "gpu", line[0] ? line : "no rate");
		return;
	}
	printf("%-9s %5s %12.2f %10.2f   (device 0 by %s)\n", "gpu", "-", g * 1e3,
	       g * 1e9 / openssl, name);
}

/* openssl first, then the one kernel asked for or every supported one. */
static size_t pick(const char *only, struct entry *e)
{
	size_t n, count = 0;
	const struct kernel *const *all = kernel_all(&n);
	const struct kernel *base = kernel_find("openssl");

	e[count++].k = base;
	for (size_t i = 0; i < n && count < MAX_KERNELS; i++) {
		if (all[i] == base || (only && strcmp(only, all[i]->name)))
			continue;
		if (!all[i]->supported()) {
			printf("%-9s not supported by this CPU, skipped\n",
			       all[i]->name);
			continue;
		}
		e[count++].k = all[i];
	}
	if (only && count == 1 && strcmp(only, "openssl"))
		fprintf(stderr, "kernel-bench: no kernel %s here\n", only);
	return count;
}

int main(int argc, char **argv)
{
	double seconds = 1;
	const char *only = NULL, *gpu = "worker/revhash-gpu";
	struct entry e[MAX_KERNELS] = { 0 };

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc)
			only = argv[++i];
		else if (strcmp(argv[i], "--gpu-worker") == 0 && i + 1 < argc)
			gpu = argv[++i];
		else
			usage();
	}
	if (!(seconds > 0))
		usage();
	size_t n = pick(only, e);

	for (size_t i = 0; i < n; i++)
		e[i].values = calibrate(e[i].k, seconds);
	for (int r = 0; r < ROUNDS; r++) {
		for (size_t i = 0; i < n; i++) {
			double rate = measure(e[i].k, e[i].values);

			if (rate > e[i].best)
				e[i].best = rate;
		}
	}
	printf("%-9s %5s %12s %10s\n", "kernel", "lanes", "M hashes/s", "x openssl");
	for (size_t i = 0; i < n; i++)
		printf("%-9s %5u %12.2f %10.2f\n", e[i].k->name, e[i].k->lanes,
		       e[i].best / 1e6, e[i].best / e[0].best);
	if (!only) {
		char line[256];

		gpu_row(gpu, seconds, e[0].best);
		kernel_calibration_line(kernel_calibrate(), line, sizeof line);
		printf("kernel auto: %s\n", line);
	}
	return 0;
}
