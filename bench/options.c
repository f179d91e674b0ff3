/* revhash-bench's command line. The modes take disjoint options (but
 * --priority, which the closed loop and --ask share, --csv and
 * --no-calibrate, which the replay and the race share, and --rate, which
 * the replay and --preset share), and one from two modes is an error
 * rather than a guess at which mode was meant. The race's mistakes and
 * --preset's are each said in a line of their own.
 * Every number goes through lib/parse.c: whole, unsigned, in bounds.
 * The replay's policy options describe the server under test with the
 * master's own switches and defaults, so a script can pass the same words
 * to both. */
#include "bench/options.h"
#include "bench/calibrate.h"
#include "bench/race/machine.h"
#include "bench/race/race_watch.h"
#include "lib/os.h"
#include "lib/parse.h"
#include "proto/proto.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_CONCURRENCY 10000 /* closed-loop threads */
#define MAX_HOLD 1000000      /* held searches, a descriptor each */

static const char usage[] =
	"usage: revhash-bench HOST PORT SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA\n"
	"           [--csv FILE] [--quiet] [--rate HASHES_PER_S] [--no-calibrate]\n"
	"           [--schedule ORDER] [--no-RULE ...] [--workers N]\n"
	"           [--worker-rates R1,R2,...]\n"
	"           [--rescore CSV --rate HASHES_PER_S [--csv FILE]]\n"
	"       revhash-bench HOST PORT --concurrency N --duration SECONDS\n"
	"           [--difficulty D] [--cached] [--priority P] [--hold N]\n"
	"       revhash-bench HOST PORT --ask DIGEST_HEX START END [--priority P]\n"
	"           [--split K] [--timeout SECONDS]\n"
	"       revhash-bench --race NAME=HOST:PORT NAME=HOST:PORT [...]\n"
	"           SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA | PRESET\n"
	"           [--rounds N] [--until-decided] [--margin PERCENT] [--seed S]\n"
	"           [--csv FILE] [--plot FILE.png] [--timeout SECONDS] [--probe SECONDS]\n"
	"           [--settle SECONDS] [--pid NAME=PID ...] [--no-calibrate]\n"
	"       revhash-bench --preset NAME [--rate HASHES_PER_S]\n"
	"       revhash-bench --help | --policy-switches\n"
	"\n"
	"The first form replays the public client's workload at its pace (open\n"
	"loop) and compares the score with an ideal server's: one following the\n"
	"policy of the server under test, described with the master's switches\n"
	"(default: wsrpt, preemptive, split, one worker per CPU here), and one\n"
	"following the best policy for this workload. With --rescore it sends\n"
	"nothing: it scores the run a --csv of the same workload recorded, at\n"
	"--rate (e.g. the busy_rate of the server's --status --json after the\n"
	"run: the rate its workers hashed at while they served it), and --csv\n"
	"writes the run again with the ideal latencies at that rate. With\n"
	"--worker-rates the server's workers hash at unequal rates (a GPU beside\n"
	"CPUs: their rates per second, or any numbers in that proportion); the\n"
	"ideal without split then gives the best job the fastest worker.\n"
	"The second keeps N requests (1 .. 10000) in flight for SECONDS, a\n"
	"thread each (closed loop, as wrk), and prints requests/s, errors and\n"
	"latency percentiles:\n"
	"  --difficulty D  fresh requests, end = start + D (default 1)\n"
	"  --cached        one request, answered once before the clock starts\n"
	"  --priority P    of every request, 1 .. 16 (default 1)\n"
	"  --hold N        meanwhile hold N searches that never end (priority 1,\n"
	"                  a 2^60 range each): a full queue, or a job-table flood\n"
	"The third asks one question and prints the answer: the x in [START, END]\n"
	"whose SHA-256 (of its 8 bytes, little-endian) is DIGEST_HEX (64 hex\n"
	"digits), or 0 when there is none. Exit 0 on a reply, 1 when none came.\n"
	"It waits as long as the search takes, up to --timeout (default 3600 s;\n"
	"a server whose host vanished is noticed in about 25 s); a connection it\n"
	"drops is reset, so an interrupted question cancels its search:\n"
	"  --priority P    of the request, 1 .. 16 (default 1)\n"
	"  --split K       send K requests at once (1 .. 1024, default 1), for K\n"
	"                  contiguous pieces of the range (fewer when it holds\n"
	"                  fewer values); the first answer that is not 0 wins\n"
	"                  and the other pieces are reset (cancelled). Through a\n"
	"                  balancer that hashes the range (scripts/cluster/cluster.sh)\n"
	"                  the pieces spread over its nodes\n"
	"The fourth races servers (2 to 8, any servers, named as they are to be\n"
	"called) on one workload, or a preset (milestone, final: the course's\n"
	"runs; 1M, 300k, 100k: small requests at a quarter of the first probe's\n"
	"rate), in rounds of alternating order (A B, B A, ...); each round has\n"
	"the next seed. Each server's hash rate is probed before each of its\n"
	"runs. A table per round, a summary, and for each pair the ratio of\n"
	"their scores with a 95% interval: a winner when it excludes 1,\n"
	"equivalence when it lies within the margin, else how many more rounds\n"
	"would likely decide; fewer right answers lose whatever the score, and a\n"
	"run faster than hashing allows (a cache) gives no verdict. Exit 0 when\n"
	"every answer was right, else 1:\n"
	"  --rounds N        1 .. 1000 (default 10; an interval needs 8)\n"
	"  --until-decided   stop after a pair of rounds once every pair is\n"
	"                    decided (each look at a share of the 5%)\n"
	"  --margin PERCENT  of equivalence, either way (default 10)\n"
	"  --seed S          round 1's seed, instead of the workload's\n"
	"  --csv FILE        every request of every round, a row each\n"
	"  --plot FILE.png   the ratio per pair of rounds with its interval, and\n"
	"                    each server's score per round; log axes (gnuplot)\n"
	"  --timeout SECONDS a request's bound, connect to reply (default 120;\n"
	"                    with --ask: the wait for the answer, default 3600)\n"
	"  --probe SECONDS   how long a probe's request must take (default 0.5)\n"
	"  --settle SECONDS  the longest wait for an idle machine before a run\n"
	"                    (default 5; 0: the machine is not watched). Watched,\n"
	"                    the CPU that others than the server and the race\n"
	"                    used during each run is measured, and a run during\n"
	"                    which they used over a quarter of a CPU gives no\n"
	"                    verdict\n"
	"  --pid NAME=PID    the server NAME is process PID and those below it\n"
	"                    (else the process holding its port, where this user\n"
	"                    can read it); repeat for each server or process\n"
	"  --no-calibrate    no probe, so no efficiency\n"
	"The fifth prints a preset's seven workload words, its delay set from\n"
	"--rate where it follows one (as the race does from its first probe).\n"
	"--policy-switches prints the rules' switches, a line each. The policy\n"
	"options (the master's; --workers N: how many it runs):\n";

