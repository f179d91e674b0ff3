/* --race's command line and run (see race_cmd.h): the servers, each
 * NAME=HOST:PORT, each checked against those before it (no name twice,
 * and no server twice, whose cache would answer the second run of each
 * round), then a workload or a preset, then --pid's words, read last, once
 * the servers they name are known. Every mistake is said in a line of its
 * own that names the word or the option. */
#include "bench/race/race_cmd.h"
#include "bench/calibrate.h"
#include "bench/race/machine.h"
#include "bench/race/race_watch.h"
#include "lib/parse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char race_cmd_usage[] =
	"--race NAME=HOST:PORT NAME=HOST:PORT [...]\n"
	"           SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA | PRESET\n"
	"           [--rounds N] [--until-decided] [--margin PERCENT] [--seed S]\n"
	"           [--csv FILE] [--plot FILE.png] [--timeout SECONDS] [--probe SECONDS]\n"
	"           [--settle SECONDS] [--pid NAME=PID ...] [--no-calibrate]\n";

const char race_cmd_help[] =
	"--race races servers (2 to 8, any servers, named as they are to be\n"
	"called) on one workload, or a preset (below: a load follows the first\n"
	"probe's rate), in rounds of alternating order (A B, B A, ...); each\n"
	"round has the next seed. Each server's hash rate is probed before each\n"
	"of its runs. A table per round, a summary, and for each pair the ratio\n"
	"of their scores with a 95% interval: a winner when it excludes 1,\n"
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
	"  --timeout SECONDS a request's bound, connect to reply (default 120)\n"
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
	"  --no-calibrate    no probe, so no efficiency (answers from memory are\n"
	"                    still caught, by the machine's peak)\n";

/* --- the servers ------------------------------------------------------- */

/* Is word a server's NAME=HOST:PORT rather than a workload's word? */
static int is_server(const char *word)
{
	return strchr(word, '=') != NULL;
}

static int bad_server(const char *word, const char *why)
{
	return options_complain("--race: %s: %s", word, why);
}

static int good_name(const char *name, size_t len)
{
	if (len == 0 || len > RACE_NAME_MAX)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._-", name[i]) || !name[i])
			return 0;
	return 1;
}

/* HOST:PORT, the host's brackets taken off, into s. */
static int split_address(const char *word, const char *spec,
			 struct race_server *s)
{
	const char *colon = strrchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : 0;
	uint64_t port;

	if (!colon || parse_u64(colon + 1, 1, 65535, &port))
		return bad_server(word, "not NAME=HOST:PORT with a port from 1 to 65535");
	if (len >= 2 && spec[0] == '[' && spec[len - 1] == ']') {
		spec++;
		len -= 2;
	}
	if (len == 0 || len >= sizeof s->host)
		return bad_server(word, "no host, or one too long");
	memcpy(s->host, spec, len);
	s->host[len] = '\0';
	snprintf(s->port, sizeof s->port, "%" PRIu64, port);
	return 0;
}

/* Add the server NAME=HOST:PORT in word to p: a name of 1 to
 * RACE_NAME_MAX letters, digits, '.', '_' or '-', not given before; a
 * host (an IPv6 address in brackets or not) and a port 1 .. 65535 not
 * given before either. 0, or -EINVAL (said). */
static int add_server(const char *word, struct race_params *p)
{
	const char *eq = strchr(word, '=');
	struct race_server *s = &p->server[p->n];

	if (p->n == RACE_MAX_SERVERS)
		return bad_server(word, "too many servers (at most 8)");
	if (!eq || !good_name(word, (size_t)(eq - word)))
		return bad_server(word, "a NAME is 1 to 16 letters, digits, '.', "
				  "'_' or '-', then '=HOST:PORT'");
	*s = (struct race_server){ .spec = eq + 1 };
	memcpy(s->name, word, (size_t)(eq - word));
	if (split_address(word, eq + 1, s))
		return -EINVAL;
	for (unsigned i = 0; i < p->n; i++) {
		if (strcmp(p->server[i].name, s->name) == 0)
			return bad_server(word, "a name given twice");
		if (strcmp(p->server[i].host, s->host) == 0 &&
		    strcmp(p->server[i].port, s->port) == 0)
			return bad_server(word, "the same server as another: "
					  "its cache would answer the second run "
					  "of every round");
	}
	p->n++;
	return 0;
}

/* --- the options ------------------------------------------------------- */

