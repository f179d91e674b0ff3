/* Test helpers: start the real master as a child on a free port, talk the
 * protocol to it, and look into its shared segment. */
#ifndef REVHASH_TEST_HELPERS_H
#define REVHASH_TEST_HELPERS_H

#include <stdint.h>
#include <sys/types.h>

#include "proto/proto.h"
#include "lib/clock.h"
#include "shm/segment.h"

struct tmaster {
	pid_t pid;
	unsigned port;
	char log[160]; /* the master's stderr */
};

/* The master binary under test: $REVHASH_MASTER, else master/master. */
const char *th_master_path(void);
/* The load generator under test: $REVHASH_BENCH, else revhash-bench. */
const char *th_bench_path(void);
/* Start $REVHASH_MASTER PORT args... (NULL-terminated, may be NULL) and wait
 * until it accepts connections. env may be NULL or "NAME=value". 0 or -1. */
int tm_start(struct tmaster *m, const char *env, const char *const *args);
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
/* Does the master's log hold needle? */
int tm_log_contains(const struct tmaster *m, const char *needle);
/* Print the master's log to stderr (on failure). */
void tm_dump_log(const struct tmaster *m);

/* CPU time (user + system) pid has used, in ms; 0 if unknown. */
uint64_t th_cpu_ms(pid_t pid);
/* pid's scheduler state letter from /proc (R, S, T, t, Z...), 0 if gone. */
char th_proc_state(pid_t pid);

/* A free TCP port (bound and released). */
unsigned th_free_port(void);
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
/* A random 64-bit value (from a test-local xorshift, seeded by pid). */
uint64_t th_rand64(void);

#endif
