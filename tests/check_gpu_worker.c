/* The GPU worker's path, on any machine: the master forks and execs a
 * separate binary for each GPU it serves with, and supervises it as any
 * worker. Here that binary is the stand-in (worker/revhash-gpu-standin),
 * the GPU worker's own main and worker loop with a CPU kernel for a
 * device: exec'd into the top slot, it leases, stops when its job ends,
 * dies and is replaced without losing a value. Its kernel is the variant
 * that searched fastest at start (the stand-in offers a slow one, which
 * measuring must see), or the one --kernel names. And where no GPU worker
 * or no device is there, --gpu auto serves with the CPUs alone. */
#include "lib/digest.h"
#include "lib/os.h"
#include "tests/check_run.h"
#include "tests/fixture.h"
#include "tests/helpers.h"
#include "worker/kind.h"

#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define GPU_SLOT (RING_WORKERS - 1) /* the first GPU worker's */
#define LONG_LEASE 16000000 /* values: about 1.3 s of the host build here */

/* The stand-in GPU worker: $REVHASH_GPU_STANDIN, else the build's. */
static const char *standin(void)
{
	const char *p = getenv("REVHASH_GPU_STANDIN");

	return p ? p : "worker/revhash-gpu-standin";
}

/* revhash-gpu's own device code over the host build: $REVHASH_GPU_HOSTDEV,
 * else the build's. */
static const char *hostdev(void)
{
	const char *p = getenv("REVHASH_GPU_HOSTDEV");

	return p ? p : "worker/revhash-gpu-hostdev";
}

/* Start a master with one CPU worker and the stand-in as GPU 0. */
static void start_with_gpu(void)
{
	const char *args[] = { "--workers", "1", "--gpu", "0", "--gpu-worker",
			       standin(), NULL };

	start(NULL, args);
}

/* The view of the GPU worker's slot now. */
static struct ring_slot gpu_slot(void)
{
	struct ring_slot v;
	struct seg seg;

	ck_assert_int_eq(tm_seg(&m, &seg), 0);
	ring_slot_view(seg.ring, GPU_SLOT, &v);
	seg_close(&seg);
	return v;
}

/* The values of the GPU worker's lease now (0: none). */
static uint64_t gpu_lease(void)
{
	struct ring_slot v = gpu_slot();

	return v.has_lease ? v.lease_hi - v.lease_lo + 1 : 0;
}

/* Wait (at most timeout_ms) until the GPU slot's worker holds a lease (or,
 * with lease 0, holds none); returns its pid then, or 0 on timeout. */
static pid_t gpu_with_lease(int lease, int timeout_ms)
{
	uint64_t until = clock_ms() + (uint64_t)timeout_ms;

	do {
		struct ring_slot v = gpu_slot();
		if (v.pid > 0 && (int)v.has_lease == lease)
			return v.pid;
		usleep(1000);
	} while (clock_ms() < until);
	return 0;
}

