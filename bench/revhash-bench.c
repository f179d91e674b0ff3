/* revhash-bench: the public client's load, plus the numbers it leaves out.
 * A command table, as git is: modes[] holds each mode (bench/options.h)
 * and this file nothing else of any, but the reading of their option
 * tables. Every mode's options are known to getopt at once, so that one
 * given to the wrong mode is refused by name, with the modes it belongs
 * to, rather than taken for a typo; --help is printed from the tables;
 * --json, every mode's, says where the one output (bench/out.h) goes. The
 * policy's options are the master's own switches and defaults, so a
 * script passes both the same words. */
#include "bench/options.h"
#include "bench/out.h"
#include "lib/os.h"
#include "lib/parse.h"
#include "shm/policy_options.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static const struct mode *const modes[] = {
	&replay_mode, &rescore_mode, &closed_mode, &ask_mode, &race_mode, &preset_mode,
};

#define MODES (sizeof modes / sizeof modes[0])
#define LONGS_MAX 64   /* every mode's options, the policy's, and ours */
#define VAL_BASE 0x100 /* getopt's value for a mode's option i: VAL_BASE + i */
#define HELP 'h'
#define SWITCHES 'Y'
#define JSON 'J'
#define POLICY_MAX (POLICY_OPTIONS_MAX + 2) /* the policy's options, at most */
#define WIDTH 78  /* of --help's lines, at most */
#define INDENT 20 /* of an option's help, after its name */
#define USAGE_INDENT 11

enum { WORKERS = 'w', WORKER_RATES = 'R' }; /* below the policy's values */

/* An OPT_WHOLE field of size bytes. */
static uint64_t whole_at(const void *field, size_t size)
{
	return size == 1 ? *(const uint8_t *)field :
	       size == 4 ? *(const uint32_t *)field : *(const uint64_t *)field;
}

static void whole_to(void *field, size_t size, uint64_t v)
{
	if (size == 1)
		*(uint8_t *)field = (uint8_t)v;
	else if (size == 4)
		*(uint32_t *)field = (uint32_t)v;
	else
		*(uint64_t *)field = v;
}

/* Store option o's argument arg into params: 0, or -EINVAL (said). */
static int store(const struct opt *o, const char *arg, void *params)
{
	char *field = (char *)params + o->at;
	uint64_t v;
	unsigned ms;
	double d;

	switch (o->kind) {
	case OPT_NONE:
		break;
	case OPT_FLAG:
		*(int *)field = 1;
		break;
	case OPT_STRING:
		*(const char **)field = arg;
		break;
	case OPT_WHOLE:
		if (parse_u64(arg, o->min, o->max, &v))
			return options_complain("--%s: a whole number from %" PRIu64 " to %"
						PRIu64, o->name, o->min, o->max);
		whole_to(field, o->size, v);
		break;
	case OPT_MS:
		if (parse_duration(arg, o->max / 1e3, o->min == 0, &ms))
			return options_complain("--%s: seconds, %g to %g", o->name, o->min / 1e3,
						o->max / 1e3);
		*(unsigned *)field = ms;
		break;
	case OPT_NUMBER:
		if (parse_double(arg, (double)o->min, (double)o->max, &d))
			return options_complain("--%s: a number from %" PRIu64 " to %" PRIu64,
						o->name, o->min, o->max);
		*(double *)field = d;
		break;
	case OPT_CALL:
		return o->call(arg, field);
	}
	return 0;
}

/* Print s, len bytes that are not to be broken, at *col: on a line of
 * their own, indented by indent, when they would pass WIDTH. */
static void put(FILE *out, int *col, int indent, const char *s, int len)
{
	if (*col > indent && *col + 1 + len > WIDTH) {
		fprintf(out, "\n%*s", indent, "");
		*col = indent;
	}
	if (*col > indent) {
		fputc(' ', out);
		++*col;
	}
	fwrite(s, 1, (size_t)len, out);
	*col += len;
}

/* Print text's words at *col, wrapped as put() does. */
static void put_words(FILE *out, int *col, int indent, const char *text)
{
	while (*text) {
		int len = (int)strcspn(text, " ");

		if (len)
			put(out, col, indent, text, len);
		text += len + (text[len] == ' ');
	}
}

/* m's synopsis, after "revhash-bench ", wrapped. */
static void usage(FILE *out, const struct mode *m)
{
	static const char *const policy[] = { "[--schedule ORDER]", "[--no-RULE ...]",
					      "[--workers N]", "[--worker-rates R1,R2,...]" };
	int col = (int)strlen("usage: revhash-bench");
	char item[64], named[64];

	put_words(out, &col, USAGE_INDENT, m->words);
	for (const struct opt *o = m->opts; o->name; o++) {
		snprintf(named, sizeof named, "--%s ", o->name);
		if (!o->help || strstr(m->words, named))
			continue;
		put(out, &col, USAGE_INDENT, item, snprintf(item, sizeof item, "[--%s%s%s]",
			o->name, o->arg ? " " : "", o->arg ? o->arg : ""));
	}
	for (size_t i = 0; m->policy != OPT_NO_POLICY && i < 4; i++)
		put(out, &col, USAGE_INDENT, policy[i], (int)strlen(policy[i]));
	fputc('\n', out);
}

