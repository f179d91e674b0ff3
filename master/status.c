/* The live scoreboard: the worker slots and counters already sit in the
 * shared segment, so `master --status PORT` maps it read-only and prints it,
 * and SIGUSR1 writes the same to the log.
 *
 * Each figure is listed once, in gather(): its JSON key, the words that
 * name it in the text, and its value; the text and the JSON are both
 * printed from that list, and the Prometheus exporter (master/metrics.c)
 * reads it through status_figures(). The workers, the stages and the
 * latency histograms are lists of their own, printed as a table (text) or
 * an array (JSON).
 *
 * The words the segment holds (the kernel's name, each kind's note, which
 * a GPU program of another build wrote) are whatever bytes its writers
 * left: each is copied once, within its field, and printed from the copy,
 * as JSON's escapes where JSON is printed, with '?' for what a terminal
 * should not be sent. */
#include "master/status.h"
#include "lib/log.h"
#include "lib/utf8.h"
#include "shm/hist.h"
#include "worker/kind.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_FIGURES STATUS_FIGURES_MAX

_Static_assert(sizeof(((struct seg_header *)0)->kernel) <= STATUS_WORD_MAX &&
	       sizeof(((struct seg_kind *)0)->note) <= STATUS_WORD_MAX, "a word of the segment fits");

/* The counters of struct seg_stats, in the order they are shown. */
static const struct counter {
	const char *key, *text, *help;
	size_t off;
} counters[] = {
	{ "requests", "\nrequests", "requests read whole",
	  offsetof(struct seg_stats, requests) },
	{ "accepted", "connections", "connections accepted",
	  offsetof(struct seg_stats, accepted) },
	{ "answered", "answered", "replies sent in full",
	  offsetof(struct seg_stats, answered) },
	{ "cache_hits", "cache hits", "requests answered from the cache",
	  offsetof(struct seg_stats, cache_hits) },
	{ "attached", "attached", "requests that joined a search of the same question",
	  offsetof(struct seg_stats, attached) },
	{ "jobs", "jobs", "searches started", offsetof(struct seg_stats, jobs) },
	{ "not_found", "not found", "searches whose range held no answer (replied 0)",
	  offsetof(struct seg_stats, not_found) },
	{ "cancelled", "cancelled", "searches dropped because every client asking left",
	  offsetof(struct seg_stats, cancelled) },
	{ "parked", "parked", "searches set aside for better ones (job table full)",
	  offsetof(struct seg_stats, parked) },
	{ "dropped", "dropped", "connections closed before a reply (timeout, error)",
	  offsetof(struct seg_stats, dropped) },
	{ "timeouts", "timeouts", "dropped connections that were too slow to send or read",
	  offsetof(struct seg_stats, timeouts) },
	{ "worker_deaths", "\nworker deaths", "workers that died",
	  offsetof(struct seg_stats, worker_deaths) },
	{ "stalls", "stalled", "workers killed for making no progress",
	  offsetof(struct seg_stats, stalls) },
	{ "respawns", "respawns", "workers started in place of dead ones",
	  offsetof(struct seg_stats, respawns) },
	{ "reloads", "reloads", "worker count reloads (SIGHUP)",
	  offsetof(struct seg_stats, reloads) },
	{ "dead_hashes", NULL, "hashes done by workers that have exited",
	  offsetof(struct seg_stats, dead_hashes) },
	{ "wakeups", "master wake-ups", "times the master's loop woke with events",
	  offsetof(struct seg_stats, wakeups) },
	{ "wrong_answers", "wrong answers", "answers a worker reported that did not hash to "
	  "the digest (searched again)", offsetof(struct seg_stats, wrong_answers) },
	{ "refused_full", "\nrefused: master full", "connections closed at once: the master "
	  "held --max-conns", offsetof(struct seg_stats, refused_full) },
	{ "refused_peer_conns", "peer's connections", "connections closed at once: their "
	  "peer held --peer-conns", offsetof(struct seg_stats, refused_peer_conns) },
	{ "refused_peer_searches", "peer's searches", "requests closed unanswered: their "
	  "peer had --peer-searches searches", offsetof(struct seg_stats, refused_peer_searches) },
};