/* Does process pid run the program at path? */
static int runs(pid_t pid, const char *path)
{
	char link[64], exe[PATH_MAX], want[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
	if ((n = readlink(link, exe, sizeof exe - 1)) <= 0 || !realpath(path, want))
		return 0;
	exe[n] = '\0';
	return strcmp(exe, want) == 0;
}

START_TEST(stand_in_is_execd_into_the_top_slot_and_serves)
{
	struct ring_slot v;
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 2;

	start_with_gpu();
	ck_assert_int_gt(gpu_with_lease(0, 5000), 0);
	v = gpu_slot();
	ck_assert_str_eq(kind_at(v.kind)->name, "gpu");
	ck_assert_msg(runs(v.pid, standin()), "slot %d does not run %s", GPU_SLOT, standin());
	for (int i = 0; i < 8; i++) {
		uint64_t want = base + (uint64_t)i * 10000000 + th_rand64() % 5000000;

		digest_of(want, d);
		ck_assert_int_eq(th_request(m.port, d, base + (uint64_t)i * 10000000,
					    base + (uint64_t)i * 10000000 + 4999999, 1, &x), 0);
		ck_assert_uint_eq(x, want);
	}
	ck_assert_uint_gt(gpu_slot().hashes, 0); /* it did its share */
	stop();
	ck_assert_int_ne(kill(v.pid, 0), 0);     /* and left with the master */
}
END_TEST

/* Killed while it holds a lease, the GPU worker is replaced by a new exec
 * of the same binary, and its lease goes back: the answer comes. */
START_TEST(killed_gpu_worker_is_replaced_and_loses_nothing)
{
	uint8_t d[32];
	uint64_t x, base = th_rand64() >> 2, want = base + 299000000;
	pid_t victim, again;
	int fd;

	start_with_gpu();
	digest_of(want, d);
	fd = th_connect(m.port);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(th_send_request(fd, d, base, base + 299999999, 1), 0);
	ck_assert_int_gt(victim = gpu_with_lease(1, 5000), 0);
	ck_assert_int_eq(kill(victim, SIGKILL), 0);
	ck_assert_int_eq(th_read_reply(fd, &x, 60000), 0);
	close(fd);
	ck_assert_uint_eq(x, want);
	ck_assert_uint_ge(stats_now().worker_deaths, 1);
	ck_assert_int_gt(again = gpu_with_lease(0, 5000), 0);
	ck_assert_int_ne(again, victim);
	ck_assert(runs(again, standin()));
	stop();
}
END_TEST

/* The stop word reaches the exec'd worker: a search nobody waits for any
 * more is dropped, and the GPU worker's lease of it ends within a moment,
 * not when its range is done (2^50 values: days). */
START_TEST(gpu_worker_stops_when_its_job_is_cancelled)
{
	uint8_t d[32];
	uint64_t t0;
	int fd;

	start_with_gpu();
	digest_of(1, d); /* not in the range: a search that never ends */
	fd = th_connect(m.port);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(th_send_request(fd, d, 1ull << 60, (1ull << 60) + (1ull << 50), 1), 0);
	ck_assert_int_gt(gpu_with_lease(1, 5000), 0);
	t0 = clock_ms();
	th_reset(fd); /* the client is gone: cancel */
	ck_assert_int_gt(gpu_with_lease(0, 2000), 0);
	printf("gpu_worker_stops_when_its_job_is_cancelled: lease ended %llu ms after "
	       "the cancel\n", (unsigned long long)(clock_ms() - t0));
	stop();
}
END_TEST

/* The GPU search's own walk (its host build) under an exec'd worker: it
 * serves, and lets a lease of seconds go within moments of a cancel, the
 * stop word seen by a launch's polling thread or between launches. */
START_TEST(the_gpu_walk_serves_and_stops_in_a_worker)
{
	const char *args[] = { "--workers", "1", "--gpu", "0", "--gpu-worker", standin(),
			       NULL };
	uint64_t x, t0, held, base = th_rand64() >> 2, want = base + 123456;
	uint8_t d[32];
	int fd;

	start("REVHASH_STANDIN_KERNEL=gpu-host", args);
	ck_assert_int_gt(gpu_with_lease(0, 5000), 0);
	ck_assert(tm_log_contains(&m, ": gpu-host (forced by name)"));
	digest_of(want, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 299999, 1, &x), 0);
	ck_assert_uint_eq(x, want);
	digest_of(1, d);
	fd = th_connect(m.port);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(th_send_request(fd, d, 1ull << 60, (1ull << 60) + (1ull << 50), 1), 0);
	t0 = clock_ms();
	while (gpu_lease() < LONG_LEASE && clock_ms() - t0 < 10000)
		usleep(1000);
	ck_assert_uint_ge(held = gpu_lease(), LONG_LEASE);
	t0 = clock_ms();
	th_reset(fd);
	ck_assert_int_gt(gpu_with_lease(0, 2000), 0);
	printf("the_gpu_walk_serves_and_stops_in_a_worker: a lease of %llu values ended "
	       "%llu ms after the cancel\n", (unsigned long long)held,
	       (unsigned long long)(clock_ms() - t0));
	ck_assert_uint_lt(clock_ms() - t0, 500);
	stop();
}
END_TEST

/* revhash-gpu's device code (device_cuda.c), over the host build: it
 * serves, and a search its stop word ends is no failure. The device's
 * first run found every stopped search taken for a device error
 * (SEARCH_STOPPED is negative): the worker exited at each cancel or
 * preemption, and was replaced, over and over. Here five cancels land
 * while it hashes, and the same process is there after each. */
