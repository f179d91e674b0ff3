/* --race's command line and run (bench/race/race.h): the servers, each
 * NAME=HOST:PORT, each checked against those before it (no name twice,
 * and no server twice, whose cache would answer the second run of each
 * round), then a workload or a preset, then --pid's words, read last, once
 * the servers they name are known. Every mistake is said in a line of its
 * own that names the word or the option. */
#include "bench/calibrate.h"
#include "bench/options.h"
#include "bench/race/machine.h"
#include "bench/race/race.h"
#include "lib/parse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* --pid's words, read once the servers they name are known. */
struct pids {
	const char *word[RACE_MAX_SERVERS * PROCTREE_ROOTS];
	unsigned n;
};

struct race_cmd {
	struct race_params race;
	struct pids pid;
	double margin_pct;
	unsigned probe_ms, settle_ms;
	int no_calibrate;
};

/* --- the servers ------------------------------------------------------- */

static int bad_server(const char *word, const char *why)
{
	return options_complain("--race: %s: %s", word, why);
}

static int good_name(const char *name, size_t len)
{
	return len && len <= RACE_NAME_MAX &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._-") >= len;
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

/* Add the server NAME=HOST:PORT in word to p, neither its name nor its
 * address given before. 0, or -EINVAL (said). */
static int add_server(const char *word, struct race_params *p)
{
	const char *eq = strchr(word, '=');
	struct race_server *s = &p->server[p->n];

	if (p->n == RACE_MAX_SERVERS)
		return bad_server(word, "too many servers (at most 8)");
	if (!eq || !good_name(word, (size_t)(eq - word)))
		return bad_server(word, "a NAME is 1 to 16 letters, digits, '.', "
				  "'_' or '-', then '=HOST:PORT'");
	memset(s, 0, sizeof *s);
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

/* --plot's file name: one that gnuplot is given cannot hold a control
 * character, for a line break would end its command (race_plot.c quotes
 * the rest). */
static int plot_name(const char *arg, void *field)
{
	for (const char *c = arg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			arg = "";
	if (!*arg)
		return options_complain("--plot: a file name, with no line break or "
					"other control character");
	*(const char **)field = arg;
	return 0;
}

static int add_pid(const char *arg, void *field)
{
	struct pids *p = field;

	if (p->n == sizeof p->word / sizeof p->word[0])
		return options_complain("--pid: given too many times");
	p->word[p->n++] = arg;
	return 0;
}

#define F(field) OPT_FIELD(struct race_cmd, field)

static const struct opt opts[] = {
	{ "race", NULL, OPT_NONE, 0, 0, 0, 0, NULL, NULL },
	{ "rounds", "N", OPT_WHOLE, F(race.rounds), 1, RACE_MAX_ROUNDS, NULL,
	  "1 .. 1000; an interval needs 8" },
	{ "until-decided", NULL, OPT_FLAG, F(race.until_decided), 0, 0, NULL,
	  "stop after a pair of rounds once every pair is decided (each look at a "
	  "share of the 5%)" },
	{ "margin", "PERCENT", OPT_NUMBER, F(margin_pct), 0, 1000, NULL,
	  "of equivalence, either way" },
	{ "seed", "S", OPT_WHOLE, F(race.seed), 0, UINT32_MAX, NULL,
	  "round 1's seed, instead of the workload's" },
	{ "csv", "FILE", OPT_STRING, F(race.csv), 0, 0, NULL,
	  "every request of every round, a row each" },
	{ "plot", "FILE.png", OPT_CALL, F(race.plot), 0, 0, plot_name,
	  "the ratio per pair of rounds with its interval, and each server's score per "
	  "round; log axes (gnuplot)" },
	{ "timeout", "SECONDS", OPT_MS, F(race.timeout_ms), 1, 86400000, NULL,
	  "a request's bound, connect to reply" },
	{ "probe", "SECONDS", OPT_MS, F(probe_ms), 1, 60000, NULL,
	  "how long a probe's request must take" },
	{ "settle", "SECONDS", OPT_MS, F(settle_ms), 0, 3600000, NULL,
	  "the longest wait for an idle machine before a run (0: the machine is not "
	  "watched). Watched, the CPU that others than the server and the race used "
	  "during each run is measured, and a run during which they used over a "
	  "quarter of a CPU gives no verdict" },
	{ "pid", "NAME=PID", OPT_CALL, F(pid), 0, 0, add_pid,
	  "the server NAME is process PID and those below it (else the process "
	  "holding its port, where this user can read it); repeat for each server or "
	  "process" },
	{ "no-calibrate", NULL, OPT_FLAG, F(no_calibrate), 0, 0, NULL,
	  "no probe, so no efficiency (answers from memory are still caught, by the "
	  "machine's peak)" },
	{ NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

static const struct race_cmd defaults = {
	.race = { .rounds = RACE_ROUNDS, .seed = -1, .timeout_ms = RACE_TIMEOUT_S * 1000 },
	.margin_pct = RACE_MARGIN * 100, .probe_ms = CALIBRATE_ENOUGH_S * 1000,
	.settle_ms = MACHINE_SETTLE_S * 1000,
};

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

/* Give the server named NAME in word, NAME=PID, the process PID as it is
 * now, at most PROCTREE_ROOTS a server. 0, or -EINVAL (said). */
static int take_pid(const char *word, struct race_params *p)
{
	const char *eq = strchr(word, '=');
	struct race_server *s = NULL;
	uint64_t pid;
	int err;

	for (unsigned i = 0; eq && i < p->n; i++)
		if (strlen(p->server[i].name) == (size_t)(eq - word) &&
		    strncmp(p->server[i].name, word, (size_t)(eq - word)) == 0)
			s = &p->server[i];
	if (!eq || !s || parse_u64(eq + 1, 1, INT32_MAX, &pid))
		return options_complain("--pid %s: not NAME=PID with the NAME of a server "
					"of the race and a PID from 1 to %d", word, INT32_MAX);
	if ((err = proctree_add(&s->pid, (pid_t)pid)))
		return options_complain("--pid %s: %s", word, err == -ESRCH ? "no such process" :
					err == -E2BIG ? "more than 8 processes for one server" :
					err == -EINVAL ? "its /proc/PID/stat does not parse" :
					strerror(-err));
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

	p->margin = cmd->margin_pct / 100;
	p->probe_s = cmd->probe_ms / 1000.0;
	p->settle_s = cmd->settle_ms / 1000.0;
	p->calibrate = !cmd->no_calibrate;
	while (k < n && strchr(w[k], '=')) /* NAME=HOST:PORT */
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
	for (unsigned i = 0; i < cmd->pid.n; i++)
		if (take_pid(cmd->pid.word[i], p))
			return -EINVAL;
	if (cmd->pid.n && !p->settle_s)
		return options_complain("--pid: the machine is not watched with --settle 0");
	return 0;
}

static int run(void *params, struct out *o)
{
	return race_run(&((struct race_cmd *)params)->race, o);
}

const struct mode race_mode = {
	"--race", "--race NAME=HOST:PORT NAME=HOST:PORT [...] "
	"SEED TOTAL START DIFFICULTY REP DELAY_US LAMBDA | PRESET",
	"--race races servers (2 to 8, any servers, named as they are to be\n"
	"called) on one workload, or a preset (below: a load follows the first\n"
	"probe's rate), in rounds of alternating order (A B, B A, ...); each\n"
	"round has the next seed. Each server's hash rate is probed before each\n"
	"of its runs. A table per round, a summary, and for each pair the ratio\n"
	"of their scores with a 95% interval: a winner when it excludes 1,\n"
	"equivalence when it lies within the margin, else how many more rounds\n"
	"would likely decide; fewer right answers lose whatever the score, and a\n"
	"run faster than hashing allows (a cache) gives no verdict. Exit 0 when\n"
	"every answer was right, else 1:\n",
	opts, sizeof(struct race_cmd), &defaults, OPT_NO_POLICY, words, run,
};
