/* The scoreboard's rows (see status.h), made once from the segment, and
 * two of their writers: the text and the JSON. A word of the segment's is
 * copied once, within its field, and printed from the copy, escaped. */
#include "master/status.h"
#include "lib/log.h"
#include "master/power.h"
#include "shm/ring_master.h"
#include "worker/kind.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The rows at most: the figures, 14 per worker slot, the lists. */
#define ROWS_MAX (160 + 14 * RING_WORKERS + HIST_BOUNDS + RING_QUEUED_BUCKETS + \
		  2 * (OUTCOME_COUNT + STAGE_COUNT))
#define WORDS_MAX (1 + SEG_KINDS + 2 * RING_WORKERS)
#define DEPTH_MAX 8

_Static_assert(sizeof(((struct seg_header *)0)->kernel) <= STATUS_WORD_MAX &&
	       sizeof(((struct seg_kind *)0)->note) <= STATUS_WORD_MAX,
	       "a word of the segment fits");

/* The names of each list, in the order its enum is made in. */
#define XX(value, name) name,
static const char *const stage_names[] = { SEG_STAGE_MAP(XX) };
static const char *const outcome_names[] = { SEG_OUTCOME_MAP(XX) };
static const char *const power_names[] = { POWER_STATE_MAP(XX) }; /* the CPUs' idle states */
static const char *const slot_names[] = { RING_SLOT_STATE_MAP(XX) };
#undef XX

/* names[i] of a list of n, "?" past it: i is a word of the segment's. */
static const char *name_of(const char *const *names, unsigned n, uint32_t i)
{
	return i < n ? names[i] : "?";
}

/* ---- the rows ------------------------------------------------------------- */

/* One more row of st's, of type STATUS_t: ADD(NUM, .key = "pid", ...). */
#define ADD(t, ...) add(st, (struct status_row){ .type = STATUS_##t, __VA_ARGS__ })

/* The master's counters, in the order the text shows them. */
static const struct counter {
	const char *key, *text; /* a text starting with '\n' starts a line */
	size_t at;              /* in struct seg_stats */
	const char *help;
} counters[] = {
#define AT(field) offsetof(struct seg_stats, field)
	{ "requests", "\nrequests", AT(requests), "requests read whole" },
	{ "accepted", "connections", AT(accepted), "connections accepted" },
	{ "answered", "answered", AT(answered), "replies sent in full" },
	{ "cache_hits", "cache hits", AT(cache_hits), "requests answered from the cache" },
	{ "attached", "attached", AT(attached),
	  "requests that joined a search of the same question" },
	{ "jobs", "jobs", AT(jobs), "searches started" },
	{ "not_found", "not found", AT(not_found),
	  "searches whose range held no answer (replied 0)" },
	{ "cancelled", "cancelled", AT(cancelled),
	  "searches dropped because every client asking left" },
	{ "parked", "parked", AT(parked), "searches set aside for better ones (job table full)" },
	{ "dropped", "dropped", AT(dropped), "connections closed before a reply (timeout, error)" },
	{ "timeouts", "timeouts", AT(timeouts),
	  "dropped connections that were too slow to send or read" },
	{ "worker_deaths", "\nworker deaths", AT(worker_deaths), "workers that died" },
	{ "stalls", "stalled", AT(stalls), "workers killed for making no progress" },
	{ "respawns", "respawns", AT(respawns), "workers started in place of dead ones" },
	{ "reloads", "reloads", AT(reloads), "worker count reloads (SIGHUP)" },
	{ "dead_hashes", NULL, AT(dead_hashes), "hashes done by workers that have exited" },
	{ "wakeups", "master wake-ups", AT(wakeups), "times the master's loop woke with events" },
	{ "wrong_answers", "wrong answers", AT(wrong_answers),
	  "answers a worker reported that did not hash to the digest (searched again)" },
	{ "refused_full", "\nrefused: master full", AT(refused_full),
	  "connections closed at once: the master held --max-conns" },
	{ "refused_peer_conns", "peer's connections", AT(refused_peer_conns),
	  "connections closed at once: their peer held --peer-conns" },
	{ "refused_peer_searches", "peer's searches", AT(refused_peer_searches),
	  "requests closed unanswered: their peer had --peer-searches searches" },
	{ "expired", "waited too long", AT(expired),
	  "requests closed unanswered: their client waited --max-wait" },
#undef AT
};