START_TEST(the_cuda_device_code_survives_its_stops)
{
	const char *args[] = { "--workers", "1", "--gpu", "0", "--gpu-worker", hostdev(),
			       "--gpu-kernel", "base", NULL }; /* measuring all: too slow here */
	uint64_t x, base = th_rand64() >> 2, want = base + 54321;
	uint8_t d[32];
	pid_t pid;

	start(NULL, args);
	ck_assert_int_gt(pid = gpu_with_lease(0, 10000), 0);
	ck_assert(runs(pid, hostdev()));
	digest_of(want, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 99999, 1, &x), 0);
	ck_assert_uint_eq(x, want);
	digest_of(1, d);
	for (int i = 0; i < 5; i++) {
		int fd = th_connect(m.port);
		pid_t held;

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(th_send_request(fd, d, (1ull << 60) + ((uint64_t)i << 52),
						 (1ull << 60) + ((uint64_t)i << 52) + (1ull << 50),
						 1), 0);
		ck_assert_int_gt(held = gpu_with_lease(1, 5000), 0);
		th_reset(fd);
		ck_assert_int_eq(gpu_with_lease(0, 2000), pid);
		ck_assert_int_eq(held, pid);
	}
	ck_assert_uint_eq(gpu_slot().deaths, 0);
	ck_assert(tm_log_contains(&m, "the device polls the stop word"));
	stop();
}
END_TEST

/* A worker whose search returns wrong answers (the stand-in's "liar": the
 * range's first value, every other search) catches them itself: one
 * SHA-256 says the answer is none, so no lie reaches the ring; the worker
 * exits, its lease given back whole from its slot, and another is
 * started. Every client gets its right answer, and the master never saw
 * a wrong one (it would search the job again, and blame nobody: the
 * segment is no witness of who wrote it). */
START_TEST(a_wrong_answer_from_a_worker_is_searched_again)
{
	const char *args[] = { "--workers", "1", "--gpu", "0", "--gpu-worker", standin(),
			       NULL };
	uint64_t x, base = th_rand64() >> 2;
	uint8_t d[32];

	start("REVHASH_STANDIN_KERNEL=liar", args);
	ck_assert_int_gt(gpu_with_lease(0, 5000), 0);
	for (int i = 0; i < 8; i++) {
		uint64_t lo = base + (uint64_t)i * 4000000, want = lo + 1000000 + th_rand64() % 2000000;

		digest_of(want, d);
		ck_assert_int_eq(th_request(m.port, d, lo, lo + 3999999, 1, &x), 0);
		ck_assert_uint_eq(x, want);
	}
	ck_assert_uint_ge(gpu_slot().deaths, 1);
	ck_assert_uint_eq(stats_now().wrong_answers, 0);
	ck_assert(tm_log_contains(&m, "which it does not: exiting, its lease given back"));
	stop();
}
END_TEST

/* The master passes its CPU kernel's name: the GPU worker measures its
 * variants and takes the fastest (standin, four times standin-slow's
 * rate), and says so in the log with the rates. */
START_TEST(gpu_worker_chooses_its_kernel_by_measurement)
{
	char said[64];

	snprintf(said, sizeof said, "GPU worker %d: stand-in 0 (a CPU kernel, ", GPU_SLOT);
	start_with_gpu();
	ck_assert_int_gt(gpu_with_lease(0, 5000), 0);
	ck_assert_msg(tm_log_contains(&m, said), "no choice logged");
	ck_assert_msg(tm_log_contains(&m, ": standin (standin "), "standin not chosen");
	ck_assert(tm_log_contains(&m, " M hashes/s, measured in "));
	stop();
}
END_TEST

/* What `prog args` prints (its first line, stderr too) and its exit
 * status. */
static int run_prog(const char *prog, const char *args, char *line, size_t len)
{
	char cmd[512];
	FILE *f;

	snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", prog, args);
	ck_assert_ptr_nonnull(f = popen(cmd, "r"));
	if (!fgets(line, (int)len, f))
		line[0] = '\0';
	while (fgetc(f) != EOF)
		;
	return WEXITSTATUS(pclose(f));
}