static const char *const stage_names[STAGE_COUNT] = {
	"read", "dispatch", "wake", "hash", "notify", "reply"
};

static const char *const outcome_names[OUTCOME_COUNT] = { "cache_hit", "found", "not_found" };

static double uptime_s(const struct seg_header *h)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return ((double)now.tv_sec * 1e9 + (double)now.tv_nsec - (double)h->started_ns) / 1e9;
}

static double mean_us(uint64_t ns, uint64_t n)
{
	return n ? (double)ns / (double)n / 1e3 : 0;
}

/* What the master does with the CPUs' idle states (enum power_state). */
static const char *low_latency_name(uint32_t state)
{
	static const char *const names[] = { "off", "released", "held" };

	return state < 3 ? names[state] : "?";
}

/* A figure past the array's end, or one without its sentence, is a
 * mistake in this file (the figures are a fixed list, but for one per rule
 * and two per kind): stop on it rather than print a scoreboard without
 * it. */
static void add(struct status_figure *f, size_t *n, struct status_figure one)
{
	if (*n >= MAX_FIGURES || !one.help) {
		fprintf(stderr, "status: figure %s: %s\n", one.key, one.help ?
			"past STATUS_FIGURES_MAX (raise it)" : "no help sentence");
		abort();
	}
	f[(*n)++] = one;
}

/* A figure whose word is a field of the segment's, size bytes: read once
 * into a word of words, it ends at the field's last byte at the latest,
 * whatever a writer of the segment left there. */
static void add_copied(struct status_figure *f, size_t *n, struct status_figure one,
		       struct status_words *words, const char *field, size_t size)
{
	char *copy = words->word[words->n++];

	memcpy(copy, field, size - 1);
	copy[size - 1] = '\0';
	one.word = copy;
	add(f, n, one);
}

/* What the workers hashed: every live and dead worker's hashes, and the
 * busy rate: the live workers' hashes per second of time spent hashing,
 * summed (the server's own rate over its life, without the time anything
 * else took from its CPUs). A kind timed on the CPU's clock shares the
 * CPUs: with more of its workers than CPUs, the CPUs' worth of their mean
 * rate counts. A kind on the wall clock (a GPU: its time is the wall
 * clock's while it searches) counts its device's rate. */
static void hashing(const struct seg *seg, uint64_t *hashes, double *busy_rate)
{
	double on_cpus = 0, on_devices = 0;
	unsigned busy = 0;

	*hashes = seg->hdr->stats.dead_hashes;
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		const struct worker_kind *k;
		struct ring_slot_view v;

		ring_slot_view(seg->ring, i, &v);
		*hashes += v.hashes;
		if (!v.pid || !v.hash_ns || !(k = kind_at(v.kind)))
			continue;
		if (k->wall_clock) {
			on_devices += v.hashes * 1e9 / v.hash_ns;
		} else {
			on_cpus += v.hashes * 1e9 / v.hash_ns;
			busy++;
		}
	}
	if (seg->hdr->cpus && busy > seg->hdr->cpus)
		on_cpus = on_cpus / busy * seg->hdr->cpus;
	*busy_rate = on_cpus + on_devices;
}

/* Test hooks armed and not yet fired, all kinds together. */
static uint64_t hooks_armed(const struct ring *r)
{
	uint64_t n = 0;

	for (int i = 0; i < HOOK_COUNT; i++)
		n += ring_hook_armed(r, (enum ring_hook)i);
	return n;
}

/* Every figure of the scoreboard into f; returns how many, and in *head
 * how many of them make the master's own first line. */
static size_t gather(const struct seg *seg, struct status_figure *f, size_t *head,
		     struct status_words *words)
{
	const struct seg_header *h = seg->hdr;
	const struct policy *p = &seg->ring->policy;
	unsigned counts[18];
	uint64_t hashes;
	double busy_rate;
	size_t n = 0;

