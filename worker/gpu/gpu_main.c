/* revhash-gpu: the GPU worker (its modes: usage()). The master forks and
 * execs it once for each GPU it serves with (--gpu), so that this binary
 * alone links CUDA; it maps the master's segment by name and runs the very
 * worker loop a CPU worker runs, its kernel a device's search. Linked with
 * the stand-in device instead, it is revhash-gpu-standin, which the tests
 * use where there is no GPU. An unknown --kernel is bad usage: exit 2. */
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "shm/segment.h"
#include "worker/gpu/device.h"
#include "worker/gpu/gpu_walk.h"
#include "worker/kind.h"
#include "worker/sandbox.h"
#include "worker/worker.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERR_LEN 2048 /* a device's error: an unknown kernel's lists every variant */

struct args {
	const char *serve, *kernel, *kind;
	uint64_t slot, master, notify, device;
	double bench_s;
	int probe;
};

static int usage(void)
{
	fprintf(stderr, "usage: revhash-gpu --probe [--kernel NAME] |\n"
		"       --bench SECONDS [--device D] [--kernel NAME] |\n"
		"       --serve SEGMENT --slot N --master PID --notify FD --device D\n"
		"       --kind KIND [--kernel NAME] [--no-sandbox]\n");
	return 2;
}

/* s as a number for option name, or -1 (said) when it is not one. */
static int number(const char *name, const char *s, uint64_t max, uint64_t *out)
{
	if (parse_u64(s, 0, max, out) == 0)
		return 0;
	fprintf(stderr, "revhash-gpu: %s needs a number up to %llu\n", name,
		(unsigned long long)max);
	return -1;
}

