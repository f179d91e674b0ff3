/* The race's plot (see race_report.h), drawn by gnuplot from a script
 * written down its pipe. Both panels have log axes (docs/race.md). */
#include "bench/race/race_report.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

int race_plot_check(void)
{
	if (system("command -v gnuplot >/dev/null 2>&1") == 0)
		return 0;
	fprintf(stderr, "revhash-bench: --plot needs gnuplot, which is not "
		"installed (scripts/install-deps.sh --plot)\n");
	return -ENOENT;
}

/* text as a gnuplot string's body: its lines, and any longer than chars,
 * broken at spaces with gnuplot's "\n". */
static void put_wrapped(FILE *g, const char *text, size_t chars)
{
	size_t col = 0;

	while (*text) {
		size_t word = strcspn(text, " \n");

		if (col && col + 1 + word > chars) {
			fputs("\\n", g);
			col = 0;
		} else if (col) {
			fputc(' ', g);
			col++;
		}
		fwrite(text, 1, word, g);
		col += word;
		text += word;
		if (*text == '\n')
			col = chars; /* the next word starts a line */
		if (*text)
			text++;
	}
}

/* A score as gnuplot reads it on a log axis: NaN (no point) where it is
 * not positive. */
static void put_score(FILE *g, double score)
{
	if (isfinite(score) && score > 0)
		fprintf(g, " %.6g", score);
	else
		fputs(" NaN", g);
}

/* Server i's score over the first server's in pair k (rounds 2k + 1 and
 * 2k + 2, one of each order): the root of the two rounds' ratios, in
 * which a steady drift cancels. */
static double pair_ratio(const struct race_params *p, const struct race_leg *legs,
			 unsigned i, unsigned k)
{
	const struct race_leg *r1 = &legs[2 * k * p->n], *r2 = r1 + p->n;

	return sqrt(r1[i].s.score / r1[0].s.score * (r2[i].s.score / r2[0].s.score));
}

/* Has v an interval to draw: a band from lo to hi with the estimate? */
static int has_interval(const struct verdict *v)
{
	return v->kind == VERDICT_FASTER || v->kind == VERDICT_AT_LEAST ||
	       v->kind == VERDICT_EQUIVALENT || v->kind == VERDICT_INCONCLUSIVE;
}

/* The left panel's range: every ratio drawn, each interval, the margin
 * and 1, with some room. */
static void pairs_range(const struct race_params *p, const struct race_leg *legs,
			const struct verdict *vs, double *lo, double *hi)
{
	*lo = 1 / (1 + p->margin);
	*hi = 1 + p->margin;
	for (unsigned i = 1; i < p->n; i++) {
		for (unsigned k = 0; k < p->rounds / 2; k++) {
			double q = pair_ratio(p, legs, i, k);

			if (isfinite(q) && q > 0) {
				*lo = fmin(*lo, q);
				*hi = fmax(*hi, q);
			}
		}
		if (vs[i].lo > 0)
			*lo = fmin(*lo, vs[i].lo);
		*hi = fmax(*hi, vs[i].hi);
	}
	*lo /= 1.25;
	*hi *= 1.25;
}

/* The left panel: each server's score over the first's, a point per pair
 * of rounds, the race's estimate and interval as a line and a band of the
 * server's colour, the margin of equivalence as a grey band. */
static void plot_pairs(FILE *g, const struct race_params *p,
		       const struct race_leg *legs, const struct verdict *vs)
{
	unsigned pairs = p->rounds / 2;
	double lo, hi;

	pairs_range(p, legs, vs, &lo, &hi);
	fprintf(g, "set logscale y\nset xrange [0.5:%u.5]\nset xtics 1\n"
		"set yrange [%g:%g]\nset ytics (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, "
		"0.1, 0.2, 0.5, 0.8, 1, 1.25, 2, 5, 10, 20, 50, 100, 200, 500, 1000)\n", pairs, lo, hi);
	fprintf(g, "set xlabel \"pair of rounds (one of each order)\"\nset ylabel "
		"\"score / %s's (log; below 1: faster; grey: \u00b1%g%%)\"\n"
		"set object 1 rect from graph 0, first %g to graph 1, first %g "
		"fc rgb \"#dddddd\" fs solid 0.7 noborder behind\n$pairs << EOD\n",
		p->server[0].name, p->margin * 100, 1 / (1 + p->margin),
		1 + p->margin);
	for (unsigned k = 0; k < pairs; k++) {
		fprintf(g, "%u", k + 1);
		for (unsigned i = 1; i < p->n; i++)
			put_score(g, pair_ratio(p, legs, i, k));
		fputc('\n', g);
	}
	fputs("EOD\n", g);
	for (unsigned i = 1; i < p->n; i++)
		if (has_interval(&vs[i]))
			fprintf(g, "$ci%u << EOD\n0.5 %g %g %g\n%u.5 %g %g %g\nEOD\n", i, vs[i].lo,
				vs[i].hi, vs[i].ratio, pairs, vs[i].lo, vs[i].hi, vs[i].ratio);
	fputs("plot 1 with lines lc rgb \"black\" dt 2 notitle", g);
	for (unsigned i = 1; i < p->n; i++) {
		if (has_interval(&vs[i]))
			fprintf(g, ", $ci%u using 1:2:3 with filledcurves lc %u "
				"fs transparent solid 0.25 notitle, $ci%u using 1:4 "
				"with lines lc %u lw 2 title \"%s: estimate, %.1f%% "
				"interval\"", i, i + 1, i, i + 1, p->server[i].name,
				floor(vs[i].conf * 1000) / 10);
		fprintf(g, ", $pairs using 1:%u with points lc %u pt 7 ps 1.5 "
			"title \"%s, per pair\"", i + 1, i + 1, p->server[i].name);
	}
	fputs("\nunset object 1\nset autoscale y\nset ytics autofreq\n", g);
}

