/* kernel-bench: how many SHA-256 search hashes per second each kernel does
 * on one core, searching a range without the answer (as a worker does on
 * most chunks), side by side in rounds, each kernel's best round kept
 * (lib/pick.c's measurement); then what --kernel auto picks, and a GPU's
 * rate where the GPU worker binary (--gpu-worker, default
 * worker/revhash-gpu) finds a device (`revhash-gpu --bench`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/parse.h"
#include "worker/kernel.h"
#include "worker/sha256_ref.h"

#define ROUNDS 3      /* after the sizing one */
#define PROBE (1 << 20) /* values of the sizing search: 10-60 ms */
#define RANGE_START (UINT64_C(0x5eed) << 40) /* any range without answer */

/* The kernels measured (ctx of run). */
struct bench {
	const struct kernel *k[PICK_MAX];
	uint8_t digest[32];
};

/* Hashes per second of kernel i searching values values, which do not
 * hold the answer. */
static double run(void *ctx, size_t i, uint64_t values)
{
	const struct bench *b = ctx;
	const struct kernel *k = b->k[i];
	uint64_t found, t = clock_ns();

	if (k->search(b->digest, RANGE_START, RANGE_START + values - 1, &found, NULL))
		fprintf(stderr, "kernel %s: false match %#llx\n", k->name,
			(unsigned long long)found);
	t = clock_ns() - t;
	return values * 1e9 / (t ? t : 1);
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
static void pick(const char *only, struct bench *b, struct pick *p)
{
	size_t n;
	const struct kernel *const *all = kernel_all(&n);
	const struct kernel *base = kernel_find("openssl");
	int named = !only || strcmp(only, "openssl") == 0;

	b->k[p->n] = base;
	p->names[p->n++] = base->name;
	for (size_t i = 0; i < n && p->n < PICK_MAX; i++) {
		if (all[i] == base || (only && strcmp(only, all[i]->name)))
			continue;
		named = 1;
		if (!all[i]->supported()) {
			printf("%-9s not supported by this CPU, skipped\n",
			       all[i]->name);
			continue;
		}
		b->k[p->n] = all[i];
		p->names[p->n++] = all[i]->name;
	}
	if (!named) {
		fprintf(stderr, "kernel-bench: no kernel %s in this build\n", only);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	double seconds = 1;
	const char *only = NULL, *gpu = "worker/revhash-gpu";
	struct bench b = { 0 };
	struct pick p = { .probe = PROBE, .rounds = ROUNDS };

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
			if (parse_double(argv[++i], 1e-3, 3600, &seconds) < 0)
				usage();
		}
		else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc)
			only = argv[++i];
		else if (strcmp(argv[i], "--gpu-worker") == 0 && i + 1 < argc)
			gpu = argv[++i];
		else
			usage();
	}
	pick(only, &b, &p);
	sha256_le64(RANGE_START - 1, b.digest);
	p.sample_ns = (uint64_t)(seconds / ROUNDS * 1e9);
	pick_measure(&p, run, &b);
	printf("%-9s %5s %12s %10s\n", "kernel", "lanes", "M hashes/s", "x openssl");
	for (size_t i = 0; i < p.n; i++)
		printf("%-9s %5u %12.2f %10.2f\n", b.k[i]->name, b.k[i]->lanes,
		       p.rates[i] / 1e6, p.rates[i] / p.rates[0]);
	if (!only) {
		char line[256];

		gpu_row(gpu, seconds, p.rates[0]);
		pick_line(&kernel_calibrate()->pick, line, sizeof line);
		printf("kernel auto: %s\n", line);
	}
	return 0;
}
