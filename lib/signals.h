/* The signals of revhash's processes, in one table (signals.c): which the
 * master takes as events, and for what, and which it only logs. A worker
 * ignores every one of them but SIGCHLD, so that a signal sent to the
 * whole process group (a terminal's ^C, a service manager's TERM) never
 * kills a worker: stopping one is the master's business, through the
 * ring. */
#ifndef REVHASH_SIGNALS_H
#define REVHASH_SIGNALS_H

#include <signal.h>

/* What the master does with a signal of the table. */
enum sig_role {
	SIG_REAP = 0, /* SIGCHLD: reap workers, give their leases back */
	SIG_RELOAD,   /* SIGHUP: re-read the worker count */
	SIG_DRAIN,    /* SIGTERM, SIGINT: stop gracefully */
	SIG_QUIT,     /* SIGQUIT: stop at once */
	SIG_STATUS,   /* SIGUSR1: write the status to the log */
	SIG_LOG,      /* the others: logged, nothing else */
};

/* What the master does with signo (SIG_LOG for one not in the table). */
enum sig_role sig_role(int signo);
/* Every signal of the table into set: the master blocks them and reads
 * them from a signalfd. */
void sig_table_set(sigset_t *set);
/* In a new worker, whose mask the master's blocked set came with: ignore
 * every signal of the table but SIGCHLD, then unblock them all. */
void sig_worker_ignore(void);

#endif
