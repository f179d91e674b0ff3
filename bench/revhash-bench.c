/* revhash-bench: the public client's load, plus the numbers it leaves out.
 * A command table, as git is: modes[] holds each mode (bench/options.h)
 * and this file nothing else of any. Every mode's options are known to
 * getopt at once, so that one given to the wrong mode is refused by name,
 * with the modes it belongs to, rather than taken for a typo; --help is
 * printed from the table; --json, every mode's, says where the one output
 * (bench/out.h) goes. */
#include "bench/client.h"
#include "bench/options.h"
#include "bench/out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct mode *const modes[] = {
	&replay_mode, &rescore_mode, &closed_mode, &ask_mode, &race_mode, &preset_mode,
};

#define MODES (sizeof modes / sizeof modes[0])
#define LONGS_MAX 64   /* every mode's options, the policy's, and ours */
#define VAL_BASE 0x100 /* getopt's value for a mode's option i: VAL_BASE + i */
#define HELP 'h'
#define SWITCHES 'Y'
#define JSON 'J'

/* getopt's table: ours, then every option of every mode once, then the
 * policy's (policy holds them with the values options_policy takes). */
struct longs {
	struct option opt[LONGS_MAX + 1];
	size_t n;
	struct option policy[OPTIONS_POLICY_MAX];
	size_t policies;
};

/* Add o to l unless an option of its name is there, with the value val,
 * or VAL_BASE + its index when val is 0. */
static void add_long(struct longs *l, const struct option *o, int val)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->opt[i].name, o->name) == 0)
			return;
	if (l->n == LONGS_MAX)
		abort(); /* LONGS_MAX is too small for the table */
	l->opt[l->n] = *o;
	l->opt[l->n].val = val ? val : VAL_BASE + (int)l->n;
	l->n++;
}

static void gather(struct longs *l)
{
	static const struct option ours[] = {
		{ "help", no_argument, NULL, HELP },
		{ "policy-switches", no_argument, NULL, SWITCHES },
		{ "json", optional_argument, NULL, JSON },
	};

	l->n = 0;
	for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
		add_long(l, &ours[i], ours[i].val);
	for (size_t i = 0; i < MODES; i++)
		for (const struct opt *o = modes[i]->opts; o->name; o++)
			add_long(l, &(struct option){ o->name, o->arg ? required_argument :
				 no_argument, NULL, 0 }, 0);
	l->policies = options_policy_getopt(l->policy);
	for (size_t i = 0; i < l->policies; i++)
		add_long(l, &l->policy[i], 0);
	l->opt[l->n] = (struct option){ NULL, 0, NULL, 0 };
}

/* Mode m's row of the option called name into *row, or its policy's
 * value for it (*row NULL); -1 when the option is not m's. */
static int value(const struct mode *m, const struct longs *l, const char *name,
		 const struct opt **row)
{
	*row = NULL;
	for (const struct opt *o = m->opts; o->name; o++)
		if (strcmp(o->name, name) == 0) {
			*row = o;
			return 0;
		}
	for (size_t i = 0; m->policy != OPT_NO_POLICY && i < l->policies; i++)
		if (strcmp(l->policy[i].name, name) == 0)
			return l->policy[i].val;
	return -1;
}

/* The mode that the option called name chooses, or NULL. */
static const struct mode *chosen_by(const char *name)
{
	for (size_t i = 0; i < MODES; i++)
		if (strncmp(modes[i]->name, "--", 2) == 0 && strcmp(modes[i]->name + 2, name) == 0)
			return modes[i];
	return NULL;
}

/* Refuse the option called name, which is not m's: -EINVAL (said, with
 * the modes it belongs to). */
static int refuse(const char *name, const struct mode *m, const struct longs *l)
{
	const struct opt *row;
	char owners[256] = "";
	size_t len = 0, k = 0, n = 0;

	for (size_t i = 0; i < MODES; i++)
		n += value(modes[i], l, name, &row) >= 0;
	for (size_t i = 0; i < MODES && len < sizeof owners; i++) {
		if (value(modes[i], l, name, &row) < 0)
			continue;
		k++;
		len += (size_t)snprintf(owners + len, sizeof owners - len, "%s%s",
					k == 1 ? "" : k == n ? " and " : ", ", modes[i]->name);
	}
	return options_complain("--%s belongs to %s, not to %s", name, owners, m->name);
}

/* The mode chosen by an option among args[1 .. n - 1], the default when
 * none is; NULL (said) when two are. getopt says nothing here (the options
 * are read again for the mode) and permutes args, a copy of argv: after a
 * missing argument it would move the words in front of the option. */
