/* What revhash-bench's modes share on the command line. Every number goes
 * through lib/parse.c (whole, unsigned, in bounds), and an option's
 * mistake is said here, once, naming the option and what it takes. The
 * words are checked here too but said by the mode that reads them, which
 * knows what it wanted: only the workload that no request could be made
 * of is said here, for the replay, --rescore and the race alike.
 * The policy's options describe the server under test with the master's
 * own switches and defaults, so a script can pass the same words to both. */
#include "bench/options.h"
#include "lib/os.h"
#include "lib/parse.h"
#include "proto/proto.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { WORKERS = 'w', WORKER_RATES = 'R' }; /* below the policy's values */

int options_complain(const char *fmt, ...)
{
	va_list ap;

	fputs("revhash-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

int options_whole(const char *name, const char *arg, uint64_t min, uint64_t max,
		  uint64_t *v)
{
	if (parse_u64(arg, min, max, v))
		return options_complain("--%s: a whole number from %" PRIu64 " to %" PRIu64,
					name, min, max);
	return 0;
}

int options_seconds(const char *name, const char *arg, unsigned *ms)
{
	if (parse_seconds(arg, ms))
		return options_complain("--%s: seconds, 0.001 to 86400", name);
	return 0;
}

int options_priority(const char *arg, uint8_t *priority)
{
	uint64_t v;

	if (options_whole("priority", arg, PROTO_PRIORITY_MIN, PROTO_PRIORITY_MAX, &v))
		return -EINVAL;
	*priority = (uint8_t)v;
	return 0;
}

int options_rate(const char *arg, double *rate)
{
	if (parse_double(arg, 0, HUGE_VAL, rate) || *rate == 0)
		return options_complain("--rate: hashes per second, a number above 0");
	return 0;
}

int options_host(char *const words[2], struct options_host *h)
{
	uint64_t port;

	h->host = words[0];
	h->port = words[1];
	return parse_u64(words[1], 1, 65535, &port);
}

int options_workload(char *const words[7], struct wl_params *w)
{
	uint64_t rep;

	if (parse_u64(words[0], 0, UINT32_MAX, &w->seed) ||
	    parse_u64(words[1], 1, UINT64_MAX, &w->total) ||
	    parse_u64(words[2], 0, UINT64_MAX, &w->start) ||
	    parse_u64(words[3], 0, UINT64_MAX, &w->difficulty) ||
	    parse_u64(words[4], 0, 100, &rep) ||
	    parse_u64(words[5], 0, UINT64_MAX, &w->delay_us) ||
	    parse_double(words[6], 0, HUGE_VAL, &w->lambda))
		return -EINVAL;
	/* Deadlines are int64 nanoseconds from t0: keep them far from wrap. */
	if (w->delay_us && w->total > (uint64_t)INT64_MAX / 2000 / w->delay_us)
		return -EINVAL;
	w->rep = (unsigned)rep;
	if (wl_check(w)) {
		options_complain("DIFFICULTY must be 1 .. 2^64-3 and START + DIFFICULTY "
				 "below 2^64");
		return -ERANGE;
	}
	return 0;
}

void options_policy_init(struct options_policy *p)
{
	unsigned cpus = os_cpus_upto(RING_WORKERS);

	*p = (struct options_policy){ .sim = { policy_default(), cpus, cpus, NULL } };
}

size_t options_policy_getopt(struct option *opts)
{
	opts[0] = (struct option){ "workers", required_argument, NULL, WORKERS };
	opts[1] = (struct option){ "worker-rates", required_argument, NULL, WORKER_RATES };
	return 2 + policy_getopt(opts + 2);
}

/* --worker-rates: a comma list of positive rates, one a worker. */
static int parse_shares(const char *arg, struct options_policy *p)
{
	char copy[1024], *save = NULL;
	unsigned n = 0;

	if (strlen(arg) >= sizeof copy)
		return -EINVAL;
	strcpy(copy, arg);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == RING_WORKERS || parse_double(t, 0, HUGE_VAL, &p->shares[n]) ||
		    p->shares[n] == 0)
			return -EINVAL;
		n++;
	}
	if (n == 0)
		return -EINVAL;
	p->sim.shares = p->shares;
	p->sim.workers = p->sim.cores = n;
	return 0;
}

int options_policy(int c, const char *arg, struct options_policy *p)
{
	char orders[64];
	uint64_t workers;

	if (c == WORKERS) {
		if (options_whole("workers", arg, 1, RING_WORKERS, &workers))
			return -EINVAL;
		p->sim.workers = (unsigned)workers;
		return 0;
	}
	if (c == WORKER_RATES)
		return parse_shares(arg, p) ? options_complain("--worker-rates: rates above 0, "
			"R1,R2,... for %d workers at most", RING_WORKERS) : 0;
	if (policy_option(c, arg, &p->sim.policy) < 0)
		return options_complain("--schedule %.40s: no such order (the orders: %s)", arg,
					policy_order_list(orders, sizeof orders));
	return 0;
}