	words->n = 0;
	hashing(seg, &hashes, &busy_rate);
	add(f, &n, (struct status_figure){ "pid", "revhash master pid", NULL, STATUS_NUM, (uint64_t)h->master_pid, 0, NULL, 0, "the master's process id" });
	add(f, &n, (struct status_figure){ "port", "port", NULL, STATUS_NUM, h->port, 0, NULL, 0, "the TCP port the master serves" });
	add_copied(f, &n, (struct status_figure){ "kernel", "kernel", NULL, STATUS_WORD, 0, 0, NULL, 0,
						  "the CPU workers' SHA-256 kernel" },
		   words, h->kernel, sizeof h->kernel);
	for (unsigned k = 0; k < kind_count() && k < SEG_KINDS; k++) {
		const struct worker_kind *kind = kind_at(k);

		if (!kind->find)
			continue;
		add_copied(f, &n, (struct status_figure){ kind->name, kind->name, NULL, STATUS_WORD,
							  0, 0, NULL, 0,
							  "the devices the kind's workers run on" },
			   words, h->kinds[k].note, sizeof h->kinds[k].note);
		add(f, &n, (struct status_figure){ kind->count_key, NULL, NULL, STATUS_NUM,
						   h->kinds[k].n, 0, NULL, 0, kind->count_help });
	}
	add(f, &n, (struct status_figure){ "schedule", "schedule", NULL, STATUS_WORD, 0, 0,
					   policy_order_name(p->order), 0,
					   "the order jobs get the workers in" });
	for (unsigned i = 0; i < policy_rules(); i++)
		add(f, &n, (struct status_figure){ policy_rule_key(i), policy_rule_key(i), NULL,
						   STATUS_NUM, (uint64_t)policy_rule_on(p, i), 0,
						   NULL, 0, policy_rule_state(i) });
	add(f, &n, (struct status_figure){ "low_latency", "low latency", NULL, STATUS_WORD, 0, 0, low_latency_name(h->low_latency), 0, "what the master does with the CPUs' idle states" });
	add(f, &n, (struct status_figure){ "low_latency_holds", NULL, NULL, STATUS_NUM, h->low_latency_holds, 0, NULL, 1, "times the master held the CPUs out of deep idle states" });
	add(f, &n, (struct status_figure){ "uptime_s", "up", " s", STATUS_REAL, 0, uptime_s(h), NULL, 0, "seconds since the master started" });
	*head = n;
	add(f, &n, (struct status_figure){ "workers_wanted", "workers wanted", NULL, STATUS_NUM, h->workers, 0, NULL, 0, "CPU workers the master aims for" });
	add(f, &n, (struct status_figure){ "jobs_in_table", "jobs in the table", NULL, STATUS_NUM, ring_in_use(seg->ring), 0, NULL, 0, "jobs in the shared job table, in any phase" });
	add(f, &n, (struct status_figure){ "jobs_queued", "searched", NULL, STATUS_NUM, ring_queued(seg->ring, counts), 0, NULL, 0, "jobs being searched or waiting for a worker" });
	add(f, &n, (struct status_figure){ "cache_count", "cache", NULL, STATUS_NUM, seg->cache->count, 0, NULL, 0, "answers the cache holds" });
	add(f, &n, (struct status_figure){ "cache_capacity", "of", " answers", STATUS_NUM, seg->cache->capacity, 0, NULL, 0, "answers the cache can hold" });
	for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
		add(f, &n, (struct status_figure){ counters[i].key, counters[i].text, NULL, STATUS_NUM,
			*(const uint64_t *)((const char *)&h->stats + counters[i].off), 0, NULL, 1,
			counters[i].help });
	add(f, &n, (struct status_figure){ "lock_repairs", "lock repairs", NULL, STATUS_NUM, ring_repairs(seg->ring), 0, NULL, 1, "times the job table's lock was taken back from a dead holder" });
	add(f, &n, (struct status_figure){ "hashes_total", "hashes", NULL, STATUS_NUM, hashes, 0, NULL, 1, "hashes done by all workers, live and exited" });
	add(f, &n, (struct status_figure){ "busy_rate", "busy rate", " hashes/s", STATUS_REAL, 0, busy_rate, NULL, 0, "hashes per second of the workers' hashing time, summed over live workers (hashes/s)" });
	add(f, &n, (struct status_figure){ "hooks_armed", NULL, NULL, STATUS_NUM, hooks_armed(seg->ring), 0, NULL, 0, "test fault hooks armed and not yet fired" });
	return n;
}