/* One more row. A top-level number without a sentence for its metric, or
 * a row past ROWS_MAX, is a mistake in this file: stop on it. */
static void add(struct status *st, struct status_row r)
{
	int group = r.type == STATUS_GROUP || r.type == STATUS_LIST;

	if (st->n >= ROWS_MAX || (!st->depth && r.key && !group && r.type != STATUS_WORD &&
				  !r.help)) {
		fprintf(stderr, "status: row %s: %s\n", r.key ? r.key : "?",
			st->n >= ROWS_MAX ? "past ROWS_MAX (raise it)" : "no help sentence");
		abort();
	}
	st->depth += group - (r.type == STATUS_END);
	st->row[st->n++] = r;
}

/* A word of the rows' own, to fill. */
static char *word(struct status *st)
{
	if (st->nwords >= WORDS_MAX)
		abort();
	return st->word[st->nwords++];
}

/* A field of the segment's, size bytes: read once, ended at its last byte
 * at the latest. */
static const char *copied(struct status *st, const char *field, size_t size)
{
	char *w = word(st);

	memcpy(w, field, size - 1);
	w[size - 1] = '\0';
	return w;
}

__attribute__((format(printf, 2, 3)))
static const char *made(struct status *st, const char *fmt, ...)
{
	char *w = word(st);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w, STATUS_WORD_MAX, fmt, ap);
	va_end(ap);
	return w;
}

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

/* The master's own first line. */
static void master_rows(struct status *st, const struct seg *seg)
{
	const struct seg_header *h = seg->hdr;
	const struct policy p = { .order = shm_read(seg->ring->policy.order),
				  .rules = shm_read(seg->ring->policy.rules) };
	const struct policy_rule *rule;

	ADD(NUM, .key = "pid", .text = "revhash master pid", .num = (uint64_t)h->master_pid,
		 .help = "the master's process id");
	ADD(NUM, .key = "port", .text = "port", .num = h->port,
		 .help = "the TCP port the master serves");
	ADD(WORD, .key = "kernel", .text = "kernel",
		  .word = copied(st, h->kernel, sizeof h->kernel));
	for (unsigned k = 0; k < kind_count() && k < SEG_KINDS; k++) {
		const struct worker_kind *kind = kind_at(k);

		if (!kind->count_key)
			continue;
		ADD(WORD, .key = kind->name, .text = kind->name,
			  .word = copied(st, h->kinds[k].note, sizeof h->kinds[k].note));
		ADD(NUM, .key = kind->count_key, .num = h->kinds[k].n, .help = kind->count_help);
	}
	ADD(WORD, .key = "schedule", .text = "schedule", .word = policy_order_name(p.order));
	for (unsigned i = 0; (rule = policy_rule(i)); i++)
		ADD(NUM, .key = rule->key, .text = rule->key,
			 .num = (uint64_t)policy_has(&p, rule->bit), .help = rule->state);
	ADD(WORD, .key = "low_latency", .text = "low latency",
		  .word = name_of(power_names, POWER_STATE_COUNT, h->low_latency));
	ADD(NUM, .key = "low_latency_holds", .num = h->low_latency_holds, .counter = 1,
		 .help = "times the master held the CPUs out of deep idle states");
	ADD(REAL, .key = "uptime_s", .text = "up", .unit = " s", .real = uptime_s(h),
		  .metric = "uptime_seconds", .help = "seconds since the master started");
}