/* " (default X)", X being o's field in m's defaults; "" when it has
 * none: no defaults, or a value outside o's bounds (an option not given
 * means no such figure). */
static const char *default_of(const struct mode *m, const struct opt *o, char *buf,
			      size_t size)
{
	const char *field = m->defaults ? (const char *)m->defaults + o->at : NULL;
	uint64_t v;
	double d;

	buf[0] = '\0';
	if (field && o->kind == OPT_WHOLE && (v = whole_at(field, o->size)) >= o->min &&
	    v <= o->max)
		snprintf(buf, size, " (default %" PRIu64 ")", v);
	else if (field && o->kind == OPT_MS && (v = *(const unsigned *)field) >= o->min &&
		 v <= o->max)
		snprintf(buf, size, " (default %g)", v / 1e3);
	else if (field && o->kind == OPT_NUMBER && (d = *(const double *)field) >= o->min &&
		 d <= o->max)
		snprintf(buf, size, " (default %g)", d);
	return buf;
}

/* m's paragraph and a line for each of its options. */
static void mode_help(FILE *out, const struct mode *m)
{
	fputs(m->help, out);
	for (const struct opt *o = m->opts; o->name; o++) {
		char text[512], dflt[64];
		int col;

		if (!o->help)
			continue;
		col = fprintf(out, "  --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		col += fprintf(out, "%*s", col < INDENT ? INDENT - col : 0, "");
		snprintf(text, sizeof text, "%s%s", o->help, default_of(m, o, dflt, sizeof dflt));
		put_words(out, &col, INDENT, text);
		fputc('\n', out);
	}
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

/* Store the policy's option c (a value gather() gave) into p: 0, or
 * -EINVAL (said). */
static int store_policy(int c, const char *arg, struct options_policy *p)
{
	static const struct opt workers = { "workers", "N", OPT_WHOLE,
		OPT_FIELD(struct options_policy, sim.workers), 1, RING_WORKERS, NULL, NULL };
	char orders[64];

	if (c == WORKERS)
		return store(&workers, arg, p);
	if (c == WORKER_RATES)
		return parse_shares(arg, p) ? options_complain("--worker-rates: rates above 0, "
			"R1,R2,... for %d workers at most", RING_WORKERS) : 0;
	if (policy_option(c, arg, &p->sim.policy) < 0)
		return options_complain("--schedule %.40s: no such order (the orders: %s)", arg,
					policy_order_list(orders, sizeof orders));
	return 0;
}

/* getopt's table: ours, then every option of every mode once, then the
 * policy's (policy holds them with the values store_policy takes:
 * --workers, --worker-rates and the master's switches, shm/policy_options.h). */
struct longs {
	struct option opt[LONGS_MAX + 1];
	size_t n;
	struct option policy[POLICY_MAX];
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
	l->policy[0] = (struct option){ "workers", required_argument, NULL, WORKERS };
	l->policy[1] = (struct option){ "worker-rates", required_argument, NULL, WORKER_RATES };
	l->policies = 2 + policy_getopt(l->policy + 2);
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

/* The mode chosen by an option among argv[1 .. argc - 1], the default
 * when none is; NULL (said) when two are. getopt says nothing here (the
 * options are read again for the mode) and, told "-", takes the words in
 * their place (as value 1), leaving argv as it is for parse(). */
static const struct mode *choose(int argc, char **argv, const struct longs *l)
{
	const struct mode *chosen = modes[0], *m;
	int c;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "-:h", l->opt, NULL)) != -1) {
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
		usage(out, modes[i]);
	}
	fputs("       revhash-bench --help | --policy-switches\n\n", out);
	for (size_t i = 0; i < MODES; i++)
		mode_help(out, modes[i]);
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
	struct options_policy *pol = m->policy == OPT_NO_POLICY ? NULL :
				     (void *)((char *)params + m->policy);
	unsigned cpus = os_cpus_upto(RING_WORKERS);
	const struct opt *row;
	int c, val, err;

	if (m->defaults)
		memcpy(params, m->defaults, m->size);
	if (pol) /* the master's policy by default, a worker per CPU here */
		*pol = (struct options_policy){ .sim = { policy_default(), cpus, cpus, NULL } };
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
			err = store(row, optarg, params);
		else
			err = store_policy(val, optarg, pol);
		if (err)
			return err;
	}
	return m->words_of(argc - optind, argv + optind, params);
}

/* After a mistake, said: the synopsis of m (NULL: no one mode was
 * chosen) and where to read more. The exit status, 2. */
static int mistake(const struct mode *m)
{
	if (m) {
		fputs("usage: revhash-bench", stderr);
		usage(stderr, m);
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
	struct longs l;
	struct where w = { 0 };
	struct rlimit rl;
	const struct mode *m;
	void *params;
	int err, status;

	gather(&l);
	if (!(m = choose(argc, argv, &l)))
		return mistake(NULL);
	if (!(params = calloc(1, m->size))) {
		fprintf(stderr, "revhash-bench: out of memory\n");
		return 2;
	}
	/* One socket per request in flight: under a lower limit an overloaded
	 * server would look like lost replies (EMFILE). */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	err = parse(argc, argv, m, &l, params, &w);
	status = err < 0 ? mistake(m) : err > 0 ? 0 : run(m, params, &w);
	free(params);
	return status;
}
