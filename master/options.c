/* The master's options: one table, rows[], parses the command line and
 * the config file and prints --help. A bad value is refused in one line
 * naming its option; only the worker count is clamped (to the ring's
 * slots). The command line wins over the file, at start and at reloads. */
#include "master/options.h"
#include "lib/log.h"
#include "lib/os.h"
#include "lib/parse.h"
#include "shm/policy_options.h"
#include "shm/ring.h"
#include "worker/kernel.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define OPT_PORT 5003
/* One peer's connections by default: an eighth, at most this: twice what
 * the course's client holds if none of its 500 requests were answered
 * (docs/security.md). */
#define OPT_PEER_CONNS_MAX 1024

static const struct options defaults = {
	.port = OPT_PORT,
	.kernel = "auto",
	.cache_entries = 1u << 20,
	.peer_weight = 4 * POLICY_PEER_WEIGHT_MAX,
	.idle_timeout_ms = 30000,
	.stop_timeout_ms = 30000,
	.max_wait_ms = 3600000,
	.attach_repeats = 1,
	.pin = 1,
	.sandbox = 1,
	.low_latency_ms = 1000,
	.poll_ms = 1000,
	.hook = -1,
};

/* ---- the values the rows take that no type reads ------------------------- */

/* auto or a compiled-in kernel (whether this CPU runs it: the start's). */
static int valid_kernel(const char *s)
{
	size_t n;
	const struct kernel *const *all = kernel_all(&n);

	if (strcmp(s, "auto") == 0)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, all[i]->name) == 0)
			return 1;
	return 0;
}

/* A numeric IPv4 or IPv6 address (IPv4 as IPv4-mapped) as one more of
 * list, which holds *n. */
static int add_address(const char *s, uint8_t (*list)[16], unsigned *n)
{
	uint8_t *ip = list[*n];

	if (*n >= OPT_LISTEN_MAX)
		return -EINVAL;
	memset(ip, 0, 16);
	if (inet_pton(AF_INET, s, ip + 12) == 1)
		ip[10] = ip[11] = 0xff;
	else if (inet_pton(AF_INET6, s, ip) != 1)
		return -EINVAL;
	(*n)++;
	return 0;
}

static int parse_listen(const char *s, struct options *o)
{
	if (strncmp(s, "unix:", 5) != 0)
		return add_address(s, o->listen, &o->nlisten);
	if (o->listen_unix || !s[5] || strlen(s + 5) >= sizeof ((struct sockaddr_un *)0)->sun_path)
		return -EINVAL;
	o->listen_unix = s + 5;
	return 0;
}

static int parse_proxy_from(const char *s, struct options *o)
{
	return add_address(s, o->proxy_from, &o->nproxy);
}

/* The names --hook takes, from the hooks' one list. */
static const char *const hook_name[HOOK_COUNT] = {
#define XX(hook, name) [HOOK_##hook] = name,
	RING_HOOK_MAP(XX)
#undef XX
};

static int parse_hook(const char *s, struct options *o)
{
	for (o->hook = 0; o->hook < HOOK_COUNT; o->hook++) {
		if (strcmp(s, hook_name[o->hook]) == 0) {
			o->status = 1;
			return 0;
		}
	}
	o->hook = -1;
	return -EINVAL;
}

/* The hooks' names, "a, b or c", into buf (truncated to len). */
static void hook_names(char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < HOOK_COUNT && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       !i ? "" : i + 1 < HOOK_COUNT ? ", " : " or ", hook_name[i]);
}

static void order_names(char *buf, size_t len)
{
	policy_order_list(buf, len);
}

/* ---- the table ------------------------------------------------------------ */

/* A row's field, of the type its row reads (a wrong one does not build). */
#define FIELD(f, type) \
	(offsetof(struct options, f) + 0 * sizeof((type *){ &((struct options *)0)->f }))
#define SWITCH(f, value) .type = OPT_SWITCH, .at = FIELD(f, int), .to = (value)
#define MODE(f, value, ms) .type = OPT_MODE, .at = FIELD(f, int), .to = (value), \
	.ms_at = FIELD(ms, unsigned), .arg = "[=S]"
#define NUMBER(f) .type = OPT_NUMBER, .at = FIELD(f, uint64_t), .arg = "N"
#define SECONDS(f) .type = OPT_SECONDS, .at = FIELD(f, unsigned), .arg = "S"
#define STRING(f) .type = OPT_STRING, .at = FIELD(f, const char *)
#define STRINGS(f) .type = OPT_STRING, .at = FIELD(f[0], const char *)
#define OTHER(fn) .type = OPT_OTHER, .parse = (fn)

