/* Parsing of the command line and of the small `key = value` config file.
 * Every bad value is reported with the option it came from; nothing is
 * silently clamped except the worker count, capped to the ring's slots.
 * The command line wins over the file: an operator who starts a master
 * with --workers 1 gets one worker, whatever a shared config says, at
 * start and at every reload. */
#include "master/options.h"
#include "lib/log.h"
#include "lib/os.h"
#include "lib/parse.h"
#include "shm/ring.h"
#include "worker/kernel.h"
#include "master/config.h"
#include "master/power.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A format: the worker slots, and the kernels (from their tables). */
#define USAGE_HEAD \
	"usage: master PORT [options]\n" \
	"       master --status [PORT] [--json]\n" \
	"       master --hook NAME [PORT]\n" \
	"\n" \
	"Reverse SHA-256 hashes of 64-bit values by brute force, on TCP PORT.\n" \
	"\n" \
	"  --workers N|auto       CPU worker processes (default auto: one per CPU\n" \
	"                         this process may run on, less one for each GPU\n" \
	"                         worker and one for the master beside them;\n" \
	"                         at most %d)\n" \
	"  --config FILE          read `workers = N|auto` and `idle_timeout = S`\n" \
	"                         from FILE at start and on SIGHUP; an option\n" \
	"                         given on the command line wins over the file\n" \
	"  --kernel NAME          search kernel: auto (default: the fastest here,\n" \
	"                         measured at start), or one of\n" \
	"                         %s\n"

/* A format: how often --listen and --proxy-from may be given, and the
 * test hooks (from their table). */
static const char usage_tail[] =
	"  --cache-entries N      answers the cache holds (default 1048576; 0: no\n"
	"                         cache, every request is searched)\n"
	"  --listen ADDR          listen on this IPv4 or IPv6 address only; may be\n"
	"                         given up to %d times (default: every address)\n"
	"  --listen unix:PATH     (once) a balancer's Unix socket, in a folder of\n"
	"                         this user's own, mode 0700: every connection on\n"
	"                         it opens with a PROXY v2 header naming the\n"
	"                         client. Alone, the master listens on no TCP port\n"
	"  --user NAME            started as root: bind the port, open what needs\n"
	"                         root, then run as NAME, workers and all\n"
	"  --proxy-from ADDR      connections from this address (a balancer) open\n"
	"                         with a PROXY protocol v2 header naming the\n"
	"                         client; up to %d times. From anyone else such a\n"
	"                         header is refused\n"
	"  --max-conns N          connections open at once, at most (default: the\n"
	"                         descriptor limit less 1/16 and 64); more are\n"
	"                         closed at once\n"
	"  --peer-conns N         connections from one peer (an IPv4 address or an\n"
	"                         IPv6 /64; ::1 and an IPv6 address that holds an\n"
	"                         IPv4 one count as that IPv4 peer) at once\n"
	"                         (default: an eighth of --max-conns, at most %d)\n"
	"  --peer-searches N      searches one peer has in flight at once (default:\n"
	"                         --peer-conns); a request past it is closed\n"
	"  --peer-weight N        the priority one peer's searches share: past it,\n"
	"                         each of them counts for less (default 64)\n"
	"  --max-wait S           a client waits S seconds at most for its search's\n"
	"                         answer, then its connection is closed unanswered\n"
	"                         (default %u; 0: no limit)\n"
	"  --no-attach            a repeat of a request in flight is searched\n"
	"                         again instead of attaching to it\n"
	"  --low-latency[=S]      while searches are in flight and S seconds after\n"
	"                         the last (default 1), ask the kernel to keep\n"
	"                         every CPU polling instead of sleeping\n"
	"                         (/dev/cpu_dma_latency = 0; root only,\n"
	"                         machine-wide): faster wake-ups for small\n"
	"                         requests. On by default where permitted\n"
	"  --no-low-latency       let idle CPUs sleep, even while busy\n"
	"  --poll[=S]             while searches are in flight and S seconds after\n"
	"                         the last request (default 1), the master polls\n"
	"                         for events on its CPU instead of sleeping: an\n"
	"                         answer or a request finds it awake. On by\n"
	"                         default where --workers auto left the master a\n"
	"                         CPU (beside a GPU worker)\n"
	"  --no-poll              the master sleeps while it waits, always\n"
	"  --no-pin               let the scheduler place workers (default: worker\n"
	"                         i runs on the i-th CPU this process may use)\n"
	"  --no-sandbox           run the workers unconfined, where no seccomp\n"
	"                         filter can be loaded (an emulator, an old\n"
	"                         kernel); the start fails there without it\n"
	"  --idle-timeout S       a client has S seconds from connecting to send its\n"
	"                         whole request, and S to read its reply (default 30)\n"
	"  --stop-timeout S       on SIGTERM wait at most S seconds for requests\n"
	"                         in flight (default 30)\n"
	"  --verbose, --quiet     one log line per request / errors only\n"
	"  --status [PORT]        print the running master's workers and counters\n"
	"  --json                 with --status: print JSON\n"
	"  --hook NAME [PORT]     tests only: make the next worker of a master\n"
	"                         started with REVHASH_TEST_HOOKS=1 misbehave:\n"
	"                         %s\n"
	"  --help                 this text\n"
	"\n"
	"Signals: HUP reloads the worker count, TERM/INT stop gracefully,\n"
	"QUIT stops at once, USR1 logs the status.\n";

