/* The race's rules (see verdict.h). A verdict on scores needs every round
 * to agree, by a margin: on a shared machine one run against another can
 * differ by a fifth or more with no change in the code, and a rule of
 * medians alone would crown the luckier server. Alternating the order
 * (A B, B A, ...) turns a drift of the machine's speed into rounds that
 * disagree, hence no verdict, rather than into a steady false lead. And a
 * wrong or missing answer outweighs any speed: a server that answers
 * quickly and wrongly must never win. */
#include "bench/verdict.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

unsigned verdict_order(unsigned round, unsigned n, unsigned k)
{
	return round % 2 ? k : n - 1 - k;
}

/* Insertion sort: a race has a few rounds. */
static void sort(double *v, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		double x = v[i];
		unsigned j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

int verdict_spread(const double *v, unsigned n, struct verdict_spread *s)
{
	double w[n ? n : 1];

	if (n == 0)
		return -EINVAL;
	memcpy(w, v, n * sizeof *v);
	sort(w, n);
	s->min = w[0];
	s->max = w[n - 1];
	s->median = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
	return 0;
}

static int usable(double score)
{
	return isfinite(score) && score > 0;
}

/* Does side w beat side l by the margin in every round? A ratio a hair
 * under the margin through rounding (1.1 * 100 is not 110 in binary)
 * still counts. */
static int every_round(const double *w, const double *l, unsigned rounds,
		       double margin)
{
	for (unsigned r = 0; r < rounds; r++)
		if (!usable(w[r]) || !usable(l[r]) ||
		    l[r] / w[r] < 1 + margin - 1e-9)
			return 0;
	return 1;
}

/* The spread of num[r] / den[r] over the rounds where both are usable;
 * zeros when there is none. */
static void ratios(const double *num, const double *den, unsigned rounds,
		   double *min, double *max)
{
	unsigned n = 0;

	*min = *max = 0;
	for (unsigned r = 0; r < rounds; r++) {
		double q;

		if (!usable(num[r]) || !usable(den[r]))
			continue;
		q = num[r] / den[r];
		*min = n && *min < q ? *min : q;
		*max = n && *max > q ? *max : q;
		n++;
	}
}

/* The ratio of the sides' median scores, loser's over winner's. */
static double median_ratio(const double *l, const double *w, unsigned rounds)
{
	struct verdict_spread sl, sw;

	verdict_spread(l, rounds, &sl);
	verdict_spread(w, rounds, &sw);
	return sw.median > 0 ? sl.median / sw.median : 0;
}

static void settle(struct verdict *v, enum verdict_kind kind, unsigned winner)
{
	v->kind = kind;
	v->winner = winner;
	v->loser = !winner;
}

int verdict_judge(const struct verdict_side *a, const struct verdict_side *b,
		  unsigned rounds, uint64_t requests, double margin,
		  struct verdict *v)
{
	const struct verdict_side *side[2] = { a, b };

	if (rounds == 0 || !(margin >= 0))
		return -EINVAL;
	*v = (struct verdict){ .rounds = rounds, .requests = requests,
			       .ok = { a->ok, b->ok } };
	if (a->ok != b->ok)
		settle(v, VERDICT_RELIABILITY, b->ok > a->ok);
	else if (a->ok < requests)
		settle(v, VERDICT_UNRELIABLE, 0);
	else if (rounds < VERDICT_MIN_ROUNDS)
		settle(v, VERDICT_FEW_ROUNDS, 0);
	else if (every_round(a->score, b->score, rounds, margin))
		settle(v, VERDICT_SCORE, 0);
	else if (every_round(b->score, a->score, rounds, margin))
		settle(v, VERDICT_SCORE, 1);
	else
		settle(v, VERDICT_OVERLAP, 0);
	v->ratio = median_ratio(side[v->loser]->score, side[v->winner]->score,
				rounds);
	ratios(side[v->loser]->score, side[v->winner]->score, rounds,
	       &v->min_ratio, &v->max_ratio);
	return 0;
}

double verdict_percent(uint64_t ok, uint64_t total)
{
	return total ? floor(10000.0L * ok / total) / 100 : 0;
}

/* Rounds that do not all agree by the margin: those that lean both ways,
 * or all one way but not all by the margin. */
static void overlap(const struct verdict *v, const char *const name[2],
		    double margin, char *buf, size_t size)
{
	const char *a = name[0], *b = name[1];
	int n = snprintf(buf, size, "no verdict between %s and %s: ", a, b);

	if (n < 0 || (size_t)n >= size)
		return;
	if (v->min_ratio > 1 || v->max_ratio < 1)
		n += snprintf(buf + n, size - (size_t)n, "%s led every round, but "
			      "not all by %g%%", v->min_ratio > 1 ? a : b,
			      margin * 100);
	else
		n += snprintf(buf + n, size - (size_t)n, "the rounds overlap");
	if (n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " (%s's score / %s's, round by "
			 "round: %.2f to %.2f; a verdict needs every round %g%% or "
			 "more the same way)", b, a, v->min_ratio, v->max_ratio,
			 margin * 100);
}

void verdict_text(const struct verdict *v, const char *const name[2],
		  double margin, char *buf, size_t size)
{
	const char *w = name[v->winner], *l = name[v->loser];

	switch (v->kind) {
	case VERDICT_SCORE:
		snprintf(buf, size, "%s scores %.2fx better than %s in %u of %u "
			 "rounds", w, v->ratio, l, v->rounds, v->rounds);
		break;
	case VERDICT_RELIABILITY:
		snprintf(buf, size, "%s beats %s on reliability: %" PRIu64 " of "
			 "%" PRIu64 " answers right, %s %" PRIu64 " (%.2f%%)", w,
			 l, v->ok[v->winner], v->requests, l, v->ok[v->loser],
			 verdict_percent(v->ok[v->loser], v->requests));
		break;
	case VERDICT_FEW_ROUNDS:
		snprintf(buf, size, "no verdict between %s and %s: %u round%s "
			 "too few (a verdict needs %d)", w, l, v->rounds,
			 v->rounds == 1 ? " is" : "s are", VERDICT_MIN_ROUNDS);
		break;
	case VERDICT_OVERLAP:
		overlap(v, name, margin, buf, size);
		break;
	case VERDICT_UNRELIABLE:
		snprintf(buf, size, "no verdict between %s and %s: neither "
			 "answered every request right (%.2f%% each)", w, l,
			 verdict_percent(v->ok[0], v->requests));
		break;
	}
}
