/* Test helpers: start the real master as a child on a free port, talk the
 * protocol to it, and look into its shared segment. */
#ifndef REVHASH_TEST_HELPERS_H
#define REVHASH_TEST_HELPERS_H

#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "proto/proto.h"
#include "lib/clock.h"
#include "shm/ring_master.h"
#include "shm/ring_worker.h"
#include "shm/segment.h"

struct tmaster {
	pid_t pid;
	unsigned port;
	unsigned conns; /* connections tm_start made: the master accepts them */
	char log[160];  /* the master's stderr */
};

/* Poll expr (every 2 ms, evaluated once more at the end) until it holds or
 * timeout_ms have passed; 1 when it held. For the tests that wait for
 * something to happen instead of sleeping and assuming it did. */
#define TH_WAIT_UNTIL(expr, timeout_ms) __extension__ ({			\
	uint64_t th_until_ = clock_ms() + (uint64_t)(timeout_ms);		\
	int th_held_;								\
	while (!(th_held_ = !!(expr)) && clock_ms() < th_until_)		\
		usleep(2000);							\
	th_held_ || (expr); })

/* The master binary under test: $REVHASH_MASTER, else master/master. */
const char *th_master_path(void);
/* The load generator under test: $REVHASH_BENCH, else revhash-bench. */
const char *th_bench_path(void);
/* What jq -r prints for filter (no single quote in it) on the JSON text
 * json, into out (cut to size); 0, or -1 when jq refused the JSON. */
int th_jq(const char *json, const char *filter, char *out, size_t size);
/* Start $REVHASH_MASTER PORT args... (NULL-terminated, may be NULL) and wait
 * until it accepts connections. env may be NULL or "NAME=value". Unless
 * args name a --gpu option, the master runs with --gpu off: the tests
 * count CPU workers, on a machine with a GPU too. 0 or -1. */
int tm_start(struct tmaster *m, const char *env, const char *const *args);
/* When not 0: the descriptor limit (soft and hard) tm_start gives the
 * master, as an operator's ulimit -n would. */
extern unsigned long th_master_nofile;
/* The same on a given port. */
int tm_start_on(struct tmaster *m, unsigned port, const char *env,
		const char *const *args);
/* SIGTERM and wait (up to 20 s); returns the exit status, or -1. */
int tm_stop(struct tmaster *m);
/* Map the master's segment read-write (for hooks and counters). */
int tm_seg(const struct tmaster *m, struct seg *seg);
/* A copy of m's counters. 0 or -1. */
int tm_stats(const struct tmaster *m, struct seg_stats *st);
/* Live worker pids of m, from its segment; returns how many (up to max). */
int tm_workers(const struct tmaster *m, pid_t *pids, int max);
/* Wait until pred-like condition: until the master has n live workers. */
int tm_wait_workers(const struct tmaster *m, int n, int timeout_ms);
/* A live worker of m whose slot holds a lease, waiting up to timeout_ms for
 * one; its pid, or 0. */
pid_t tm_worker_with_lease(const struct tmaster *m, int timeout_ms);
/* The same, stopped (SIGSTOP) and seen to hold its lease still once
 * stopped, so that a kill that follows is sure to hit a worker mid-lease
 * (the caller kills it, or SIGCONTs it); its pid, or 0. */
pid_t tm_freeze_worker_with_lease(const struct tmaster *m, int timeout_ms);
/* Does the master's log hold needle? */
int tm_log_contains(const struct tmaster *m, const char *needle);
/* The first line of the master's log that holds needle, into line (len
 * bytes): where needle starts in it, or NULL. */
const char *tm_log_find(const struct tmaster *m, const char *needle, char *line, size_t len);
/* Print the master's log to stderr (on failure). */
void tm_dump_log(const struct tmaster *m);

/* CPU time (user + system) pid has used, in ms; 0 if unknown. */
uint64_t th_cpu_ms(pid_t pid);
/* pid's scheduler state letter from /proc (R, S, T, t, Z...), 0 if gone. */
char th_proc_state(pid_t pid);
/* Has pid signals generated but not yet delivered? 1, 0, or -1 if gone. */
int th_signals_pending(pid_t pid);
/* How many descriptors pid has open; -1 if gone. */
int th_open_fds(pid_t pid);

/* The default policy, but of order and with preemption and split as asked
 * (every other rule as the default has it). */
static inline struct policy th_policy(uint32_t order, int preempt, int split)
{
	struct policy p = policy_default();

	p.order = order;
	p.rules &= ~(POLICY_PREEMPT | POLICY_SPLIT);
	p.rules |= (preempt ? POLICY_PREEMPT : 0u) | (split ? POLICY_SPLIT : 0u);
	return p;
}

/* A free TCP port (bound and released). */
unsigned th_free_port(void);
/* Connect to 127.0.0.1:port from the address from (another 127.0.0.x is
 * another peer to the master; blocking), or to [::1]:port where from is
 * an IPv6 address. fd or -1. */
int th_connect_from(const char *from, unsigned port);
/* Connect to localhost:port (blocking). fd or -1. */
int th_connect(unsigned port);
/* Send a request on fd. 0 or -1. */
int th_send_request(int fd, const uint8_t d[32], uint64_t start, uint64_t end,
		    uint8_t prio);
/* Read an 8-byte reply within timeout_ms. 0 and *x, -1 on EOF, error or
 * timeout. */
int th_read_reply(int fd, uint64_t *x, int timeout_ms);
/* Close fd with a reset (RST), as a client that is gone. */
void th_reset(int fd);
/* One whole request: connect, send, read. 0 and *x, or -1. */
int th_request(unsigned port, const uint8_t d[32], uint64_t start,
	       uint64_t end, uint8_t prio, uint64_t *x);
/* A random 64-bit value: a xorshift sequence that starts, in every test,
 * from the run's seed (th_seed() in tests/check_run.h). */
uint64_t th_rand64(void);
/* Say on stdout that the running test is skipped, and why, as one line
 * "SKIP: test: reason" (scripts/run-tests.sh counts them); test is the
 * test's __func__. Call it just before the test returns. */
void th_skip(const char *test, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Why a lock whose holder died cannot be recovered where the tests run,
 * or NULL: REVHASH_NO_ROBUST_LOCKS, which scripts/cross-arm64.sh sets when
 * tests/robust_probe shows that the emulator it runs them under does not
 * recover one (qemu-user has no robust futex list: docs/testing.md).
 * Only the tests of that recovery skip on it. */
const char *th_no_robust_locks(void);

#endif
