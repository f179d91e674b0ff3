/* What the race watches of the machine during each run: the CPU that
 * everything but the server under test and the race used (docs/race.md:
 * The machine). The server is its processes, given by --pid or found
 * holding its port, and every process below them (bench/race/proctree.h).
 * Nothing read is trusted: what cannot be read or does not add up is
 * unknown, said under the round, and flags no run. */
#ifndef REVHASH_BENCH_RACE_WATCH_H
#define REVHASH_BENCH_RACE_WATCH_H

#include <stdint.h>

#include "bench/client.h"
#include "bench/out.h"
#include "bench/race/machine.h"
#include "bench/race/proctree.h"
#include "bench/race/race.h"

/* Where a server's processes are. */
enum race_where {
	RACE_REMOTE,  /* on another machine: none here */
	RACE_TREE,    /* here, and known */
	RACE_UNKNOWN, /* here, but no process this user can read holds its port */
};

/* One reading of the machine, the server's processes and the race's. */
struct race_reading {
	struct machine_cpu cpu;
	uint64_t tree, self; /* clock ticks */
	const char *why;     /* why the reading failed, or NULL */
};

/* One server, as watched. */
struct race_watch {
	enum race_where where;
	struct proctree tree;
	struct race_reading before; /* the run's start */
};

/* Find server s's processes (resolved at t) into w, and say into o
 * where they are. */
void race_watch_find(struct out *o, const struct race_server *s, const struct target *t,
		     struct race_watch *w);
/* Read the machine as the run starts. */
void race_watch_begin(struct race_watch *w);
/* Read it as the run ends, and set the leg's others, others_why and
 * shared. */
void race_watch_end(struct race_watch *w, struct race_leg *g);
/* The CPUs the server's processes use over the next ms milliseconds (a
 * probe the race closed, a run just over): -1 where they are unknown;
 * and the machine's CPUs left idle meanwhile into *idle, when not NULL
 * (-1: unknown). */
double race_watch_cpus(const struct race_watch *w, unsigned ms, double *idle);
/* After a probe the race closed, where they were busy: wait until they
 * use under MACHINE_KEPT_CPU while MACHINE_SPARE_CPU stands idle (a search
 * that went on would take it), up to bound_s, into g->left_wait_s, and
 * g->left_on when the bound came first (or their CPU could not be read). */
void race_watch_leftovers(const struct race_watch *w, double bound_s, struct race_leg *g);

#endif
