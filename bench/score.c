/* The replay's report (see score.h). The ideal servers replay the run's
 * own send times, not the workload's deadlines, so a client that sent
 * late is not counted against the server. */
#include "bench/score.h"
#include "bench/replay.h"
#include "bench/runcsv.h"
#include "bench/stats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* The ideal servers of r (sim_ideal) on its actual send times. */
static int ideal_scores(const struct score_run *r, struct sim_ideal *id)
{
	double *arrival = malloc(r->n * sizeof *arrival);
	int err;

	if (!arrival)
		return -ENOMEM;
	for (uint64_t i = 0; i < r->n; i++)
		arrival[i] = r->res[i].send_ns / 1e3;
	err = sim_ideal(r->reqs, arrival, r->n, r->rate, r->policy, id);
	free(arrival);
	return err;
}

/* Why a run gets no efficiency, by stats_efficiency()'s verdict. */
static const char *const no_efficiency[] = {
	[STATS_EFF_NO_WORK] = "ideal score 0: nothing to hash, every request "
		"empty (start > end) or a repeat of one answered",
	[STATS_EFF_TINY] = "ideal score under 0.5: these ranges cost an ideal "
		"server nothing, the measured score is all per-request overhead",
	[STATS_EFF_BEATEN] = "measured score below the ideal: only a server "
		"that already knew answers, e.g. a warm cache from an earlier "
		"run, can do that, or the hash rate is set too low",
};

/* "first-time: 80 requests, mean latency 12.345 ms, score contribution 9",
 * as the object key. */
static void print_part(struct out *o, const char *key, const char *name,
		       const struct replay_part *p, uint64_t total)
{
	out_object(o, key);
	out_printf(o, "- n", "%s: %" PRIu64 " requests, mean latency ", name, p->n);
	if (p->n)
		out_printf(o, "mean_ms", "%.3f ms", (double)(p->latency_ns / p->n / 1e6L));
	else
		out_printf(o, "", "n/a");
	out_printf(o, "score", ", score contribution %.0f\n", (double)(p->weighted / total));
	out_end(o);
}

/* "wsrpt, preemptive, split, 2 workers" */
static const char *describe(const struct sim_policy *p, char *buf, size_t size)
{
	char words[64];
	int len = snprintf(buf, size, "%s, %u worker%s%s",
			   policy_describe(&p->policy, words, sizeof words), p->workers,
			   p->workers == 1 ? "" : "s", p->shares ? " of unequal rates" : "");

	if (p->cores && p->cores < p->workers && len > 0 && (size_t)len < size)
		snprintf(buf + len, size - (size_t)len, " on %u CPU%s",
			 p->cores, p->cores == 1 ? "" : "s");
	return buf;
}

/* "LABEL (POLICY): IDEAL, RATIO = X", or "RATIO: n/a (why)", as the
 * object key. */
static void print_ideal(struct out *o, const char *key, const char *label,
			const struct sim_policy *p, double ideal, const char *ratio,
			const struct replay_summary *s, uint64_t total)
{
	char name[96];
	double eff = 0;
	enum stats_eff verdict = stats_efficiency(ideal, s->score, &eff);

	out_object(o, key);
	out_printf(o, "- policy score", "%s (%s): %.0f, ", label,
		   describe(p, name, sizeof name), ideal);
	if (verdict == STATS_EFF_OK)
		out_printf(o, "- efficiency", "%s = %.3f", ratio, eff);
	else
		out_printf(o, "- efficiency_na", "%s: n/a (%s)", ratio, no_efficiency[verdict]);
	out_printf(o, "", "%s\n", s->ok < total ? " (but not every answer was right)" : "");
	out_end(o);
}

static void report(struct out *o, const struct replay_summary *s, uint64_t total,
		   double rate, const struct sim_policy *own, const struct sim_ideal *id)
{
	out_printf(o, "reliability_pct score", "Results: %.2f %" PRIu64 "\n",
		   100.0 * s->ok / total, (uint64_t)s->score);
	out_object(o, "latency_ms");
	out_printf(o, "p50 p99", "latency: p50 %.3f ms, p99 %.3f ms\n", s->p50_ms, s->p99_ms);
	out_end(o);
	out_printf(o, "repeats - fast_repeats",
		   "repeats: %" PRIu64 ", answered in under %d ms: %" PRIu64 "\n",
		   s->repeats, REPLAY_FAST_US / 1000, s->fast_repeats);
	print_part(o, "first", "first-time", &s->first, total);
	print_part(o, "repeated", "repeated", &s->repeat, total);
	if (!rate) {
		out_printf(o, "", "hash rate: unknown, so no ideal score\n");
		return;
	}
	out_object(o, "ideal");
	out_printf(o, "rate_mhs", "hash rate: %.3f M hashes/s\n", rate / 1e6);
	if (id) {
		print_ideal(o, "own", "ideal", own, id->own_score, "efficiency", s, total);
		print_ideal(o, "best", "best policy ideal", &id->best, id->best_score,
			    "efficiency vs best", s, total);
	} else {
		out_printf(o, "", "ideal score: not computed\n");
	}
	out_end(o);
}

int score_report(const struct score_run *r, FILE *csv, const char *path, struct out *o)
{
	uint64_t n = r->n;
	struct sim_ideal ideal = { 0 }, *id = NULL;
	struct replay_summary s;
	int status = 1;

	if (r->rate) {
		ideal.own_lat = calloc(n, sizeof *ideal.own_lat);
		ideal.best_lat = calloc(n, sizeof *ideal.best_lat);
		id = &ideal;
	}
	if ((id && (!id->own_lat || !id->best_lat)) ||
	    replay_summarize(r->reqs, r->res, n, &s)) {
		fprintf(stderr, "revhash-bench: out of memory\n");
		goto out;
	}
	if (id && ideal_scores(r, id))
		id = NULL;
	report(o, &s, n, r->rate, r->policy, id);
	if (csv && runcsv_write(csv, path, r->reqs, r->res, n,
				id ? id->own_lat : NULL, id ? id->best_lat : NULL))
		goto out;
	status = s.ok == n ? 0 : 1;
out:
	free(ideal.own_lat);
	free(ideal.best_lat);
	return status;
}
