/* What the race watches of the machine during each run: the CPU that
 * everything but the server under test and the race itself used. The
 * server is its processes: those the user named with --pid, or else the
 * ones that hold its listening port, with every process below them
 * (bench/race/proctree.h). A server on another machine uses no CPU here, so
 * all the CPU used here but the race's is others'. Nothing it reads is
 * trusted: what cannot be read or does not add up is unknown, said so
 * under the round, and flags no run: such a run is judged as if the
 * machine were not watched during it. */
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

/* Give the server named NAME in word, NAME=PID, the process PID: its CPU,
 * and that of every process below it, is the server's and not others'
 * (bench/race/proctree.h). A NAME of a server of p, a PID of a process that
 * is there now (its start time is kept: a pid that is reused later is
 * known as another process), at most PROCTREE_ROOTS a server. 0, or
 * -EINVAL after saying on stderr what is wrong with the word. */
int race_add_pid(const char *word, struct race_params *p);
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
 * use under MACHINE_KEPT_CPU over MACHINE_SETTLE_MS while half a CPU or
 * more stands idle (a search that goes on would take it: on a machine
 * kept busy by others, a search slowed to a crawl looks ended), up to
 * bound_s, into g->left_wait_s, and g->left_on when the bound came
 * first (or their CPU could not be read). */
void race_watch_leftovers(const struct race_watch *w, double bound_s, struct race_leg *g);

#endif
