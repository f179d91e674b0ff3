/* The machine during each run (see race_watch.h): every CPU's busy time
 * (/proc/stat) over the run, less the server's processes' and the race's
 * own, read as it starts and again as it ends. */
#include "bench/race/race_watch.h"

#include "lib/clock.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

void race_watch_find(struct out *o, const struct race_server *s, const struct target *t,
		     struct race_watch *w)
{
	int local = proctree_is_local(t->list->ai_addr), n;

	*w = (struct race_watch){ .where = RACE_UNKNOWN, .tree = s->pid };
	if (s->pid.n) {
		w->where = RACE_TREE;
	} else if (local == 0) {
		w->where = RACE_REMOTE;
		out_printf(o, "", "%s is not on this machine: all the CPU used here but the "
		       "race's is others'\n", s->name);
		return;
	} else if ((n = proctree_find_port(t->list->ai_addr, &w->tree)) > 0) {
		w->where = RACE_TREE;
	}
	if (w->where == RACE_UNKNOWN) {
		out_printf(o, "", "%s: no process this user can read holds its port: the CPU "
		       "others use during its runs is unknown (--pid %s=PID names "
		       "its process)\n", s->name, s->name);
		return;
	}
	out_printf(o, "", "%s's process%s:", s->name, w->tree.n > 1 ? "es" : "");
	for (unsigned k = 0; k < w->tree.n; k++)
		out_printf(o, "", " %d", (int)w->tree.pid[k]);
	out_printf(o, "", " (%s), and those below %s\n", s->pid.n ? "given by --pid" :
	       "holding its port", w->tree.n > 1 ? "them" : "it");
}

/* Read the machine, the race and the server's processes into r. */
static void take(const struct race_watch *w, struct race_reading *r)
{
	int err;

	r->why = NULL;
	r->tree = 0;
	if (machine_read(&r->cpu)) {
		r->why = "/proc/stat could not be read";
	} else if (proctree_self(&r->self)) {
		r->why = "the race's own /proc/PID/stat could not be read";
	} else if (w->where == RACE_TREE && (err = proctree_ticks(&w->tree, &r->tree))) {
		r->why = err == -ESRCH ? "a process of it is gone, or its pid is "
			 "another process's now" : err == -EINVAL ?
			 "a /proc/PID/stat did not parse" : "/proc could not be read";
	}
}

void race_watch_begin(struct race_watch *w)
{
	take(w, &w->before);
}

/* What b adds to a, as ticks: nothing where it went down (a process of
 * the tree that left it, reaped by another). */
static uint64_t gain(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

void race_watch_end(struct race_watch *w, struct race_leg *g)
{
	struct race_reading after;
	uint64_t own;

	g->others = -1;
	g->shared = 0;
	g->others_why = NULL;
	if (w->where == RACE_UNKNOWN)
		return; /* said once, before the race */
	take(w, &after);
	if ((g->others_why = w->before.why ? w->before.why : after.why))
		return;
	own = gain(w->before.tree, after.tree) + gain(w->before.self, after.self);
	g->shared = machine_others(&w->before.cpu, &after.cpu, own, &g->others);
	if (g->others < 0)
		g->others_why = "no time passed on /proc/stat's clock";
}

double race_watch_cpus(const struct race_watch *w, unsigned ms, double *idle)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };
	struct race_reading a, b;
	double busy;

	if (idle)
		*idle = -1;
	if (w->where != RACE_TREE)
		return -1;
	take(w, &a);
	while (nanosleep(&t, &t) && errno == EINTR)
		;
	take(w, &b);
	if (a.why || b.why)
		return -1;
	if (idle && (busy = machine_busy(&a.cpu, &b.cpu)) >= 0)
		*idle = (1 - busy) * b.cpu.cpus;
	return machine_cpus_used(&a.cpu, &b.cpu, gain(a.tree, b.tree));
}

void race_watch_leftovers(const struct race_watch *w, double bound_s, struct race_leg *g)
{
	uint64_t t0 = clock_ns();
	double used, idle;

	do {
		used = race_watch_cpus(w, MACHINE_SETTLE_MS, &idle);
		g->left_wait_s = (clock_ns() - t0) / 1e9;
		if (used >= 0 && used < MACHINE_KEPT_CPU && idle >= MACHINE_SPARE_CPU)
			return;
	} while (g->left_wait_s + MACHINE_SETTLE_MS / 1e3 <= bound_s);
	g->left_on = 1;
}