static const char race_usage[] =
	"usage: revhash-bench --race NAME=HOST:PORT NAME=HOST:PORT [...]\n"
	"           SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA | PRESET\n"
	"           [--rounds N] [--until-decided] [--margin PERCENT] [--seed S]\n"
	"           [--csv FILE] [--plot FILE.png] [--timeout SECONDS] [--probe SECONDS]\n"
	"           [--settle SECONDS] [--pid NAME=PID ...] [--no-calibrate]\n"
	"(revhash-bench --help says more)\n";

static int parse_target(char **a, struct bench_options *o)
{
	uint64_t port;

	o->host = a[0];
	o->port = a[1];
	return parse_u64(a[1], 1, 65535, &port);
}

/* SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA into w. */
static int parse_workload(char **a, struct wl_params *w)
{
	uint64_t rep;

	if (parse_u64(a[0], 0, UINT32_MAX, &w->seed) ||
	    parse_u64(a[1], 1, UINT64_MAX, &w->total) ||
	    parse_u64(a[2], 0, UINT64_MAX, &w->start) ||
	    parse_u64(a[3], 0, UINT64_MAX, &w->difficulty) ||
	    parse_u64(a[4], 0, 100, &rep) ||
	    parse_u64(a[5], 0, UINT64_MAX, &w->delay_us) ||
	    parse_double(a[6], 0, HUGE_VAL, &w->lambda))
		return -EINVAL;
	/* Deadlines are int64 nanoseconds from t0: keep them far from wrap. */
	if (w->delay_us && w->total > (uint64_t)INT64_MAX / 2000 / w->delay_us)
		return -EINVAL;
	w->rep = (unsigned)rep;
	return 0;
}

static int parse_positional(char **a, struct bench_options *o)
{
	return parse_target(a, o) || parse_workload(a + 2, &o->wl) ? -EINVAL : 0;
}

/* --worker-rates: a comma list of positive rates, one a worker. 0 or
 * -EINVAL. */
