/* A worker's confinement: a seccomp filter (libseccomp) that lets a worker,
 * once set up, make only the system calls its loop makes. It can then no
 * longer signal any process but itself, open a file or a socket, truncate
 * or unlink anything, or exec: what a hostile or broken worker could do to
 * the master beyond the segment's words (docs/security.md). */
#ifndef REVHASH_SANDBOX_H
#define REVHASH_SANDBOX_H

/* Whose calls the filter allows. */
enum sandbox_kind {
	SANDBOX_CPU = 0, /* a forked CPU worker: a refused call ends it
	                    (SIGSYS), after a log line that names the call */
	SANDBOX_DEVICE,  /* an exec'd device worker: also its driver's calls
	                    (threads, memory, ioctl); a refused call fails
	                    with EPERM, said once a call in the log */
};

/* Confine this process, all its threads, for good, as a worker of kind
 * that writes only to stderr and notify_fd (a device worker: any of its
 * descriptors). Call it once set up: after its descriptors are closed and
 * its device opened, before it serves. 0, or -errno (logged): the caller
 * must not serve unconfined. */
int sandbox_enter(enum sandbox_kind kind, int notify_fd);
/* The system calls the filter of kind allows (for the log and the docs). */
unsigned sandbox_allowed(enum sandbox_kind kind);
/* Confine no worker from now on: this process's sandbox_enter, and that of
 * the processes it forks, does nothing, and an exec'd worker is told so
 * (sandbox_on). The master's --no-sandbox, for a kernel or an emulator
 * that cannot load a filter. */
void sandbox_off(void);
/* 1 while workers are confined (no sandbox_off), else 0. */
int sandbox_on(void);
/* Can a worker be confined here? A child of this process loads the CPU
 * worker's filter and exits: 0, or -ENOSYS (the child logged why). Bounded
 * by a second. */
int sandbox_probe(void);

#endif
