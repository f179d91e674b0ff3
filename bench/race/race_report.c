/* The race's report (see race_report.h). Tables list the servers in the
 * order given, whatever order they ran in, so a column reads down the
 * rounds; reliability comes first in the summary and the verdicts. */
#include "bench/race/race_report.h"
#include "bench/race/machine.h"
#include "bench/race/verdict.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define TEXT 512 /* a verdict's sentence */

/* What a missing answer's reason reads as. */
static const char *cause_text(int err)
{
	return err == -ENODATA ? "closed before the full reply" :
	       err == -ETIMEDOUT ? "timed out" : strerror(-err);
}

/* The width of the name column: the longest name, or "server". */
static int name_width(const struct race_params *p)
{
	size_t w = strlen("server");

	for (unsigned i = 0; i < p->n; i++)
		if (strlen(p->server[i].name) > w)
			w = strlen(p->server[i].name);
	return (int)w;
}

void race_report_progress(const struct race_params *p, unsigned round,
			  unsigned i, const struct race_leg *g)
{
	fprintf(stderr, "revhash-bench: round %u of %u: %s: ", round, p->rounds,
		p->server[i].name);
	if (g->rate)
		fprintf(stderr, "probed %.3f M hashes/s, ", g->rate / 1e6);
	fprintf(stderr, "%" PRIu64 " requests in %.1f s\n", p->wl.total,
		g->seconds);
}

void race_report_round_start(struct out *o, const struct race_params *p, unsigned round,
			     uint64_t seed, const unsigned *order)
{
	out_object(o, NULL);
	out_printf(o, "round - seed", "\nround %u of %u, seed %" PRIu64 ": ", round,
		   p->rounds, seed);
	out_array(o, "order");
	for (unsigned k = 0; k < p->n; k++)
		out_printf(o, "name", "%s%s", p->server[order[k]].name,
			   k + 2 < p->n ? ", " : k + 1 < p->n ? ", then " : "\n");
	out_end(o);
	fflush(stdout);
}

void race_report_peak(struct out *o, const struct race_params *p,
		      const struct machine_peak *pk, const double *peak_of)
{
	if (pk->rate)
		out_printf(o, "", "this machine's peak: %.1f M hashes/s (%u CPUs x %.1f, "
		       "revhash's %s kernel on one core): a run whose fresh "
		       "requests took under %.0f%% of their hashing at it "
		       "answered from memory\n", pk->rate / 1e6, pk->cpus,
		       pk->core / 1e6, pk->kernel, VERDICT_FAST_WORK * 100);
	else
		out_printf(o, "", "this machine has a GPU (%s), whose rate no measure of its "
		       "CPUs bounds: no peak, and runs are judged for answers from "
		       "memory at their probes' rates alone\n", pk->gpu);
	for (unsigned i = 0; !p->calibrate && i < p->n; i++) {
		if (peak_of[i])
			continue;
		out_printf(o, "", "%s: no peak bounds it (%s): without probes, answers "
		       "from memory cannot be caught\n", p->server[i].name,
		       pk->rate ? "it is on another machine" : "a GPU here");
	}
}

/* The line for a leg faster than hashing allows (verdict_too_fast()):
 * what gave it away, and what to do. */
static void fast_note(struct out *o, const char *name, const struct race_leg *g)
{
	const struct verdict_speed *s = &g->fast_by;
	int peak = g->fast == VERDICT_FAST_PEAK;
	double rate = peak ? s->peak : s->rate;

	out_printf(o, "", "  %s: faster than hashing allows, by %s at %.3f M hashes/s, %s (",
		   name, g->fast == VERDICT_FAST_EFFICIENCY ? "its efficiency" : "its fresh "
		   "requests' latencies, summed, against their hashing", rate / 1e6,
		   peak ? "this machine's peak" : "the fastest it showed");
	if (g->fast == VERDICT_FAST_EFFICIENCY)
		out_printf(o, "", "%.2f, above %.2f", s->efficiency, VERDICT_FAST_EFF);
	else /* caught by its latencies: at a rate above 0 */
		out_printf(o, "", "%.3f s against %.3f s", s->latency_s, s->work / rate);
	out_printf(o, "", "): %s a cache of an earlier race with these seeds (restart it, or "
		   "race with --seed)%s; no verdict from its rounds\n", peak ?
		   "it answered from memory," : "it knew answers before, from",
		   peak ? " or a table" : ", or it hashes faster than any probe showed");
}