static int parse_shares(const char *arg, struct bench_options *o)
{
	char copy[1024], *save = NULL;
	unsigned n = 0;

	if (strlen(arg) >= sizeof copy)
		return -EINVAL;
	strcpy(copy, arg);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == RING_WORKERS || parse_double(t, 0, HUGE_VAL, &o->shares[n]) ||
		    o->shares[n] == 0)
			return -EINVAL;
		n++;
	}
	if (n == 0)
		return -EINVAL;
	o->policy.shares = o->shares;
	o->policy.workers = o->policy.cores = n;
	return 0;
}

/* What an option belongs to; --priority (PRIO) to the closed loop or
 * --ask, --csv and --no-calibrate (SHARED) to the replay or the race,
 * --rate (RATE) to the replay or --preset, --timeout (TIMEOUT) to the
 * race or --ask. */
enum mode { REPLAY = 1, CLOSED = 2, PRIO = 4, ASK = 8, SPLIT = 16, RACE = 32,
	    SHARED = 64, RATE = 128, PRESET = 256, TIMEOUT = 512 };

/* Whether s holds a control character: a file name that gnuplot is given
 * (--plot) cannot, for a line break would end its command (race_plot.c
 * quotes the rest). */
static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* Say what is wrong with the command line: -EINVAL. */
static int complain(const char *what)
{
	fprintf(stderr, "revhash-bench: %s\n", what);
	return -EINVAL;
}

/* Store --race's option c into o->race: RACE, or -EINVAL (said). */
static int race_option(int c, const char *arg, struct bench_options *o)
{
	struct race_params *p = &o->race;
	uint64_t rounds, seed;
	unsigned ms;

	switch (c) {
	case 'X':
		o->racing = 1;
		return RACE;
	case 'N':
		if (parse_u64(arg, 1, RACE_MAX_ROUNDS, &rounds))
			return complain("--rounds: a whole number from 1 to 1000");
		p->rounds = (unsigned)rounds;
		return RACE;
	case 'U':
		p->until_decided = 1;
		return RACE;
	case 'e':
		if (parse_u64(arg, 0, UINT32_MAX, &seed))
			return complain("--seed: a whole number below 2^32");
		p->seed = (int64_t)seed;
		return RACE;
	case 'M':
		if (parse_double(arg, 0, 1000, &p->margin))
			return complain("--margin: a percentage from 0 to 1000");
		p->margin /= 100;
		return RACE;
	case 'P':
		if (!*arg || has_control(arg))
			return complain("--plot: a file name, with no line break or other "
					"control character");
		p->plot = arg;
		return RACE;
	case 'T':
		if (parse_seconds(arg, &p->timeout_ms))
			return complain("--timeout: seconds, 0.001 to 86400");
		o->ask.timeout_ms = p->timeout_ms;
		return TIMEOUT;
	case 'B':
		if (parse_duration(arg, 60, 0, &ms))
			return complain("--probe: seconds, 0.001 to 60");
		p->probe_s = ms / 1000.0;
		return RACE;
	case 'L':
		if (parse_duration(arg, 3600, 1, &ms))
			return complain("--settle: seconds, 0 to 3600");
		p->settle_s = ms / 1000.0;
		return RACE;
	case 'I':
		if (o->pids == sizeof o->pid / sizeof o->pid[0])
			return complain("--pid: given too many times");
		o->pid[o->pids++] = arg;
		return RACE;
	}
	return -EINVAL;
}

/* Store option c into o; the mode it belongs to, or -EINVAL. */
static int parse_option(int c, const char *arg, struct bench_options *o)
{
	struct closed_params *cl = &o->closed;
	struct sim_policy *pol = &o->policy;
	uint64_t prio, workers;

	switch (c) {
	case 'c':
		o->csv = o->race.csv = arg;
		return SHARED;
	case 'q':
		o->quiet = 1;
		return REPLAY;
	case 'S':
		o->rescore = arg;
		return REPLAY;
	case 'n':
		o->calibrate = o->race.calibrate = 0;
		return SHARED;
	case 'w':
		if (parse_u64(arg, 1, RING_WORKERS, &workers))
			return -EINVAL;
		pol->workers = (unsigned)workers;
		return REPLAY;
	case 'r':
		return parse_double(arg, 0, HUGE_VAL, &o->rate) ||
		       o->rate == 0 ? -EINVAL : RATE;
	case 'W':
		o->preset = arg;
		return PRESET;
	case 'R':
		return parse_shares(arg, o) ? -EINVAL : REPLAY;
	case 'C':
		return parse_u64(arg, 1, MAX_CONCURRENCY, &cl->concurrency) ?
		       -EINVAL : CLOSED;
	case 'd':
		return parse_seconds(arg, &cl->duration_ms) ? -EINVAL : CLOSED;
	case 'D':
		/* The client's limit: a start below 2^64 - 2 - D must exist. */
		return parse_u64(arg, 1, UINT64_MAX - 2, &cl->difficulty) ?
		       -EINVAL : CLOSED;
	case 'k':
		cl->cached = 1;
		return CLOSED;
	case 'H':
		return parse_u64(arg, 1, MAX_HOLD, &cl->hold) ? -EINVAL : CLOSED;
	case 'p':
		if (parse_u64(arg, PROTO_PRIORITY_MIN, PROTO_PRIORITY_MAX, &prio))
			return -EINVAL;
		cl->priority = o->ask.priority = (uint8_t)prio;
		return PRIO;
	case 'A':
		return ASK;
	case 'K':
		return parse_u64(arg, 1, ASK_MAX_SPLIT, &o->ask.split) ?
		       -EINVAL : SPLIT;
	}
	switch (policy_option(c, arg, &pol->policy)) {
	case 1:
		return REPLAY;
	case -1: {
		char orders[64], what[128];

		snprintf(what, sizeof what, "--schedule %.40s: no such order (the orders: %s)",
			 arg, policy_order_list(orders, sizeof orders));
		o->said = 1;
		return complain(what);
	}
	}
	return race_option(c, arg, o);
}