/* A row for each slot that has had a worker; the live workers by kind.
 * Into *hashes every live and dead worker's hashes, into *busy_rate the
 * live workers' hashes per second of hashing time, summed; CPU workers
 * beyond the CPUs count the CPUs' worth of their mean rate, a wall-clock
 * kind (a GPU) its device's rate. */
static void worker_rows(struct status *st, const struct seg *seg, uint64_t *hashes,
			double *busy_rate)
{
	unsigned live[KINDS_MAX] = { 0 }, busy = 0;
	double on_cpus = 0, on_devices = 0;

	*hashes = seg->hdr->stats.dead_hashes;
	ADD(LIST, .key = "workers", .text = "");
	for (unsigned i = 0; i < RING_WORKERS; i++) {
		const struct worker_kind *k;
		struct ring_slot v;

		ring_slot_view(seg->ring, i, &v);
		if (!v.pid && !v.deaths)
			continue;
		if (!v.pid) /* what is left in the slot was its dead worker's */
			v.rate = v.hashes = v.hash_ns = 0;
		else if (v.kind < KINDS_MAX)
			live[v.kind]++;
		*hashes += v.hashes;
		if (v.hash_ns && (k = kind_at(v.kind))) {
			*(k->wall_clock ? &on_devices : &on_cpus) += v.hashes * 1e9 / v.hash_ns;
			busy += !k->wall_clock;
		}
		ADD(GROUP);
		ADD(NUM, .key = "slot", .text = "slot", .label = "slot", .num = i);
		ADD(WORD, .key = "kind", .text = "kind", .label = "kind",
			  .word = kind_at(v.kind) ? kind_at(v.kind)->name : "?");
		ADD(NUM, .key = "pid", .text = "pid", .num = (uint64_t)v.pid);
		ADD(WORD, .key = "state", .text = "state",
			  .word = !v.pid ? "dead" : name_of(slot_names, SLOT_STATE_COUNT, v.state));
		ADD(WORD, .text = "job", .word = v.has_lease ? made(st, "%u", v.lease_job) : "-");
		ADD(WORD, .text = "lease", .word = !v.has_lease ? "-" :
			  made(st, "%llu..%llu", (unsigned long long)v.lease_lo,
			       (unsigned long long)v.lease_hi));
		ADD(REAL, .text = "Mhash/s", .real = (double)v.rate / 1e6);
		ADD(NUM, .key = "rate", .metric = "worker_hash_rate", .num = v.rate,
			 .help = "a worker's measured rate, hashes/s");
		ADD(NUM, .key = "hashes", .metric = "worker_hashes", .num = v.hashes,
			 .counter = 1, .help = "hashes by the worker now in the slot");
		ADD(NUM, .key = "hash_cpu_ns", .num = v.hash_ns);
		ADD(NUM, .key = "deaths", .text = "deaths", .metric = "worker_slot_deaths",
			 .num = v.deaths, .counter = 1, .help = "workers of the slot that died");
		ADD(END);
	}
	ADD(END);
	if (seg->hdr->cpus && busy > seg->hdr->cpus)
		on_cpus = on_cpus / busy * seg->hdr->cpus;
	*busy_rate = on_cpus + on_devices;
	ADD(GROUP, .key = "live_workers", .metric = "workers", .label = "kind",
		   .help = "live workers, by kind");
	for (unsigned k = 0; k < kind_count() && k < KINDS_MAX; k++)
		ADD(NUM, .key = kind_at(k)->name, .num = live[k]);
	ADD(END);
}