/* The lines on the machine around leg g, and on the CPU others used
 * during its run: too much, or unknown for a reason of this leg's. */
static void machine_notes(struct out *o, const char *name, const struct race_leg *g)
{
	if (g->not_idle)
		out_printf(o, "", "  %s: the machine was not idle before its run: %.0f%% of the "
		       "CPUs busy after %.1f s of waiting (idle: under %.0f%%)\n",
		       name, g->before * 100, g->waited_s, MACHINE_IDLE * 100);
	if (g->kept_busy && g->after_own >= 0)
		out_printf(o, "", "  %s kept %.2f CPUs busy after its run (its processes, over "
		       "%.1f s): searches it was not asked for any more? no verdict "
		       "from its rounds\n", name, g->after_own, MACHINE_AFTER_MS / 1e3);
	else if (g->kept_busy)
		out_printf(o, "", "  %s kept %.0f%% of the CPUs busy after its run (%.0f%% "
		       "before it): searches it was not asked for any more? no "
		       "verdict from its rounds\n", name, g->after * 100,
		       g->before * 100);
	if (g->shared)
		out_printf(o, "", "  %s: other processes used %.2f CPUs during its run (more "
		       "than %.2f): its time was not its own; no verdict from its "
		       "rounds\n", name, g->others, MACHINE_OTHERS_CPU);
	else if (g->others < 0 && g->others_why)
		out_printf(o, "", "  %s: the CPU others used during its run is unknown: %s\n",
		       name, g->others_why);
}

/* The line for a server seen searching the probe the race had closed. */
static void leftover_note(struct out *o, const char *name, const struct race_leg *g)
{
	out_printf(o, "", "  %s still searched its closed probe: its processes used %.2f "
	       "CPUs in the %.1f s after: it is probed no more, and raced without "
	       "a probe from here (its efficiency n/a); ", name, g->probe_left,
	       MACHINE_AFTER_MS / 1e3);
	if (g->left_on)
		out_printf(o, "", "its search went on past the %.1f s the race waits for it: "
		       "its rivals' runs may share the machine with it; no verdict "
		       "for it from its rounds\n", g->left_bound_s);
	else
		out_printf(o, "", "its search ended %.1f s later (the race waits up to %.1f s)\n",
		       g->left_wait_s, g->left_bound_s);
}

/* The lines on leg g's probe, failed or timed out. */
static void probe_notes(struct out *o, const char *name, const struct race_leg *g)
{
	if (g->unprobed) {
		out_printf(o, "", "  %s: not probed: it searched a probe the race had closed, "
		       "in round %u (efficiency n/a)\n", name, g->unprobed);
	} else if (g->probe_err == -ETIMEDOUT) {
		out_printf(o, "", "  %s: probe timed out: no reply within its bound (10 times "
		       "--probe, at least %.0f s, at most --timeout); the race "
		       "closed it: no rate, so no efficiency\n", name,
		       RACE_PROBE_FLOOR_S);
		if (g->left_bound_s)
			leftover_note(o, name, g);
	} else if (g->probe_err) {
		out_printf(o, "", "  %s: probe failed (%s): no rate, so no efficiency\n", name,
		       g->probe_err == -EPROTO ? "a wrong answer" :
		       cause_text(g->probe_err));
	}
}

/* The lines under a round's table for leg g of server name. */
static void leg_notes(struct out *o, const char *name, const struct race_leg *g,
		      uint64_t total)
{
	uint64_t told = 0;

	machine_notes(o, name, g);
	probe_notes(o, name, g);
	if (g->reprobed)
		out_printf(o, "", "  %s: the run beat its probe (%.3f M hashes/s): rated at a "
		       "second probe, after the run\n", name, g->reprobed / 1e6);
	if (g->fast != VERDICT_FAST_NO)
		fast_note(o, name, g);
	else if (g->rated && g->eff_kind != STATS_EFF_OK)
		out_printf(o, "", "  %s: efficiency n/a: %s\n", name,
			   stats_no_efficiency[g->eff_kind]);
	if (!g->wrong && !g->missing)
		return;
	out_printf(o, "", "  %s: ", name);
	if (g->wrong)
		out_printf(o, "", "%" PRIu64 " wrong%s", g->wrong, g->missing ? " and " : "");
	if (g->missing)
		out_printf(o, "", "%" PRIu64 " missing", g->missing);
	out_printf(o, "", " of %" PRIu64 " answers", total);
	for (unsigned c = 0; c < RACE_CAUSES && g->cause_n[c]; c++) {
		out_printf(o, "", "%s%s: %" PRIu64, c ? ", " : " (", cause_text(g->cause[c]),
		       g->cause_n[c]);
		told += g->cause_n[c];
	}
	if (told && told < g->missing)
		out_printf(o, "", ", others: %" PRIu64, g->missing - told);
	out_printf(o, "", "%s\n", told ? ")" : "");
}