/* ---- text ---------------------------------------------------------------- */

/* s as a JSON string: quotes and backslashes escaped, control characters
 * as \u00XX, a byte that is no part of a UTF-8 character as '?'. */
static void print_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = utf8_char(s);

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else if (n)
			fwrite(s, 1, n, out);
		else
			fputc('?', out);
		s += n ? n : 1;
	}
	fputc('"', out);
}

/* s for a terminal or a log: a control character, or a byte that is no
 * part of a UTF-8 character, as '?'. */
static void print_text_word(FILE *out, const char *s)
{
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = utf8_char(s);

		if (c < 0x20 || c == 0x7f || !n)
			fputc('?', out);
		else
			fwrite(s, 1, n, out);
		s += n ? n : 1;
	}
}

static void print_value(FILE *out, const struct status_figure *f, int json)
{
	if (f->kind == STATUS_NUM)
		fprintf(out, "%llu", (unsigned long long)f->num);
	else if (f->kind == STATUS_REAL)
		fprintf(out, json ? "%.3f" : "%.1f", f->real);
	else
		(json ? print_json_string : print_text_word)(out, f->word);
}

static void print_figures_text(FILE *out, const struct status_figure *f, size_t n)
{
	int first = 1;

	for (size_t i = 0; i < n; i++) {
		const char *text = f[i].text;

		if (!text)
			continue;
		if (text[0] == '\n') {
			fputc('\n', out);
			text++;
			first = 1;
		}
		fprintf(out, "%s%s ", first ? "" : ", ", text);
		print_value(out, &f[i], 0);
		fputs(f[i].unit ? f[i].unit : "", out);
		first = 0;
	}
	fputc('\n', out);
}

static const char *slot_state(const struct ring_slot_view *v)
{
	static const char *const names[] = { "empty", "idle", "hashing", "retiring" };

	if (!v->pid)
		return "dead";
	return v->state < 4 ? names[v->state] : "?";
}

const char *status_worker_kind(const struct ring_slot_view *v)
{
	const struct worker_kind *k = kind_at(v->kind);

	return k ? k->name : "?";
}

const char *status_stage_name(int stage)
{
	return stage >= 0 && stage < STAGE_COUNT ? stage_names[stage] : "?";
}

const char *status_outcome_name(int outcome)
{
	return outcome >= 0 && outcome < OUTCOME_COUNT ? outcome_names[outcome] : "?";
}

size_t status_figures(const struct seg *seg, struct status_figure *f, struct status_words *words)
{
	size_t head;

	return gather(seg, f, &head, words);
}

static void print_workers_text(FILE *out, const struct ring *r)
{
	fprintf(out, "%-5s %-4s %-8s %-9s %-6s %-44s %9s %8s\n", "slot", "kind", "pid",
		"state", "job", "lease", "Mhash/s", "deaths");
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct ring_slot_view v;
		char lease[64] = "-", job[16] = "-";

		ring_slot_view(r, i, &v);
		if (!v.pid && !v.deaths)
			continue;
		if (v.has_lease) {
			snprintf(job, sizeof job, "%u", v.lease_job);
			snprintf(lease, sizeof lease, "%llu..%llu",
				 (unsigned long long)v.lease_lo,
				 (unsigned long long)v.lease_hi);
		}
		fprintf(out, "%-5u %-4s %-8d %-9s %-6s %-44s %9.2f %8u\n", i, status_worker_kind(&v),
			v.pid, slot_state(&v), job, lease, (double)v.rate / 1e6, v.deaths);
	}
}