static const struct opt_row rows[] = {
	{ .name = "workers", .type = OPT_NUMBER, .at = FIELD(workers, uint64_t), .arg = "N|auto",
	  .word = "auto", .min = 1,
	  .max = RING_WORKERS, .key = "workers",
	  .help = "CPU worker processes, 1 to %M, or auto (the default): one per CPU this "
		  "process may run on (its affinity mask), less one for each GPU worker and "
		  "one for the master beside them" },
	{ .name = "config", .arg = "FILE", STRING(config), .values = "a file",
	  .help = "read %C from FILE at start and on SIGHUP" },
	{ .name = "kernel", .arg = "NAME", STRING(kernel), .check = valid_kernel,
	  .list = kernel_names, .machine = 1, .values = "auto, %L",
	  .help = "the SHA-256 search kernel: auto (the default: each one this CPU can run "
		  "is timed at start, for about 30 ms, and the fastest used) or one of %L" },
	{ .name = "%K", .arg = "auto|off|LIST", STRINGS(kind_spec), .check = kind_spec_valid,
	  .values = "auto, off or unit numbers, each once: 0,1", .help = "%H" },
	{ .name = "%K-worker", .arg = "PATH", STRINGS(kind_path), .values = "a path",
	  .help = "the %K workers' program (default: %B beside the master, or worker/%B in "
		  "the build)" },
	{ .name = "%K-kernel", .arg = "NAME", STRINGS(kind_kernel), .values = "a name",
	  .help = "the search the %K workers' program runs (default: the fastest, measured at "
		  "its start); the start fails where their devices have none of that name" },
	{ .type = OPT_POLICY, .list = order_names, .values = "%L" },
	{ .name = "cache-entries", NUMBER(cache_entries), .max = 1ull << 32,
	  .help = "answers the cache holds (default %D; when full, the least useful makes "
		  "room; 0: no cache, every request is searched)" },
	{ .name = "listen", .arg = "ADDR", OTHER(parse_listen), .max = OPT_LISTEN_MAX,
	  .values = "a numeric IPv4 or IPv6 address, %M at most, or unix:PATH once",
	  .help = "listen on this numeric IPv4 or IPv6 address only, given up to %M times "
		  "(default: every address); or once unix:PATH, a balancer's Unix socket "
		  "(a PROXY header first on every connection); that alone: no TCP port" },
	{ .name = "user", .arg = "NAME", STRING(user), .values = "a user name",
	  .help = "started as root: bind the port, open what needs root, then run as NAME, "
		  "workers and all (and its segment NAME's: run --status as NAME)" },
	{ .name = "proxy-from", .arg = "ADDR", OTHER(parse_proxy_from), .max = OPT_LISTEN_MAX,
	  .values = "a numeric IPv4 or IPv6 address, %M at most",
	  .help = "connections from this address, a balancer's, open with a PROXY protocol v2 "
		  "header naming the client; up to %M times" },
	{ .name = "max-conns", NUMBER(max_conns), .min = 1, .max = 1ull << 30,
	  .help = "connections open at once, at most (default: the descriptor limit less "
		  "a sixteenth and 64); one more is closed at once" },
	{ .name = "peer-conns", NUMBER(peer_conns), .min = 1, .max = 1ull << 30,
	  .n = OPT_PEER_CONNS_MAX,
	  .help = "connections from one peer at once (default: an eighth of --max-conns, at "
		  "most %N)" },
	{ .name = "peer-searches", NUMBER(peer_searches), .min = 1, .max = 1ull << 30,
	  .help = "searches one peer has in flight at once (default: --peer-conns); a "
		  "request past it is closed unanswered" },
	{ .name = "peer-weight", NUMBER(peer_weight), .min = 1, .max = 1ull << 20,
	  .help = "the priority one peer's searches share: past it, each of them counts "
		  "for less (default %D)" },
	{ .name = "max-wait", SECONDS(max_wait_ms), .max = 86400,
	  .help = "a client waits S seconds at most for its search's answer, then its "
		  "connection is closed unanswered, counted as expired (default %D; 0: no "
		  "limit)" },
	{ .name = "no-attach", SWITCH(attach_repeats, 0),
	  .help = "a repeat of a request in flight is searched again instead of attaching "
		  "to it" },
	{ .name = "low-latency", MODE(low_latency, OPT_ON, low_latency_ms), .max = 3600,
	  .help = "while searches are in flight and S seconds after the last (default %D), "
		  "ask the kernel to keep every CPU polling instead of sleeping "
		  "(/dev/cpu_dma_latency = 0; root only, machine-wide): faster wake-ups for "
		  "small requests. On by default where permitted; where not, said in the log" },
	{ .name = "no-low-latency", SWITCH(low_latency, OPT_OFF),
	  .help = "let idle CPUs sleep, even while busy" },
	{ .name = "poll", MODE(poll, OPT_ON, poll_ms), .min = 1, .max = 3600,
	  .help = "while searches are in flight and S seconds after the last request "
		  "(default %D), the master polls for events on its CPU instead of sleeping: "
		  "an answer or a request finds it awake. On by default where --workers auto "
		  "left the master a CPU (beside a GPU worker)" },
	{ .name = "no-poll", SWITCH(poll, OPT_OFF),
	  .help = "the master sleeps while it waits, always" },
	{ .name = "no-pin", SWITCH(pin, 0),
	  .help = "let the scheduler place the workers (default: worker i runs on the i-th "
		  "CPU this process may use)" },
	{ .name = "no-sandbox", SWITCH(sandbox, 0),
	  .help = "run the workers unconfined, where no seccomp filter can be loaded (an "
		  "emulator, an old kernel); there the start fails without it" },
	{ .name = "idle-timeout", SECONDS(idle_timeout_ms), .min = 1, .max = 86400,
	  .key = "idle_timeout",
	  .help = "a client has S seconds from connecting to send its whole request, and S "
		  "to read its reply (default %D)" },
	{ .name = "stop-timeout", SECONDS(stop_timeout_ms), .min = 1, .max = 86400,
	  .help = "on SIGTERM, wait at most S seconds for requests in flight (default %D)" },
	{ .name = "verbose", SWITCH(verbose, 1), .help = "log one line per request" },
	{ .name = "quiet", SWITCH(quiet, 1), .help = "log errors only" },
	{ .name = "status", SWITCH(status, 1), .n = OPT_PORT,
	  .help = "print the workers, counters and stage times of the master on PORT "
		  "(default %N) and exit" },
	{ .name = "json", SWITCH(json, 1), .help = "with --status: as one JSON object" },
	{ .name = "hook", .arg = "NAME", OTHER(parse_hook), .list = hook_names, .values = "%L",
	  .help = "tests only: make the next worker of the master on PORT, started with "
		  "REVHASH_TEST_HOOKS=1, misbehave: %L" },
	{ .name = "help", SWITCH(help, 1), .help = "print the options and exit" },
};

