/* The live scoreboard, read from the shared segment: `master --status`,
 * SIGUSR1's log lines and the exporter. Each figure is a row, made once
 * (status_make); the writers print the rows: text and JSON (status.c),
 * Prometheus's format (metrics.c). A row shows in the text when it has
 * words (text), in the JSON when it has a key (a list's rows always), as a
 * metric when it has a sentence (help). */
#ifndef REVHASH_STATUS_H
#define REVHASH_STATUS_H

#include "shm/segment.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum status_type {
	STATUS_NUM,   /* a whole number */
	STATUS_REAL,  /* a real number */
	STATUS_WORD,  /* words: each writer escapes them its way */
	STATUS_MEAN,  /* num times that took sum_ns: the mean in the text,
	                 KEY_sum (us) and KEY_count in the JSON, a summary */
	STATUS_HIST,  /* a histogram of times */
	STATUS_GROUP, /* the rows up to its STATUS_END: an object */
	STATUS_LIST,  /* the same, as an array (a table in the text) */
	STATUS_END,
};

struct status_row {
	enum status_type type;
	const char *key;    /* its JSON key; its metric's name is made of it */
	const char *text;   /* the words before it in the text (a leading '\n'
	                       starts a line); a list of groups: a table */
	const char *unit;   /* the words after it in the text */
	const char *help;   /* its metric's HELP, a sentence of its own */
	const char *metric; /* its metric's name where not made of the key;
	                       a group's: the one metric its rows are series
	                       of, each labelled label="its key" */
	const char *label;  /* a group's (above); a row of a list's group: it
	                       labels that group's series, label="its value" */
	int counter;        /* it only ever grows (a count of events) */
	uint64_t num;       /* NUM; MEAN: how many times */
	double real;        /* REAL */
	uint64_t sum_ns;    /* MEAN */
	const char *word;   /* WORD */
	const struct seg_hist *hist; /* HIST */
};

/* The words a row may show: the segment's, copied out once, and those
 * made of numbers (a lease). */
#define STATUS_WORD_MAX 96

struct status {
	struct status_row *row;
	size_t n;
	char (*word)[STATUS_WORD_MAX];
	size_t nwords;
	unsigned depth;             /* of the groups open while made */
	struct seg_latency latency; /* the histograms, read once */
};

/* Every row of seg's scoreboard into st, in order. 0, or -ENOMEM;
 * status_free() either way. */
int status_make(const struct seg *seg, struct status *st);
void status_free(struct status *st);
/* The writers of status.c. */
void status_text(FILE *out, const struct status *st);
void status_json(FILE *out, const struct status *st);
/* How status_word escapes a word for each writer. A byte that is no part
 * of a UTF-8 character, or a control character (C1's too), is '?'; but in
 * JSON a control character is \u00XX, and in Prometheus's text '\n' "\\n". */
enum status_esc {
	STATUS_ESC_TEXT,  /* nothing escaped */
	STATUS_ESC_JSON,  /* '"' and '\\' (in a JSON string) */
	STATUS_ESC_HELP,  /* '\\' (a Prometheus HELP) */
	STATUS_ESC_LABEL, /* '"' and '\\' (a Prometheus label's value) */
};
/* Write s, a word of the segment's (whatever bytes its writers left). */
void status_word(FILE *out, const char *s, enum status_esc esc);
/* Map the live master's segment on port (rw: read-write), or say why not
 * on stderr, as option what: -ENOENT (no master), -ESRCH (its master is
 * gone) or -EPROTO (damaged). */
int status_open(const char *what, unsigned port, int rw, struct seg *seg);
/* Print the status of the master on port to stdout. 0, or status_open's
 * error. */
int status_print(unsigned port, int json);
/* Log this master's status. */
void status_log(const struct seg *seg);

#endif