/* Where a searched request's time goes, on average (enum seg_stage). */
static void print_stages_text(FILE *out, const struct seg_header *h)
{
	const struct seg_stages *s = &h->stats.stages;

	fprintf(out, "stages, mean us over %llu searched requests:",
		(unsigned long long)s->timed);
	for (int i = 0; i < STAGE_COUNT; i++)
		fprintf(out, " %s %.1f%s", stage_names[i], mean_us(s->ns[i], s->timed),
			i < STAGE_COUNT - 1 ? "," : "");
	fprintf(out, "; %llu cache hits: read %.1f, reply %.1f\n",
		(unsigned long long)s->hits_timed, mean_us(s->hit_read_ns, s->hits_timed),
		mean_us(s->hit_reply_ns, s->hits_timed));
	if (h->stats.requests)
		fprintf(out, "master wake-ups per request %.2f\n",
			(double)h->stats.wakeups / (double)h->stats.requests);
}

/* p99 in us as the histograms know it: its bucket's upper bound. */
static void print_p99(FILE *out, const struct seg_hist *hist)
{
	uint64_t ns = hist_at_most(hist, 0.99);

	if (ns == UINT64_MAX)
		fprintf(out, "> %llu", (unsigned long long)(hist_bound_ns(HIST_BOUNDS - 1) / 1000));
	else
		fprintf(out, "<= %llu", (unsigned long long)(ns / 1000));
}

/* Each outcome's replies: how many, their mean latency, their p99's
 * bound; and the score, the mean of latency x priority. */
static void print_latency_text(FILE *out, const struct seg_latency *l)
{
	uint64_t n, all = 0;

	fputs("replies:", out);
	for (int i = 0; i < OUTCOME_COUNT; i++) {
		n = hist_count(&l->reply[i]);
		all += n;
		fprintf(out, " %s %llu", outcome_names[i], (unsigned long long)n);
		if (n) {
			fprintf(out, " (mean %.1f us, p99 ", mean_us(l->reply[i].sum_ns, n));
			print_p99(out, &l->reply[i]);
			fputc(')', out);
		}
		fputc(';', out);
	}
	fprintf(out, " score %.1f (mean us x priority)\n", mean_us(l->score_ns, all));
}

static void print_text(FILE *out, const struct seg *seg)
{
	struct status_figure f[MAX_FIGURES];
	struct status_words words;
	size_t head, n = gather(seg, f, &head, &words);

	print_figures_text(out, f, head); /* the master, then the workers */
	print_workers_text(out, seg->ring);
	print_figures_text(out, f + head, n - head);
	print_stages_text(out, seg->hdr);
	print_latency_text(out, &seg->hdr->stats.latency);
}

/* ---- JSON ---------------------------------------------------------------- */

static void print_workers_json(FILE *out, const struct ring *r)
{
	const char *sep = "";

	fputs("\"workers\":[", out);
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		struct ring_slot_view v;

		ring_slot_view(r, i, &v);
		if (!v.pid && !v.deaths)
			continue;
		fprintf(out, "%s{\"slot\":%u,\"kind\":\"%s\",\"pid\":%d,\"state\":\"%s\","
			"\"hashes\":%llu,\"rate\":%llu,\"hash_cpu_ns\":%llu,\"deaths\":%u}", sep,
			i, status_worker_kind(&v), v.pid, slot_state(&v), (unsigned long long)v.hashes,
			(unsigned long long)v.rate, (unsigned long long)v.hash_ns, v.deaths);
		sep = ",";
	}
	fputs("]", out);
}

static void print_stages_json(FILE *out, const struct seg_stages *s)
{
	fputs("\"stages_us\":{", out);
	for (int i = 0; i < STAGE_COUNT; i++)
		fprintf(out, "\"%s\":%.3f,", stage_names[i], mean_us(s->ns[i], s->timed));
	fprintf(out, "\"timed\":%llu,\"hit_read\":%.3f,\"hit_reply\":%.3f,\"hits_timed\":%llu}",
		(unsigned long long)s->timed, mean_us(s->hit_read_ns, s->hits_timed),
		mean_us(s->hit_reply_ns, s->hits_timed), (unsigned long long)s->hits_timed);
}

/* One histogram as an object: key, its name, its count, sum, and each
 * bucket's count (not cumulative; the last one above the top bound). */
static void print_hist_json(FILE *out, const char *key, const char *name,
			    const struct seg_hist *hist)
{
	fprintf(out, "{\"%s\":\"%s\",\"count\":%llu,\"sum_us\":%.3f,\"buckets\":[", key, name,
		(unsigned long long)hist_count(hist), (double)hist->sum_ns / 1e3);
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		fprintf(out, "%llu%s", (unsigned long long)hist->n[i], i < HIST_BOUNDS ? "," : "]}");
}