#define NROWS (sizeof rows / sizeof rows[0])
_Static_assert(NROWS <= 64, "a row's bit in o->given");

/* getopt_long's values for the rows: above every character, below the
 * policy's. */
#define ROW_VALUE 0x100
#define MADE_MAX (NROWS * KINDS_MAX)
_Static_assert(ROW_VALUE + MADE_MAX <= POLICY_OPT_BASE, "the rows' values below the policy's");

const struct opt_row *options_row(size_t i)
{
	return i < NROWS ? &rows[i] : NULL;
}

static int per_kind(const struct opt_row *r)
{
	return r->name && strstr(r->name, "%K");
}

const struct opt_row *options_next(struct opt_it *it, unsigned *kind)
{
	for (; it->row < NROWS; it->row++, it->kind = 0) {
		const struct opt_row *r = &rows[it->row];

		if (!per_kind(r)) {
			*kind = 0;
			it->row++;
			return r;
		}
		while (it->kind < kind_count() && !kind_at(it->kind)->help)
			it->kind++;
		if (it->kind < kind_count()) {
			*kind = it->kind++;
			return r;
		}
	}
	return NULL;
}

void options_defaults(struct options *o)
{
	*o = defaults;
	o->policy = policy_default();
}

/* ---- the texts ------------------------------------------------------------ */

/* The default of r's field, as its option takes it. */
static void default_of(const struct opt_row *r, char *buf, size_t len)
{
	const char *f = (const char *)&defaults + (r->type == OPT_MODE ? r->ms_at : r->at);

	if (r->type == OPT_NUMBER)
		snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)f);
	else if (r->type == OPT_SECONDS || r->type == OPT_MODE)
		snprintf(buf, len, "%g", *(const unsigned *)f / 1000.0);
	else
		snprintf(buf, len, "?");
}

