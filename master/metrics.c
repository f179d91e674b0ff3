/* The Prometheus text format of a master's scoreboard. Nothing here keeps
 * a list of counters: the figures come from master/status.c's one table
 * (status_figures), each written as a counter when the table marks it one
 * and as a gauge otherwise, its words as labels of revhash_info. The
 * latency histograms are the segment's own buckets, made cumulative here
 * from one copy, so that +Inf is _count whatever the master adds meanwhile.
 * The segment is mapped read-only for one rendering and unmapped at once, so
 * a master that restarts (a new segment) is followed without a restart of
 * the exporter, and the master never waits on a scrape. */
#include "master/metrics.h"
#include "lib/utf8.h"
#include "worker/kind.h"
#include "master/status.h"
#include "shm/hist.h"
#include "shm/ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* s with backslashes and newlines escaped, as the format wants of a HELP
 * text, and double quotes too where it is a label's value (quoted). The
 * format is UTF-8 text and s may be a word of the segment's: a byte that
 * is no part of a UTF-8 character, or another control character (C1's
 * too), is '?'. */
static void escaped(FILE *out, const char *s, int quoted)
{
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = utf8_char(s);

		if (c == '\\' || (quoted && c == '"'))
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (!n || utf8_control(s, n))
			fputc('?', out);
		else
			fwrite(s, 1, n, out);
		s += n ? n : 1;
	}
}

/* The metric's name from a figure's key: revhash_KEY, a key ending in
 * "_s" in seconds, one ending in "_count" in "_entries" (the suffix
 * belongs to summaries), a counter ending in "_total" (once). */
static void metric_name(const struct status_figure *f, char *buf, size_t size)
{
	size_t n = strlen(f->key);
	const char *unit = "";

	if (n > 2 && strcmp(f->key + n - 2, "_s") == 0) {
		n -= 2;
		unit = "_seconds";
	} else if (n > 6 && strcmp(f->key + n - 6, "_count") == 0) {
		n -= 6;
		unit = "_entries";
	} else if (n > 6 && strcmp(f->key + n - 6, "_total") == 0) {
		n -= 6;
	}
	snprintf(buf, size, "revhash_%.*s%s%s", (int)n, f->key, unit,
		 f->counter ? "_total" : "");
}

static void header(FILE *out, const char *name, const char *help, const char *type)
{
	fprintf(out, "# HELP %s ", name);
	escaped(out, help, 0);
	fprintf(out, "\n# TYPE %s %s\n", name, type);
}

/* One numeric figure: its HELP (the figure's own sentence), TYPE and
 * value. */
static void figure(FILE *out, const struct status_figure *f)
{
	char name[96];

	metric_name(f, name, sizeof name);
	header(out, name, f->help, f->counter ? "counter" : "gauge");
	if (f->kind == STATUS_NUM)
		fprintf(out, "%s %llu\n", name, (unsigned long long)f->num);
	else
		fprintf(out, "%s %.6g\n", name, f->real);
}

/* The words (kernel, schedule...) as labels of one metric whose value is 1. */
static void info(FILE *out, const struct status_figure *f, size_t n)
{
	const char *sep = "";

	header(out, "revhash_info", "the master's settings, as labels", "gauge");
	fputs("revhash_info{", out);
	for (size_t i = 0; i < n; i++) {
		if (f[i].kind != STATUS_WORD)
			continue;
		fprintf(out, "%s%s=\"", sep, f[i].key);
		escaped(out, f[i].word, 1);
		fputc('"', out);
		sep = ",";
	}
	fputs("} 1\n", out);
}

/* Each worker slot's rate and hashes, and the live workers by kind. */
static void workers(FILE *out, const struct ring *r)
{
	struct ring_slot_view v[RING_WORKERS];
	unsigned live[KINDS_MAX] = { 0 };

	for (unsigned i = 0; i < RING_WORKERS; i++) {
		ring_slot_view(r, i, &v[i]);
		if (v[i].pid && v[i].kind < KINDS_MAX)
			live[v[i].kind]++;
	}
	header(out, "revhash_workers", "live workers, by kind", "gauge");
	for (unsigned k = 0; k < kind_count(); k++)
		fprintf(out, "revhash_workers{kind=\"%s\"} %u\n", kind_at(k)->name, live[k]);
	header(out, "revhash_worker_hash_rate", "a worker's measured rate, hashes/s", "gauge");
	for (unsigned i = 0; i < RING_WORKERS; i++)
		if (v[i].pid)
			fprintf(out, "revhash_worker_hash_rate{slot=\"%u\",kind=\"%s\"} %llu\n",
				i, status_worker_kind(&v[i]), (unsigned long long)v[i].rate);
	header(out, "revhash_worker_hashes_total", "hashes by the worker now in the slot",
	       "counter");
	for (unsigned i = 0; i < RING_WORKERS; i++)
		if (v[i].pid)
			fprintf(out, "revhash_worker_hashes_total{slot=\"%u\",kind=\"%s\"} %llu\n",
				i, status_worker_kind(&v[i]), (unsigned long long)v[i].hashes);
	header(out, "revhash_worker_slot_deaths_total", "workers of the slot that died",
	       "counter");
	for (unsigned i = 0; i < RING_WORKERS; i++)
		if (v[i].pid || v[i].deaths)
			fprintf(out, "revhash_worker_slot_deaths_total{slot=\"%u\"} %u\n", i,
				v[i].deaths);
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

/* One histogram's series, labelled label="value": its buckets, counted
 * up to each bound, +Inf, the sum and the count. */
static void histogram(FILE *out, const char *name, const char *label, const char *value,
		      const struct seg_hist *h)
{
	uint64_t seen = 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->n[i];
		fprintf(out, "%s_bucket{%s=\"%s\",le=\"", name, label, value);
		if (i < HIST_BOUNDS)
			seconds(out, hist_bound_ns(i));
		else
			fputs("+Inf", out);
		fprintf(out, "\"} %llu\n", (unsigned long long)seen);
	}
	fprintf(out, "%s_sum{%s=\"%s\"} %.9f\n%s_count{%s=\"%s\"} %llu\n", name, label, value,
		(double)h->sum_ns / 1e9, name, label, value, (unsigned long long)seen);
}