/* HOST PORT DIGEST_HEX START END, after --ask and nothing but --priority,
 * --split and --timeout. */
static int parse_ask(int argc, char **a, int modes, struct bench_options *o)
{
	if (!(modes & ASK) || modes & ~(ASK | SPLIT | PRIO | TIMEOUT) || argc != 5)
		return -EINVAL;
	if (!o->ask.split)
		o->ask.split = 1;
	return parse_target(a, o) || ask_parse(a + 2, &o->ask) ? -EINVAL : 0;
}

/* --race's words: NAME=HOST:PORT twice or more, then the workload's
 * seven words or a preset's name, each problem said. */
static int parse_race(int argc, char **a, int modes, struct bench_options *o)
{
	struct race_params *p = &o->race;
	char names[128];
	int k = 0;

	if (!o->racing)
		return complain("--rounds, --until-decided, --margin, --seed, "
				"--plot, --timeout, --probe, --settle and --pid belong "
				"to --race");
	if (modes & ~(RACE | SHARED | TIMEOUT))
		return complain("--race takes no options but --rounds, "
				"--until-decided, --margin, --seed, --csv, --plot, "
				"--timeout, --probe, --settle, --pid and --no-calibrate");
	while (k < argc && race_is_server(a[k]))
		if (race_add_server(a[k++], p))
			return -EINVAL;
	if (p->n < 2)
		return complain("--race needs two servers or more, each as "
				"NAME=HOST:PORT, before the workload");
	wl_preset_names(names, sizeof names);
	if (argc - k == 1) {
		if (!(p->preset = wl_preset_find(a[k]))) {
			fprintf(stderr, "revhash-bench: --race: no preset %s (the "
				"presets: %s)\n", a[k], names);
			return -EINVAL;
		}
		if (wl_preset_params(p->preset, 0, &p->wl) && !p->calibrate)
			return complain("--race: this preset's delay comes from the "
					"first probe: it cannot run with --no-calibrate");
	} else if (argc - k != 7 || parse_workload(a + k, &p->wl)) {
		fprintf(stderr, "revhash-bench: --race: after the servers, SEED "
			"TOTAL START DIFFICULTY REP DELAY_US LAMBDA (whole numbers, "
			"REP 0 .. 100, SEED below 2^32), or a preset (%s)\n", names);
		return -EINVAL;
	}
	if (p->seed >= 0)
		p->wl.seed = (uint64_t)p->seed;
	for (unsigned i = 0; i < o->pids; i++)
		if (race_add_pid(o->pid[i], p))
			return -EINVAL;
	if (o->pids && !p->settle_s)
		return complain("--pid: the machine is not watched with --settle 0");
	return 0;
}

/* --preset NAME [--rate R]: the preset's seven words, into o->wl. */
static int parse_preset(int argc, int modes, struct bench_options *o)
{
	const struct wl_preset *w = wl_preset_find(o->preset);
	char names[128];

	if (modes & ~(PRESET | RATE) || argc) {
		return complain("--preset NAME takes no other words or options "
				"but --rate");
	}
	if (!w) {
		wl_preset_names(names, sizeof names);
		fprintf(stderr, "revhash-bench: no preset %s (the presets: %s)\n",
			o->preset, names);
		return -EINVAL;
	}
	if (wl_preset_params(w, o->rate, &o->wl))
		return complain("--preset: this one's delay follows a hash rate: "
				"give --rate");
	return 0;
}

