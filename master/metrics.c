/* The Prometheus text format of status.c's rows. A row with a sentence is
 * a metric: a counter where it counts events, else a gauge; a mean a
 * summary; a histogram made cumulative from one copy (so +Inf is _count).
 * The words at the top are labels of revhash_info; a group with a metric
 * of its own gives its series, labelled by key; a list of groups (the
 * workers) a metric per row with a sentence, a series per group. The
 * segment is mapped for one rendering only: a restarted master is
 * followed, and the master never waits on a scrape. */
#include "master/metrics.h"
#include "master/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* revhash_ and r's metric or key, and "_total" after a counter's. */
static void metric_name(const struct status_row *r, char *buf, size_t size)
{
	snprintf(buf, size, "revhash_%s%s", r->metric ? r->metric : r->key,
		 r->counter ? "_total" : "");
}

static void header(FILE *out, const char *name, const char *help, const char *type)
{
	fprintf(out, "# HELP %s ", name);
	status_word(out, help, STATUS_ESC_HELP);
	fprintf(out, "\n# TYPE %s %s\n", name, type);
}

static const char *type_of(const struct status_row *r)
{
	return r->type == STATUS_HIST ? "histogram" : r->type == STATUS_MEAN ? "summary" :
	       r->counter ? "counter" : "gauge";
}

/* ns as seconds in decimal, exact, without trailing zeros: a bucket's le. */
static void seconds(FILE *out, uint64_t ns)
{
	char frac[16];
	int n = snprintf(frac, sizeof frac, "%09llu", (unsigned long long)(ns % 1000000000u));

	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	fprintf(out, "%llu%s%s", (unsigned long long)(ns / 1000000000u), n ? "." : "", frac);
}

/* One series of r, named name, with its labels (`a="b",...` or ""); a
 * mean's sum in seconds where its name says so, else in us. */
static void series(FILE *out, const char *name, const char *labels, const struct status_row *r)
{
	int in_s = strstr(name, "_seconds") != NULL;
	char sel[300];
	uint64_t seen = 0;

	snprintf(sel, sizeof sel, "%s%s%s", *labels ? "{" : "", labels, *labels ? "}" : "");
	if (r->type == STATUS_NUM)
		fprintf(out, "%s%s %llu\n", name, sel, (unsigned long long)r->num);
	else if (r->type == STATUS_REAL)
		fprintf(out, "%s%s %.6g\n", name, sel, r->real);
	else if (r->type == STATUS_MEAN)
		fprintf(out, "%s_sum%s %.*f\n%s_count%s %llu\n", name, sel, in_s ? 9 : 3,
			(double)r->sum_ns / (in_s ? 1e9 : 1e3), name, sel,
			(unsigned long long)r->num);
	if (r->type != STATUS_HIST)
		return;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += r->hist->n[i];
		fprintf(out, "%s_bucket{%s%sle=\"", name, labels, *labels ? "," : "");
		if (i < HIST_BOUNDS)
			seconds(out, hist_bound_ns(i));
		else
			fputs("+Inf", out);
		fprintf(out, "\"} %llu\n", (unsigned long long)seen);
	}
	fprintf(out, "%s_sum%s %.9f\n%s_count%s %llu\n", name, sel, (double)r->hist->sum_ns / 1e9,
		name, sel, (unsigned long long)seen);
}

/* The labels `name="value",...` of the n rows at r that label their
 * group's series: this build's own names and numbers, nothing to escape. */
static void labels_of(char *buf, size_t len, const struct status_row *r, size_t n)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++) {
		if (r[i].label && r[i].type == STATUS_WORD)
			at += (size_t)snprintf(buf + at, len - at, "%s%s=\"%s\"", at ? "," : "",
					       r[i].label, r[i].word);
		else if (r[i].label)
			at += (size_t)snprintf(buf + at, len - at, "%s%s=\"%llu\"", at ? "," : "",
					       r[i].label, (unsigned long long)r[i].num);
	}
}

/* The group or list at i whose rows are one metric's series, each
 * labelled by its key. Returns the row past it. */