/* The right panel: each server's score per round. */
static void plot_scores(FILE *g, const struct race_params *p,
			const struct race_leg *legs, const uint64_t *ok)
{
	uint64_t all = p->wl.total * p->rounds;

	fprintf(g, "set logscale y\nset xrange [0.5:%u.5]\nset xtics 1\n"
		"set xlabel \"round\"\nset ylabel \"score (mean of latency_us x "
		"priority; log; lower is better)\"\n$race << EOD\nround",
		p->rounds);
	for (unsigned i = 0; i < p->n; i++) {
		fprintf(g, " \"%s", p->server[i].name);
		if (ok[i] < all)
			fprintf(g, " (%.2f%% right)", verdict_percent(ok[i], all));
		fputc('"', g);
	}
	for (unsigned r = 0; r < p->rounds; r++) {
		fprintf(g, "\n%u", r + 1);
		for (unsigned i = 0; i < p->n; i++)
			put_score(g, legs[r * p->n + i].s.score);
	}
	fprintf(g, "\nEOD\nplot for [c=2:%u] $race using 1:c with linespoints "
		"lc (c - 1) pt 7 title columnheader(c)\n", p->n + 1);
}

/* s as a gnuplot string in single quotes: a quote doubled and nothing else
 * read into it, neither a backslash nor a `command` (which gnuplot runs
 * within double quotes), so a file name is only a name. It holds no line
 * break (options.c refuses one): that would end the command. */
static void put_quoted(FILE *g, const char *s)
{
	fputc('\'', g);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', g);
		fputc(*s, g);
	}
	fputc('\'', g);
}

/* gnuplot's script: the ratios by pair of rounds (from two rounds on)
 * beside the scores by round, the verdicts as the title. */
static void plot_script(FILE *g, const struct race_params *p,
			const struct race_leg *legs, const uint64_t *ok,
			const struct verdict *vs, const char *title)
{
	unsigned panels = p->rounds >= 2 ? 2 : 1, width = 640 * panels + 160;

	fprintf(g, "set terminal pngcairo size %u,600 font \",10\" noenhanced\nset output ", width);
	put_quoted(g, p->plot);
	/* The keys below the panels (inside, they covered the points), the
	 * left one's the longer: n - 1 rows. */
	fprintf(g, "\nset key below center horizontal maxcols 2\nset bmargin %u\n"
		"set grid ytics mytics\nset multiplot layout 1,%u title \"",
		4 + (p->n - 1), panels);
	put_wrapped(g, title, width / 8); /* about 7 pixels a character */
	fputs("\"\n", g);
	if (panels == 2)
		plot_pairs(g, p, legs, vs);
	plot_scores(g, p, legs, ok);
	fputs("unset multiplot\n", g);
}

/* gnuplot's output goes nowhere: with no file to write, it would write
 * the picture on ours. A gnuplot that dies early must not kill the race
 * with SIGPIPE. */
int race_plot_draw(const struct race_params *p, const struct race_leg *legs,
		   const uint64_t *ok, const struct verdict *vs, const char *title)
{
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	struct stat st;
	FILE *g;
	int status;

	unlink(p->plot); /* so an old picture cannot pass for this one */
	if (!(g = popen("exec gnuplot >/dev/null", "w"))) {
		fprintf(stderr, "popen(gnuplot): %m\n");
		signal(SIGPIPE, old);
		return -errno;
	}
	plot_script(g, p, legs, ok, vs, title);
	status = pclose(g);
	signal(SIGPIPE, old);
	if (status != 0 || stat(p->plot, &st) || st.st_size == 0) {
		fprintf(stderr, "revhash-bench: gnuplot did not draw %s\n", p->plot);
		return -EIO;
	}
	printf("plot: %s\n", p->plot);
	return 0;
}