/* The master's latency, from one copy of the segment's histograms: each
 * reply by outcome, each stage of a searched request, and the score's
 * sum and count, whose rates divide into the course's score. */
static void latency(FILE *out, const struct seg_latency *live)
{
	struct seg_latency l = *live;
	uint64_t replies = 0;

	header(out, "revhash_request_duration_seconds", "a request's time in the master, from its "
	       "accept to its reply's last byte written, by what the reply said", "histogram");
	for (int i = 0; i < OUTCOME_COUNT; i++) {
		histogram(out, "revhash_request_duration_seconds", "outcome", status_outcome_name(i),
			  &l.reply[i]);
		replies += hist_count(&l.reply[i]);
	}
	header(out, "revhash_stage_seconds", "a searched request's time, by stage", "histogram");
	for (int i = 0; i < STAGE_COUNT; i++)
		histogram(out, "revhash_stage_seconds", "stage", status_stage_name(i), &l.stage[i]);
	header(out, "revhash_score", "a reply's latency in microseconds times its request's "
	       "priority (1-16); rate(_sum) / rate(_count) is the mean, the course's score", "summary");
	fprintf(out, "revhash_score_sum %.3f\nrevhash_score_count %llu\n", (double)l.score_ns / 1e3,
		(unsigned long long)replies);
}

/* A cache hit's stages: a summary of sum and count. */
static void hit_stages(FILE *out, const struct seg_stages *s)
{
	header(out, "revhash_cache_hit_stage_seconds", "a cache hit's time, by stage",
	       "summary");
	fprintf(out, "revhash_cache_hit_stage_seconds_sum{stage=\"read\"} %.9f\n"
		"revhash_cache_hit_stage_seconds_count{stage=\"read\"} %llu\n"
		"revhash_cache_hit_stage_seconds_sum{stage=\"reply\"} %.9f\n"
		"revhash_cache_hit_stage_seconds_count{stage=\"reply\"} %llu\n",
		(double)s->hit_read_ns / 1e9, (unsigned long long)s->hits_timed,
		(double)s->hit_reply_ns / 1e9, (unsigned long long)s->hits_timed);
}

static void up(FILE *out, int is_up)
{
	header(out, "revhash_up", "1 when a live master serves the port", "gauge");
	fprintf(out, "revhash_up %d\n", is_up);
}

/* The metrics of the master whose segment is seg (mapped, alive),
 * revhash_up 1 first. */
static void metrics_write(FILE *out, const struct seg *seg)
{
	struct status_figure f[STATUS_FIGURES_MAX];
	struct status_words words;
	size_t n = status_figures(seg, f, &words);

	up(out, 1);
	info(out, f, n);
	for (size_t i = 0; i < n; i++)
		if (f[i].kind != STATUS_WORD)
			figure(out, &f[i]);
	workers(out, seg->ring);
	latency(out, &seg->hdr->stats.latency);
	hit_stages(out, &seg->hdr->stats.stages);
}

/* What is known without a master: revhash_up 0. */
static void metrics_write_down(FILE *out, unsigned port)
{
	up(out, 0);
	header(out, "revhash_port", "the TCP port the master serves", "gauge");
	fprintf(out, "revhash_port %u\n", port);
}

int metrics_render(unsigned port, char **body, size_t *len)
{
	struct seg seg = { .fd = -1 };
	FILE *out = open_memstream(body, len);

	if (!out)
		return -ENOMEM;
	if (seg_open(port, 0, &seg) == 0 && seg.alive)
		metrics_write(out, &seg); /* a private copy, read once */
	else
		metrics_write_down(out, port);
	seg_close(&seg);
	if (fclose(out) != 0) {
		free(*body);
		*body = NULL;
		return -ENOMEM;
	}
	return 0;
}