/* What the master holds and counted, and what the workers hashed. */
static void figure_rows(struct status *st, const struct seg *seg, uint64_t hashes,
			double busy_rate)
{
	const struct seg_stats *stats = &seg->hdr->stats;
	unsigned queued[RING_QUEUED_BUCKETS];
	uint64_t armed = 0;

	ADD(NUM, .key = "workers_wanted", .text = "\nworkers wanted", .num = seg->hdr->workers,
		 .help = "CPU workers the master aims for");
	ADD(NUM, .key = "jobs_in_table", .text = "jobs in the table", .num = ring_in_use(seg->ring),
		 .help = "jobs in the shared job table, in any phase");
	ADD(NUM, .key = "jobs_queued", .text = "searched", .num = ring_queued(seg->ring, queued),
		 .help = "jobs being searched or waiting for a worker");
	ADD(NUM, .key = "cache_count", .text = "cache", .num = shm_read(seg->cache->count),
		 .metric = "cache_entries", .help = "answers the cache holds");
	ADD(NUM, .key = "cache_capacity", .text = "of", .unit = " answers",
		 .num = shm_read(seg->cache->capacity), .help = "answers the cache can hold");
	for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
		ADD(NUM, .key = counters[i].key, .text = counters[i].text, .counter = 1,
			 .num = *(const uint64_t *)((const char *)stats + counters[i].at),
			 .help = counters[i].help);
	ADD(NUM, .key = "lock_repairs", .text = "lock repairs",
		 .num = shm_read(seg->ring->repairs), .counter = 1,
		 .help = "times the job table's lock was taken back from a dead holder");
	ADD(NUM, .key = "hashes_total", .text = "hashes", .num = hashes, .counter = 1,
		 .metric = "hashes", .help = "hashes done by all workers, live and exited");
	ADD(REAL, .key = "busy_rate", .text = "busy rate", .unit = " hashes/s",
		  .real = busy_rate, .help = "hashes per second of the workers' hashing time, "
		  "summed over live workers (hashes/s)");
	for (int i = 0; i < HOOK_COUNT; i++)
		armed += ring_hook_armed(seg->ring, (enum ring_hook)i);
	ADD(NUM, .key = "hooks_armed", .num = armed,
		 .help = "test fault hooks armed and not yet fired");
	ADD(LIST, .key = "jobs_by_priority");
	for (unsigned w = 1; w < RING_QUEUED_BUCKETS; w++)
		ADD(NUM, .num = queued[w]);
	ADD(END);
}

/* Where a request's time goes: the stages' means, the histograms (read
 * once) and the score (latency x priority). */
static void time_rows(struct status *st, const struct seg *seg)
{
	const struct seg_stats *stats = &seg->hdr->stats;
	const struct seg_stages *s = &stats->stages;
	uint64_t replies = 0;

	st->latency = stats->latency;
	ADD(GROUP, .key = "stages_us", .text = "\nstages, mean us:");
	for (int i = 0; i < STAGE_COUNT; i++)
		ADD(REAL, .key = stage_names[i], .text = stage_names[i],
			  .real = mean_us(s->ns[i], s->timed));
	ADD(NUM, .key = "timed", .text = "over", .unit = " searched requests", .num = s->timed);
	ADD(END);
	ADD(GROUP, .key = "cache_hit_stages", .text = "cache hits:",
		   .metric = "cache_hit_stage_seconds", .label = "stage",
		   .help = "a cache hit's time, by stage");
	ADD(MEAN, .key = "read", .text = "read", .num = s->hits_timed, .sum_ns = s->hit_read_ns);
	ADD(MEAN, .key = "reply", .text = "reply", .num = s->hits_timed, .sum_ns = s->hit_reply_ns);
	ADD(END);
	ADD(REAL, .text = "\nmaster wake-ups per request", .real = !stats->requests ? 0 :
		  (double)stats->wakeups / (double)stats->requests);
	ADD(GROUP, .key = "latency");
	ADD(LIST, .key = "bounds_us");
	for (unsigned i = 0; i < HIST_BOUNDS; i++)
		ADD(NUM, .num = hist_bound_ns(i) / 1000);
	ADD(END);
	ADD(LIST, .key = "replies", .text = "\nreplies:", .metric = "request_duration_seconds",
		  .label = "outcome", .help = "a request's time in the master, from its accept "
		  "to its reply's last byte written, by what the reply said");
	for (int i = 0; i < OUTCOME_COUNT; i++) {
		ADD(HIST, .key = outcome_names[i], .text = outcome_names[i],
			  .hist = &st->latency.reply[i]);
		replies += hist_count(&st->latency.reply[i]);
	}
	ADD(END);
	ADD(LIST, .key = "stages", .metric = "stage_seconds", .label = "stage",
		  .help = "a searched request's time, by stage");
	for (int i = 0; i < STAGE_COUNT; i++)
		ADD(HIST, .key = stage_names[i], .hist = &st->latency.stage[i]);
	ADD(END);
	ADD(MEAN, .key = "score", .text = "score", .unit = " (mean us x priority)",
		  .num = replies, .sum_ns = st->latency.score_ns,
		  .help = "a reply's latency in microseconds times its request's priority "
			  "(1-16); rate(_sum) / rate(_count) is the mean, the course's score");
	ADD(END);
}

