/* Command-line options and the config file re-read on SIGHUP, read by one
 * table (options.c) that also prints --help and the man page's list. */
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
	const char *kind_spec[KINDS_MAX]; /* each kind's --NAME (NULL: auto) */
	const char *kind_path[KINDS_MAX]; /* its --NAME-worker, or NULL */
	const char *kind_kernel[KINDS_MAX]; /* its --NAME-kernel, or NULL */
	uint64_t cache_entries;
	/* Whole addresses, IPv4 as IPv4-mapped. */
	uint8_t listen[OPT_LISTEN_MAX][16]; /* none: every address */
	unsigned nlisten;
	const char *listen_unix;   /* --listen unix:PATH: the balancer's socket */
	uint8_t proxy_from[OPT_LISTEN_MAX][16];
	unsigned nproxy;
	const char *user;          /* run as this user once the port is bound */
	uint64_t max_conns;        /* connections open at most; 0: auto */
	uint64_t peer_conns;       /* of them from one peer; 0: auto */
	uint64_t peer_searches;    /* searches one peer gives weight to; 0: auto */
	uint64_t peer_weight;      /* the weight one peer's searches share */
	unsigned idle_timeout_ms;
	unsigned stop_timeout_ms;
	unsigned max_wait_ms;      /* 0: no limit */
	struct policy policy;
	int attach_repeats;
	int pin;
	int sandbox;
	int low_latency;           /* enum opt_auto */
	unsigned low_latency_ms;
	int poll;                  /* enum opt_auto */
	unsigned poll_ms;
	int verbose, quiet;
	int status, json;
	int hook;                  /* enum ring_hook to arm, or -1 */
	int help;                  /* --help was printed: exit 0 */
	uint64_t given;            /* bit i: row i on the command line */
};

/* A switch of three: --X, --no-X, or neither (the server decides). */
enum opt_auto { OPT_AUTO = 0, OPT_ON, OPT_OFF };

/* Fill o from argv. 0 (with o->help: the usage printed), or -EINVAL with
 * what is wrong said on stderr, in one line. */
int options_parse(int argc, char **argv, struct options *o);
/* Read the config file path into o (a key given on the command line is
 * checked, but left as given). 0, or -errno / -EINVAL logged; o untouched
 * on error. */
int options_load(struct options *o, const char *path);
/* The worker count o asks for, resolving 0 (auto) to os_cpu_count(), capped. */
unsigned options_workers(const struct options *o);
/* Resolve o's automatic caps for a process that may hold nofile
 * descriptors. */
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
	OPT_POLICY,  /* the policy's options, from its own table */
};

struct opt_row {
	const char *name;  /* --NAME; with %K, one for each found kind */
	const char *arg;   /* in --help; NULL: none; "[=S]": optional */
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
	int machine;       /* the list is this build's (man: see --help) */
	const char *values; /* in a refusal: what the value may be */
	const char *help;  /* its sentence in --help and the man page */
	const char *key;   /* its key in the config file, or NULL */
};

/* In a row's texts: %D its default, %M its max, %N its n, %L its list,
 * %C the config file's keys, %K the kind's name, %H the kind's help
 * sentence, %B its program; %% a percent sign. */

/* The options the table makes, in order, a %K row once per found kind
 * (*kind: which). Start with *it zeroed; NULL past the last. */
struct opt_it {
	size_t row;
	unsigned kind;
};
const struct opt_row *options_next(struct opt_it *it, unsigned *kind);
/* Row i of the table, NULL past the last. */
const struct opt_row *options_row(size_t i);
/* text with its placeholders filled for r and kind, into buf (truncated
 * to len). man: for the man page (a build's list not named). */
void options_text(const struct opt_row *r, unsigned kind, const char *text, int man,
		  char *buf, size_t len);
/* --help; man: as the man page has it (a build's list not named). */
void options_usage(FILE *out, int man);
#define OPT_HELP_COLUMN 25 /* where its sentences start */
/* The defaults every parse starts from. */
void options_defaults(struct options *o);

/* options_man.c: copy the man page in to out, its OPTIONS made anew
 * between their marks. 0, or -EINVAL when a mark is missing. */
int options_man(FILE *in, FILE *out);

#endif