/* The long options; the policy's switches follow them (policy_getopt). */
static const struct option fixed[] = {
	{ "csv", required_argument, NULL, 'c' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "rescore", required_argument, NULL, 'S' },
	{ "rate", required_argument, NULL, 'r' },
	{ "no-calibrate", no_argument, NULL, 'n' },
	{ "workers", required_argument, NULL, 'w' },
	{ "worker-rates", required_argument, NULL, 'R' },
	{ "concurrency", required_argument, NULL, 'C' },
	{ "duration", required_argument, NULL, 'd' },
	{ "difficulty", required_argument, NULL, 'D' },
	{ "cached", no_argument, NULL, 'k' },
	{ "hold", required_argument, NULL, 'H' },
	{ "priority", required_argument, NULL, 'p' },
	{ "ask", no_argument, NULL, 'A' },
	{ "split", required_argument, NULL, 'K' },
	{ "race", no_argument, NULL, 'X' },
	{ "rounds", required_argument, NULL, 'N' },
	{ "until-decided", no_argument, NULL, 'U' },
	{ "seed", required_argument, NULL, 'e' },
	{ "margin", required_argument, NULL, 'M' },
	{ "plot", required_argument, NULL, 'P' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "probe", required_argument, NULL, 'B' },
	{ "settle", required_argument, NULL, 'L' },
	{ "pid", required_argument, NULL, 'I' },
	{ "preset", required_argument, NULL, 'W' },
	{ "help", no_argument, NULL, 'h' },
	{ "policy-switches", no_argument, NULL, 'Y' },
};

static int parse_args(int argc, char **argv, struct bench_options *o)
{
	struct option longs[sizeof fixed / sizeof fixed[0] + POLICY_OPTIONS_MAX + 1];
	size_t n = sizeof fixed / sizeof fixed[0];
	unsigned cpus = os_cpus_upto(RING_WORKERS);
	int c, mode, modes = 0;

	/* Then the policy's switches, as the master's. */
	memcpy(longs, fixed, sizeof fixed);
	n += policy_getopt(longs + n);
	longs[n] = (struct option){ NULL, 0, NULL, 0 };

	*o = (struct bench_options){
		.calibrate = 1,
		.policy = { policy_default(), cpus, cpus, NULL },
		.closed = { .difficulty = 1, .priority = 1 },
		.ask = { .priority = 1, .timeout_ms = ASK_TIMEOUT_S * 1000 },
		.race = { .rounds = RACE_ROUNDS, .margin = RACE_MARGIN, .seed = -1,
			  .calibrate = 1, .probe_s = CALIBRATE_ENOUGH_S,
			  .settle_s = MACHINE_SETTLE_S,
			  .timeout_ms = RACE_TIMEOUT_S * 1000 },
	};
	while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		if (c == 'h' || c == 'Y') {
			o->help = c == 'h' ? 1 : 2;
			return 0;
		}
		if ((mode = parse_option(c, optarg, o)) < 0)
			return -EINVAL;
		modes |= mode;
	}
	if (modes & RACE)
		return parse_race(argc - optind, argv + optind, modes, o);
	if (modes & PRESET)
		return parse_preset(argc - optind, modes, o);
	if (modes & (ASK | SPLIT))
		return parse_ask(argc - optind, argv + optind, modes, o);
	if (modes & TIMEOUT)
		return complain("--timeout belongs to --race and --ask");
	if (modes & (CLOSED | PRIO)) {
		if (modes & (REPLAY | SHARED | RATE) || !o->closed.concurrency ||
		    !o->closed.duration_ms || argc - optind != 2)
			return -EINVAL;
		return parse_target(argv + optind, o);
	}
	if (argc - optind != 9 || (o->rescore && !o->rate))
		return -EINVAL;
	return parse_positional(argv + optind, o);
}

int bench_options_parse(int argc, char **argv, struct bench_options *o)
{
	if (parse_args(argc, argv, o) == 0) {
		if (o->help == 1) {
			fputs(usage, stdout);
			policy_help(stdout);
		} else if (o->help) {
			policy_switches(stdout);
		}
		return 0;
	}
	/* A race's or a preset's mistake is said above: the short way. */
	if (o->racing || o->preset || o->said) {
		fputs(o->racing ? race_usage : "(revhash-bench --help says more)\n", stderr);
	} else {
		fputs(usage, stderr);
		policy_help(stderr);
	}
	return -EINVAL;
}