/* The config file's keys, "workers = N|auto, idle_timeout = S". */
static void config_keys(char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NROWS && at < len; i++)
		if (rows[i].key)
			at += (size_t)snprintf(buf + at, len - at, "%s%s = %s", at ? ", " : "",
					       rows[i].key, rows[i].arg);
}

void options_text(const struct opt_row *r, unsigned kind, const char *text, int man,
		  char *buf, size_t len)
{
	const struct worker_kind *k = kind_at(kind);
	size_t at = 0;

	buf[0] = '\0';
	for (const char *s = text; *s && at + 1 < len; s++) {
		char part[512] = "";

		if (*s != '%' || !s[1]) {
			buf[at++] = *s;
			buf[at] = '\0';
			continue;
		}
		switch (*++s) {
		case 'D': default_of(r, part, sizeof part); break;
		case 'M': snprintf(part, sizeof part, "%llu", (unsigned long long)r->max); break;
		case 'N': snprintf(part, sizeof part, "%llu", (unsigned long long)r->n); break;
		case 'L':
			if (man && r->machine)
				snprintf(part, sizeof part, "those built in (--help lists them)");
			else if (r->list)
				r->list(part, sizeof part);
			break;
		case 'C': config_keys(part, sizeof part); break;
		case 'K': snprintf(part, sizeof part, "%s", k ? k->name : "?"); break;
		case 'H': snprintf(part, sizeof part, "%s", k && k->help ? k->help : ""); break;
		case 'B': snprintf(part, sizeof part, "%s", k && k->binary ? k->binary : ""); break;
		default: snprintf(part, sizeof part, "%c", *s); break;
		}
		at += (size_t)snprintf(buf + at, len - at, "%s", part);
	}
	for (char *nl = buf; (nl = strchr(nl, '\n'));)
		*nl = ' '; /* the printers wrap */
}

/* "--NAME ARG" or "--NAME[=S]". */
static void synopsis(const struct opt_row *r, unsigned kind, char *buf, size_t len)
{
	char name[64];

	options_text(r, kind, r->name, 0, name, sizeof name);
	snprintf(buf, len, "--%s%s%s", name, r->arg && r->arg[0] != '[' ? " " : "",
		 r->arg ? r->arg : "");
}

/* The option's synopsis, then its sentence from OPT_HELP_COLUMN, wrapped
 * before column 80. */
#define HELP_WIDTH 79
static void print_option(FILE *out, const struct opt_row *r, unsigned kind, int man)
{
	char text[1024];
	size_t at;

	synopsis(r, kind, text, sizeof text);
	at = 2 + strlen(text);
	fprintf(out, "  %s", text);
	if (at >= OPT_HELP_COLUMN - 1) {
		fputc('\n', out);
		at = 0;
	}
	options_text(r, kind, r->help, man, text, sizeof text);
	for (const char *s = text; *s;) {
		size_t word = strcspn(s, " ");

		if (at > OPT_HELP_COLUMN && at + 1 + word > HELP_WIDTH) {
			fputc('\n', out);
			at = 0;
		}
		at += (size_t)fprintf(out, "%*s%.*s",
				      at < OPT_HELP_COLUMN ? (int)(OPT_HELP_COLUMN - at) : 1, "",
				      (int)word, s);
		s += word + strspn(s + word, " ");
	}
	fputc('\n', out);
}

void options_usage(FILE *out, int man)
{
	struct opt_it it = { 0 };
	const struct opt_row *r;
	unsigned kind;

	fputs("usage: master PORT [options]\n"
	      "       master --status [PORT] [--json]\n"
	      "       master --hook NAME [PORT]\n"
	      "\n"
	      "Reverse SHA-256 hashes of 64-bit values by brute force, on TCP PORT.\n"
	      "\n", out);
	while ((r = options_next(&it, &kind)))
		if (r->type == OPT_POLICY)
			policy_help(out);
		else
			print_option(out, r, kind, man);
	fputs("\n"
	      "Signals: HUP reloads the worker count, TERM/INT stop gracefully,\n"
	      "QUIT stops at once, USR1 logs the status.\n", out);
}

/* ---- parsing ------------------------------------------------------------- */

