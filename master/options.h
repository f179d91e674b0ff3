/* Command-line options and the optional config file re-read on SIGHUP,
 * both read by one table (options.c), whose rows (below) also print
 * --help and the man page's list (options_man.c); the tests walk it. */
#ifndef REVHASH_OPTIONS_H
#define REVHASH_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "shm/policy.h"
#include "worker/kind.h"

#define OPT_LISTEN_MAX 8 /* --listen given at most this often */

struct options {
	unsigned port;
	uint64_t workers;          /* 0 = auto: one per CPU the master may use */
	const char *config;        /* re-read on SIGHUP; NULL = none */
	const char *kernel;        /* "auto" or a kernel name */
	const char *kind_spec[KINDS_MAX]; /* each found kind's --NAME: "auto"
	                              (NULL), "off" or a list of units */
	const char *kind_path[KINDS_MAX]; /* its --NAME-worker program; NULL:
	                              where worker/kind_exec.c looks */
	const char *kind_kernel[KINDS_MAX]; /* its --NAME-kernel; NULL: its
	                              program measures its own at start */
	uint64_t cache_entries;    /* answers the cache holds */
	/* --listen and --proxy-from: whole addresses, IPv4 as IPv4-mapped,
	 * parsed once, here. */
	uint8_t listen[OPT_LISTEN_MAX][16]; /* to listen on; none: every
	                              address */
	unsigned nlisten;
	const char *listen_unix;   /* --listen unix:PATH: the balancer's socket
	                              (every connection on it opens with a
	                              PROXY header); alone, no TCP at all */
	uint8_t proxy_from[OPT_LISTEN_MAX][16]; /* balancers that send a
	                              PROXY header first */
	unsigned nproxy;
	const char *user;          /* --user: run as this user once the port
	                              is bound (started as root) */
	uint64_t max_conns;        /* connections open at most; 0: auto */
	uint64_t peer_conns;       /* of them from one peer; 0: auto */
	uint64_t peer_searches;    /* searches one peer gives weight to; 0: auto */
	uint64_t peer_weight;      /* the weight one peer's searches share */
	unsigned idle_timeout_ms;  /* from accept, to send the whole request;
	                              also to read the reply */
	unsigned stop_timeout_ms;  /* graceful stop waits this long at most */
	unsigned max_wait_ms;      /* a client waits this long at most for its
	                              answer (0: no limit) */
	struct policy policy;       /* how jobs share the workers */
	int attach_repeats;        /* a repeat attaches to the search in flight */
	int pin;                   /* pin worker i to the i-th CPU */
	int sandbox;               /* confine the workers (seccomp) */
	int low_latency;           /* enum power_mode: hold the CPUs polling
	                              while busy (PM QoS) */
	unsigned low_latency_ms;   /* ... and this long after the last request */
	int poll;                  /* enum opt_poll: the master polls for
	                              events instead of sleeping while busy */
	unsigned poll_ms;          /* ... and this long after the last request */
	int verbose, quiet;
	int status, json;          /* --status [--json]: print, don't serve */
	int hook;                  /* --hook: arm this test hook (enum
	                              ring_hook) of a running master, or -1 */
	int help;                  /* --help was printed: exit 0 */
	uint64_t given;            /* the rows (bit i: row i) given on the
	                              command line, which a config file does
	                              not override */
};

/* --poll, --no-poll, or neither: on where the master has a CPU of its own
 * (server.c). */
enum opt_poll { OPT_POLL_AUTO = 0, OPT_POLL_ON, OPT_POLL_OFF };

/* Fill o from argv. 0 (to run, or with o->help after printing the usage),
 * or -EINVAL after printing what is wrong to stderr, in one line. */
int options_parse(int argc, char **argv, struct options *o);
/* Read the config file path into o (the rows with a key; a key whose
 * option was given on the command line is checked but left as given, and
 * said in the log). 0, or -errno / -EINVAL with the reason logged; o is
 * untouched on error. */
int options_load(struct options *o, const char *path);
/* The worker count o asks for, resolving 0 (auto) to os_cpu_count(), capped. */
unsigned options_workers(const struct options *o);
/* Resolve o's automatic caps for a process that may hold nofile
 * descriptors: connections below it with room for what else the master
 * opens, an eighth of them for one peer (OPT_PEER_CONNS_MAX at most), as
 * many searches as connections. */
void options_caps(struct options *o, long nofile);

/* ---- the table ------------------------------------------------------------ */

/* How a row reads its argument into its field. */
enum opt_type {
	OPT_SWITCH,  /* none: the int field := to */
	OPT_MODE,    /* [=S]: the int field := to, and S seconds into ms_at's */
	OPT_NUMBER,  /* a whole number in [min, max], or word for 0, into the
	                uint64_t field */
	OPT_SECONDS, /* seconds, at most max (0 only with min 0), into the
	                unsigned field, in ms */
	OPT_STRING,  /* a word, not empty and passing check, into the
	                const char * field (a kind's row: its kind's) */
	OPT_OTHER,   /* parse() reads it */
	OPT_POLICY,  /* the policy's options (shm/policy.h), from its table */
};

struct opt_row {
	const char *name;  /* --NAME; with %K, one for each found kind of
	                      worker, named after it */
	const char *arg;   /* its argument's name in --help; NULL: none; "[=S]":
	                      optional */
	enum opt_type type;
	size_t at;         /* its field: offsetof(struct options, ...) */
	size_t ms_at;      /* OPT_MODE: the field of its seconds */
	uint64_t min, max;
	int to;            /* OPT_SWITCH, OPT_MODE: what the field becomes */
	uint64_t n;        /* a number its text names (%N) */
	const char *word;  /* OPT_NUMBER: the word for 0 */
	int (*check)(const char *value);              /* OPT_STRING */
	int (*parse)(const char *value, struct options *o); /* OPT_OTHER */
	void (*list)(char *buf, size_t len);          /* its values (%L) */
	int machine;       /* the list is this build's: the man page, which
	                      is every build's, sends the reader to --help */
	const char *values; /* in a refusal: what the value may be */
	const char *help;  /* its sentence in --help and the man page */
	const char *key;   /* its key in the config file, or NULL */
};

/* In a row's texts: %D its default, %M its max, %N its n, %L its list,
 * %C the config file's keys, %K the kind's name, %H the kind's help
 * sentence, %B its program; %% a percent sign. */

/* The options the table makes, in order: each row, a %K row once for
 * each found kind (*kind: which). Start with *it zeroed; NULL past the
 * last. */
struct opt_it {
	size_t row;
	unsigned kind;
};
const struct opt_row *options_next(struct opt_it *it, unsigned *kind);
/* Row i of the table, NULL past the last. */
const struct opt_row *options_row(size_t i);
/* text with its placeholders filled for the option r makes for kind,
 * into buf (truncated to len). man: for the man page (a build's list is
 * not named). */
void options_text(const struct opt_row *r, unsigned kind, const char *text, int man,
		  char *buf, size_t len);
/* --help; man: as the man page has it (a build's list not named). */
void options_usage(FILE *out, int man);
/* The defaults every parse starts from. */
void options_defaults(struct options *o);

/* options_man.c: copy the man page in to out, its OPTIONS made anew from
 * the table between their marks. 0, or -EINVAL when a mark is missing. */
int options_man(FILE *in, FILE *out);

#endif
