/* The race (see race.h): rounds of legs, a leg being one server's probe
 * and then its run of the round's workload, each round with its own seed
 * and the order alternating. Any server may be raced, so everything it
 * does is bounded and nothing it does stops the race, and the machine
 * is watched around each leg. Why each of these: docs/race.md. */
#include "bench/race/race.h"
#include "bench/calibrate.h"
#include "bench/race/machine.h"
#include "bench/race/race_report.h"
#include "bench/replay.h"
#include "bench/runcsv.h"
#include "bench/simulate.h"
#include "bench/race/verdict.h"
#include "lib/clock.h"
#include "lib/os.h"
#include "shm/ring.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* --- the machine around a run ------------------------------------------- */

/* One reading of the machine, the server's processes and the race's. */
struct reading {
	struct machine_cpu cpu;
	uint64_t tree, self; /* clock ticks */
	const char *why;     /* why the reading failed, or NULL */
};

/* One server, as watched: during its run, the CPU everything but it and
 * the race used is every CPU's busy time less theirs. Nothing read is
 * trusted: what cannot be read or does not add up is unknown, said
 * under the round, and flags no run. Its processes (docs/race.md: The
 * server's processes) are given by --pid or found holding its port,
 * with every process below; none on another machine. */
struct watch {
	struct proctree tree;
	int unknown;           /* here, but no process this user can read
				* holds its port */
	struct reading before; /* the run's start */
};

/* Find server s's processes (resolved at t) into w, and say into o
 * where they are. */
static void watch_find(struct out *o, const struct race_server *s, const struct target *t,
		       struct watch *w)
{
	int local = proctree_is_local(t->list->ai_addr);