static const struct mode *choose(int n, char **args, const struct longs *l)
{
	const struct mode *chosen = modes[0], *m;
	int c;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(n, args, ":h", l->opt, NULL)) != -1) {
		if (c == HELP || c == SWITCHES)
			break;
		if (c == ':')
			c = optopt; /* its argument is missing: its mode's usage */
		if (c == JSON)
			continue;
		if (c < VAL_BASE || !(m = chosen_by(l->opt[c - VAL_BASE].name)) || m == chosen)
			continue;
		if (chosen != modes[0]) {
			options_complain("%s and %s are two modes: give one", chosen->name,
					 m->name);
			return NULL;
		}
		chosen = m;
	}
	return chosen;
}

/* Every mode's synopsis, then each one's paragraph, then the policy's
 * switches, which the replay and --rescore take. */
static void help(FILE *out)
{
	for (size_t i = 0; i < MODES; i++) {
		fprintf(out, "%s revhash-bench", i ? "      " : "usage:");
		options_usage(out, modes[i]);
	}
	fputs("       revhash-bench --help | --policy-switches\n\n", out);
	for (size_t i = 0; i < MODES; i++)
		options_help(out, modes[i]);
	fputs("--json writes what a mode prints as one JSON object instead, its\n"
	      "figures named (docs/lab.md: JSON); --json=FILE writes it into FILE\n"
	      "and the text as ever.\n", out);
	fputs("The presets (--race's PRESET, --preset's NAME):\n", out);
	wl_preset_help(out);
	fputs("--policy-switches prints the rules' switches, a line each. The policy\n"
	      "options (the master's; --workers N: how many it runs):\n", out);
	policy_help(out);
}

/* Where the output goes: --json's, the text's alone by default. */
struct where {
	int json;         /* --json given */
	const char *file; /* --json=FILE's, or NULL */
};

/* Read argv into params for mode m, and --json into *w: 0, 1 when --help
 * or --policy-switches was printed instead, or -EINVAL (said). */
static int parse(int argc, char **argv, const struct mode *m, const struct longs *l,
		 void *params, struct where *w)
{
	const struct opt *row;
	int c, val, err;

	if (m->defaults)
		memcpy(params, m->defaults, m->size);
	if (m->policy != OPT_NO_POLICY)
		options_policy_init((struct options_policy *)((char *)params + m->policy));
	opterr = 1;
	optind = 0;
	while ((c = getopt_long(argc, argv, "h", l->opt, NULL)) != -1) {
		if (c == HELP) {
			help(stdout);
			return 1;
		}
		if (c == SWITCHES) {
			policy_switches(stdout);
			return 1;
		}
		if (c == JSON) {
			*w = (struct where){ 1, optarg };
			continue;
		}
		if (c < VAL_BASE)
			return -EINVAL; /* getopt said what */
		val = value(m, l, l->opt[c - VAL_BASE].name, &row);
		if (val < 0)
			err = refuse(l->opt[c - VAL_BASE].name, m, l);
		else if (row)
			err = options_store(row, optarg, params);
		else
			err = options_policy(val, optarg,
					     (struct options_policy *)((char *)params + m->policy));
		if (err)
			return err;
	}
	return m->words_of(argc - optind, argv + optind, params);
}

static int oom(void)
{
	fprintf(stderr, "revhash-bench: out of memory\n");
	return 2;
}

/* After a mistake, said: the synopsis of m (NULL: no one mode was
 * chosen) and where to read more. The exit status, 2. */
static int mistake(const struct mode *m)
{
	if (m) {
		fputs("usage: revhash-bench", stderr);
		options_usage(stderr, m);
	}
	fputs("(revhash-bench --help says more)\n", stderr);
	return 2;
}

/* Run mode m, its output where w says: its exit status. */
static int run(const struct mode *m, void *params, const struct where *w)
{
	FILE *json = w->file ? fopen(w->file, "w") : w->json ? stdout : NULL;
	struct out o;
	int status;

	if (w->file && !json) {
		fprintf(stderr, "revhash-bench: --json=%s: %m\n", w->file);
		return 2;
	}
	out_init(&o, w->json && !w->file ? NULL : stdout, json);
	status = m->run(params, &o);
	if (out_finish(&o) | (w->file && fclose(json))) {
		fprintf(stderr, "revhash-bench: writing the output: %m\n");
		status = status ? status : 1;
	}
	return status;
}

int main(int argc, char **argv)
{
	size_t size = (size_t)(argc + 1) * sizeof *argv;
	char **args = malloc(size);
	struct longs l;
	struct where w = { 0 };
	const struct mode *m;
	void *params;
	int err, status;

	if (!args)
		return oom();
	gather(&l);
	m = choose(argc, memcpy(args, argv, size), &l);
	free(args);
	if (!m)
		return mistake(NULL);
	if (!(params = calloc(1, m->size)))
		return oom();
	client_raise_fd_limit();
	err = parse(argc, argv, m, &l, params, &w);
	status = err < 0 ? mistake(m) : err > 0 ? 0 : run(m, params, &w);
	free(params);
	return status;
}