/* Leg g's row of its round's table: a cell without a figure reads "-"
 * or "n/a", and is left out of the JSON. */
static void leg_row(struct out *o, const struct race_params *p, const char *name,
		    const struct race_leg *g, int w)
{
	out_object(o, NULL);
	out_printf(o, "server", "  %-*s", w, name);
	if (g->rate)
		out_printf(o, "rate_mhs", " %10.3f", g->rate / 1e6);
	else
		out_printf(o, "", " %10s", "-");
	out_printf(o, "score", " %10.0f", g->s.score);
	if (g->rated && g->eff_kind == STATS_EFF_OK)
		out_printf(o, "efficiency", " %10.3f", g->eff);
	else
		out_printf(o, "", " %10s", "n/a");
	out_printf(o, "reliability_pct p50_ms p99_ms", " %10.2f%% %10.3f %10.3f",
		   verdict_percent(g->s.ok, p->wl.total), g->s.p50_ms, g->s.p99_ms);
	if (p->settle_s && g->others >= 0)
		out_printf(o, "others_cpu", " %10.2f", g->others);
	else if (p->settle_s)
		out_printf(o, "", " %10s", "n/a");
	out_printf(o, "", "\n");
	out_end(o);
}

void race_report_round(struct out *o, const struct race_params *p,
		       const struct race_leg *legs)
{
	int w = name_width(p);

	out_printf(o, "", "  %-*s %10s %10s %10s %11s %10s %10s%s\n", w, "server",
		   "rate M/s", "score", "efficiency", "reliability", "p50 ms",
		   "p99 ms", p->settle_s ? " others CPU" : "");
	out_array(o, "legs");
	for (unsigned i = 0; i < p->n; i++)
		leg_row(o, p, p->server[i].name, &legs[i], w);
	out_end(o);
	out_lines(o, "notes");
	for (unsigned i = 0; i < p->n; i++)
		leg_notes(o, p->server[i].name, &legs[i], p->wl.total);
	out_end(o);
	out_end(o); /* the round's, opened by race_report_round_start */
}

/* --- the summary and the verdicts --------------------------------------- */

/* What a run of a server can be marked with, in the summary. */
enum run_mark { RUN_FLAGGED, RUN_KEPT_BUSY, RUN_SHARED, RUN_LEFT, RUN_UNPROBED, RUN_MARKS };

/* Server i over the rounds, read once for the summary, the verdicts and
 * the plot. */
struct column {
	double score[RACE_MAX_ROUNDS]; /* round r + 1's in score[r] */
	double eff[RACE_MAX_ROUNDS];   /* the efficiencies there are */
	unsigned effs;
	uint64_t ok;                   /* right answers */
	unsigned n[RUN_MARKS];         /* runs of each mark */
};

static void column(const struct race_params *p, const struct race_leg *legs,
		   unsigned i, struct column *c)
{
	memset(c, 0, sizeof *c);
	for (unsigned r = 0; r < p->rounds; r++) {
		const struct race_leg *g = &legs[r * p->n + i];

		c->score[r] = g->s.score;
		if (g->rated && g->eff_kind == STATS_EFF_OK)
			c->eff[c->effs++] = g->eff;
		c->ok += g->s.ok;
		c->n[RUN_FLAGGED] += g->fast != VERDICT_FAST_NO;
		c->n[RUN_KEPT_BUSY] += g->kept_busy != 0;
		c->n[RUN_SHARED] += g->shared != 0;
		c->n[RUN_LEFT] += g->left_on != 0;
		c->n[RUN_UNPROBED] += g->unprobed != 0;
	}
}