static const struct option options[] = {
	{ "race", no_argument, NULL, 'X' },
	{ "rounds", required_argument, NULL, 'N' },
	{ "until-decided", no_argument, NULL, 'U' },
	{ "margin", required_argument, NULL, 'M' },
	{ "seed", required_argument, NULL, 'e' },
	{ "csv", required_argument, NULL, 'c' },
	{ "plot", required_argument, NULL, 'P' },
	{ "timeout", required_argument, NULL, 'T' },
	{ "probe", required_argument, NULL, 'B' },
	{ "settle", required_argument, NULL, 'L' },
	{ "pid", required_argument, NULL, 'I' },
	{ "no-calibrate", no_argument, NULL, 'n' },
	{ NULL, 0, NULL, 0 },
};

static void init(void *params)
{
	struct race_cmd *c = params;

	*c = (struct race_cmd){ .race = {
		.rounds = RACE_ROUNDS, .margin = RACE_MARGIN, .seed = -1, .calibrate = 1,
		.probe_s = CALIBRATE_ENOUGH_S, .settle_s = MACHINE_SETTLE_S,
		.timeout_ms = RACE_TIMEOUT_S * 1000 } };
}

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

static int option(int c, const char *arg, void *params)
{
	struct race_cmd *cmd = params;
	struct race_params *p = &cmd->race;
	uint64_t rounds, seed;
	unsigned ms;

	switch (c) {
	case 'N':
		if (options_whole("rounds", arg, 1, RACE_MAX_ROUNDS, &rounds))
			return -EINVAL;
		p->rounds = (unsigned)rounds;
		break;
	case 'U':
		p->until_decided = 1;
		break;
	case 'M':
		if (parse_double(arg, 0, 1000, &p->margin))
			return options_complain("--margin: a percentage from 0 to 1000");
		p->margin /= 100;
		break;
	case 'e':
		if (parse_u64(arg, 0, UINT32_MAX, &seed))
			return options_complain("--seed: a whole number below 2^32");
		p->seed = (int64_t)seed;
		break;
	case 'c':
		p->csv = arg;
		break;
	case 'P':
		if (!*arg || has_control(arg))
			return options_complain("--plot: a file name, with no line break or "
						"other control character");
		p->plot = arg;
		break;
	case 'T':
		return options_seconds("timeout", arg, &p->timeout_ms);
	case 'B':
		if (parse_duration(arg, 60, 0, &ms))
			return options_complain("--probe: seconds, 0.001 to 60");
		p->probe_s = ms / 1000.0;
		break;
	case 'L':
		if (parse_duration(arg, 3600, 1, &ms))
			return options_complain("--settle: seconds, 0 to 3600");
		p->settle_s = ms / 1000.0;
		break;
	case 'I':
		if (cmd->pids == sizeof cmd->pid / sizeof cmd->pid[0])
			return options_complain("--pid: given too many times");
		cmd->pid[cmd->pids++] = arg;
		break;
	case 'n':
		p->calibrate = 0;
		break;
	}
	return 0; /* --race */
}

/* --- the words --------------------------------------------------------- */

/* The preset called name into p: 0, or -EINVAL (said). */
static int take_preset(const char *name, struct race_params *p)
{
	char names[128];

	if (!(p->preset = wl_preset_find(name))) {
		wl_preset_names(names, sizeof names);
		return options_complain("--race: no preset %s (the presets: %s)", name, names);
	}
	if (wl_preset_params(p->preset, 0, &p->wl) && !p->calibrate)
		return options_complain("--race: this preset's delay comes from the first "
					"probe: it cannot run with --no-calibrate");
	return 0;
}

/* NAME=HOST:PORT twice or more, then the workload's seven words or a
 * preset's name; then --pid's words. */
static int words(int n, char **w, void *params)
{
	struct race_cmd *cmd = params;
	struct race_params *p = &cmd->race;
	char names[128];
	int k = 0, err = 0;

	while (k < n && is_server(w[k]))
		if (add_server(w[k++], p))
			return -EINVAL;
	if (p->n < 2)
		return options_complain("--race needs two servers or more, each as "
					"NAME=HOST:PORT, before the workload");
	if (n - k == 1)
		err = take_preset(w[k], p);
	else if (n - k != 7 || (err = options_workload(w + k, &p->wl)) == -EINVAL) {
		wl_preset_names(names, sizeof names);
		return options_complain("--race: after the servers, " OPTIONS_WORKLOAD_WORDS
					", or a preset (%s)", names);
	}
	if (err)
		return err;
	if (p->seed >= 0)
		p->wl.seed = (uint64_t)p->seed;
	for (unsigned i = 0; i < cmd->pids; i++)
		if (race_add_pid(cmd->pid[i], p))
			return -EINVAL;
	if (cmd->pids && !p->settle_s)
		return options_complain("--pid: the machine is not watched with --settle 0");
	return 0;
}

const struct options_parser race_cmd_parser = {
	sizeof(struct race_cmd), options, NULL, init, option, words,
};

int race_cmd_run(void *params, struct out *o)
{
	struct race_cmd *cmd = params;

	return race_run(&cmd->race, o);
}
