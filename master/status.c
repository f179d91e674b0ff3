/* The live scoreboard: the worker slots and counters already sit in the
 * shared segment, so `master --status PORT` maps it read-only and prints it,
 * and SIGUSR1 writes the same to the log.
 *
 * Each figure is listed once, in gather() and the few functions it calls
 * in the order the figures are shown: one struct status_figure each, its
 * fields named (its JSON key, the words that name it in the text, its
 * value, whether it is a counter, its sentence). The text and the JSON are
 * both printed from that list, and the Prometheus exporter
 * (master/metrics.c) reads it through status_figures(). The workers, the stages and the
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
#include "master/power.h"
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

static const char *const stage_names[STAGE_COUNT] = {
#define XX(stage, name) [STAGE_##stage] = name,
	SEG_STAGE_MAP(XX)
#undef XX
};

static const char *const outcome_names[OUTCOME_COUNT] = {
#define XX(outcome, name) [OUTCOME_##outcome] = name,
	SEG_OUTCOME_MAP(XX)
#undef XX
};

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
	static const char *const names[POWER_STATE_COUNT] = {
#define XX(state, name) [POWER_STATE_##state] = name,
		POWER_STATE_MAP(XX)
#undef XX
	};

	return state < POWER_STATE_COUNT ? names[state] : "?";
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

/* The master's own first line: who it is, what it runs, how long it has. */
static void master_figures(const struct seg *seg, struct status_figure *f, size_t *n,
			   struct status_words *words)
{
	const struct seg_header *h = seg->hdr;
	/* The master puts the policy back where a worker wrote over it. */
	const struct policy pol = { .order = shm_read(seg->ring->policy.order),
				    .rules = shm_read(seg->ring->policy.rules) },
			    *p = &pol;

	add(f, n, (struct status_figure){ .key = "pid", .text = "revhash master pid",
		.num = (uint64_t)h->master_pid, .help = "the master's process id" });
	add(f, n, (struct status_figure){ .key = "port", .text = "port", .num = h->port,
		.help = "the TCP port the master serves" });
	add_copied(f, n, (struct status_figure){ .key = "kernel", .text = "kernel",
		.kind = STATUS_WORD, .help = "the CPU workers' SHA-256 kernel" },
		words, h->kernel, sizeof h->kernel);
	for (unsigned k = 0; k < kind_count() && k < SEG_KINDS; k++) {
		const struct worker_kind *kind = kind_at(k);

		if (!kind_is_found(kind))
			continue;
		add_copied(f, n, (struct status_figure){ .key = kind->name, .text = kind->name,
			.kind = STATUS_WORD, .help = "the devices the kind's workers run on" },
			words, h->kinds[k].note, sizeof h->kinds[k].note);
		add(f, n, (struct status_figure){ .key = kind->count_key, .num = h->kinds[k].n,
			.help = kind->count_help });
	}
	add(f, n, (struct status_figure){ .key = "schedule", .text = "schedule",
		.kind = STATUS_WORD, .word = policy_order_name(p->order),
		.help = "the order jobs get the workers in" });
	for (unsigned i = 0; i < policy_rules(); i++)
		add(f, n, (struct status_figure){ .key = policy_rule_key(i),
			.text = policy_rule_key(i), .num = (uint64_t)policy_rule_on(p, i),
			.help = policy_rule_state(i) });
	add(f, n, (struct status_figure){ .key = "low_latency", .text = "low latency",
		.kind = STATUS_WORD, .word = low_latency_name(h->low_latency),
		.help = "what the master does with the CPUs' idle states" });
	add(f, n, (struct status_figure){ .key = "low_latency_holds", .num = h->low_latency_holds,
		.counter = 1, .help = "times the master held the CPUs out of deep idle states" });
	add(f, n, (struct status_figure){ .key = "uptime_s", .text = "up", .unit = " s",
		.kind = STATUS_REAL, .real = uptime_s(h),
		.help = "seconds since the master started" });
}

/* What the master holds: the workers it aims for, the job table, the
 * cache. */