/* Read value into r's field for kind. 0 or -EINVAL. */
static int take(const struct opt_row *r, unsigned kind, const char *value, struct options *o)
{
	char *f = (char *)o + r->at;
	uint64_t v;

	switch (r->type) {
	case OPT_SWITCH:
		*(int *)f = r->to;
		return 0;
	case OPT_MODE:
		if (value && parse_duration(value, (double)r->max, !r->min,
					    (unsigned *)((char *)o + r->ms_at)) < 0)
			return -EINVAL;
		*(int *)f = r->to;
		return 0;
	case OPT_NUMBER:
		if (r->word && strcmp(value, r->word) == 0)
			v = 0;
		else if (parse_u64(value, r->min, r->max, &v) < 0)
			return -EINVAL;
		*(uint64_t *)f = v;
		return 0;
	case OPT_SECONDS:
		return parse_duration(value, (double)r->max, !r->min, (unsigned *)f);
	case OPT_STRING:
		if (!*value || (r->check && !r->check(value)))
			return -EINVAL;
		((const char **)f)[per_kind(r) ? kind : 0] = value;
		return 0;
	case OPT_OTHER:
		return r->parse(value, o);
	case OPT_POLICY:
		break;
	}
	return -EINVAL;
}

/* Say that option (its name) refuses value, and what r's values are. */
static int refuse(const char *option, const struct opt_row *r, unsigned kind,
		  const char *value)
{
	char what[512];

	if (r->type == OPT_NUMBER)
		snprintf(what, sizeof what, "%llu..%llu%s%s", (unsigned long long)r->min,
			 (unsigned long long)r->max, r->word ? " or " : "", r->word ? r->word : "");
	else if (r->type == OPT_SECONDS || r->type == OPT_MODE)
		snprintf(what, sizeof what, "seconds, %s..%llu", r->min ? "0.001" : "0",
			 (unsigned long long)r->max);
	else
		options_text(r, kind, r->values ? r->values : "see --help", 0, what, sizeof what);
	fprintf(stderr, "master: invalid --%s (%s): '%s' (see master --help)\n", option, what,
		value);
	return -EINVAL;
}

static int said(const char *what, const char *word)
{
	fprintf(stderr, "master: %s: '%s' (see master --help)\n", what, word);
	return -EINVAL;
}

/* The port, and nothing after it. 0 or -EINVAL (said). */
static int operands(int argc, char **argv, struct options *o)
{
	uint64_t v;

	if (optind < argc) {
		if (parse_u64(argv[optind], 1, 65535, &v) < 0)
			return said("invalid PORT (1..65535)", argv[optind]);
		o->port = (unsigned)v;
		optind++;
	} else if (!o->status) {
		fprintf(stderr, "master: missing PORT (see master --help)\n");
		return -EINVAL;
	}
	if (optind < argc)
		return said("an argument too many", argv[optind]);
	return 0;
}

int options_parse(int argc, char **argv, struct options *o)
{
	struct option longopts[MADE_MAX + POLICY_OPTIONS_MAX + 1];
	struct {
		const struct opt_row *r;
		unsigned kind;
	} made[MADE_MAX];
	char names[MADE_MAX][32];
	struct opt_it it = { 0 };
	const struct opt_row *r, *policy = NULL;
	size_t n = 0, m = 0;
	unsigned kind;
	int c, at, rc, help = -1;

	while ((r = options_next(&it, &kind))) {
		if (r->type == OPT_POLICY) {
			policy = r;
			n += policy_getopt(longopts + n);
			continue;
		}
		if (r->type == OPT_SWITCH && r->at == offsetof(struct options, help))
			help = ROW_VALUE + (int)m; /* -h too */
		options_text(r, kind, r->name, 0, names[m], sizeof names[m]);
		longopts[n++] = (struct option){ names[m], !r->arg ? no_argument :
			r->arg[0] == '[' ? optional_argument : required_argument, NULL,
			ROW_VALUE + (int)m };
		made[m].r = r;
		made[m++].kind = kind;
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	options_defaults(o);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, &at)) != -1) {
		if (c == 'h')
			c = help;
		if (c >= ROW_VALUE && c < ROW_VALUE + (int)m) {
			r = made[c - ROW_VALUE].r;
			kind = made[c - ROW_VALUE].kind;
			if (take(r, kind, optarg, o) < 0)
				return refuse(names[c - ROW_VALUE], r, kind, optarg);
			o->given |= 1ull << (r - rows);
			if (o->help) {
				options_usage(stdout, 0);
				return 0;
			}
		} else if (c == ':') {
			return said("a value missing after", argv[optind - 1]);
		} else if (c == '?' || !policy ||
			   (rc = policy_option(c, optarg, &o->policy)) == 0) {
			return said("no such option", argv[optind - 1]);
		} else if (rc < 0) {
			return refuse(longopts[at].name, policy, 0, optarg);
		}
	}
	if ((rc = operands(argc, argv, o)) < 0)
		return rc;
	if (o->config && options_load(o, o->config) < 0)
		return -EINVAL;
	return 0;
}

