/* A server's processes, seen from outside through /proc: which process
 * listens on its port, and the CPU it and every process below it used.
 * Everything /proc says is untrusted: a process may vanish, its pid may
 * be reused, a file may not parse; each is an error code, never a guess.
 * The parsers are pure and tested on text. */
#ifndef REVHASH_BENCH_PROCTREE_H
#define REVHASH_BENCH_PROCTREE_H

#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#define PROCTREE_ROOTS 8 /* processes a server may be made of */

/* The processes of one server: each given by its pid and start time. */
struct proctree {
	pid_t pid[PROCTREE_ROOTS];
	uint64_t start[PROCTREE_ROOTS];
	unsigned n;
};

/* The inodes of the listening sockets on port in text, the contents of
 * /proc/net/tcp (v6 0) or /proc/net/tcp6 (v6 1), into inode[0 .. max - 1]:
 * how many there were, at most max. Lines that do not parse are skipped. */
unsigned proctree_parse_listeners(const char *text, int v6, unsigned port,
				  uint64_t *inode, unsigned max);
/* Add pid, as it is now (its start time), to t: 0, -E2BIG when t is
 * full, or os_stat()'s error (lib/os.h). */
int proctree_add(struct proctree *t, pid_t pid);
/* Is the address a's one of this machine's? 1, 0, or -errno. */
int proctree_is_local(const struct sockaddr *a);
/* The processes that hold a socket listening on a's port of this
 * machine, topmost only (a holder whose parent holds it too is left
 * out), into t: how many, 0 when no process this user can read holds
 * one, or -errno. */
int proctree_find_port(const struct sockaddr *a, struct proctree *t);
/* The CPU ticks used so far by t's processes and every process below
 * them but the caller and its own children, into *ticks. 0, or -ESRCH
 * when one of t's processes is gone or its pid is another process's now,
 * or -EINVAL when a /proc file did not parse. */
int proctree_ticks(const struct proctree *t, uint64_t *ticks);

#endif