static void table_figures(const struct seg *seg, struct status_figure *f, size_t *n)
{
	unsigned counts[RING_QUEUED_BUCKETS];

	add(f, n, (struct status_figure){ .key = "workers_wanted", .text = "workers wanted",
		.num = seg->hdr->workers, .help = "CPU workers the master aims for" });
	add(f, n, (struct status_figure){ .key = "jobs_in_table", .text = "jobs in the table",
		.num = ring_in_use(seg->ring), .help = "jobs in the shared job table, in any phase" });
	add(f, n, (struct status_figure){ .key = "jobs_queued", .text = "searched",
		.num = ring_queued(seg->ring, counts),
		.help = "jobs being searched or waiting for a worker" });
	add(f, n, (struct status_figure){ .key = "cache_count", .text = "cache",
		.num = shm_read(seg->cache->count), .help = "answers the cache holds" });
	add(f, n, (struct status_figure){ .key = "cache_capacity", .text = "of", .unit = " answers",
		.num = shm_read(seg->cache->capacity), .help = "answers the cache can hold" });
}

/* The requests and connections the master has seen, counted since its
 * start. */
static void request_figures(const struct seg_stats *st, struct status_figure *f, size_t *n)
{
	add(f, n, (struct status_figure){ .key = "requests", .text = "\nrequests",
		.num = st->requests, .counter = 1, .help = "requests read whole" });
	add(f, n, (struct status_figure){ .key = "accepted", .text = "connections",
		.num = st->accepted, .counter = 1, .help = "connections accepted" });
	add(f, n, (struct status_figure){ .key = "answered", .text = "answered",
		.num = st->answered, .counter = 1, .help = "replies sent in full" });
	add(f, n, (struct status_figure){ .key = "cache_hits", .text = "cache hits",
		.num = st->cache_hits, .counter = 1, .help = "requests answered from the cache" });
	add(f, n, (struct status_figure){ .key = "attached", .text = "attached",
		.num = st->attached, .counter = 1,
		.help = "requests that joined a search of the same question" });
	add(f, n, (struct status_figure){ .key = "jobs", .text = "jobs",
		.num = st->jobs, .counter = 1, .help = "searches started" });
	add(f, n, (struct status_figure){ .key = "not_found", .text = "not found",
		.num = st->not_found, .counter = 1,
		.help = "searches whose range held no answer (replied 0)" });
	add(f, n, (struct status_figure){ .key = "cancelled", .text = "cancelled",
		.num = st->cancelled, .counter = 1,
		.help = "searches dropped because every client asking left" });
	add(f, n, (struct status_figure){ .key = "parked", .text = "parked",
		.num = st->parked, .counter = 1,
		.help = "searches set aside for better ones (job table full)" });
	add(f, n, (struct status_figure){ .key = "dropped", .text = "dropped",
		.num = st->dropped, .counter = 1,
		.help = "connections closed before a reply (timeout, error)" });
	add(f, n, (struct status_figure){ .key = "timeouts", .text = "timeouts",
		.num = st->timeouts, .counter = 1,
		.help = "dropped connections that were too slow to send or read" });
}

/* The workers' lives and the master's own work, counted since its start. */
static void worker_figures(const struct seg_stats *st, struct status_figure *f, size_t *n)
{
	add(f, n, (struct status_figure){ .key = "worker_deaths", .text = "\nworker deaths",
		.num = st->worker_deaths, .counter = 1, .help = "workers that died" });
	add(f, n, (struct status_figure){ .key = "stalls", .text = "stalled",
		.num = st->stalls, .counter = 1, .help = "workers killed for making no progress" });
	add(f, n, (struct status_figure){ .key = "respawns", .text = "respawns",
		.num = st->respawns, .counter = 1, .help = "workers started in place of dead ones" });
	add(f, n, (struct status_figure){ .key = "reloads", .text = "reloads",
		.num = st->reloads, .counter = 1, .help = "worker count reloads (SIGHUP)" });
	add(f, n, (struct status_figure){ .key = "dead_hashes",
		.num = st->dead_hashes, .counter = 1,
		.help = "hashes done by workers that have exited" });
	add(f, n, (struct status_figure){ .key = "wakeups", .text = "master wake-ups",
		.num = st->wakeups, .counter = 1,
		.help = "times the master's loop woke with events" });
	add(f, n, (struct status_figure){ .key = "wrong_answers", .text = "wrong answers",
		.num = st->wrong_answers, .counter = 1,
		.help = "answers a worker reported that did not hash to the digest (searched again)" });
}