/* "1.99 (1.80 - 2.20)": server i's score over the first server's, the
 * ratio of the medians and the spread of the rounds' ratios; "1" for the
 * first, "n/a" where there is none. */
static void versus_first(struct out *o, const struct race_params *p,
			 const struct column *col, unsigned i)
{
	const double *v = col[0].score, *own = col[i].score;
	double q[RACE_MAX_ROUNDS];
	struct verdict_spread first, mine, ratio;
	unsigned m = 0;

	for (unsigned r = 0; r < p->rounds; r++)
		if (v[r] > 0)
			q[m++] = own[r] / v[r];
	verdict_spread(v, p->rounds, &first);
	verdict_spread(own, p->rounds, &mine);
	if (i == 0) {
		out_printf(o, "ratio", "   %.0f\n", 1.0);
	} else if (!m || !(first.median > 0)) {
		out_printf(o, "", "   n/a\n");
	} else {
		verdict_spread(q, m, &ratio);
		out_printf(o, "ratio ratio_min ratio_max", "   %.2f (%.2f - %.2f)\n",
			   mine.median / first.median, ratio.min, ratio.max);
	}
}

static void summary(struct out *o, const struct race_params *p, const struct column *col)
{
	uint64_t all = p->wl.total * p->rounds;
	int w = name_width(p);

	out_printf(o, "", "\nsummary of %u round%s (score: mean of latency_us x priority, "
	       "lower is better;\nratio: the score over %s's, of the medians, "
	       "and in brackets the rounds' least and largest)\n", p->rounds,
	       p->rounds == 1 ? "" : "s", p->server[0].name);
	out_printf(o, "", "  %-*s %11s %12s %21s %10s   ratio\n", w, "server",
	       "reliability", "median score", "min - max", "median eff");
	out_array(o, "summary");
	for (unsigned i = 0; i < p->n; i++) {
		struct verdict_spread s, e;
		int len;

		verdict_spread(col[i].score, p->rounds, &s);
		len = snprintf(NULL, 0, "%.0f - %.0f", s.min, s.max);
		out_object(o, NULL);
		out_printf(o, "server reliability_pct median_score - min max",
			   "  %-*s %10.2f%% %12.0f %*s%.0f - %.0f", w, p->server[i].name,
			   verdict_percent(col[i].ok, all), s.median,
			   len < 21 ? 21 - len : 0, "", s.min, s.max);
		if (!verdict_spread(col[i].eff, col[i].effs, &e))
			out_printf(o, "median_eff", " %10.3f", e.median);
		else
			out_printf(o, "", " %10s", "n/a");
		versus_first(o, p, col, i);
		out_end(o);
	}
	out_end(o);
}

static struct verdict_side side_of(const struct column *c)
{
	return (struct verdict_side){ .score = c->score, .ok = c->ok,
		.flagged = c->n[RUN_FLAGGED], .busy = c->n[RUN_KEPT_BUSY],
		.shared = c->n[RUN_SHARED], .left = c->n[RUN_LEFT] };
}

/* The verdict between servers a and b (a listed first: it ran first in
 * the odd rounds). */
static void judge_pair(const struct race_params *p, const struct column *col,
		       unsigned a, unsigned b, struct verdict *v)
{
	const struct verdict_side side[2] = { side_of(&col[a]), side_of(&col[b]) };
	const struct verdict_rule rule = { p->margin, p->alpha };

	verdict_judge(&side[0], &side[1], p->rounds, p->wl.total * p->rounds,
		      &rule, v);
}

int race_report_decided(const struct race_params *p, const struct race_leg *legs,
			unsigned rounds)
{
	struct race_params q = *p;
	struct column col[RACE_MAX_SERVERS];
	struct verdict v;

	q.rounds = rounds;
	for (unsigned i = 0; i < p->n; i++)
		column(&q, legs, i, &col[i]);
	for (unsigned a = 0; a < p->n; a++)
		for (unsigned b = a + 1; b < p->n; b++) {
			judge_pair(&q, col, a, b, &v);
			if (v.kind == VERDICT_INCONCLUSIVE ||
			    v.kind == VERDICT_FEW_ROUNDS)
				return 0;
		}
	return 1;
}