	*w = (struct watch){ .tree = s->pid };
	if (!s->pid.n && local == 0) {
		out_printf(o, "", "%s is not on this machine: all the CPU used here but the "
		       "race's is others'\n", s->name);
		return;
	}
	if (!s->pid.n && proctree_find_port(t->list->ai_addr, &w->tree) <= 0) {
		w->unknown = 1;
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

/* Read the machine, the race and the server's processes into r: 0, or
 * -1 when the machine could not be read. */
static int take(const struct watch *w, struct reading *r)
{
	struct os_stat me = { 0 };
	int err;

	r->why = NULL;
	r->tree = 0;
	if (machine_read(&r->cpu)) {
		r->why = "/proc/stat could not be read";
		return -1;
	} else if (os_stat(getpid(), &me)) {
		r->why = "the race's own /proc/PID/stat could not be read";
	} else if (w->tree.n && (err = proctree_ticks(&w->tree, &r->tree))) {
		r->why = err == -ESRCH ? "a process of it is gone, or its pid is "
			 "another process's now" : err == -EINVAL ?
			 "a /proc/PID/stat did not parse" : "/proc could not be read";
	}
	r->self = me.ticks + me.child_ticks; /* its threads and reaped children too */
	return 0;
}

/* What b adds to a, as ticks: nothing where it went down (a process of
 * the tree that left it, reaped by another). */
static uint64_t gain(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

/* Read the machine as the run ends, and set the leg's others, others_why
 * and shared. */
static void watch_end(struct watch *w, struct race_leg *g)
{
	struct reading after;
	uint64_t own;

	g->others = -1;
	g->shared = 0;
	g->others_why = NULL;
	if (w->unknown)
		return; /* said once, before the race */
	take(w, &after);
	if ((g->others_why = w->before.why ? w->before.why : after.why))
		return;
	own = gain(w->before.tree, after.tree) + gain(w->before.self, after.self);
	g->shared = machine_others(&w->before.cpu, &after.cpu, own, &g->others);
	if (g->others < 0)
		g->others_why = "no time passed on /proc/stat's clock";
}

/* The CPUs the server's processes use over the next ms milliseconds (a
 * probe the race closed, a run just over, a wait): -1 where they are
 * unknown or none are watched; and the machine's busy share meanwhile
 * into *busy (-1: unknown) and its CPUs into *cpus. */
static double watch_cpus(const struct watch *w, unsigned ms, double *busy, unsigned *cpus)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };
	struct reading a, b;
	int bad = take(w, &a);

	while (nanosleep(&t, &t) && errno == EINTR)
		;
	bad |= take(w, &b);
	*busy = bad ? -1 : machine_busy(&a.cpu, &b.cpu);
	*cpus = bad ? 0 : b.cpu.cpus;
	if (!w->tree.n || a.why || b.why)
		return -1;
	return machine_cpus_used(&a.cpu, &b.cpu, gain(a.tree, b.tree));
}

/* Wait, up to bound_s, for a window of MACHINE_SETTLE_MS that is quiet:
 * where w watches no process, the machine under MACHINE_IDLE busy (before
 * a leg); else w's processes under MACHINE_KEPT_CPU while
 * MACHINE_SPARE_CPU stands idle (a search that went on would take it).
 * The last window's busy share into *busy, the time waited into
 * *waited_s. 1 when quiet, 0 when the bound came first, -1 when the
 * machine could not be read. */
static int wait_quiet(const struct watch *w, double bound_s, double *busy, double *waited_s)
{
	uint64_t t0 = clock_ns();
	unsigned cpus;
	double used;

	do {
		used = watch_cpus(w, MACHINE_SETTLE_MS, busy, &cpus);
		*waited_s = (clock_ns() - t0) / 1e9;
		if (*busy < 0)
			return -1;
		if (w->tree.n ? used >= 0 && used < MACHINE_KEPT_CPU &&
				(1 - *busy) * cpus >= MACHINE_SPARE_CPU : *busy < MACHINE_IDLE)
			return 1;
	} while (*waited_s + MACHINE_SETTLE_MS / 1e3 <= bound_s);
	return 0;
}

/* --- one leg: probe, run, judge ---------------------------------------- */

struct race {
	const struct race_params *p;
	struct out *out;
	struct target target[RACE_MAX_SERVERS];
	struct watch watch[RACE_MAX_SERVERS];
	struct wl_params wl;       /* the round's */
	struct wl_request *reqs;   /* the round's requests */
	struct result *res;        /* the leg's results */
	double *arrival, *own_lat, *best_lat;
	struct race_leg *legs;     /* [(round - 1) * n + server] */
	FILE *csv;
	int delay_set;             /* a load preset's delay is known */
	unsigned unprobed[RACE_MAX_SERVERS]; /* race_leg's, once seen */
	struct calibrate_bound bound[RACE_MAX_SERVERS]; /* of its probes */
	double peak_of[RACE_MAX_SERVERS]; /* 0: a server on another machine */
};

/* The ideal servers at the leg's rate on its send times (sim_ideal): the
 * default policy's (for the CSV) and the best, whose score over the
 * run's is the efficiency. */
static void rate_leg(struct race *r, struct race_leg *g)
{
	const unsigned cpus = os_cpus_upto(RING_WORKERS);
	const struct sim_policy own = { policy_default(), cpus, cpus, NULL };
	struct sim_ideal id = { .own_lat = r->own_lat, .best_lat = r->best_lat };
	uint64_t n = r->wl.total;

	if (!g->rate)
		return;
	for (uint64_t i = 0; i < n; i++)
		r->arrival[i] = r->res[i].send_ns / 1e3;
	if (sim_ideal(r->reqs, r->arrival, n, g->rate, &own, &id))
		return;
	g->rated = 1;
	g->eff_kind = stats_efficiency(id.best_score, g->s.score, &g->eff);
	if (id.best_score >= 0.5 && g->s.score > 0)
		g->speed = id.best_score / g->s.score;
}

/* A probe request's bound, and the longest wait for a server to end the
 * search of one the race closed: docs/race.md (Bounded probes). */
static int64_t probe_bound_ns(const struct race_params *p)
{
	return (int64_t)(fmin(p->timeout_ms / 1000.0,
			      fmax(RACE_PROBE_FLOOR_S, 10 * p->probe_s)) * 1e9);
}

/* Probe server i's rate into *rate, each request bounded by
 * probe_bound_ns(), and sized so that a server that never cancels is done
 * with it within that bound again of its close, at the slowest rate it
 * showed in the race (r->bound): 0, or calibrate_rate()'s error. A
 * request must take --probe, at most an eighth of --timeout (they aim at
 * twice that, and may overshoot). */
static int probe(struct race *r, unsigned i, double *rate)
{
	struct target *t = &r->target[i];
	int64_t whole = t->timeout_ns;
	int err;

	t->timeout_ns = probe_bound_ns(r->p);
	r->bound[i].most_s = 2 * probe_bound_ns(r->p) / 1e9;
	err = calibrate_rate(t, fmin(r->p->probe_s, r->p->timeout_ms / 1000.0 / 8), NULL,
			     &r->bound[i], rate);
	t->timeout_ns = whole;
	return err;
}

/* Was the leg faster than hashing allows (docs/race.md)? Its fresh
 * requests' work is the values up to each answer, repeats left out. An
 * ideal server k times faster scores at least k times better, so the
 * efficiency at the fastest rate shown is at most the leg's over k. */
static void judge_speed(const struct race *r, unsigned round, unsigned i,
			struct race_leg *g)
{
	struct verdict_speed s = { .rate = g->rate, .peak = r->peak_of[i] };