/* The latency histograms, read from one copy: each bucket's upper bound
 * in us, the replies by outcome, the stages, and the score's sum (us x
 * priority) and count (the replies). */
static void print_latency_json(FILE *out, const struct seg_latency *live)
{
	struct seg_latency l = *live;
	uint64_t all = 0;

	fputs("\"latency\":{\"bounds_us\":[", out);
	for (unsigned i = 0; i < HIST_BOUNDS; i++)
		fprintf(out, "%llu%s", (unsigned long long)(hist_bound_ns(i) / 1000),
			i < HIST_BOUNDS - 1 ? "," : "],\"replies\":[");
	for (int i = 0; i < OUTCOME_COUNT; i++) {
		all += hist_count(&l.reply[i]);
		print_hist_json(out, "outcome", outcome_names[i], &l.reply[i]);
		fputs(i < OUTCOME_COUNT - 1 ? "," : "],\"stages\":[", out);
	}
	for (int i = 0; i < STAGE_COUNT; i++) {
		print_hist_json(out, "stage", stage_names[i], &l.stage[i]);
		fputs(i < STAGE_COUNT - 1 ? "," : "],", out);
	}
	fprintf(out, "\"score_sum\":%.3f,\"score_count\":%llu}", (double)l.score_ns / 1e3,
		(unsigned long long)all);
}

static void print_json(FILE *out, const struct seg *seg)
{
	struct status_figure f[MAX_FIGURES];
	struct status_words words;
	size_t head, n = gather(seg, f, &head, &words);
	unsigned counts[18];

	ring_queued(seg->ring, counts);
	fputc('{', out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "\"%s\":", f[i].key);
		print_value(out, &f[i], 1);
		fputc(',', out);
	}
	fputs("\"jobs_by_priority\":[", out);
	for (unsigned w = 1; w < 18; w++)
		fprintf(out, "%u%s", counts[w], w < 17 ? "," : "],");
	print_workers_json(out, seg->ring);
	fputc(',', out);
	print_stages_json(out, &seg->hdr->stats.stages);
	fputc(',', out);
	print_latency_json(out, &seg->hdr->stats.latency);
	fputs("}\n", out);
}

/* ---- finding the master -------------------------------------------------- */

/* Map the live master's segment on port, or say why there is none. */
static int find(const char *what, unsigned port, int rw, struct seg *seg)
{
	int rc = seg_open(port, rw, seg);

	if (rc == -EPROTO) {
		fprintf(stderr, "master %s: the shared segment of port %u is damaged "
			"or of another version\n", what, port);
		return rc;
	}
	if (rc < 0) {
		fprintf(stderr, "master %s: no master on port %u\n", what, port);
		return rc;
	}
	if (!seg->alive) {
		fprintf(stderr, "master %s: the master on port %u (pid %d) is gone; "
			"its shared segment /dev/shm%s is left over (a new master "
			"removes it)\n", what, port, seg->hdr->master_pid, seg->name);
		seg_close(seg);
		return -ESRCH;
	}
	return 0;
}

int status_print(unsigned port, int json)
{
	struct seg seg = { .fd = -1 };
	int rc = find("--status", port, 0, &seg);

	if (rc == 0)
		(json ? print_json : print_text)(stdout, &seg);
	seg_close(&seg); /* a segment not found or already closed: nothing */
	return rc;
}

int status_arm_hook(unsigned port, int hook)
{
	struct seg seg = { .fd = -1 };
	int rc = find("--hook", port, 1, &seg);

	if (rc == 0 && (rc = ring_arm_hook(seg.ring, (enum ring_hook)hook, 1)) < 0)
		fprintf(stderr, "master --hook: the master on port %u was started "
			"without REVHASH_TEST_HOOKS\n", port);
	seg_close(&seg);
	return rc;
}

void status_log(const struct seg *seg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	print_text(f, seg);
	fclose(f);
	log_info("status:\n%s", buf);
	free(buf);
}