/* The same of the stand-in GPU worker. */
static int run_line(const char *args, char *line, size_t len)
{
	return run_prog(standin(), args, line, len);
}

/* --kernel NAME forces a variant; a name that is none of the device's nor
 * a CPU kernel's is bad usage (exit 2) and says which there are. */
START_TEST(kernel_named_is_forced_and_unknown_is_refused)
{
	char line[256];

	ck_assert_int_eq(run_line("--bench 0.05 --kernel standin-slow", line, sizeof line), 0);
	ck_assert_msg(strstr(line, ": standin-slow (forced by name)"), "%s", line);
	ck_assert_int_eq(run_line("--bench 0.05 --kernel bogus", line, sizeof line), 2);
	ck_assert_msg(strstr(line, "unknown kernel bogus (this device's: standin, "
			     "standin-slow, gpu-host, liar; or auto)"), "%s", line);
}
END_TEST

/* revhash-gpu's device code lists every variant the build holds when
 * asked for one it has not, the shipped first and those on trial
 * (worker/gpu/variants.mk) last, and takes any
 * of them by name: the last one listed, a variant on trial while there
 * are any, which --kernel auto does not measure. */
START_TEST(every_variant_is_taken_by_name_those_on_trial_too)
{
	char line[2048], args[256];
	const char *last;

	ck_assert_int_eq(run_prog(hostdev(), "--probe --kernel bogus", line, sizeof line), 2);
	ck_assert_msg(strstr(line, "unknown kernel bogus (this device's: base, "
				    "fma-kimm-sigma0-wpoll-grab, fma, "), "%s", line);
	ck_assert_msg(strstr(line, "; or auto)"), "%s", line);
	*strstr(line, "; or auto)") = '\0';
	ck_assert_ptr_nonnull(last = strrchr(line, ' '));
	snprintf(args, sizeof args, "--probe --kernel %s", last + 1);
	ck_assert_msg(run_prog(hostdev(), args, line, sizeof line) == 0, "%s: %s", args, line);
	ck_assert_str_eq(line, "1\n"); /* the stand-in's one device */
}
END_TEST

/* With no GPU worker binary, or one that finds no device, --gpu auto (the
 * default) serves with the CPUs alone, and says so once; a --gpu-kernel
 * given for the GPU workers it does not run is said to be ignored. */
START_TEST(gpu_auto_without_a_gpu_serves_with_the_cpus)
{
	const char *missing[] = { "--workers", "2", "--gpu-worker", "/nonexistent/revhash-gpu",
				  NULL };
	const char *none[] = { "--workers", "2", "--gpu-worker", standin(), "--gpu-kernel",
			       "fma", NULL };
	const char *const *args[] = { missing, none };
	uint8_t d[32];
	uint64_t x;

	for (int i = 0; i < 2; i++) {
		start(i ? "REVHASH_STANDIN_GPUS=0" : NULL, args[i]);
		digest_of(4242, d);
		ck_assert_int_eq(th_request(m.port, d, 4000, 5000, 1, &x), 0);
		ck_assert_uint_eq(x, 4242);
		ck_assert(tm_log_contains(&m, i ? "gpu: none (no device); serving without gpu workers" :
					  "gpu: none (no worker program); serving without gpu workers"));
		ck_assert(tm_log_contains(&m, "--gpu-kernel fma: ignored, no gpu worker runs") == i);
		ck_assert_int_eq(gpu_slot().pid, 0);
		stop();
	}
}
END_TEST

/* A GPU program whose probe fills the master's buffer and then neither
 * ends nor writes (here 5,000 bytes, then a sleep) is killed, and counts
 * as no answer: the master starts at once and serves with its CPUs. (It
 * stopped reading there, and waited for the program's exit for ever.) */
