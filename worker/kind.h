/* The kinds of worker, one table entry each (kind.c): a CPU worker, forked
 * by the master, and a GPU worker, a binary of its own that the master
 * forks and execs so that it never links CUDA. Every worker, whatever its
 * kind, leases ranges from the ring and reports back through its slot, so
 * supervision (master/workers.c), the slots and --status read a kind's
 * entry and never ask which kind it is. A new kind is a new entry: its
 * name, how its workers are found and how one becomes a worker, its lease
 * length and its clock (docs/changing.md).
 *
 * The kinds sit above the worker loop (worker.h): a kind starts a worker
 * and gives it its lease lengths and clock (kind_fill); the loop knows no
 * kind. */
#ifndef REVHASH_KIND_H
#define REVHASH_KIND_H

#include <limits.h>
#include <stdint.h>

struct worker_start;

#define KINDS_MAX 4      /* entries of the table, at most */
#define KIND_UNITS_MAX 8 /* workers of one found kind (devices), at most */

/* What finding a kind's workers gave. */
struct kind_found {
	unsigned n;                 /* workers of this kind to run */
	int unit[KIND_UNITS_MAX];   /* each one's unit: its device */
	char path[PATH_MAX];        /* the binary to exec for them */
	char note[96];              /* for the log and --status: "off",
	                               "none (why)", or the devices' names */
};

struct worker_kind {
	const char *name;       /* its label in --status and the log; for a
	                           found kind, also its option (--NAME) */
	const char *count_key;  /* --status's JSON key for its worker count */
	const char *count_help; /* and that count in a sentence (the
	                           exporter's HELP line) */
	const char *binary;     /* a found kind's program, looked for beside
	                           the master, then in the build's worker/ */
	const char *help;       /* a found kind's --NAME option, for --help */
	uint64_t lease_ns;      /* a lease of it should take this long */
	uint64_t min_lease_ns;  /* the least worth a lease */
	int wall_clock;         /* its hashing time is the wall clock's (it
	                           waits on a device), not its CPU time */
	/* Find the workers spec asks for ("auto": every unit there is, none
	 * being no error; "off"; or a list of unit numbers, which must all be
	 * there), running the program at path (NULL: found as said above),
	 * whose units must have the search kernel names (NULL: any).
	 * NULL for exactly one kind, the CPU's, whose count is the worker
	 * count (--workers, re-read on HUP). 0, or -EINVAL with the reason
	 * logged. */
	int (*find)(const struct worker_kind *k, const char *spec, const char *path,
		    const char *kernel, struct kind_found *out);
	/* In the child of the master's fork: become the worker w, of kind
	 * k; never returns. */
	void (*become)(const struct worker_kind *k, const struct worker_start *w);
};

/* The number of kinds. */
unsigned kind_count(void);
/* Kind i (as a slot records it), or NULL past the last. */
const struct worker_kind *kind_at(unsigned i);
/* The kind called name, or NULL. */
const struct worker_kind *kind_named(const char *name);
/* Is spec a valid --NAME argument of a found kind: auto, off, or a comma
 * list of unit numbers below KIND_UNITS_MAX, none twice? */
int kind_spec_valid(const char *spec);
/* Make w a worker of kind k: its clock, and its lease length and least
 * lease where w leaves them 0. */
void kind_fill(const struct worker_kind *k, struct worker_start *w);

/* ---- kind_exec.c: the kinds whose workers are programs of their own ----- */

/* find for such a kind: run its program with --probe [--kernel NAME]
 * (bounded in time), which prints the number of units and then one name a
 * line, or exits 2 when its units have no kernel NAME. */
int kind_exec_find(const struct worker_kind *k, const char *spec, const char *path,
		   const char *kernel, struct kind_found *out);
/* become for such a kind: exec its program with --serve and the worker's
 * segment, slot, master, eventfd, unit, kind's name and kernel. */
void kind_exec_become(const struct worker_kind *k, const struct worker_start *w);

#endif