int status_make(const struct seg *seg, struct status *st)
{
	uint64_t hashes;
	double busy_rate;

	memset(st, 0, sizeof *st);
	st->row = malloc(ROWS_MAX * sizeof *st->row);
	st->word = malloc(WORDS_MAX * sizeof *st->word);
	if (!st->row || !st->word)
		return -ENOMEM;
	master_rows(st, seg);
	worker_rows(st, seg, &hashes, &busy_rate);
	figure_rows(st, seg, hashes, busy_rate);
	time_rows(st, seg);
	return 0;
}

void status_free(struct status *st)
{
	free(st->row);
	free(st->word);
	st->row = NULL;
	st->word = NULL;
}

/* The row after the group or list at i ends. */
static size_t past(const struct status *st, size_t i)
{
	unsigned depth = 0;

	do {
		if (st->row[i].type == STATUS_GROUP || st->row[i].type == STATUS_LIST)
			depth++;
		else if (st->row[i].type == STATUS_END)
			depth--;
	} while (++i < st->n && depth);
	return i;
}

/* The length of the UTF-8 character s starts with (1 for ASCII, a NUL
 * included), or 0 where its bytes are none: the strings of the segment
 * are anyone's bytes who can write it, and JSON and Prometheus's text are
 * UTF-8. Only the shortest forms of code points up to U+10FFFF pass, no
 * surrogates. Reads no byte past a NUL. */