START_TEST(a_probe_that_fills_the_buffer_does_not_hang_the_start)
{
	char path[] = "/tmp/revhash-probe-XXXXXX";
	const char *args[] = { "--workers", "1", "--gpu", "auto", "--gpu-worker", path, NULL };
	const char script[] = "#!/bin/sh\nhead -c 5000 /dev/zero | tr '\\0' x\nexec sleep 600\n";
	uint64_t t0 = clock_ms(), x;
	uint8_t d[32];
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, script, sizeof script - 1), (ssize_t)sizeof script - 1);
	ck_assert_int_eq(fchmod(fd, 0700), 0);
	close(fd);
	start(NULL, args);
	unlink(path);
	ck_assert_uint_lt(clock_ms() - t0, 5000);
	digest_of(4242, d);
	ck_assert_int_eq(th_request(m.port, d, 4000, 5000, 1, &x), 0);
	ck_assert_uint_eq(x, 4242);
	ck_assert_int_eq(gpu_slot().pid, 0);
	stop();
}
END_TEST

/* A GPU program that others may write, or that another user owns, is
 * never run: an explicit --gpu fails the start (exit 1) and says why; the
 * same file made private is run. */
START_TEST(a_gpu_program_others_can_write_is_refused)
{
	char path[] = "/tmp/revhash-gpu-XXXXXX", port[16], cmd[256];
	const char *args[] = { "--workers", "1", "--gpu", "0", "--gpu-worker", path, NULL };
	int fd = mkstemp(path), status;
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(cmd, sizeof cmd, "cp %s %s", standin(), path);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(chmod(path, 0777), 0);
	snprintf(port, sizeof port, "%u", th_free_port());
	if ((pid = fork()) == 0) {
		freopen("/dev/null", "w", stderr);
		execl(th_master_path(), th_master_path(), port, "--gpu", "0", "--gpu-worker",
		      path, (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	if (geteuid() == 0) { /* another user's file: root can make one */
		ck_assert_int_eq(chmod(path, 0755), 0);
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
		if ((pid = fork()) == 0) {
			freopen("/dev/null", "w", stderr);
			execl(th_master_path(), th_master_path(), port, "--gpu", "0",
			      "--gpu-worker", path, (char *)NULL);
			_exit(127);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFEXITED(status));
		ck_assert_int_eq(WEXITSTATUS(status), 1);
		ck_assert_int_eq(chown(path, 0, 0), 0);
	}
	ck_assert_int_eq(chmod(path, 0755), 0);
	start(NULL, args);
	ck_assert_int_gt(gpu_with_lease(0, 5000), 0);
	stop();
	unlink(path);
}
END_TEST

/* The exit status of a master started with args (after the port) that
 * is expected to refuse its start. */
static int refused_start(const char *const *args)
{
	char port[16];
	const char *argv[16] = { th_master_path(), port };
	int status, n = 2;
	pid_t pid;

	snprintf(port, sizeof port, "%u", th_free_port());
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	if ((pid = fork()) == 0) {
		freopen("/dev/null", "w", stderr);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A program in a folder another may write (not sticky), or named by a
 * link, is not run: an explicit --gpu fails the start; the same program
 * in the folder made private is run. */
START_TEST(a_gpu_program_in_an_open_folder_or_behind_a_link_is_refused)
{
	char dir[] = "/tmp/revhash-gpudir-XXXXXX", path[96], link[96], cmd[256];
	const char *args[] = { "--workers", "1", "--gpu", "0", "--gpu-worker", path, NULL };

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/prog", dir);
	snprintf(link, sizeof link, "%s/link", dir);
	snprintf(cmd, sizeof cmd, "cp %s %s && ln -s prog %s", standin(), path, link);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(chmod(dir, 0777), 0);
	ck_assert_int_eq(refused_start(args), 1);
	ck_assert_int_eq(chmod(dir, 0700), 0);
	args[5] = link;
	ck_assert_int_eq(refused_start(args), 1);
	args[5] = path;
	start(NULL, args);
	ck_assert_int_gt(gpu_with_lease(0, 5000), 0);
	stop();
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* What was checked at start is what every respawn runs: a program put in
 * its place afterwards (a script that leaves a mark, then runs the
 * stand-in) is never run; the replacement worker is the first program. */
START_TEST(a_respawn_runs_the_program_checked_not_its_name)
{
	char dir[] = "/tmp/revhash-gpudir-XXXXXX", path[96], mark[96], cmd[2 * PATH_MAX + 512];
	const char *args[] = { "--workers", "1", "--gpu", "0", "--gpu-worker", path, NULL };
	char real[PATH_MAX];
	pid_t first, again;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_ptr_nonnull(realpath(standin(), real));
	snprintf(path, sizeof path, "%s/prog", dir);
	snprintf(mark, sizeof mark, "%s/ran", dir);
	snprintf(cmd, sizeof cmd, "cp %s %s", real, path);
	ck_assert_int_eq(system(cmd), 0);
	start(NULL, args);
	ck_assert_int_gt(first = gpu_with_lease(0, 5000), 0);
	snprintf(cmd, sizeof cmd, "printf '#!/bin/sh\ntouch %s\nexec %s \"$@\"\n' >%s.new && "
		 "chmod 755 %s.new && mv %s.new %s", mark, real, path, path, path, path);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(kill(first, SIGKILL), 0);
	ck_assert(TH_WAIT_UNTIL((again = gpu_with_lease(0, 100)) > 0 && again != first, 10000));
	ck_assert_int_ne(access(mark, F_OK), 0);
	stop();
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A GPU program that probes as script (its output: what the tests give)
 * and serves as the stand-in, at a path of its own. */
static void scripted_probe(char *path, const char *probe)
{
	char real[PATH_MAX], script[2 * PATH_MAX];
	int fd = mkstemp(path), n;

	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(realpath(standin(), real));
	n = snprintf(script, sizeof script, "#!/bin/sh\n[ \"$1\" = --probe ] || exec %s \"$@\"\n%s\n",
		     real, probe);
	ck_assert_int_eq(write(fd, script, (size_t)n), n);
	ck_assert_int_eq(fchmod(fd, 0700), 0);
	close(fd);
}

/* A probe that says its units, closes its output and does not end is
 * killed PROBE_EXIT_MS (2 s) after its output's end, and its answer
 * stands. (The master waited for its exit for ever.) */
START_TEST(a_probe_that_hangs_after_its_answer_does_not_hang_the_start)
{
	char path[] = "/tmp/revhash-probe-XXXXXX";
	const char *args[] = { "--workers", "1", "--gpu", "auto", "--gpu-worker", path, NULL };
	uint64_t t0 = clock_ms(), took;

	scripted_probe(path, "echo 1; echo late; exec >&- sleep 600");
	start(NULL, args);
	took = clock_ms() - t0;
	unlink(path);
	fprintf(stderr, "a_probe_that_hangs_after_its_answer_does_not_hang_the_start: "
		"started in %llu ms\n", (unsigned long long)took);
	ck_assert_uint_lt(took, 4500);
	ck_assert(tm_log_contains(&m, "still running 2000 ms after its answer: killed"));
	ck_assert(tm_log_contains(&m, "gpu: 1 worker on 0: late"));
	stop();
}
END_TEST

/* The names a probe gives its units go to the log and --status with
 * every byte that is not printable ASCII as '?': no escape sequence
 * (ESC's, C1's CSI) reaches an operator's terminal. */
START_TEST(a_probes_names_reach_the_log_escaped)
{
	char path[] = "/tmp/revhash-probe-XXXXXX";
	const char *args[] = { "--workers", "1", "--gpu", "auto", "--gpu-worker", path, NULL };

	scripted_probe(path, "printf '1\\nGPU\\033[2J\\302\\2332J\\n'");
	start(NULL, args);
	unlink(path);
	ck_assert(tm_log_contains(&m, "gpu: 1 worker on 0: GPU?[2J??2J"));
	ck_assert(!tm_log_contains(&m, "\033"));
	ck_assert(!tm_log_contains(&m, "\302\233"));
	stop();
}
END_TEST

/* The GPU worker takes the top slot, so a CPU worker count of every slot
 * comes down by one, and the start's log says the count as it is. */
START_TEST(the_start_log_counts_the_workers_it_runs)
{
	const char *args[] = { "--workers", "64", "--gpu", "0", "--gpu-worker", standin(),
			       NULL };

	ck_assert_int_eq(RING_WORKERS, 64);
	start(NULL, args);
	ck_assert_int_gt(gpu_with_lease(0, 5000), 0);
	ck_assert_msg(tm_log_contains(&m, ": CPU workers 63 (kernel "), "the count is not 63");
	ck_assert(tm_log_contains(&m, "), other workers 1, "));
	stop();
}
END_TEST

/* --workers auto beside a GPU worker leaves a CPU to it and one to the
 * master (one CPU worker at least); a count given is kept. */
START_TEST(auto_leaves_a_cpu_to_the_gpu_worker_and_the_master)
{
	const char *autos[] = { "--gpu", "0", "--gpu-worker", standin(), NULL };
	const char *three[] = { "--workers", "3", "--gpu", "0", "--gpu-worker", standin(), NULL };
	unsigned cpus = os_cpu_count(), want = cpus > 3 ? cpus - 2 : 1;
	char line[64];

	start(NULL, autos);
	ck_assert_int_gt(gpu_with_lease(0, 5000), 0);
	snprintf(line, sizeof line, ": CPU workers %u (kernel ", want);
	ck_assert_msg(tm_log_contains(&m, line), "auto on %u CPUs beside a GPU: not %u", cpus, want);
	stop();
	start(NULL, three);
	ck_assert_int_gt(gpu_with_lease(0, 5000), 0);
	ck_assert(tm_log_contains(&m, ": CPU workers 3 (kernel "));
	stop();
}
END_TEST

/* An explicit --gpu that cannot be had fails the start (exit 1), and so
 * does a --gpu-kernel its devices do not have (the master asks its
 * program's probe); one that is no device list, or names a device twice,
 * is bad usage (exit 2). */
START_TEST(explicit_gpu_that_is_not_there_fails_the_start)
{
	const char *spec[] = { "1", "0", "x", "0,0" };
	const char *kernel[] = { "auto", "bogus", "auto", "auto" };
	const int want[] = { 1, 1, 2, 2 };
	char port[16];
	pid_t pid;
	int status;

	snprintf(port, sizeof port, "%u", th_free_port());
	for (int i = 0; i < 4; i++) {
		if ((pid = fork()) == 0) {
			freopen("/dev/null", "w", stderr);
			execl(th_master_path(), th_master_path(), port, "--gpu", spec[i],
			      "--gpu-kernel", kernel[i], "--gpu-worker", standin(),
			      (char *)NULL);
			_exit(127);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFEXITED(status));
		ck_assert_int_eq(WEXITSTATUS(status), want[i]);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gpu_worker");
	TCase *t = tcase_create("gpu_worker");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, stand_in_is_execd_into_the_top_slot_and_serves);
	tcase_add_test(t, killed_gpu_worker_is_replaced_and_loses_nothing);
	tcase_add_test(t, gpu_worker_stops_when_its_job_is_cancelled);
	tcase_add_test(t, the_cuda_device_code_survives_its_stops);
	tcase_add_test(t, a_wrong_answer_from_a_worker_is_searched_again);
	tcase_add_test(t, a_probe_that_fills_the_buffer_does_not_hang_the_start);
	tcase_add_test(t, gpu_worker_chooses_its_kernel_by_measurement);
	tcase_add_test(t, the_gpu_walk_serves_and_stops_in_a_worker);
	tcase_add_test(t, kernel_named_is_forced_and_unknown_is_refused);
	tcase_add_test(t, every_variant_is_taken_by_name_those_on_trial_too);
	tcase_add_test(t, gpu_auto_without_a_gpu_serves_with_the_cpus);
	tcase_add_test(t, the_start_log_counts_the_workers_it_runs);
	tcase_add_test(t, auto_leaves_a_cpu_to_the_gpu_worker_and_the_master);
	tcase_add_test(t, a_gpu_program_others_can_write_is_refused);
	tcase_add_test(t, a_gpu_program_in_an_open_folder_or_behind_a_link_is_refused);
	tcase_add_test(t, a_respawn_runs_the_program_checked_not_its_name);
	tcase_add_test(t, a_probe_that_hangs_after_its_answer_does_not_hang_the_start);
	tcase_add_test(t, a_probes_names_reach_the_log_escaped);
	tcase_add_test(t, explicit_gpu_that_is_not_there_fails_the_start);
	suite_add_tcase(s, t);
	return check_run(s);
}