	for (unsigned k = 1; k < round; k++) /* the fastest probe of the rounds before */
		s.rate = fmax(s.rate, r->legs[(k - 1) * r->p->n + i].rate);
	if (g->rate)
		s.efficiency = g->speed * g->rate / s.rate;
	for (uint64_t k = 0; k < r->wl.total; k++) {
		const struct wl_request *q = &r->reqs[k];

		if (q->copy_of >= 0 || r->res[k].outcome != OUT_OK)
			continue;
		s.work += (double)(q->answer - q->start + 1);
		s.latency_s += r->res[k].latency_ns / 1e9;
	}
	g->fast = verdict_too_fast(&s);
	g->fast_by = s;
}

/* Judge the leg's speed; where its probe's rate says it was too fast,
 * probe again, and judge it at the second probe when that one is faster:
 * a neighbour can slow one probe several times over, a cache is a
 * hundred times faster. */
static void check_speed(struct race *r, unsigned round, unsigned i,
			struct race_leg *g)
{
	double again;

	judge_speed(r, round, i, g);
	if (!g->rate ||
	    (g->fast != VERDICT_FAST_EFFICIENCY && g->fast != VERDICT_FAST_LATENCY) ||
	    probe(r, i, &again) ||
	    again <= g->rate)
		return;
	g->reprobed = g->rate;
	g->rate = again;
	g->speed = 0;
	rate_leg(r, g);
	judge_speed(r, round, i, g);
}

/* Count the wrong answers and the missing ones by cause. */
static void tally(const struct race *r, struct race_leg *g)
{
	for (uint64_t i = 0; i < r->wl.total; i++) {
		const struct result *res = &r->res[i];
		unsigned c = 0;

		g->wrong += res->outcome == OUT_WRONG;
		if (res->outcome != OUT_MISSING)
			continue;
		g->missing++;
		while (c < RACE_CAUSES && g->cause_n[c] && g->cause[c] != res->err)
			c++;
		if (c < RACE_CAUSES) {
			g->cause[c] = res->err;
			g->cause_n[c]++;
		}
	}
}

static void csv_rows(struct race *r, unsigned round, unsigned i,
		     const struct race_leg *g)
{
	for (uint64_t k = 0; k < r->wl.total; k++) {
		fprintf(r->csv, "%u,%s,%" PRIu64 ",", round, r->p->server[i].name,
			r->wl.seed);
		if (g->rate)
			fprintf(r->csv, "%.0f", g->rate);
		fputc(',', r->csv);
		runcsv_row(r->csv, k, r->reqs, r->res, g->rated ? r->own_lat : NULL,
			   g->rated ? r->best_lat : NULL);
	}
}

/* A preset whose delay follows the rate takes it from the race's first
 * probe, and keeps it for every leg: one workload for all. */
static int set_delay(struct race *r, const struct race_leg *g, unsigned i)
{
	const struct wl_preset *w = r->p->preset;
	uint64_t seed = r->wl.seed;

	if (r->delay_set || !w || !w->load)
		return 0;
	if (wl_preset_params(w, g->rate, &r->wl)) {
		errno = -g->probe_err;
		fprintf(stderr, "revhash-bench: --race: %s sets its delay from "
			"the first probe, %s's, which failed (%m): no race\n",
			w->name, r->p->server[i].name);
		return -EINVAL;
	}
	r->wl.seed = seed;
	r->delay_set = 1;
	out_printf(r->out, "preset delay_us load_pct rate_of rate_mhs",
		   "%s: delay %" PRIu64 " us, for a load of %.0f%% at %s's rate "
		   "(%.3f M hashes/s)\n", w->name, r->wl.delay_us, w->load * 100,
		   r->p->server[i].name, g->rate / 1e6);
	return 0;
}

/* Before the leg: wait for the machine to be idle, up to --settle. A
 * machine that cannot be read is not watched, and the race goes on. */
static void wait_idle(const struct race_params *p, struct race_leg *g)
{
	static const struct watch machine; /* no process: the machine alone */
	int idle;

	if (!p->settle_s)
		return;
	idle = wait_quiet(&machine, p->settle_s, &g->before, &g->waited_s);
	g->watched = idle >= 0;
	g->not_idle = idle == 0;
	g->after = g->after_own = -1;
}

/* After the run: did the server keep the CPUs busy, searching what no
 * one asks for any more? By its own processes' CPU where they are known,
 * else by the machine's share against the one before the leg. */
static void watch_after(struct race *r, unsigned i, struct race_leg *g)
{
	unsigned cpus;

	if (!g->watched)
		return;
	g->after_own = watch_cpus(&r->watch[i], MACHINE_AFTER_MS, &g->after, &cpus);
	if (g->after_own >= 0)
		g->kept_busy = g->after_own > MACHINE_KEPT_CPU;
	else
		g->kept_busy = machine_kept_busy(g->before, g->after, cpus);
}

/* After a probe request the race closed at its bound: did the server
 * search on? One seen doing so is probed no more, and its run waits for
 * that search to end, up to the probe's bound. */
static void watch_probe(struct race *r, unsigned round, unsigned i,
			struct race_leg *g)
{
	double busy;
	unsigned cpus;

