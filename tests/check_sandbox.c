/* The workers' sandbox (worker/sandbox.c). Each attempt runs in a child
 * of the test, confined as a worker is, holding what a worker holds: the
 * test (its parent, as the master is a worker's) must not get the signal,
 * the segment must keep its size, and the child must die of SIGSYS (a CPU
 * worker) or get EPERM (a device worker) with the call named in its log.
 * Confined, the kernels still hash right, and a device worker's threads
 * still run. Then the real master: a worker that tries to stop it, or to
 * truncate its segment, is replaced, and the master serves on; the GPU
 * stand-in worker, confined as a device worker, the same. */
#include "lib/digest.h"
#include "tests/check_run.h"
#include "tests/fixture.h"
#include "tests/helpers.h"
#include "shm/ring_master.h"
#include "shm/segment_create.h"
#include "worker/kernel.h"
#include "worker/sandbox.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define GPU_SLOT (RING_WORKERS - 1)

/* What a confined child left: how it ended, and its stderr. */
struct ended {
	int status;
	char log[16384];
};

static struct seg seg; /* a segment of the test's own, for the child to hold */

static void make_segment(void)
{
	struct policy p = policy_default();

	ck_assert_int_eq(seg_create(th_free_port(), 1024, &p, &seg), 0);
}

/* Run attempt(arg) in a child confined as kind, with stderr and the
 * notify descriptor on pipes; the test blocks SIGTERM meanwhile, so that
 * a signal that got through stays pending. Returns how the child ended;
 * what it wrote on its notify pipe goes to out (up to len bytes). */
static struct ended confined(enum sandbox_kind kind, int (*attempt)(int notify, void *arg),
			     void *arg, void *out, size_t len)
{
	struct ended e = { 0 };
	int errp[2], note[2];
	size_t got = 0;
	sigset_t term;
	ssize_t n;
	pid_t pid;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	ck_assert_int_eq(pipe(errp), 0);
	ck_assert_int_eq(pipe(note), 0);
	ck_assert_int_ge(pid = fork(), 0);
	if (pid == 0) {
		dup2(errp[1], STDERR_FILENO);
		close(errp[0]);
		close(note[0]);
		if (sandbox_enter(kind, note[1]) < 0)
			_exit(99);
		_exit(attempt(note[1], arg));
	}
	close(errp[1]);
	close(note[1]);
	while (out && got < len && (n = read(note[0], (char *)out + got, len - got)) > 0)
		got += (size_t)n;
	for (got = 0; got < sizeof e.log - 1 &&
		      (n = read(errp[0], e.log + got, sizeof e.log - 1 - got)) > 0;)
		got += (size_t)n;
	e.log[got] = '\0';
	ck_assert_int_eq(waitpid(pid, &e.status, 0), pid);
	close(errp[0]);
	close(note[0]);
	return e;
}

/* The test was not signalled by its child. */
static void not_signalled(void)
{
	sigset_t pending;

	sigpending(&pending);
	ck_assert_msg(!sigismember(&pending, SIGTERM), "the confined child signalled its parent");
}

/* A CPU worker's child died of SIGSYS, its log naming call nr. */
static void died_at(const struct ended *e, int nr)
{
	char said[64];

	ck_assert_msg(WIFSIGNALED(e->status) && WTERMSIG(e->status) == SIGSYS,
		      "the child was not killed by SIGSYS (status %#x); its log: %s", e->status,
		      e->log);
	snprintf(said, sizeof said, "system call %d refused", nr);
	ck_assert_msg(strstr(e->log, said), "its log does not say '%s': %s", said, e->log);
}

static int signal_parent(int notify, void *arg)
{
	(void)notify;
	(void)arg;
	return kill(getppid(), SIGTERM) == 0 ? 0 : 3;
}

START_TEST(a_cpu_worker_cannot_signal_its_master)
{
	struct ended e = confined(SANDBOX_CPU, signal_parent, NULL, NULL, 0);

	died_at(&e, SYS_kill);
	not_signalled();
}
END_TEST

static int truncate_segment(int notify, void *arg)
{
	(void)notify;
	return ftruncate(*(int *)arg, 0) == 0 ? 0 : 3;
}

