/* revhash-bench's command line, what its modes share: the shape of a
 * mode's parser (the command table in revhash-bench.c reads the options
 * and hands each to the mode the command line chose), the words several
 * modes take (HOST PORT, a workload's seven), the policy's switches that
 * describe the server under test, and the numbers' checks, each saying
 * what is wrong in a line of its own. */
#ifndef REVHASH_BENCH_OPTIONS_H
#define REVHASH_BENCH_OPTIONS_H

#include <getopt.h>
#include <stdint.h>

#include "bench/simulate.h"
#include "bench/workload.h"
#include "shm/policy_options.h"
#include "shm/ring.h"

/* The words, as the messages about them name them. */
#define OPTIONS_HOST_WORDS "HOST PORT (a port from 1 to 65535)"
#define OPTIONS_WORKLOAD_WORDS "SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA " \
	"(whole numbers, REP 0 .. 100, SEED below 2^32)"
/* The policy's options (options_policy_getopt), at most. */
#define OPTIONS_POLICY_MAX (POLICY_OPTIONS_MAX + 2)

/* HOST PORT. */
struct options_host {
	const char *host, *port;
};

/* The server under test's policy, given with the master's switches, for
 * the ideal server's: sim.shares points into shares (--worker-rates), so
 * the struct stays where options_policy_init put it. */
struct options_policy {
	struct sim_policy sim;
	double shares[RING_WORKERS];
};

/* A mode's command line: its options, and how they and the words after
 * them are read into its parameters (params: the mode's own struct). */
struct options_parser {
	size_t size; /* of its parameters' struct */
	/* Its long options, the one that chooses the mode among them; an
	 * entry of zeros ends them. Their values are the mode's own. */
	const struct option *options;
	/* Its struct options_policy, when the policy's switches are its too;
	 * NULL when they are not. */
	struct options_policy *(*policy)(void *params);
	/* Set the defaults. */
	void (*init)(void *params);
	/* Store its option c (with its argument): 0, or -EINVAL (said). */
	int (*option)(int c, const char *arg, void *params);
	/* Read the n words left after the options: 0, or -EINVAL (said). */
	int (*words)(int n, char **words, void *params);
};

/* Say on stderr, after "revhash-bench: ", what is wrong; -EINVAL. */
int options_complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* --name's arg, a whole number in [min, max], into *v: 0, or -EINVAL
 * (said). */
int options_whole(const char *name, const char *arg, uint64_t min, uint64_t max,
		  uint64_t *v);
/* --name's arg, seconds (0.001 to a day), into *ms: 0, or -EINVAL (said). */
int options_seconds(const char *name, const char *arg, unsigned *ms);
/* --priority's arg, 1 .. 16: 0, or -EINVAL (said). */
int options_priority(const char *arg, uint8_t *priority);
/* --rate's arg, hashes per second above 0: 0, or -EINVAL (said). */
int options_rate(const char *arg, double *rate);

/* HOST PORT from words[0 .. 1]: 0, or -EINVAL when PORT is not 1 .. 65535
 * (not said: the caller names the words it wanted). */
int options_host(char *const words[2], struct options_host *h);
/* A workload's seven words into w: 0; -EINVAL when a word is not a
 * number within its bounds (not said, as options_host); -ERANGE after
 * saying that DIFFICULTY, or START with it, makes no request. */
int options_workload(char *const words[7], struct wl_params *w);

/* The master's policy by default, a worker per CPU here. */
void options_policy_init(struct options_policy *p);
/* Append the policy's long options to opts (--workers, --worker-rates
 * and the master's switches: shm/policy.h); how many. */
size_t options_policy_getopt(struct option *opts);
/* Store the policy's option c (a value options_policy_getopt gave) into
 * p: 0, or -EINVAL (said). */
int options_policy(int c, const char *arg, struct options_policy *p);

#endif