/* A line for each server that lost answers, ran faster than hashing
 * allows, kept the CPUs busy after its runs or ran while others used
 * them: it loses, or gives no verdict, and the reader should know why
 * before reading the verdicts. */
static void warnings(struct out *o, const struct race_params *p, const struct column *col)
{
	uint64_t all = p->wl.total * p->rounds;
	const struct {
		enum run_mark mark;
		const char *what, *then;
	} row[] = {
		{ RUN_FLAGGED, verdict_cause[VERDICT_CAUSE_FAST], ": it answered from memory, a "
		  "cache of an earlier race with these seeds: restart it, or race with --seed "
		  "and a seed it has not played; no verdict involves it" },
		{ RUN_KEPT_BUSY, verdict_cause[VERDICT_CAUSE_BUSY], ": searches it was not asked "
		  "for any more? Its rivals ran on a machine it shared; no verdict involves it" },
		{ RUN_SHARED, verdict_cause[VERDICT_CAUSE_SHARED], ": its times were not its own; "
		  "no verdict involves it but a win by more than the margin over a rival that "
		  "left the CPUs busy" },
		{ RUN_UNPROBED, "searched a probe the race had closed: it was probed no more, and "
		  "ran without a probe", " (efficiency n/a)" },
		{ RUN_LEFT, verdict_cause[VERDICT_CAUSE_LEFT], ": its rivals ran on a machine it "
		  "shared; no verdict for it" },
	};

	for (unsigned i = 0; i < p->n; i++) {
		const struct column *c = &col[i];

		if (c->ok < all)
			out_printf(o, "", "%s answered %" PRIu64 " of %" PRIu64 " requests "
			       "wrong or not at all (%.2f%% right): it loses to "
			       "every server that answered more\n",
			       p->server[i].name, all - c->ok, all,
			       verdict_percent(c->ok, all));
		for (size_t k = 0; k < sizeof row / sizeof row[0]; k++)
			if (c->n[row[k].mark])
				out_printf(o, "", "%s %s in %u of %u rounds%s\n", p->server[i].name,
					   row[k].what, c->n[row[k].mark], p->rounds, row[k].then);
	}
}

/* Every pair's verdict, after the warnings; the first server's against
 * server b into vs[b], and the lines in text (for the plot's title). */
static void verdicts(struct out *o, const struct race_params *p, const struct column *col,
		     struct verdict *vs, char *text, size_t size)
{
	const struct verdict_rule rule = { p->margin, p->alpha };
	size_t len = 0;

	out_printf(o, "", "\n");
	out_lines(o, "warnings");
	warnings(o, p, col);
	out_end(o);
	out_lines(o, "verdicts");
	for (unsigned a = 0; a < p->n; a++)
		for (unsigned b = a + 1; b < p->n; b++) {
			const char *name[2] = { p->server[a].name, p->server[b].name };
			struct verdict v;
			char line[TEXT];

			judge_pair(p, col, a, b, &v);
			if (a == 0)
				vs[b] = v;
			verdict_text(&v, name, &rule, line, sizeof line);
			out_printf(o, "", "%s%s\n", v.kind == VERDICT_FASTER ||
			       v.kind == VERDICT_AT_LEAST ||
			       v.kind == VERDICT_EQUIVALENT ||
			       v.kind == VERDICT_RELIABILITY ? "verdict: " : "", line);
			if (len < size)
				len += (size_t)snprintf(text + len, size - len, "%s%s",
							len ? "\n" : "", line);
		}
	out_end(o);
}

int race_report_end(struct out *o, const struct race_params *p, const struct race_leg *legs)
{
	char title[TEXT * 4] = "";
	struct column col[RACE_MAX_SERVERS];
	uint64_t ok[RACE_MAX_SERVERS];
	struct verdict vs[RACE_MAX_SERVERS];
	int status = 0;

	for (unsigned i = 0; i < p->n; i++) {
		column(p, legs, i, &col[i]);
		ok[i] = col[i].ok;
		status |= ok[i] < p->wl.total * p->rounds;
	}
	summary(o, p, col);
	verdicts(o, p, col, vs, title, sizeof title);
	fflush(stdout);
	if (!p->plot)
		return status;
	return race_plot_draw(p, legs, ok, vs, title) ? 1 : status;
}