static size_t utf8_char(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		n = 2;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		n = 3;
		lo = u[0] == 0xe0 ? 0xa0 : 0x80; /* no overlong form */
		hi = u[0] == 0xed ? 0x9f : 0xbf; /* no surrogate */
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		n = 4;
		lo = u[0] == 0xf0 ? 0x90 : 0x80;
		hi = u[0] == 0xf4 ? 0x8f : 0xbf; /* nothing past U+10FFFF */
	} else {
		return 0;
	}
	if (u[1] < lo || u[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (u[i] < 0x80 || u[i] > 0xbf)
			return 0;
	return n;
}

/* Is the character s starts with, of n bytes (utf8_char's), a control
 * character: C0, DEL, or C1 (U+0080..U+009F, which a terminal takes as
 * escapes: U+009B is CSI)? */
static int utf8_control(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	return (n == 1 && (u[0] < 0x20 || u[0] == 0x7f)) ||
	       (n == 2 && u[0] == 0xc2 && u[1] <= 0x9f);
}

void status_word(FILE *out, const char *s, enum status_esc esc)
{
	for (size_t n; *s; s += n ? n : 1) {
		unsigned char c = (unsigned char)*s;

		n = utf8_char(s);
		if (esc != STATUS_ESC_TEXT && (c == '\\' || (c == '"' && esc != STATUS_ESC_HELP)))
			fprintf(out, "\\%c", c);
		else if (esc >= STATUS_ESC_HELP && c == '\n')
			fputs("\\n", out);
		else if (esc == STATUS_ESC_JSON && n && utf8_control(s, n))
			fprintf(out, "\\u%04x", n == 1 ? c : (unsigned char)s[1]);
		else if (!n || utf8_control(s, n))
			fputc('?', out);
		else
			fwrite(s, 1, n, out);
	}
}

/* ---- text ------------------------------------------------------------------ */

/* A row's value as the text shows it, into buf. */
static void text_value(const struct status_row *r, char *buf, size_t len)
{
	size_t at = 0;
	uint64_t n, p99;
	FILE *f;

	switch (r->type) {
	case STATUS_NUM:
		snprintf(buf, len, "%llu", (unsigned long long)r->num);
		break;
	case STATUS_REAL:
		snprintf(buf, len, r->real < 10 ? "%.2f" : "%.1f", r->real);
		break;
	case STATUS_MEAN:
		snprintf(buf, len, "%.1f", mean_us(r->sum_ns, r->num));
		break;
	case STATUS_HIST:
		n = hist_count(r->hist);
		at = (size_t)snprintf(buf, len, "%llu", (unsigned long long)n);
		p99 = hist_at_most(r->hist, 0.99);
		if (n)
			snprintf(buf + at, len - at, " (mean %.1f us, p99 %s %llu us)",
				 mean_us(r->hist->sum_ns, n), p99 == UINT64_MAX ? ">" : "<=",
				 (unsigned long long)(p99 == UINT64_MAX ?
					hist_bound_ns(HIST_BOUNDS - 1) : p99) / 1000);
		break;
	default: /* a word: no longer than it was (STATUS_WORD_MAX < len) */
		buf[0] = '\0';
		if ((f = fmemopen(buf, len, "w"))) {
			status_word(f, r->word, STATUS_ESC_TEXT);
			fclose(f);
		}
	}
}

#define COLUMNS_MAX 16

/* The list of groups at i as a table under a head of the rows' words,
 * numbers to the right. Returns the row past the list. */
static size_t table(FILE *out, const struct status *st, size_t i)
{
	size_t end = past(st, i) - 1, width[COLUMNS_MAX] = { 0 };
	char cell[256];

	for (int pass = 0; pass < 2 && i + 1 < end; pass++) {
		for (size_t g = i + 1, head = 1; g < end; g = head ? g : past(st, g), head = 0) {
			size_t c = 0;

			for (size_t j = g + 1; st->row[j].type != STATUS_END; j++) {
				const struct status_row *r = &st->row[j];

				if (!r->text || c >= COLUMNS_MAX)
					continue;
				if (head)
					snprintf(cell, sizeof cell, "%s", r->text);
				else
					text_value(r, cell, sizeof cell);
				if (!pass && strlen(cell) > width[c])
					width[c] = strlen(cell);
				if (pass) /* words to the left */
					fprintf(out, "%s%*s", c ? "  " : "", (int)width[c] *
						(r->type == STATUS_WORD ? -1 : 1), cell);
				c++;
			}
			if (pass)
				fputc('\n', out);
		}
	}
	return end + 1;
}

/* The rows with words, "words value unit", a comma between; a group's
 * words head its rows, a list with "" is a table. */
void status_text(FILE *out, const struct status *st)
{
	int fresh = 1, heading = 0;
	char value[256];

	for (size_t i = 0; i < st->n; i++) {
		const struct status_row *r = &st->row[i];
		const char *text = r->text;

		if (!text) /* an end, or a row not shown (a group's rows may be) */
			continue;
		if (*text == '\n' || (r->type == STATUS_LIST && !*text)) {
			if (!fresh)
				fputc('\n', out);
			fresh = 1;
			text += *text == '\n';
		}
		if (r->type == STATUS_LIST && !*text) {
			i = table(out, st, i) - 1;
			continue;
		}
		fprintf(out, "%s%s", fresh ? "" : heading ? " " : ", ", text);
		fresh = 0;
		heading = r->type == STATUS_GROUP || r->type == STATUS_LIST;
		if (heading)
			continue;
		text_value(r, value, sizeof value);
		fprintf(out, " %s%s", value, r->unit ? r->unit : "");
	}
	if (!fresh)
		fputc('\n', out);
}

/* ---- JSON ------------------------------------------------------------------ */

/* One object, the rows with keys; a list's rows an array; a histogram its
 * count, sum and buckets' own counts (the last above the top bound). */
void status_json(FILE *out, const struct status *st)
{
	const struct status_row *in[DEPTH_MAX] = { NULL };
	int first[DEPTH_MAX] = { 1 };
	unsigned d = 0;

	fputc('{', out);
	for (size_t i = 0; i < st->n; i++) {
		const struct status_row *r = &st->row[i];
		int list = d && in[d]->type == STATUS_LIST;

		if (r->type == STATUS_END) {
			fputc(in[d]->type == STATUS_LIST ? ']' : '}', out);
			d--;
			continue;
		}
		if (!list && !r->key) {
			if (r->type == STATUS_GROUP || r->type == STATUS_LIST)
				i = past(st, i) - 1;
			continue;
		}
		fputs(first[d] ? "" : ",", out);
		first[d] = 0;
		if (!list && r->type != STATUS_MEAN)
			fprintf(out, "\"%s\":", r->key);
		switch (r->type) {
		case STATUS_NUM:
			fprintf(out, "%llu", (unsigned long long)r->num);
			break;
		case STATUS_REAL:
			fprintf(out, "%.3f", r->real);
			break;
		case STATUS_WORD:
			fputc('"', out);
			status_word(out, r->word, STATUS_ESC_JSON);
			fputc('"', out);
			break;
		case STATUS_MEAN:
			fprintf(out, "\"%s_sum\":%.3f,\"%s_count\":%llu", r->key,
				(double)r->sum_ns / 1e3, r->key, (unsigned long long)r->num);
			break;
		case STATUS_HIST:
			fprintf(out, "{\"%s\":\"%s\",\"count\":%llu,\"sum_us\":%.3f,\"buckets\":[",
				in[d]->label, r->key, (unsigned long long)hist_count(r->hist),
				(double)r->hist->sum_ns / 1e3);
			for (unsigned b = 0; b < HIST_BUCKETS; b++)
				fprintf(out, "%llu%s", (unsigned long long)r->hist->n[b],
					b < HIST_BOUNDS ? "," : "]}");
			break;
		case STATUS_GROUP:
		case STATUS_LIST:
			if (d + 1 >= DEPTH_MAX)
				abort(); /* nested deeper than this file makes them */
			fputc(r->type == STATUS_LIST ? '[' : '{', out);
			in[++d] = r;
			first[d] = 1;
			break;
		case STATUS_END:
			break;
		}
	}
	fputs("}\n", out);
}

/* ---- finding the master ----------------------------------------------------- */

int status_open(const char *what, unsigned port, int rw, struct seg *seg)
{
	int rc = seg_open(port, rw, seg);

	if (rc < 0) {
		fprintf(stderr, rc == -EPROTO ? "master %s: the shared segment of port %u is "
			"damaged or of another version\n" : "master %s: no master on port %u\n",
			what, port);
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
	struct status st = { 0 };
	int rc = status_open("--status", port, 0, &seg);

	if (rc == 0 && (rc = status_make(&seg, &st)) < 0) /* seg: a private copy */
		fprintf(stderr, "master --status: %s\n", strerror(-rc));
	else if (rc == 0)
		(json ? status_json : status_text)(stdout, &st);
	status_free(&st);
	seg_close(&seg); /* a segment not found or already closed: nothing */
	return rc;
}

void status_log(const struct seg *seg)
{
	char *buf = NULL;
	size_t len = 0;
	struct status st = { 0 };
	FILE *f;

	if (status_make(seg, &st) == 0 && (f = open_memstream(&buf, &len))) {
		status_text(f, &st);
		fclose(f);
		log_info("status:\n%s", buf);
		free(buf);
	}
	status_free(&st);
}
