/* The race's rules (see verdict.h): a winner only when the ratio's
 * interval excludes 1, equivalence only within the margin, else how many
 * more rounds would likely decide; a wrong or missing answer outweighs
 * any speed, and a run faster than hashing allows gives no verdict. Why:
 * docs/race.md (The summary and the verdict). The interval's order
 * statistics of the m * n sums are found by bisection on their value,
 * counting the sums below it in O(m + n): no table of m * n. */
#include "bench/race/verdict.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROUNDS 1000 /* as the race's */

/* --- the crossover interval ---------------------------------------------- */

double crossover_z(double alpha)
{
	double lo = 0, hi = 40;

	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(mid / sqrt(2)) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* How many of the C(m + n, m) orders of the two samples give U = u, for
 * every u: the coefficients of the Gaussian binomial, the product over i
 * of (1 - q^(n + i)) / (1 - q^i), multiplied and divided in place. c has
 * m * n + m + 1 entries; the counts fill c[0 .. m * n]. */
static void rank_sum_counts(unsigned m, unsigned n, int64_t *c)
{
	unsigned deg = 0;

	memset(c, 0, ((size_t)m * n + m + 1) * sizeof *c);
	c[0] = 1;
	for (unsigned i = 1; i <= m; i++) {
		unsigned s = n + i;

		for (unsigned u = deg + s; u >= s; u--)
			c[u] -= c[u - s];
		deg += s;
		for (unsigned u = i; u <= deg; u++)
			c[u] += c[u - i];
		deg -= i;
	}
}

static void exact_critical(unsigned m, unsigned n, double alpha, unsigned *k,
			   double *conf)
{
	int64_t c[(size_t)m * n + m + 1];
	long double total = 0, below = 0;

	rank_sum_counts(m, n, c);
	for (unsigned u = 0; u <= m * n; u++)
		total += c[u];
	for (*k = 0; 2 * (below + c[*k]) / total <= alpha; ++*k)
		below += c[*k];
	*conf = (double)(1 - 2 * below / total);
}

int crossover_critical(unsigned m, unsigned n, double alpha, unsigned *k,
		       double *conf)
{
	double mn = (double)m * n;

	if (!(alpha > 0 && alpha < 1))
		return -EINVAL;
	*k = 0;
	*conf = 1;
	if (m == 0 || n == 0)
		return 0;
	if (m + n <= CROSSOVER_EXACT) {
		exact_critical(m, n, alpha, k, conf);
		return 0;
	}
	double kk = floor(mn / 2 - crossover_z(alpha) *
			  sqrt(mn * (m + n + 1) / 12) + 0.5);

	*k = kk < 1 ? 0 : (unsigned)kk;
	*conf = *k ? 1 - alpha : 1;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* How many x_i + y_j are at most t (x, y ascending), and the largest of
 * them into *largest (-INFINITY: none). */
static uint64_t sums_at_most(const double *x, unsigned m, const double *y,
			     unsigned n, double t, double *largest)
{
	uint64_t count = 0;
	unsigned j = n;

	*largest = -INFINITY;
	for (unsigned i = 0; i < m; i++) {
		while (j > 0 && x[i] + y[j - 1] > t)
			j--;
		count += j;
		if (j > 0 && x[i] + y[j - 1] > *largest)
			*largest = x[i] + y[j - 1];
	}
	return count;
}

/* The k-th smallest (1-based) of the m * n sums x_i + y_j. */
static double kth_sum(const double *x, unsigned m, const double *y,
		      unsigned n, uint64_t k)
{
	double lo = x[0] + y[0], hi = x[m - 1] + y[n - 1], largest;

	if (sums_at_most(x, m, y, n, lo, &largest) >= k)
		return lo;
	/* count(lo) < k <= count(hi), until no double lies between. */
	for (;;) {
		double mid = lo + (hi - lo) / 2;

		if (mid <= lo || mid >= hi)
			break;
		if (sums_at_most(x, m, y, n, mid, &largest) >= k)
			hi = mid;
		else
			lo = mid;
	}
	sums_at_most(x, m, y, n, hi, &largest);
	return largest;
}

int crossover_interval(const double *x, unsigned m, const double *y,
		       unsigned n, double alpha, struct crossover *c)
{
	double sx[m ? m : 1], sy[n ? n : 1];
	uint64_t mn = (uint64_t)m * n;
	unsigned k;

	if (crossover_critical(m, n, alpha, &k, &c->conf))
		return -EINVAL;
	if (k == 0)
		return -EDOM;
	memcpy(sx, x, m * sizeof *x);
	memcpy(sy, y, n * sizeof *y);
	qsort(sx, m, sizeof *sx, cmp_double);
	qsort(sy, n, sizeof *sy, cmp_double);
	c->estimate = mn % 2 ? kth_sum(sx, m, sy, n, mn / 2 + 1) / 2 :
		      (kth_sum(sx, m, sy, n, mn / 2) +
		       kth_sum(sx, m, sy, n, mn / 2 + 1)) / 4;
	c->lo = kth_sum(sx, m, sy, n, k) / 2;
	c->hi = kth_sum(sx, m, sy, n, mn + 1 - k) / 2;
	return 0;
}

/* --- the verdict ---------------------------------------------------------- */

unsigned verdict_order(unsigned round, unsigned n, unsigned k)
{
	return round % 2 ? k : n - 1 - k;
}

int verdict_spread(const double *v, unsigned n, struct verdict_spread *s)
{
	double w[n ? n : 1];

	if (n == 0)
		return -EINVAL;
	memcpy(w, v, n * sizeof *v);
	qsort(w, n, sizeof *w, cmp_double);
	s->min = w[0];
	s->max = w[n - 1];
	s->median = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
	return 0;
}

/* Did latency_s fall short of the hashing of work at rate? */
static int sooner(double work, double latency_s, double rate)
{
	return rate > 0 && work > 0 && latency_s < VERDICT_FAST_WORK * work / rate;
}

enum verdict_fast verdict_too_fast(const struct verdict_speed *s)
{
	if (s->efficiency > VERDICT_FAST_EFF)
		return VERDICT_FAST_EFFICIENCY;
	if (sooner(s->work, s->latency_s, s->rate))
		return VERDICT_FAST_LATENCY;
	if (sooner(s->work, s->latency_s, s->peak))
		return VERDICT_FAST_PEAK;
	return VERDICT_FAST_NO;
}

unsigned verdict_min_rounds(double alpha)
{
	for (unsigned r = 2; r <= MAX_ROUNDS; r++) {
		unsigned k;
		double conf;

		if (crossover_critical((r + 1) / 2, r / 2, alpha, &k, &conf))
			return 0;
		if (k)
			return r;
	}
	return 0;
}

double verdict_look_alpha(unsigned rounds, double alpha)
{
	unsigned first = verdict_min_rounds(alpha), looks = 0;

	for (unsigned r = first ? first : rounds; r <= rounds; r++)
		looks += r % 2 == 0 || r == rounds;
	return looks > 1 ? alpha / looks : alpha;
}

static int usable(double score)
{
	return isfinite(score) && score > 0;
}

static void settle(struct verdict *v, enum verdict_kind kind, unsigned winner)
{
	v->kind = kind;
	v->winner = winner;
	v->loser = !winner;
}

/* About how many more rounds would decide: the interval's half width
 * shrinks as one over the root of the rounds, until it clears 1 or fits
 * within the margin, whichever comes first. An even count: pairs. */
static unsigned more_rounds(const struct verdict *v, double margin)
{
	double est = fabs(log(v->ratio)), half = (log(v->hi) - log(v->lo)) / 2;
	double target = fmax(est, log1p(margin) - est), need, more;

	if (!(target > 0) || !(half > 0))
		return UINT32_MAX;
	need = v->rounds * (half / target) * (half / target);
	more = 2 * ceil((need - v->rounds) / 2);
	return more > 1e6 ? UINT32_MAX : more < 2 ? 2 : (unsigned)more;
}

/* The ratio of b's scores to a's over the usable rounds, and what it says. */
static void judge_scores(const struct verdict_side *a, const struct verdict_side *b,
			 unsigned rounds, const struct verdict_rule *rule,
			 struct verdict *v)
{
	double x[rounds], y[rounds], edge = log1p(rule->margin);
	unsigned m = 0, n = 0;
	struct crossover c;

	for (unsigned r = 0; r < rounds; r++) {
		if (!usable(a->score[r]) || !usable(b->score[r]))
			continue;
		if (r % 2 == 0) /* round r + 1 is odd: a ran first */
			x[m++] = log(b->score[r] / a->score[r]);
		else
			y[n++] = log(b->score[r] / a->score[r]);
	}
	v->rounds = m + n;
	if (crossover_interval(x, m, y, n, rule->alpha, &c)) {
		settle(v, VERDICT_FEW_ROUNDS, 0);
		v->need = verdict_min_rounds(rule->alpha);
		return;
	}
	v->ratio = exp(c.estimate);
	v->lo = exp(c.lo);
	v->hi = exp(c.hi);
	v->conf = c.conf;
	if (c.lo > 0 || c.hi < 0)
		settle(v, VERDICT_FASTER, c.hi < 0);
	else if (c.lo >= -edge && c.hi <= edge)
		settle(v, VERDICT_EQUIVALENT, 0);
	else
		settle(v, VERDICT_INCONCLUSIVE, 0);
	if (v->kind == VERDICT_INCONCLUSIVE)
		v->more = more_rounds(v, rule->margin);
}

/* The runs a side left the CPUs busy for the other's. */
static unsigned caused(const struct verdict_side *s)
{
	return s->busy + s->left;
}

/* Side c left the CPUs busy for the other's runs (and the other did not):
 * the other wins only by more than the margin, its runs handicapped;
 * the side that caused it never does. Not when c's own runs shared the
 * machine with others: then both bore a handicap, of unknown weights. */
static void judge_handicap(unsigned c, unsigned rounds, const struct verdict_rule *rule,
			   struct verdict *v)
{
	double edge = 1 + rule->margin;

	if (v->side[c].shared) {
		settle(v, VERDICT_BUSY, 0);
		return;
	}
	judge_scores(&v->side[0], &v->side[1], rounds, rule, v);
	if (v->kind == VERDICT_FASTER && v->winner != c &&
	    (c == 1 ? v->lo > edge : v->hi < 1 / edge))
		settle(v, VERDICT_AT_LEAST, !c);
	else
		settle(v, VERDICT_BUSY, 0);
}

int verdict_judge(const struct verdict_side *a, const struct verdict_side *b,
		  unsigned rounds, uint64_t requests,
		  const struct verdict_rule *rule, struct verdict *v)
{
	if (rounds == 0 || !(rule->margin >= 0) ||
	    !(rule->alpha > 0 && rule->alpha < 1))
		return -EINVAL;
	*v = (struct verdict){ .rounds = rounds, .requests = requests, .side = { *a, *b } };
	if (a->ok != b->ok)
		settle(v, VERDICT_RELIABILITY, b->ok > a->ok);
	else if (a->ok < requests)
		settle(v, VERDICT_UNRELIABLE, 0);
	else if (a->flagged || b->flagged)
		settle(v, VERDICT_FLAGGED, 0);
	else if (caused(a) && caused(b))
		settle(v, VERDICT_BUSY, 0);
	else if (caused(a) || caused(b))
		judge_handicap(caused(a) ? 0 : 1, rounds, rule, v);
	else if (a->shared || b->shared)
		settle(v, VERDICT_SHARED, 0);
	else
		judge_scores(a, b, rounds, rule, v);
	return 0;
}

double verdict_percent(uint64_t ok, uint64_t total)
{
	return total ? floor(10000.0L * ok / total) / 100 : 0;
}

/* "B's score / A's 0.799 [0.730, 0.877] (96.8% interval, 10 rounds)",
 * the winner's over the loser's where there is one, else b's over a's. */
static void ratio_text(FILE *t, const struct verdict *v, const char *const name[2])
{
	int flip = (v->kind == VERDICT_FASTER || v->kind == VERDICT_AT_LEAST) &&
		   v->winner == 0;

	fprintf(t, "%s's score / %s's %.3f [%.3f, %.3f] (%.1f%% interval, %u rounds)",
		name[!flip], name[flip], flip ? 1 / v->ratio : v->ratio, flip ? 1 / v->hi : v->lo,
		flip ? 1 / v->lo : v->hi, floor(v->conf * 1000) / 10, v->rounds);
}

const char *const verdict_cause[VERDICT_CAUSES] = {
	[VERDICT_CAUSE_FAST] = "ran faster than hashing allows",
	[VERDICT_CAUSE_BUSY] = "kept the CPUs busy after its run",
	[VERDICT_CAUSE_SHARED] = "ran while other processes used the CPUs",
	[VERDICT_CAUSE_LEFT] = "searched a closed probe past the race's wait",
};

/* "B kept the CPUs busy after its run in 2 rounds, B searched a closed
 * probe past the race's wait in 1 round": what each side left running
 * for the other's runs. */
static void causes_text(FILE *t, const struct verdict *v, const char *const name[2])
{
	const char *sep = "";

	for (unsigned s = 0; s < 2; s++)
		for (size_t k = 0; k < 2; k++) {
			unsigned c = k ? v->side[s].left : v->side[s].busy;

			if (!c)
				continue;
			fprintf(t, "%s%s %s in %u round%s", sep, name[s],
				verdict_cause[k ? VERDICT_CAUSE_LEFT : VERDICT_CAUSE_BUSY], c,
				c == 1 ? "" : "s");
			sep = ", ";
		}
}

static void faster(FILE *t, const struct verdict *v, const char *const name[2])
{
	double r = v->winner ? v->ratio : 1 / v->ratio;
	double lo = v->winner ? v->lo : 1 / v->hi, hi = v->winner ? v->hi : 1 / v->lo;
	const char *w = name[v->winner], *l = name[v->loser];

	if (v->kind == VERDICT_AT_LEAST) {
		fprintf(t, "%s is faster than %s by at least %.1f%% (its interval's bound), "
			"measured under a handicap: %s's runs shared the machine with what %s "
			"left running (", w, l, (1 - hi) * 100, w, l);
		causes_text(t, v, name);
		fprintf(t, "): ");
	} else {
		fprintf(t, "%s is faster than %s by %.1f%% [%.1f%%, %.1f%%]: ", w, l, (1 - r) * 100,
			(1 - hi) * 100, (1 - lo) * 100);
	}
	ratio_text(t, v, name);
}

static void undecided(FILE *t, const struct verdict *v, const char *const name[2],
		      double margin)
{
	if (v->kind == VERDICT_EQUIVALENT)
		fprintf(t, "%s and %s are equivalent within \u00b1%g%%: ", name[0], name[1],
			margin * 100);
	else if (v->more == UINT32_MAX)
		fprintf(t, "no verdict between %s and %s: inconclusive, and no number of rounds "
			"would decide at this spread: ", name[0], name[1]);
	else
		fprintf(t, "no verdict between %s and %s: inconclusive: about %u more rounds "
			"would decide: ", name[0], name[1], v->more);
	ratio_text(t, v, name);
	if (v->kind == VERDICT_INCONCLUSIVE)
		fprintf(t, "; a verdict needs the interval clear of 1, or within \u00b1%g%%",
			margin * 100);
}

/* No verdict, for what count[s] rounds of side s showed (what: "ran
 * faster than hashing allows"...), and why that withholds it. */
static void withheld(FILE *t, unsigned c0, unsigned c1, const char *what,
		     const char *why, const char *const name[2])
{
	const unsigned count[2] = { c0, c1 };

	fprintf(t, "no verdict between %s and %s: ", name[0], name[1]);
	for (unsigned s = 0; s < 2; s++)
		if (count[s])
			fprintf(t, "%s%s %s in %u round%s", s && count[0] ? ", " : "", name[s],
				what, count[s], count[s] == 1 ? "" : "s");
	fprintf(t, " (%s)", why);
}

void verdict_text(const struct verdict *v, const char *const name[2],
		  const struct verdict_rule *rule, char *buf, size_t size)
{
	const char *w = name[v->winner], *l = name[v->loser];
	FILE *t;

	if (size)
		buf[0] = '\0'; /* fmemopen writes no NUL while nothing is written */
	if (!(t = fmemopen(buf, size, "w")))
		return;
	switch (v->kind) {
	case VERDICT_FASTER:
	case VERDICT_AT_LEAST:
		faster(t, v, name);
		break;
	case VERDICT_EQUIVALENT:
	case VERDICT_INCONCLUSIVE:
		undecided(t, v, name, rule->margin);
		break;
	case VERDICT_RELIABILITY:
		fprintf(t, "%s beats %s on reliability: %" PRIu64 " of %" PRIu64 " answers right, "
			"%s %" PRIu64 " (%.2f%%)", w, l, v->side[v->winner].ok, v->requests, l,
			v->side[v->loser].ok, verdict_percent(v->side[v->loser].ok, v->requests));
		break;
	case VERDICT_FEW_ROUNDS:
		fprintf(t, "no verdict between %s and %s: %u round%s too few (a %g%% interval "
			"needs %u, of both orders)", w, l, v->rounds, v->rounds == 1 ? " is" : "s are",
			(1 - rule->alpha) * 100, v->need);
		break;
	case VERDICT_FLAGGED:
		withheld(t, v->side[0].flagged, v->side[1].flagged,
			 verdict_cause[VERDICT_CAUSE_FAST],
			 "answers it knew before: restart it, or race with --seed", name);
		break;
	case VERDICT_BUSY:
		fprintf(t, "no verdict between %s and %s: ", name[0], name[1]);
		causes_text(t, v, name);
		fprintf(t, " (the other's runs shared the machine with it)");
		break;
	case VERDICT_SHARED:
		withheld(t, v->side[0].shared, v->side[1].shared,
			 verdict_cause[VERDICT_CAUSE_SHARED], "its times were not its own", name);
		break;
	case VERDICT_UNRELIABLE:
		fprintf(t, "no verdict between %s and %s: neither answered every request right "
			"(%.2f%% each)", w, l, verdict_percent(v->side[0].ok, v->requests));
		break;
	}
	fclose(t);
}
