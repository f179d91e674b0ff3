/* The live scoreboard: the worker slots and counters already sit in the
 * shared segment, so `master --status PORT` maps it read-only and prints it,
 * and SIGUSR1 writes the same to the log. */
#ifndef REVHASH_STATUS_H
#define REVHASH_STATUS_H

#include "shm/ring.h"
#include "shm/segment.h"

#include <stddef.h>
#include <stdint.h>

/* One figure of the scoreboard: its JSON key, the words that name it in
 * the text (NULL: JSON only; a leading '\n' starts a line), its unit, and
 * its value. master/status.c lists each figure once. */
enum status_kind { STATUS_NUM, STATUS_REAL, STATUS_WORD };
struct status_figure {
	const char *key, *text, *unit;
	enum status_kind kind;
	uint64_t num;
	double real;
	const char *word; /* one of the segment's points into struct
	                     status_words: NUL-terminated, any other byte */
	int counter; /* it only ever grows (a count of events) */
	const char *help; /* what it is, in a sentence of its own (the
	                     exporter's HELP line) */
};

/* The words of the segment's the figures show, copied out of it: the
 * kernel's name and each kind's note, NUL included. */
#define STATUS_WORD_MAX 96
struct status_words {
	char word[1 + SEG_KINDS][STATUS_WORD_MAX];
	unsigned n;
};

/* The fixed figures, two per worker kind and one per policy rule, with
 * room to spare (status.c stops on one past it). */
#define STATUS_FIGURES_MAX 64

/* Print the status of the master on port (text or JSON) to stdout. 0, or
 * -ENOENT (no master), -ESRCH (its master is gone, the segment left over)
 * or -EPROTO (a damaged segment), said on stderr. */
int status_print(unsigned port, int json);
/* Arm test hook (enum ring_hook) once in the master on port. 0, -ENOENT
 * (no master), or -EPERM (started without REVHASH_TEST_HOOKS); said on
 * stderr. */
int status_arm_hook(unsigned port, int hook);
/* Log this master's status. */
void status_log(const struct seg *seg);
/* Every figure of the scoreboard of seg into f (STATUS_FIGURES_MAX at
 * most); returns how many. The words of the segment's are copied into
 * words, which the figures point into. */
size_t status_figures(const struct seg *seg, struct status_figure *f, struct status_words *words);
/* The kind of worker in a slot, as --status names it: its kind's name in
 * the table (worker/kind.c), "?" for none. */
const char *status_worker_kind(const struct ring_slot_view *v);
/* The name of a stage (enum seg_stage): "read", "dispatch"... */
const char *status_stage_name(int stage);
/* The name of a reply's outcome (enum seg_outcome): "cache_hit", "found",
 * "not_found". */
const char *status_outcome_name(int outcome);

#endif