/* ---- the config file ------------------------------------------------------ */

/* Read at start and at every SIGHUP: `key = value` lines. Only a regular
 * file of at most CONFIG_MAX bytes is read, opened non-blocking: neither
 * /dev/zero nor a FIFO without a writer can hold the master. */
#define CONFIG_MAX 65536

/* One config key: 0, -ENOENT for an unknown key, -EINVAL for a bad value.
 * A key the command line set is still checked (a bad file is a bad file),
 * then left as given. */
static int set_key(struct options *o, const char *key, const char *value)
{
	struct options scratch = *o;

	for (size_t i = 0; i < NROWS; i++) {
		if (!rows[i].key || strcmp(rows[i].key, key) != 0)
			continue;
		if (!(o->given >> i & 1))
			return take(&rows[i], 0, value, o);
		if (take(&rows[i], 0, value, &scratch) < 0)
			return -EINVAL;
		log_info("config: %s left as --%s gave it on the command line", key, rows[i].name);
		return 0;
	}
	return -ENOENT;
}

/* The file's bytes, NUL-terminated, into *text (to free). 0 or -errno,
 * said. */
static int slurp(const char *path, char **text)
{
	struct stat st;
	size_t got = 0;
	char *buf = NULL;
	int rc = 0, fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0)
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL;
	else if (st.st_size > CONFIG_MAX)
		rc = -EFBIG;
	else if (!(buf = malloc(CONFIG_MAX + 1)))
		rc = -ENOMEM;
	/* Read to the end, but never past the limit, even if it grows. */
	while (rc == 0) {
		ssize_t n = read(fd, buf + got, CONFIG_MAX + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -errno;
		else if (n == 0)
			break;
		else if ((got += (size_t)n) > CONFIG_MAX)
			rc = -EFBIG;
	}
	if (fd >= 0)
		close(fd);
	if (rc == 0 && memchr(buf, '\0', got))
		rc = -EILSEQ;
	if (rc < 0) {
		free(buf);
		if (rc == -EFBIG)
			log_error("config %s: larger than %d bytes", path, CONFIG_MAX);
		else
			log_error("config %s: %s", path, rc == -EINVAL ? "not a regular file" :
				  rc == -EILSEQ ? "binary data, not `key = value` lines" :
				  strerror(-rc));
		return rc;
	}
	buf[got] = '\0';
	*text = buf;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Hand the `key = value` lines of text to set_key. */
static int set_lines(const char *path, char *text, struct options *o)
{
	unsigned lineno = 0;

	for (char *line; (line = strsep(&text, "\n"));) {
		char *s = trim(line), *eq;
		int rc;

		lineno++;
		if (*s == '\0' || *s == '#')
			continue;
		if (!(eq = strchr(s, '='))) {
			log_error("config %s:%u: expected key = value", path, lineno);
			return -EINVAL;
		}
		*eq = '\0';
		rc = set_key(o, trim(s), trim(eq + 1));
		if (rc == -ENOENT)
			log_error("config %s:%u: unknown key '%s'", path, lineno, trim(s));
		else if (rc < 0)
			log_error("config %s:%u: bad value for '%s'", path, lineno, trim(s));
		if (rc < 0)
			return -EINVAL;
	}
	return 0;
}

int options_load(struct options *o, const char *path)
{
	struct options next = *o;
	char *text = NULL;
	int rc = slurp(path, &text);

	if (rc < 0)
		return rc;
	rc = set_lines(path, text, &next);
	free(text);
	if (rc == 0)
		*o = next;
	return rc;
}

unsigned options_workers(const struct options *o)
{
	uint64_t n = o->workers ? o->workers : os_cpu_count();

	return n > RING_WORKERS ? RING_WORKERS : (unsigned)n;
}

void options_caps(struct options *o, long nofile)
{
	uint64_t room = nofile > 0 ? (uint64_t)nofile : 1024;

	if (!o->max_conns)
		o->max_conns = room > 128 + room / 16 ? room - 64 - room / 16 : 64;
	if (!o->peer_conns)
		o->peer_conns = o->max_conns / 8 > OPT_PEER_CONNS_MAX ? OPT_PEER_CONNS_MAX :
				o->max_conns / 8 ? o->max_conns / 8 : 1;
	if (!o->peer_searches)
		o->peer_searches = o->peer_conns;
}
