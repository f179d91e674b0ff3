/* The kinds of worker, one table entry each: a CPU worker, forked by the
 * master, and a GPU worker, a program of its own that the master execs so
 * that it never links CUDA. Supervision, the slots and --status read a
 * kind's entry and never ask which kind it is; a new kind is a new entry
 * (docs/changing.md). The table is data alone (kind.c), which --status and
 * the exporter read without linking a worker; what a kind does is
 * kind_run.c's, above the worker loop (worker.h), which knows no kind. */
#ifndef REVHASH_KIND_H
#define REVHASH_KIND_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct worker_start;

#define KINDS_MAX 4      /* entries of the table, at most */
#define KIND_UNITS_MAX 8 /* workers of one found kind (devices), at most */

/* What finding a kind's workers gave. */
struct kind_found {
	unsigned n;                 /* workers of this kind to run */
	int unit[KIND_UNITS_MAX];   /* each one's unit: its device */
	char path[PATH_MAX];        /* the binary to exec for them */
	int fd;                     /* it, opened and checked once, what each
	                               runs (fexecve); -1: none */
	char note[96];              /* for the log and --status: "off",
	                               "none (why)", or the devices' names */
};

struct worker_kind {
	const char *name;       /* its label in --status and the log; for a
	                           found kind, also its option (--NAME) */
	const char *count_key;  /* --status's JSON key for its worker count
	                           (NULL: none of its own; the CPU kind's is
	                           the worker count) */
	const char *count_help; /* and that count in a sentence (the
	                           exporter's HELP line) */
	const char *binary;     /* its program, probed and exec'd; NULL:
	                           forked, the worker loop in the master's
	                           image */
	const char *help;       /* its --NAME option, for --help (NULL: no
	                           options of its own) */
	uint64_t lease_ns;      /* a lease of it should take this long */
	uint64_t min_lease_ns;  /* the least worth a lease */
	int wall_clock;         /* its hashing time is the wall clock's (it
	                           waits on a device), not its CPU time */
};

/* The number of kinds. */
unsigned kind_count(void);
/* Kind i (as a slot records it), or NULL past the last. */
const struct worker_kind *kind_at(unsigned i);
/* The kind called name, or NULL. */
const struct worker_kind *kind_named(const char *name);
/* Is spec a valid --NAME argument of a found kind: auto, off, or a comma
 * list of unit numbers below KIND_UNITS_MAX, none twice (two workers on
 * one device would only share it)? */
int kind_spec_valid(const char *spec);

/* ---- kind_run.c: what a kind does ----------------------------------------- */

/* Find the workers of kind k that spec asks for ("auto": every unit
 * there is, none being no error; "off"; or a list of unit numbers, which
 * must all be there), running the program at path (NULL: k's binary,
 * looked for beside the master, then in the build's worker/), whose units
 * must have the search kernel named (NULL: any), with --probe [--kernel
 * NAME] (bounded in time): it prints the number of units and then one
 * name a line, or exits 2 when its units have no kernel NAME. A forked
 * kind finds none: its workers are counted (--workers). 0, or -EINVAL,
 * logged. */
int kind_find(const struct worker_kind *k, const char *spec, const char *path,
	      const char *kernel, struct kind_found *out);
/* Which kind and unit each of nslots slots is for (kind[i] -1: none):
 * the workers found of each kind (found[k]) take the top slots, which a
 * reload never moves; below them the counted kind's target workers take
 * the slots from 0 up, unit i in slot i. */
void kind_plan(const struct kind_found found[KINDS_MAX], unsigned target, unsigned nslots,
	       int kind[], unsigned unit[]);
/* In the child of the master's fork: become the worker w, of kind k (run
 * the worker loop, or exec k's program); never returns. */
void kind_become(const struct worker_kind *k, const struct worker_start *w);
/* Make w a worker of kind k: its clock, its lease length and least lease. */
void kind_fill(const struct worker_kind *k, struct worker_start *w);

#endif