START_TEST(a_cpu_worker_cannot_truncate_the_segment)
{
	struct stat st;
	struct ended e;

	make_segment();
	e = confined(SANDBOX_CPU, truncate_segment, &seg.fd, NULL, 0);
	died_at(&e, SYS_ftruncate);
	ck_assert_int_eq(fstat(seg.fd, &st), 0);
	ck_assert_uint_eq((uint64_t)st.st_size, seg.size);
	seg_remove(&seg);
}
END_TEST

/* The other ways out, one a child: each is refused, its call named. */
static int escape(int notify, void *arg)
{
	int which = *(int *)arg;
	char *const argv[] = { "/bin/true", NULL };

	(void)notify;
	switch (which) {
	case 0:
		return open("/etc/hostname", O_RDONLY) >= 0 ? 0 : 3;
	case 1:
		return socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : 3;
	case 2:
		execv(argv[0], argv);
		return 3;
	case 3:
		return shm_unlink(seg.name) == 0 ? 0 : 3;
	case 4:
		return fork() >= 0 ? 0 : 3;
	case 5:
		return mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			    0) != MAP_FAILED ? 0 : 3;
	case 6:
		return write(STDOUT_FILENO, "x", 1) == 1 ? 0 : 3;
	}
	return 4;
}

static const struct {
	const char *what;
	int nr;
} escapes[] = {
	{ "open a file", SYS_openat },   { "open a socket", SYS_socket },
	{ "exec", SYS_execve },          { "unlink the segment", SYS_unlink },
	{ "fork", SYS_clone },           { "map executable memory", SYS_mmap },
	{ "write to stdout", SYS_write },
};

START_TEST(a_cpu_worker_cannot_escape)
{
	int which = _i;
	struct ended e;
	char path[96];

	make_segment();
	e = confined(SANDBOX_CPU, escape, &which, NULL, 0);

	fprintf(stderr, "a_cpu_worker_cannot_escape: %s: %s", escapes[which].what, e.log);
	died_at(&e, escapes[which].nr);
	snprintf(path, sizeof path, "/dev/shm%s", seg.name);
	ck_assert_int_eq(access(path, F_OK), 0);
	seg_remove(&seg);
}
END_TEST

/* Every kernel this CPU runs, confined: the answer of a range each, on
 * the notify pipe. */
static int hash(int notify, void *arg)
{
	const uint64_t *want = arg;
	size_t n;
	const struct kernel *const *all = kernel_all(&n);

	for (size_t i = 0; i < n; i++) {
		uint8_t d[32];
		uint64_t x = 0;

		if (!all[i]->supported())
			continue;
		digest_of(*want, d);
		all[i]->search(d, *want - 300000, *want + 300000, &x, NULL);
		if (write(notify, &x, sizeof x) != sizeof x)
			return 3;
	}
	return 0;
}

START_TEST(a_confined_worker_hashes_right)
{
	uint64_t want = th_rand64() >> 2, got[KERNEL_MAX] = { 0 };
	size_t n, supported = 0;
	const struct kernel *const *all = kernel_all(&n);
	struct ended e;

	for (size_t i = 0; i < n; i++)
		supported += all[i]->supported() != 0;
	e = confined(SANDBOX_CPU, hash, &want, got, supported * sizeof got[0]);
	ck_assert_msg(WIFEXITED(e.status) && WEXITSTATUS(e.status) == 0, "status %#x: %s",
		      e.status, e.log);
	for (size_t i = 0; i < supported; i++)
		ck_assert_uint_eq(got[i], want);
}
END_TEST

/* A device worker: the same attempts fail with EPERM instead, each said
 * once; a thread (a driver's) still runs, and hashes. */
static void *thread_hash(void *arg)
{
	uint64_t *x = arg, want = *x;
	uint8_t d[32];

	digest_of(want, d);
	kernel_find("portable")->search(d, want - 1000, want + 1000, x, NULL);
	return NULL;
}