	g->probe_left = watch_cpus(&r->watch[i], MACHINE_AFTER_MS, &busy, &cpus);
	if (!(g->probe_left > MACHINE_KEPT_CPU))
		return;
	r->unprobed[i] = round;
	g->left_bound_s = probe_bound_ns(r->p) / 1e9;
	/* A machine that cannot be read says nothing of the search. */
	g->left_on = wait_quiet(&r->watch[i], g->left_bound_s, &busy, &g->left_wait_s) == 0;
}

/* Server i's leg of round r: probe, run, figures, CSV rows. 0, or
 * -EINVAL when the race cannot go on (no delay for its workload). */
static int run_leg(struct race *r, unsigned round, unsigned i)
{
	struct race_leg *g = &r->legs[(round - 1) * r->p->n + i];
	uint64_t n = r->wl.total, t0;

	wait_idle(r->p, g);
	g->others = g->probe_left = -1;
	g->unprobed = r->unprobed[i];
	if (r->p->calibrate && !g->unprobed &&
	    (g->probe_err = probe(r, i, &g->rate)))
		g->rate = 0;
	if (g->probe_err == -ETIMEDOUT && r->p->settle_s && r->watch[i].tree.n)
		watch_probe(r, round, i, g);
	if (set_delay(r, g, i))
		return -EINVAL;
	if (r->p->settle_s)
		take(&r->watch[i], &r->watch[i].before);
	t0 = clock_ns();
	g->run_err = replay_run(&r->target[i], r->reqs, n, r->wl.delay_us, NULL, r->res);
	g->seconds = (clock_ns() - t0) / 1e9;
	if (r->p->settle_s)
		watch_end(&r->watch[i], g);
	watch_after(r, i, g);
	if (g->run_err)
		for (uint64_t k = 0; k < n; k++)
			r->res[k] = (struct result){ .outcome = OUT_MISSING,
						     .err = g->run_err };
	replay_summarize(r->reqs, r->res, n, &g->s);
	tally(r, g);
	rate_leg(r, g);
	check_speed(r, round, i, g);
	if (r->csv)
		csv_rows(r, round, i, g);
	race_report_progress(r->p, round, i, g);
	return 0;
}

/* --- the race ---------------------------------------------------------- */

static int run_round(struct race *r, unsigned round)
{
	const struct race_params *p = r->p;
	unsigned order[RACE_MAX_SERVERS];

	r->wl.seed = (uint32_t)(p->wl.seed + round - 1); /* srand()'s range */
	if (wl_generate(&r->wl, r->reqs))
		return -EINVAL;
	for (unsigned k = 0; k < p->n; k++)
		order[k] = verdict_order(round, p->n, k);
	race_report_round_start(r->out, p, round, r->wl.seed, order);
	for (unsigned k = 0; k < p->n; k++)
		if (run_leg(r, round, order[k]))
			return -EINVAL;
	race_report_round(r->out, p, &r->legs[(round - 1) * p->n]);
	fflush(stdout);
	return 0;
}

/* Resolve the servers and open the outputs: 0, or -errno (said). */
static int start(struct race *r)
{
	const struct race_params *p = r->p;
	uint64_t n = p->wl.total;
	struct machine_peak peak;

	for (unsigned i = 0; i < p->n; i++) {
		if (client_resolve(&r->target[i], p->server[i].host, p->server[i].port))
			return -EINVAL;
		r->target[i].timeout_ns = p->timeout_ms * 1000000LL;
	}
	r->reqs = calloc(n, sizeof *r->reqs);
	r->res = calloc(n, sizeof *r->res);
	r->arrival = calloc(3 * n, sizeof *r->arrival); /* own_lat and best_lat too */
	r->legs = calloc((size_t)p->rounds * p->n, sizeof *r->legs);
	if (!r->reqs || !r->res || !r->arrival || !r->legs) {
		fprintf(stderr, "revhash-bench: --race: out of memory\n");
		return -ENOMEM;
	}
	r->own_lat = r->arrival + n;
	r->best_lat = r->own_lat + n;
	if (p->plot && race_plot_check())
		return -ENOENT;
	if (p->csv && !(r->csv = fopen(p->csv, "w"))) {
		int err = -errno;

		fprintf(stderr, "fopen(%s): %m\n", p->csv);
		return err;
	}
	if (r->csv)
		fprintf(r->csv, "round,server,seed,rate," RUNCSV_COLUMNS "\n");
	/* Last: a race that cannot start prints nothing on stdout. */
	out_lines(r->out, "machine");
	for (unsigned i = 0; p->settle_s && i < p->n; i++)
		watch_find(r->out, &p->server[i], &r->target[i], &r->watch[i]);
	machine_peak(&peak);
	for (unsigned i = 0; i < p->n; i++)
		if (proctree_is_local(r->target[i].list->ai_addr) == 1)
			r->peak_of[i] = peak.rate;
	race_report_peak(r->out, p, &peak, r->peak_of);
	out_end(r->out);
	return 0;
}

/* Play the rounds, up to p->rounds, or until every pair is decided after
 * a pair of rounds with until_decided. How many were played, or 0 when
 * the race could not go on. */
static unsigned play(struct race *r)
{
	const struct race_params *p = r->p;
	unsigned played = 0;

	out_array(r->out, "rounds");
	while (played < p->rounds) {
		if (run_round(r, ++played)) {
			played = 0;
			break;
		}
		if (p->until_decided && played % 2 == 0 &&
		    race_report_decided(p, r->legs, played))
			break;
	}
	out_end(r->out);
	return played;
}

int race_run(const struct race_params *params, struct out *o)
{
	struct race_params q = *params, *p = &q;
	struct race r = { .p = p, .out = o, .wl = p->wl };
	int status = 2;

	if (start(&r))
		goto out;
	status = 1;
	/* Each look of --until-decided at a share of the level. */
	q.alpha = q.until_decided ? verdict_look_alpha(q.rounds, VERDICT_ALPHA) :
		  VERDICT_ALPHA;
	if (!(q.rounds = play(&r)))
		goto out;
	status = race_report_end(o, p, r.legs);
out:
	if (r.csv && (ferror(r.csv) | fclose(r.csv))) {
		fprintf(stderr, "writing %s: %m\n", p->csv);
		status = status ? status : 1;
	}
	for (unsigned i = 0; i < p->n; i++)
		client_free(&r.target[i]);
	free(r.reqs);
	free(r.res);
	free(r.arrival);
	free(r.legs);
	return status;
}