/* The connections and requests closed at once by a cap. */
static void refused_figures(const struct seg_stats *st, struct status_figure *f, size_t *n)
{
	add(f, n, (struct status_figure){ .key = "refused_full", .text = "\nrefused: master full",
		.num = st->refused_full, .counter = 1,
		.help = "connections closed at once: the master held --max-conns" });
	add(f, n, (struct status_figure){ .key = "refused_peer_conns", .text = "peer's connections",
		.num = st->refused_peer_conns, .counter = 1,
		.help = "connections closed at once: their peer held --peer-conns" });
	add(f, n, (struct status_figure){ .key = "refused_peer_searches", .text = "peer's searches",
		.num = st->refused_peer_searches, .counter = 1,
		.help = "requests closed unanswered: their peer had --peer-searches searches" });
	add(f, n, (struct status_figure){ .key = "expired", .text = "waited too long",
		.num = st->expired, .counter = 1,
		.help = "requests closed unanswered: their client waited --max-wait" });
}

/* What the workers hashed, and what the lock and the hooks have seen. */
static void work_figures(const struct seg *seg, struct status_figure *f, size_t *n)
{
	uint64_t hashes;
	double busy_rate;

	hashing(seg, &hashes, &busy_rate);
	add(f, n, (struct status_figure){ .key = "lock_repairs", .text = "lock repairs",
		.num = ring_repairs(seg->ring), .counter = 1,
		.help = "times the job table's lock was taken back from a dead holder" });
	add(f, n, (struct status_figure){ .key = "hashes_total", .text = "hashes",
		.num = hashes, .counter = 1, .help = "hashes done by all workers, live and exited" });
	add(f, n, (struct status_figure){ .key = "busy_rate", .text = "busy rate",
		.unit = " hashes/s", .kind = STATUS_REAL, .real = busy_rate,
		.help = "hashes per second of the workers' hashing time, summed over live "
			"workers (hashes/s)" });
	add(f, n, (struct status_figure){ .key = "hooks_armed", .num = hooks_armed(seg->ring),
		.help = "test fault hooks armed and not yet fired" });
}

/* Every figure of the scoreboard into f, in the order they are shown;
 * returns how many, and in *head how many of them make the master's own
 * first line. */
static size_t gather(const struct seg *seg, struct status_figure *f, size_t *head,
		     struct status_words *words)
{
	size_t n = 0;

	words->n = 0;
	master_figures(seg, f, &n, words);
	*head = n;
	table_figures(seg, f, &n);
	request_figures(&seg->hdr->stats, f, &n);
	worker_figures(&seg->hdr->stats, f, &n);
	refused_figures(&seg->hdr->stats, f, &n);
	work_figures(seg, f, &n);
	return n;
}

/* ---- text ---------------------------------------------------------------- */

/* s as a JSON string: quotes and backslashes escaped, control characters
 * (C1's too) as \u00XX, a byte that is no part of a UTF-8 character as '?'. */
static void print_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = utf8_char(s);

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (n && utf8_control(s, n))
			fprintf(out, "\\u%04x", n == 1 ? c : (unsigned char)s[1]);
		else if (n)
			fwrite(s, 1, n, out);
		else
			fputc('?', out);
		s += n ? n : 1;
	}
	fputc('"', out);
}

/* s for a terminal or a log: a control character (C0, DEL, C1), or a
 * byte that is no part of a UTF-8 character, as '?'. */
static void print_text_word(FILE *out, const char *s)
{
	while (*s) {
		size_t n = utf8_char(s);

		if (!n || utf8_control(s, n))
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
	static const char *const names[SLOT_STATE_COUNT] = {
#define XX(state, name) [SLOT_##state] = name,
		RING_SLOT_STATE_MAP(XX)
#undef XX
	};

	if (!v->pid)
		return "dead";
	return v->state < SLOT_STATE_COUNT ? names[v->state] : "?";
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
	unsigned counts[RING_QUEUED_BUCKETS];

	ring_queued(seg->ring, counts);
	fputc('{', out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "\"%s\":", f[i].key);
		print_value(out, &f[i], 1);
		fputc(',', out);
	}
	fputs("\"jobs_by_priority\":[", out);
	for (unsigned w = 1; w < RING_QUEUED_BUCKETS; w++)
		fprintf(out, "%u%s", counts[w], w < RING_QUEUED_BUCKETS - 1 ? "," : "],");
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

	if (rc == 0) /* a private copy, read once: it holds still */
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
