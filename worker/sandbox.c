/* A worker's seccomp filter (see sandbox.h), built with libseccomp from one
 * table: each row a system call, each column a kind of worker and the
 * condition on its arguments under which that kind may make it. Every
 * call not in a kind's column traps (SIGSYS) into refused(), which names
 * the call in the log: a CPU worker then dies of SIGSYS (its every call is
 * known, so a refused one is a bug or an attack, and the master replaces
 * it), while a device worker's call fails with EPERM, said once a call:
 * its driver's calls are known only from its driver's habits, and a
 * refusal it can recover from should not cost the device. Calls of
 * another architecture (a 32-bit int 0x80) kill the process. The columns
 * were read from strace of workers at work (docs/security.md). */
#include "worker/sandbox.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/os.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* When a kind may make a call. */
enum when {
	NEVER = 0,
	ANY,       /* whatever its arguments */
	OUT,       /* write: to stderr or the master's eventfd */
	SELF,      /* tgkill: to this process (raise, abort), no other */
	NO_EXEC,   /* mmap, mprotect: no executable memory */
	THREAD,    /* clone: a thread of this process, never a process */
	ON_SIGSYS, /* rt_sigaction: only SIGSYS's (refused() ends with it) */
	BY_FD,     /* newfstatat: of a descriptor (fstat), not of a path */
	SET_NAME,  /* prctl: naming a thread */
	IS_TTY,    /* ioctl: is stderr a terminal (isatty: a report's colours) */
};

#define KINDS 2

static const struct row {
	int nr;                /* SCMP_SYS(name) */
	enum when when[KINDS]; /* by enum sandbox_kind */
} table[] = {
	/* The worker loop: the ring's lock and waits, its clocks (the CPU
	 * time's is a system call), the master's pid, its log, its news. */
	{ SCMP_SYS(futex), { ANY, ANY } },
	{ SCMP_SYS(clock_gettime), { ANY, ANY } },
	{ SCMP_SYS(clock_nanosleep), { ANY, ANY } },
	{ SCMP_SYS(nanosleep), { ANY, ANY } },
	{ SCMP_SYS(sched_yield), { ANY, ANY } },
	{ SCMP_SYS(getppid), { ANY, ANY } },
	{ SCMP_SYS(getpid), { ANY, ANY } },
	{ SCMP_SYS(gettid), { ANY, ANY } },
	{ SCMP_SYS(write), { OUT, ANY } },
	/* Its own end: a test hook's raise, abort(), a refused call's SIGSYS;
	 * a signal's return, and a wait that a stop and continue cut. */
	{ SCMP_SYS(tgkill), { SELF, SELF } },
	{ SCMP_SYS(rt_sigprocmask), { ANY, ANY } },
	{ SCMP_SYS(rt_sigaction), { ON_SIGSYS, ANY } },
	{ SCMP_SYS(rt_sigreturn), { ANY, ANY } },
	{ SCMP_SYS(restart_syscall), { ANY, ANY } },
	{ SCMP_SYS(exit), { ANY, ANY } },
	{ SCMP_SYS(exit_group), { ANY, ANY } },
	{ SCMP_SYS(sigaltstack), { ANY, ANY } }, /* a sanitizer's, at exit */
	/* Memory: malloc's (the log's formatting, a sanitizer's allocator). */
	{ SCMP_SYS(brk), { ANY, ANY } },
	{ SCMP_SYS(mmap), { NO_EXEC, NO_EXEC } },
	{ SCMP_SYS(mprotect), { NO_EXEC, NO_EXEC } },
	{ SCMP_SYS(munmap), { ANY, ANY } },
	{ SCMP_SYS(mremap), { ANY, ANY } },
	{ SCMP_SYS(madvise), { ANY, ANY } },
	/* A device's driver: its descriptors (opened before the filter), its
	 * threads and their waits, pinned memory. */
	{ SCMP_SYS(ioctl), { IS_TTY, ANY } },
	{ SCMP_SYS(read), { NEVER, ANY } },
	{ SCMP_SYS(pread64), { NEVER, ANY } },
	{ SCMP_SYS(close), { NEVER, ANY } },
	{ SCMP_SYS(lseek), { NEVER, ANY } },
	{ SCMP_SYS(fcntl), { NEVER, ANY } },
	{ SCMP_SYS(newfstatat), { NEVER, BY_FD } },
	{ SCMP_SYS(fstat), { NEVER, ANY } },
	{ SCMP_SYS(poll), { NEVER, ANY } },
	{ SCMP_SYS(ppoll), { NEVER, ANY } },
	{ SCMP_SYS(epoll_wait), { NEVER, ANY } },
	{ SCMP_SYS(epoll_pwait), { NEVER, ANY } },
	{ SCMP_SYS(eventfd2), { NEVER, ANY } },
	{ SCMP_SYS(pipe2), { NEVER, ANY } },
	{ SCMP_SYS(clone), { NEVER, THREAD } },
	{ SCMP_SYS(set_robust_list), { NEVER, ANY } },
	{ SCMP_SYS(rseq), { NEVER, ANY } },
	{ SCMP_SYS(prctl), { NEVER, SET_NAME } },
	{ SCMP_SYS(sched_getaffinity), { NEVER, ANY } },
	{ SCMP_SYS(sched_setaffinity), { NEVER, ANY } },
	{ SCMP_SYS(getrusage), { NEVER, ANY } },
	{ SCMP_SYS(sysinfo), { NEVER, ANY } },
	{ SCMP_SYS(uname), { NEVER, ANY } },
	{ SCMP_SYS(getrandom), { NEVER, ANY } },
	{ SCMP_SYS(membarrier), { NEVER, ANY } },
	{ SCMP_SYS(mlock), { NEVER, ANY } },
	{ SCMP_SYS(munlock), { NEVER, ANY } },
};