/* Print the help lines of a text, each indented past the option column. */
static void print_indented(FILE *out, const char *text)
{
	for (const char *line = text, *end; *line; line = end + (*end == '\n')) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		fprintf(out, "%*s%.*s\n", 25, "", (int)(end - line), line);
	}
}

/* --hook's names, from the hooks' one list (shm/ring.h). */
static const char *const hook_name[HOOK_COUNT] = {
#define XX(hook, name) [HOOK_##hook] = name,
	RING_HOOK_MAP(XX)
#undef XX
};

/* The hooks' names into buf, separated by commas, the last by last. */
static void hook_names(char *buf, size_t len, const char *last)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < HOOK_COUNT && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       !i ? "" : i + 1 < HOOK_COUNT ? ", " : last, hook_name[i]);
}

/* The whole --help: the fixed lines, each found kind's options, the
 * policy's and the hooks', from their tables. */
static void print_usage(FILE *out)
{
	char kernels[128], hooks[128];

	kernel_names(kernels, sizeof kernels);
	fprintf(out, USAGE_HEAD, RING_WORKERS, kernels);
	for (unsigned k = 0; k < kind_count(); k++) {
		const struct worker_kind *kind = kind_at(k);

		if (!kind_is_found(kind))
			continue;
		fprintf(out, "  --%s auto|off|LIST\n", kind->name);
		print_indented(out, kind->help);
		fprintf(out, "  --%s-worker PATH\n", kind->name);
		print_indented(out, "its program (default: beside the master, or\n"
				    "worker/ in the build)");
		fprintf(out, "  --%s-kernel NAME\n", kind->name);
		print_indented(out, "the search its program runs (default: the\n"
				    "fastest, measured at its start)");
	}
	policy_help(out);
	hook_names(hooks, sizeof hooks, " or ");
	fprintf(out, usage_tail, OPT_LISTEN_MAX, OPT_LISTEN_MAX, OPT_PEER_CONNS_MAX,
		OPT_MAX_WAIT_MS / 1000, hooks);
}

