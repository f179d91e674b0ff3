/* What revhash-bench's modes share on the command line (see options.h).
 * An argument is checked here through lib/parse.c and a mistake said once,
 * naming the option; the words are checked here too but said by the mode
 * that reads them, which knows what it wanted. The policy's options are
 * the master's own switches and defaults, so a script passes both the
 * same words. */
#include "bench/options.h"
#include "lib/os.h"
#include "lib/parse.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#define WIDTH 78  /* of --help's lines, at most */
#define INDENT 20 /* of an option's help, after its name */
#define USAGE_INDENT 11

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

int options_store(const struct opt *o, const char *arg, void *params)
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

int options_rate(const char *arg, void *rate)
{
	if (parse_double(arg, 0, HUGE_VAL, rate) || *(double *)rate == 0)
		return options_complain("--rate: hashes per second, a number above 0");
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

void options_usage(FILE *out, const struct mode *m)
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

void options_help(FILE *out, const struct mode *m)
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
	static const struct opt workers = { "workers", "N", OPT_WHOLE,
		OPT_FIELD(struct options_policy, sim.workers), 1, RING_WORKERS, NULL, NULL };
	char orders[64];

	if (c == WORKERS)
		return options_store(&workers, arg, p);
	if (c == WORKER_RATES)
		return parse_shares(arg, p) ? options_complain("--worker-rates: rates above 0, "
			"R1,R2,... for %d workers at most", RING_WORKERS) : 0;
	if (policy_option(c, arg, &p->sim.policy) < 0)
		return options_complain("--schedule %.40s: no such order (the orders: %s)", arg,
					policy_order_list(orders, sizeof orders));
	return 0;
}