static size_t family(FILE *out, const struct status_row *row, size_t i)
{
	const struct status_row *g = &row[i];
	char name[96], labels[160];

	metric_name(g, name, sizeof name);
	if (row[i + 1].type != STATUS_END)
		header(out, name, g->help, type_of(&row[i + 1]));
	for (i++; row[i].type != STATUS_END; i++) {
		snprintf(labels, sizeof labels, "%s=\"%s\"", g->label, row[i].key);
		series(out, name, labels, &row[i]);
	}
	return i + 1;
}

/* The list of groups at i (the workers): a metric for each row with a
 * sentence, a series a group. Returns the row past the list. */
static size_t table(FILE *out, const struct status_row *row, size_t i)
{
	size_t end = i + 1, span = 1;
	char name[96], labels[256];

	while (row[end].type == STATUS_GROUP)
		while (row[end++].type != STATUS_END)
			;
	if (end == i + 1)
		return end + 1;
	while (row[i + span].type != STATUS_END)
		span++;
	for (size_t c = 1; c + 1 < span; c++) {
		const struct status_row *cell = &row[i + 1 + c];

		if (!cell->help)
			continue;
		metric_name(cell, name, sizeof name);
		header(out, name, cell->help, type_of(cell));
		for (size_t g = i + 1; g < end; g += span) {
			labels_of(labels, sizeof labels, &row[g + 1], span - 2);
			series(out, name, labels, &row[g + c]);
		}
	}
	return end + 1;
}

/* The words at the top as labels of one metric whose value is 1. */
static void info(FILE *out, const struct status *st)
{
	const char *sep = "";
	unsigned depth = 0;

	header(out, "revhash_info", "the master's settings, as labels", "gauge");
	fputs("revhash_info{", out);
	for (size_t i = 0; i < st->n; i++) {
		const struct status_row *r = &st->row[i];

		depth += r->type == STATUS_GROUP || r->type == STATUS_LIST;
		depth -= r->type == STATUS_END;
		if (depth || r->type != STATUS_WORD || !r->key)
			continue;
		fprintf(out, "%s%s=\"", sep, r->key);
		status_word(out, r->word, STATUS_ESC_LABEL);
		fputc('"', out);
		sep = ",";
	}
	fputs("} 1\n", out);
}

static void up(FILE *out, int is_up)
{
	header(out, "revhash_up", "1 when a live master serves the port", "gauge");
	fprintf(out, "revhash_up %d\n", is_up);
}

void metrics_write(FILE *out, const struct status *st)
{
	char name[96];

	up(out, 1);
	info(out, st);
	for (size_t i = 0; i < st->n;) {
		const struct status_row *r = &st->row[i];

		if ((r->type == STATUS_GROUP || r->type == STATUS_LIST) && r->metric)
			i = family(out, st->row, i);
		else if (r->type == STATUS_LIST && st->row[i + 1].type == STATUS_GROUP)
			i = table(out, st->row, i);
		else if (!r->help || r->type == STATUS_GROUP || r->type == STATUS_LIST)
			i++;
		else {
			metric_name(r, name, sizeof name);
			header(out, name, r->help, type_of(r));
			series(out, name, "", &st->row[i++]);
		}
	}
}

int metrics_render(unsigned port, char **body, size_t *len)
{
	struct seg seg = { .fd = -1 };
	struct status st = { 0 };
	FILE *out = open_memstream(body, len);
	int rc = 0;

	if (!out)
		return -ENOMEM;
	if (seg_open(port, 0, &seg) < 0 || !seg.alive) { /* no live master: revhash_up 0 */
		up(out, 0);
		header(out, "revhash_port", "the TCP port the master serves", "gauge");
		fprintf(out, "revhash_port %u\n", port);
	} else if ((rc = status_make(&seg, &st)) == 0) { /* seg: a private copy, read once */
		metrics_write(out, &st);
	}
	status_free(&st);
	seg_close(&seg);
	if (fclose(out) != 0 || rc < 0) {
		free(*body);
		*body = NULL;
		return -ENOMEM;
	}
	return 0;
}