static int device_attempts(int notify, void *arg)
{
	int fd = *(int *)arg, got[6];
	uint64_t x = 123456789;
	pthread_t t;

	got[0] = kill(getppid(), SIGTERM) < 0 ? errno : 0;
	got[1] = ftruncate(fd, 0) < 0 ? errno : 0;
	got[2] = open("/etc/hostname", O_RDONLY) < 0 ? errno : 0;
	got[3] = socket(AF_INET, SOCK_STREAM, 0) < 0 ? errno : 0;
	got[4] = kill(getppid(), SIGTERM) < 0 ? errno : 0; /* said once */
	got[5] = pthread_create(&t, NULL, thread_hash, &x) ? EAGAIN : pthread_join(t, NULL);
	if (write(notify, got, sizeof got) != sizeof got || write(notify, &x, sizeof x) != sizeof x)
		return 3;
	return 0;
}

START_TEST(a_device_worker_gets_eperm_and_keeps_its_threads)
{
	struct {
		int err[6];
		uint64_t x;
	} got = { { 0 }, 0 };
	struct stat st;
	struct ended e;
	const char *first;

	make_segment();
	e = confined(SANDBOX_DEVICE, device_attempts, &seg.fd, &got, sizeof got);
	ck_assert_msg(WIFEXITED(e.status) && WEXITSTATUS(e.status) == 0, "status %#x: %s",
		      e.status, e.log);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(got.err[i], EPERM);
	ck_assert_int_eq(got.err[5], 0);
	ck_assert_uint_eq(got.x, 123456789);
	not_signalled();
	ck_assert_int_eq(fstat(seg.fd, &st), 0);
	ck_assert_uint_eq((uint64_t)st.st_size, seg.size);
	ck_assert_ptr_nonnull(first = strstr(e.log, "system call 62 refused"));
	ck_assert_ptr_null(strstr(first + 1, "system call 62 refused"));
	ck_assert_ptr_nonnull(strstr(e.log, "system call 77 refused"));
	seg_remove(&seg);
}
END_TEST

/* A sanitizer build: a memory error in a confined worker is still
 * reported (its stack is not named: that takes a symbolizer process), and
 * the worker does not live on. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(UNDER_ASAN)
static int overflow(int notify, void *arg)
{
	volatile char *p = malloc(16);

	(void)notify;
	(void)arg;
	p[16 + (getpid() & 0)] = 1;
	return 0;
}
#endif

START_TEST(a_memory_error_in_a_confined_worker_is_reported)
{
#if defined(__SANITIZE_ADDRESS__) || defined(UNDER_ASAN)
	struct ended e = confined(SANDBOX_CPU, overflow, NULL, NULL, 0);

	fprintf(stderr, "a_memory_error_in_a_confined_worker_is_reported: status %#x:\n%s\n",
		e.status, e.log);
	ck_assert(strstr(e.log, "ERROR: AddressSanitizer: heap-buffer-overflow"));
	ck_assert(!WIFEXITED(e.status) || WEXITSTATUS(e.status) != 0);
#else
	th_skip(__func__, "not a sanitizer build (make sanitize runs it)");
#endif
}
END_TEST

/* ---- the real master's workers ---------------------------------------- */

/* Arm hook in the master, then kill the worker of slot so that its
 * replacement fires it; wait for the master to say it replaced that one
 * too (a CPU worker's death), or for the hook's own line (a device's). */
static void fire(enum ring_hook hook, unsigned slot, const char *until)
{
	struct ring_slot v;
	struct seg s;

	ck_assert_int_eq(tm_seg(&m, &s), 0);
	ck_assert_int_eq(ring_arm_hook(s.ring, hook, 1), 0);
	ring_slot_view(s.ring, slot, &v);
	ck_assert_int_gt(v.pid, 0);
	ck_assert_int_eq(kill(v.pid, SIGKILL), 0);
	seg_close(&s);
	ck_assert_msg(TH_WAIT_UNTIL(tm_log_contains(&m, until), 10000), "no '%s' in the log",
		      until);
}

/* The master serves a fresh request right, and began no stop. */
static void serves_on(void)
{
	uint64_t base = th_rand64() >> 2, x = 0;
	uint8_t d[32];

	digest_of(base + 777777, d);
	ck_assert_int_eq(th_request(m.port, d, base, base + 2000000, 1, &x), 0);
	ck_assert_uint_eq(x, base + 777777);
	ck_assert(!tm_log_contains(&m, "stopping"));
}