static int parse_workers(const char *s, unsigned *out)
{
	uint64_t v;

	if (strcmp(s, "auto") == 0) {
		*out = 0;
		return 0;
	}
	if (parse_u64(s, 1, RING_WORKERS, &v) < 0)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* --kernel: auto or the name of a compiled-in kernel. Whether this CPU can
 * run it is the start's question (exit 1), not the parser's. */
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

static int parse_hook(const char *s, int *hook)
{
	for (int i = 0; i < HOOK_COUNT; i++) {
		if (strcmp(s, hook_name[i]) == 0) {
			*hook = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int bad(const char *what, const char *value)
{
	fprintf(stderr, "master: invalid %s: '%s' (see master --help)\n", what,
		value ? value : "");
	return -EINVAL;
}

/* The three whose ranges come from tables: the worker slots, the hooks,
 * the kernels. */
static int bad_workers(const char *value)
{
	char what[64];

	snprintf(what, sizeof what, "--workers (1..%d or auto)", RING_WORKERS);
	return bad(what, value);
}

static int bad_hook(const char *value)
{
	char what[160], hooks[128];

	hook_names(hooks, sizeof hooks, ", ");
	snprintf(what, sizeof what, "--hook (%s)", hooks);
	return bad(what, value);
}

static int bad_kernel(const char *value)
{
	char what[160], kernels[128];

	kernel_names(kernels, sizeof kernels);
	snprintf(what, sizeof what, "--kernel (auto, %s)", kernels);
	return bad(what, value);
}

static void set_defaults(struct options *o)
{
	memset(o, 0, sizeof *o);
	o->port = 5003;
	o->kernel = "auto";
	o->cache_entries = 1u << 20;
	o->idle_timeout_ms = 30000;
	o->stop_timeout_ms = 30000;
	o->policy = policy_default();
	o->hook = -1;
	o->attach_repeats = 1;
	o->pin = 1;
	o->sandbox = 1;
	o->low_latency = POWER_AUTO;
	o->low_latency_ms = 1000;
	o->poll_ms = 1000;
	o->peer_weight = 4 * POLICY_PEER_WEIGHT_MAX;
	o->max_wait_ms = OPT_MAX_WAIT_MS;
}

/* A numeric IPv4 or IPv6 address into ip, whole, IPv4 as IPv4-mapped (as
 * the master keeps a peer's). 0 or -EINVAL. */
static int parse_address(const char *s, uint8_t ip[16])
{
	memset(ip, 0, 16);
	if (inet_pton(AF_INET, s, ip + 12) == 1) {
		ip[10] = ip[11] = 0xff;
		return 0;
	}
	return inet_pton(AF_INET6, s, ip) == 1 ? 0 : -EINVAL;
}

/* --listen ADDR or --proxy-from ADDR (option): one more address of list,
 * which holds *n of OPT_LISTEN_MAX. */
static int add_address(const char *option, const char *addr, uint8_t (*list)[16],
		       unsigned *n)
{
	char what[64];

	if (*n >= OPT_LISTEN_MAX) {
		snprintf(what, sizeof what, "%s (given more than %d times)", option,
			 OPT_LISTEN_MAX);
		return bad(what, addr);
	}
	if (parse_address(addr, list[*n]) < 0) {
		snprintf(what, sizeof what, "%s (a numeric IPv4 or IPv6 address)", option);
		return bad(what, addr);
	}
	(*n)++;
	return 0;
}

/* The options of the connection caps and addresses (their getopt values
 * from OPT_CAPS); 1 when c is none of them, else 0 or -EINVAL. */
#define OPT_CAPS 0x3000 /* above POLICY_OPT_BASE's, below KIND_OPT_BASE */
static int caps_option(int c, const char *arg, struct options *o)
{
	switch (c) {
	case OPT_CAPS:
		if (strncmp(arg, "unix:", 5) != 0)
			return add_address("--listen", arg, o->listen, &o->nlisten);
		if (o->listen_unix || !arg[5] || strlen(arg + 5) >= 108)
			return bad("--listen unix:PATH (once, a path under 108 bytes)", arg);
		o->listen_unix = arg + 5;
		return 0;
	case OPT_CAPS + 1:
		return parse_u64(arg, 1, 1ull << 30, &o->max_conns) < 0 ?
			bad("--max-conns (1..2^30)", arg) : 0;
	case OPT_CAPS + 2:
		return parse_u64(arg, 1, 1ull << 30, &o->peer_conns) < 0 ?
			bad("--peer-conns (1..2^30)", arg) : 0;
	case OPT_CAPS + 3:
		return parse_u64(arg, 1, 1ull << 30, &o->peer_searches) < 0 ?
			bad("--peer-searches (1..2^30)", arg) : 0;
	case OPT_CAPS + 4:
		return parse_u64(arg, 1, 1ull << 20, &o->peer_weight) < 0 ?
			bad("--peer-weight (1..2^20)", arg) : 0;
	case OPT_CAPS + 5:
		return add_address("--proxy-from", arg, o->proxy_from, &o->nproxy);
	case OPT_CAPS + 6:
		if (!*arg)
			return bad("--user (a user name)", arg);
		o->user = arg;
		return 0;
	case OPT_CAPS + 7:
		return parse_duration(arg, 86400, 1, &o->max_wait_ms) < 0 ?
			bad("--max-wait (seconds, 0..86400)", arg) : 0;
	}
	return 1;
}

/* A found kind's options, each its getopt value KIND_OPT_BASE + 3k + i:
 * --NAME (its workers), --NAME-worker (its program), --NAME-kernel (the
 * search its program runs). */
#define KIND_OPT_BASE 0x2000
static const char *const kind_suffix[3] = { "", "-worker", "-kernel" };

/* The found kinds' options into opts, and their names into names; returns
 * how many. */
static size_t kind_options(struct option *opts, char names[][3][32])
{
	size_t n = 0;

	for (unsigned k = 0; k < kind_count(); k++) {
		if (!kind_is_found(kind_at(k)))
			continue;
		for (int i = 0; i < 3; i++) {
			snprintf(names[k][i], sizeof names[k][i], "%s%s", kind_at(k)->name,
				 kind_suffix[i]);
			opts[n++] = (struct option){ names[k][i], required_argument, NULL,
						     KIND_OPT_BASE + 3 * (int)k + i };
		}
	}
	return n;
}

/* An option of a table's (a found kind's, the policy's): 0 when taken,
 * -EINVAL (said) for a bad value, 1 when c is none of theirs. */
static int table_option(int c, const char *arg, struct options *o)
{
	unsigned k = (unsigned)(c - KIND_OPT_BASE) / 3;
	char what[80];
	int rc;

	if ((rc = policy_option(c, arg, &o->policy)) < 0) {
		char orders[64];

		snprintf(what, sizeof what, "--schedule (%s)",
			 policy_order_list(orders, sizeof orders));
		return bad(what, arg);
	}
	if (rc > 0)
		return 0;
	if (c < KIND_OPT_BASE || k >= kind_count())
		return 1;
	switch ((c - KIND_OPT_BASE) % 3) {
	case 1:
		o->kind_path[k] = arg;
		return 0;
	case 2:
		o->kind_kernel[k] = arg; /* its program checks the name (exit 2) */
		return 0;
	}
	snprintf(what, sizeof what, "--%s (auto, off or unit numbers, each once: 0,1)",
		 kind_at(k)->name);
	if (!kind_spec_valid(arg))
		return bad(what, arg);
	o->kind_spec[k] = arg;
	return 0;
}

/* The port, and nothing after it. 0 or -EINVAL (said). */
static int operands(int argc, char **argv, struct options *o)
{
	uint64_t v;

	if (optind < argc) {
		if (parse_u64(argv[optind], 1, 65535, &v) < 0)
			return bad("port (1..65535)", argv[optind]);
		o->port = (unsigned)v;
		optind++;
	} else if (!o->status) {
		fprintf(stderr, "master: missing PORT\n");
		print_usage(stderr);
		return -EINVAL;
	}
	if (optind < argc)
		return bad("extra argument", argv[optind]);
	return 0;
}

int options_parse(int argc, char **argv, struct options *o)
{
	/* The switches without an argument set their field themselves
	 * (getopt_long then returns 0); the tables' options follow. */
	const struct option fixed[] = {
		{ "workers", required_argument, NULL, 'w' },
		{ "config", required_argument, NULL, 'c' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "cache-entries", required_argument, NULL, 'C' },
		{ "no-attach", no_argument, &o->attach_repeats, 0 },
		{ "listen", required_argument, NULL, OPT_CAPS },
		{ "max-conns", required_argument, NULL, OPT_CAPS + 1 },
		{ "peer-conns", required_argument, NULL, OPT_CAPS + 2 },
		{ "peer-searches", required_argument, NULL, OPT_CAPS + 3 },
		{ "peer-weight", required_argument, NULL, OPT_CAPS + 4 },
		{ "proxy-from", required_argument, NULL, OPT_CAPS + 5 },
		{ "user", required_argument, NULL, OPT_CAPS + 6 },
		{ "max-wait", required_argument, NULL, OPT_CAPS + 7 },
		{ "idle-timeout", required_argument, NULL, 'i' },
		{ "stop-timeout", required_argument, NULL, 's' },
		{ "no-pin", no_argument, &o->pin, 0 },
		{ "no-sandbox", no_argument, &o->sandbox, 0 },
		{ "low-latency", optional_argument, NULL, 'Q' },
		{ "no-low-latency", no_argument, &o->low_latency, POWER_OFF },
		{ "poll", optional_argument, NULL, 'P' },
		{ "no-poll", no_argument, &o->poll, OPT_POLL_OFF },
		{ "verbose", no_argument, &o->verbose, 1 },
		{ "quiet", no_argument, &o->quiet, 1 },
		{ "status", no_argument, &o->status, 1 },
		{ "json", no_argument, &o->json, 1 },
		{ "hook", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
	};
	struct option longopts[sizeof fixed / sizeof fixed[0] + 3 * KINDS_MAX +
			       POLICY_OPTIONS_MAX + 1];
	size_t n = sizeof fixed / sizeof fixed[0];
	char names[KINDS_MAX][3][32];
	int c, rc;

	memcpy(longopts, fixed, sizeof fixed);
	n += kind_options(longopts + n, names);
	n += policy_getopt(longopts + n);
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	set_defaults(o);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (parse_workers(optarg, &o->workers) < 0)
				return bad_workers(optarg);
			o->given |= OPT_GIVEN_WORKERS;
			break;
		case 'c':
			o->config = optarg;
			break;
		case 'k':
			if (!valid_kernel(optarg))
				return bad_kernel(optarg);
			o->kernel = optarg;
			break;
		case 'C':
			if (parse_u64(optarg, 0, 1ull << 32, &o->cache_entries) < 0)
				return bad("--cache-entries (0..2^32)", optarg);
			break;
		case 'i':
			if (parse_seconds(optarg, &o->idle_timeout_ms) < 0)
				return bad("--idle-timeout (seconds)", optarg);
			o->given |= OPT_GIVEN_IDLE_TIMEOUT;
			break;
		case 's':
			if (parse_seconds(optarg, &o->stop_timeout_ms) < 0)
				return bad("--stop-timeout (seconds)", optarg);
			break;
		case 0: /* a switch that set its field */
			break;
		case 'Q':
			o->low_latency = POWER_ON;
			if (optarg && parse_duration(optarg, 3600, 1, &o->low_latency_ms) < 0)
				return bad("--low-latency (seconds, 0..3600)", optarg);
			break;
		case 'P':
			o->poll = OPT_POLL_ON;
			if (optarg && parse_duration(optarg, 3600, 0, &o->poll_ms) < 0)
				return bad("--poll (seconds, 0.001..3600)", optarg);
			break;
		case 'H':
			if (parse_hook(optarg, &o->hook) < 0)
				return bad_hook(optarg);
			o->status = 1;
			break;
		case 'h':
			print_usage(stdout);
			o->help = 1;
			return 0;
		default:
			if ((rc = caps_option(c, optarg, o)) <= 0) {
				if (rc < 0)
					return rc;
				break;
			}
			if ((rc = table_option(c, optarg, o)) > 0)
				return bad("option", argv[optind - 1]);
			if (rc < 0)
				return rc;
		}
	}
	if ((rc = operands(argc, argv, o)) < 0)
		return rc;
	if (o->config && options_load(o, o->config) < 0)
		return -EINVAL;
	return 0;
}

/* A key the command line already set: its value is still checked (a bad
 * file is a bad file), then left as the command line gave it. */
static int given(const char *key, const char *option, int rc)
{
	if (rc == 0)
		log_info("config: %s left as %s gave it on the command line", key, option);
	return rc;
}

/* One config key of the options at ctx (a config_set_fn). */
static int set_key(void *ctx, const char *key, const char *value)
{
	struct options *o = ctx;
	unsigned workers, ms;

	if (strcmp(key, "workers") == 0) {
		if (o->given & OPT_GIVEN_WORKERS)
			return given(key, "--workers", parse_workers(value, &workers));
		return parse_workers(value, &o->workers);
	}
	if (strcmp(key, "idle_timeout") == 0) {
		if (o->given & OPT_GIVEN_IDLE_TIMEOUT)
			return given(key, "--idle-timeout", parse_seconds(value, &ms));
		return parse_seconds(value, &o->idle_timeout_ms);
	}
	return -ENOENT;
}

int options_load(struct options *o, const char *path)
{
	struct options next = *o;
	int rc = config_read(path, set_key, &next);

	if (rc == 0)
		*o = next;
	return rc;
}

unsigned options_workers(const struct options *o)
{
	unsigned n = o->workers ? o->workers : os_cpu_count();

	return n > RING_WORKERS ? RING_WORKERS : n;
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