#define NROWS (sizeof table / sizeof table[0])

static enum sandbox_kind confined_as;
static int off; /* --no-sandbox */
static unsigned char said[1024]; /* a device's refused calls, logged once */

/* SIGSYS: a call the filter refused. The worker is one thread (a CPU
 * worker) or its driver's few; log_msg makes no call but write, and the
 * trap comes at a system call, never inside its formatting. A CPU worker
 * then dies of SIGSYS: default again, raised, delivered once this
 * returns. */
static void refused(int sig, siginfo_t *si, void *uctx)
{
	int nr = si->si_syscall;

	(void)sig;
	if (confined_as == SANDBOX_CPU) {
		log_error("worker: system call %d refused by its sandbox (scmp_sys_resolver %d "
			  "names it): the worker ends", nr, nr);
		signal(SIGSYS, SIG_DFL);
		raise(SIGSYS);
		return;
	}
	/* The trapped call returns -EPERM instead of running. */
#if defined(__x86_64__)
	((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
	((ucontext_t *)uctx)->uc_mcontext.regs[0] = (unsigned long)-EPERM;
#else
	(void)uctx;
	signal(SIGSYS, SIG_DFL);
	raise(SIGSYS); /* no way here to make it fail instead */
	return;
#endif
	if (nr < 0 || (size_t)nr >= sizeof said || !__atomic_exchange_n(&said[nr], 1, __ATOMIC_RELAXED))
		log_warn("device worker: system call %d refused by its sandbox, EPERM "
			 "(scmp_sys_resolver %d names it; said once)", nr, nr);
}

/* Allow call nr when c holds. (An SCMP_CMP_EQ's second datum, unused, is
 * written 0: clang wants every field of the struct.) */
static int allow_if(scmp_filter_ctx ctx, int nr, struct scmp_arg_cmp c)
{
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, c);
}

/* Add kind's rule for call nr to ctx. 0 or a negative errno. */
static int add(scmp_filter_ctx ctx, int nr, enum when when, int notify_fd)
{
	int rc;

	if (nr < 0) /* libseccomp's pseudo-number: no such call here */
		return 0;
	switch (when) {
	case NEVER:
		return 0;
	case ANY:
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	case OUT:
		if ((rc = allow_if(ctx, nr, SCMP_A0(SCMP_CMP_EQ, STDERR_FILENO, 0))) < 0)
			return rc;
		return allow_if(ctx, nr, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)notify_fd, 0));
	case SELF:
		return allow_if(ctx, nr, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid(), 0));
	case NO_EXEC:
		return allow_if(ctx, nr, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	case THREAD:
		return allow_if(ctx, nr, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
	case ON_SIGSYS:
		return allow_if(ctx, nr, SCMP_A0(SCMP_CMP_EQ, SIGSYS, 0));
	case BY_FD:
		return allow_if(ctx, nr, SCMP_A3(SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH));
	case SET_NAME:
		return allow_if(ctx, nr, SCMP_A0(SCMP_CMP_EQ, PR_SET_NAME, 0));
	case IS_TTY:
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 2,
					SCMP_A0(SCMP_CMP_EQ, STDERR_FILENO, 0),
					SCMP_A1(SCMP_CMP_EQ, TCGETS, 0));
	}
	return -EINVAL;
}

/* kind's filter in ctx: the table's column, clone3 (whose flags a filter
 * cannot read) refused as unknown so that threads are made by clone. */
static int build(scmp_filter_ctx ctx, enum sandbox_kind kind, int notify_fd)
{
	int rc;

	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) < 0 ||
	    (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1)) < 0)
		return rc;
	for (size_t i = 0; i < NROWS; i++)
		if ((rc = add(ctx, table[i].nr, table[i].when[kind], notify_fd)) < 0)
			return rc;
	if (kind == SANDBOX_DEVICE)
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	return 0;
}

int sandbox_enter(enum sandbox_kind kind, int notify_fd)
{
	struct sigaction sa = { .sa_sigaction = refused, .sa_flags = SA_SIGINFO };
	scmp_filter_ctx ctx;
	int rc;

	if (off)
		return 0;
	if (!(ctx = seccomp_init(SCMP_ACT_TRAP))) {
		log_error("seccomp_init: out of memory");
		return -ENOMEM;
	}
	confined_as = kind;
	/* The log's first time stamp reads the time zone's file: read now. */
	tzset();
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) < 0) {
		rc = -errno;
		log_error("sigaction(SIGSYS): %s", strerror(-rc));
	} else if ((rc = build(ctx, kind, notify_fd)) < 0) {
		log_error("seccomp_rule_add: %s", strerror(-rc));
	} else if ((rc = seccomp_load(ctx)) < 0) {
		log_error("seccomp_load: %s", strerror(-rc));
	}
	seccomp_release(ctx);
	return rc;
}

unsigned sandbox_allowed(enum sandbox_kind kind)
{
	unsigned n = 0;

	for (size_t i = 0; i < NROWS; i++)
		n += table[i].when[kind] != NEVER;
	return n;
}

void sandbox_off(void)
{
	off = 1;
}

int sandbox_on(void)
{
	return !off;
}

int sandbox_probe(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(sandbox_enter(SANDBOX_CPU, STDERR_FILENO) < 0);
	/* The child makes a filter and loads it: no wait on anyone else. */
	if (os_reap(pid, &status, clock_ms() + 1000)) {
		log_error("seccomp: a filter took more than a second to load");
		return -ENOSYS;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ENOSYS;
}
