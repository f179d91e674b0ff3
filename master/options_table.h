/* The master's options as one table (options.c): each row parses its
 * option, explains it in --help and in the man page (options_man.c), and
 * names its config file key; the tests walk it too. */
#ifndef REVHASH_OPTIONS_TABLE_H
#define REVHASH_OPTIONS_TABLE_H

#include "master/options.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