static int parse(int argc, char **argv, struct args *a)
{
	static const struct option longs[] = {
		{ "probe", no_argument, NULL, 'p' }, { "no-sandbox", no_argument, NULL, 'x' },
		{ "serve", required_argument, NULL, 'S' }, { "kernel", required_argument, NULL, 'k' },
		{ "kind", required_argument, NULL, 'K' }, { "bench", required_argument, NULL, 'b' },
		{ "slot", required_argument, NULL, 's' }, { "master", required_argument, NULL, 'm' },
		{ "notify", required_argument, NULL, 'n' }, { "device", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		if (c == 'p')
			a->probe = 1;
		else if (c == 'x')
			sandbox_off(); /* the master's --no-sandbox */
		else if (c == 'S')
			a->serve = optarg;
		else if (c == 'k')
			a->kernel = optarg;
		else if (c == 'K')
			a->kind = optarg;
		else if (c == 'b' ? parse_double(optarg, 0.01, 3600, &a->bench_s) :
			 c == 's' ? number("--slot", optarg, RING_WORKERS - 1, &a->slot) :
			 c == 'm' ? number("--master", optarg, INT32_MAX, &a->master) :
			 c == 'n' ? number("--notify", optarg, INT32_MAX, &a->notify) :
			 c == 'd' ? number("--device", optarg, 255, &a->device) : -1)
			return -1;
	}
	return optind == argc && (a->probe || a->serve || a->bench_s > 0) ? 0 : -1;
}

/* The device count, then a name a line; with --kernel, first whether the
 * first device has that kernel (exit 2 when it has not: a bad option of
 * the master's, which it then refuses at start). */
static int probe(const struct args *a)
{
	char names[16][DEVICE_NAME_LEN], err[ERR_LEN];
	int n = device_count(names, 16);
	struct device d;

	if (a->kernel && n > 0 &&
	    device_open(0, a->kernel, GPU_SPIN_NS, &d, err, sizeof err) == -EINVAL) {
		fprintf(stderr, "revhash-gpu: %s\n", err);
		return 2;
	}
	printf("%d\n", n);
	for (int i = 0; i < n && i < 16; i++)
		printf("%s\n", names[i]);
	return 0;
}

/* The device's rate, searching a range without the answer for about
 * seconds: "NAME: R G hashes/s". */
static int bench(const struct args *a)
{
	char err[ERR_LEN];
	struct device d;
	uint64_t n = 1ull << 24, t, hashed = 0, t0;
	int rc = device_open((int)a->device, a->kernel, GPU_SPIN_NS, &d, err, sizeof err);

	if (rc < 0) {
		fprintf(stderr, "revhash-gpu: %s\n", err);
		return rc == -EINVAL ? 2 : 1;
	}
	fprintf(stderr, "revhash-gpu: %s\n", d.choice);
	t0 = clock_ns();
	while ((t = clock_ns() - t0) < a->bench_s * 1e9) {
		kernel_rate(d.kernel->search, n);
		hashed += n;
		if (t < 0.2e9)
			n *= 2; /* until a search takes a fair share of the time */
	}
	printf("%s: %.2f G hashes/s\n", d.kernel->name, hashed / (double)t);
	return 0;
}

/* A knob for measuring on a device, from the environment (docs/gpu.md): a
 * whole number up to max, else dflt (a bad one said in the log). */
static uint64_t knob(const char *name, uint64_t max, uint64_t dflt)
{
	const char *s = getenv(name);
	uint64_t v;

	if (!s)
		return dflt;
	if (parse_u64(s, 0, max, &v) == 0)
		return v;
	log_warn("GPU worker: %s needs a whole number up to %llu; ignored", name,
		 (unsigned long long)max);
	return dflt;
}

/* The master's call. Its kind, by the name the master gave, is looked up
 * in this program's own table (another build's may order it otherwise):
 * its clock and lease length (unless its device asks for another). Then
 * it sets the process up (CUDA opens descriptors of its own, which the
 * closing of inherited ones must not touch), maps the segment, opens the
 * device, and serves. Not a batch task (its kind's clock is the wall's),
 * not pinned: it waits on its device and should launch again at once. */
static int serve(const struct args *a)
{
	const struct worker_kind *kind = a->kind ? kind_named(a->kind) : NULL;
	struct device d;
	struct seg seg;
	char err[ERR_LEN];
	uint64_t spin_us = knob("REVHASH_GPU_SPIN_US", 1000000, GPU_SPIN_NS / 1000);
	struct worker_start w = { .unit = (unsigned)a->device, .seg = &seg,
				  .slot = (unsigned)a->slot, .master = (pid_t)a->master,
				  .notify_fd = (int)a->notify };
	int rc;

	if (!kind) {
		log_error("GPU worker %u: no kind '%s' here", w.slot, a->kind ? a->kind : "");
		return 2;
	}
	kind_fill(kind, &w);
	if (worker_setup(&w) < 0)
		return 0;
	if ((rc = seg_map(a->serve, &seg)) < 0) {
		log_error("GPU worker %u: segment %s: %s", w.slot, a->serve, strerror(-rc));
		return 1;
	}
	rc = device_open((int)a->device, a->kernel, spin_us * 1000, &d, err, sizeof err);
	if (rc < 0) {
		log_error("GPU worker %u: %s", w.slot, err);
		return rc == -EINVAL ? 2 : 1;
	}
	w.kernel = d.kernel;
	log_info("GPU worker %u: %s", w.slot, d.choice);
	if (d.lease_ns)
		w.lease_ns = d.lease_ns;
	w.rate = d.rate;
	w.idle_spin_ns = knob("REVHASH_GPU_IDLE_SPIN_MS", 3600000, d.idle_poll_ms) * 1000000;
	log_info("GPU worker %u: spins for launches under %llu us; polls for leases %llu ms "
		 "after its last", w.slot, (unsigned long long)spin_us,
		 (unsigned long long)(w.idle_spin_ns / 1000000));
	/* Confined once its device is open and measured: no descriptor of
	 * the segment kept (its mapping is all it serves with), and only
	 * the calls of the loop and of the driver's threads allowed. */
	close(seg.fd);
	seg.fd = -1;
	if (sandbox_enter(SANDBOX_DEVICE, w.notify_fd) < 0)
		return 1;
	return worker_serve(&w);
}

int main(int argc, char **argv)
{
	struct args a = { 0 };

	if (parse(argc, argv, &a) < 0)
		return usage();
	if (a.probe)
		return probe(&a);
	/* A confined worker ends without the exit handlers (the driver's, a
	 * leak checker's): they make calls its sandbox refuses. */
	if (a.serve)
		_exit(serve(&a));
	return bench(&a);
}