START_TEST(a_worker_that_signals_the_master_is_replaced)
{
	const char *const args[] = { "--workers", "2", NULL };

	start("REVHASH_TEST_HOOKS=1", args);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	fire(HOOK_SIGNAL_MASTER, 0, "killed by signal 31");
	ck_assert(tm_log_contains(&m, "refused by its sandbox"));
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	serves_on();
	stop();
}
END_TEST

START_TEST(a_worker_that_truncates_the_segment_is_replaced)
{
	const char *const args[] = { "--workers", "2", NULL };
	struct seg s;
	struct stat st;
	char path[96];

	start("REVHASH_TEST_HOOKS=1", args);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	fire(HOOK_TRUNCATE_SEGMENT, 1, "killed by signal 31");
	ck_assert_int_eq(tm_seg(&m, &s), 0);
	snprintf(path, sizeof path, "/dev/shm%s", s.name);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq((uint64_t)st.st_size, s.size);
	seg_close(&s);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	serves_on();
	stop();
}
END_TEST

/* The GPU stand-in, confined as a device worker once its device is open:
 * its attempt fails with EPERM, said, and it serves on. */
START_TEST(the_gpu_worker_is_confined_after_its_device_opens)
{
	const char *path = getenv("REVHASH_GPU_STANDIN");
	const char *const args[] = { "--workers", "1", "--gpu", "0", "--gpu-worker",
				     path ? path : "worker/revhash-gpu-standin", NULL };

	start("REVHASH_TEST_HOOKS=1", args);
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	fire(HOOK_SIGNAL_MASTER, GPU_SLOT, "kill(master, SIGTERM): Operation not permitted");
	ck_assert(tm_log_contains(&m, "device worker: system call 62 refused"));
	ck_assert(!tm_log_contains(&m, "killed by signal 31"));
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	serves_on();
	stop();
}
END_TEST

/* --no-sandbox reaches every worker, the forked and the exec'd: a
 * worker's kill(master, SIGTERM) is sent, and the master stops as that
 * signal asks. (Where no filter loads, as under qemu-user, the master
 * refuses to start without it: scripts/cross-arm64.sh checks that.) */
START_TEST(no_sandbox_leaves_every_worker_unconfined)
{
	const char *path = getenv("REVHASH_GPU_STANDIN");
	const char *const args[] = { "--workers", "1", "--gpu", "0", "--gpu-worker",
				     path ? path : "worker/revhash-gpu-standin", "--no-sandbox",
				     NULL };
	const unsigned slot = _i ? GPU_SLOT : 0;

	start("REVHASH_TEST_HOOKS=1", args);
	ck_assert(tm_log_contains(&m, "workers not confined (--no-sandbox)"));
	ck_assert_int_eq(tm_wait_workers(&m, 2, 5000), 0);
	fire(HOOK_SIGNAL_MASTER, slot, "kill(master, SIGTERM): sent");
	ck_assert_msg(TH_WAIT_UNTIL(tm_log_contains(&m, "stopping"), 10000),
		      "the worker's SIGTERM did not stop the master");
	ck_assert(!tm_log_contains(&m, "refused by its sandbox"));
	tm_stop(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sandbox");
	TCase *t = tcase_create("confined");
	TCase *w = tcase_create("workers");

	tcase_set_timeout(t, 30);
	tcase_add_test(t, a_cpu_worker_cannot_signal_its_master);
	tcase_add_test(t, a_cpu_worker_cannot_truncate_the_segment);
	tcase_add_loop_test(t, a_cpu_worker_cannot_escape, 0,
			    (int)(sizeof escapes / sizeof escapes[0]));
	tcase_add_test(t, a_confined_worker_hashes_right);
	tcase_add_test(t, a_device_worker_gets_eperm_and_keeps_its_threads);
	tcase_add_test(t, a_memory_error_in_a_confined_worker_is_reported);
	suite_add_tcase(s, t);
	tcase_set_timeout(w, 60);
	tcase_add_test(w, a_worker_that_signals_the_master_is_replaced);
	tcase_add_test(w, a_worker_that_truncates_the_segment_is_replaced);
	tcase_add_test(w, the_gpu_worker_is_confined_after_its_device_opens);
	tcase_add_loop_test(w, no_sandbox_leaves_every_worker_unconfined, 0, 2);
	suite_add_tcase(s, w);
	return check_run(s);
}
