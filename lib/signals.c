/* The signal table (see signals.h). Signals an operator may send by habit
 * (USR2, ALRM, PIPE, ...) are in it too, so that none of them can kill the
 * master uncleanly: the master only logs them. */
#include "lib/signals.h"

#include <stddef.h>

static const struct {
	int signo;
	enum sig_role role;
} table[] = {
	{ SIGCHLD, SIG_REAP },  { SIGHUP, SIG_RELOAD }, { SIGTERM, SIG_DRAIN },
	{ SIGINT, SIG_DRAIN },  { SIGQUIT, SIG_QUIT },  { SIGUSR1, SIG_STATUS },
	{ SIGUSR2, SIG_LOG },   { SIGALRM, SIG_LOG },   { SIGPIPE, SIG_LOG },
	{ SIGVTALRM, SIG_LOG }, { SIGPROF, SIG_LOG },   { SIGIO, SIG_LOG },
	{ SIGPWR, SIG_LOG },
};

#define NSIGNALS (sizeof table / sizeof table[0])

enum sig_role sig_role(int signo)
{
	for (size_t i = 0; i < NSIGNALS; i++)
		if (table[i].signo == signo)
			return table[i].role;
	return SIG_LOG;
}

void sig_table_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < NSIGNALS; i++)
		sigaddset(set, table[i].signo);
}

void sig_worker_ignore(void)
{
	sigset_t none;

	for (size_t i = 0; i < NSIGNALS; i++)
		signal(table[i].signo, table[i].role == SIG_REAP ? SIG_DFL : SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}
