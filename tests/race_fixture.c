/* What the race's tests run against and read (see race_fixture.h). Fake
 * servers: one thread a server, one connection at a time, so the log of
 * the letters their connections arrive in is the order in which the
 * client reached them. revhash-bench runs as a child whose two outputs
 * go to files, read back whole once it has exited. */
#include "tests/race_fixture.h"
#include "tests/helpers.h"
#include "lib/clock.h"
#include "lib/digest.h"
#include "proto/proto.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char conn_log[4096]; /* NUL-terminated: static, and never full */
static size_t log_len;

const char *fake_log(void)
{
	static char copy[sizeof conn_log];

	pthread_mutex_lock(&log_lock);
	memcpy(copy, conn_log, sizeof copy);
	pthread_mutex_unlock(&log_lock);
	return copy;
}

/* The x in [start, end] whose digest is d, by brute force (the tests'
 * ranges are small); 0 when none. */
static uint64_t search(const uint8_t *d, uint64_t start, uint64_t end)
{
	uint8_t h[DIGEST_LEN];

	if (start > end || end - start >= 1000000)
		return 0;
	for (uint64_t i = 0; i <= end - start; i++) {
		digest_of(start + i, h);
		if (memcmp(h, d, DIGEST_LEN) == 0)
			return start + i;
	}
	return 0;
}

/* --- a CPU kept busy after the answers ------------------------------- */

static _Atomic uint64_t spin_until; /* clock_ns() of the spin's end */
static pthread_once_t spinner_once = PTHREAD_ONCE_INIT;

/* One thread for every FAKE_BUSY server: it spins while an answer is
 * less than FAKE_BUSY_MS old, and naps otherwise. */
static void *spin(void *arg)
{
	(void)arg;
	for (;;) {
		while (clock_ns() < spin_until)
			;
		usleep(5000);
	}
	return NULL;
}

static void start_spinner(void)
{
	pthread_t tid;

	ck_assert_int_eq(pthread_create(&tid, NULL, spin, NULL), 0);
	pthread_detach(tid);
}

static const struct wl_request *table; /* FAKE_TABLE's answers */
static size_t table_n;

void fake_table(const struct wl_request *t, size_t n)
{
	table = t;
	table_n = n;
}

/* What f answers for request q: the table's answer for the digest, or
 * the search's. */
static uint64_t answer(const struct fake *f, const struct proto_request *q)
{
	for (size_t i = 0; (f->mode == FAKE_TABLE || f->mode == FAKE_SLOWING) && i < table_n; i++)
		if (memcmp(table[i].digest, q->digest, DIGEST_LEN) == 0)
			return table[i].answer;
	return f->mode == FAKE_WRONG ? q->end + 1 : search(q->digest, q->start, q->end);
}

/* Has a fake other than the one of this letter had a connection? */
static int others_seen(char letter)
{
	int seen;

	pthread_mutex_lock(&log_lock);
	seen = strspn(conn_log, (const char[]){ letter, '\0' }) < log_len;
	pthread_mutex_unlock(&log_lock);
	return seen;
}

/* A CPU busy for as long as FAKE_NOCANCEL hashes q's range. */
static void hash_for(const struct proto_request *q)
{
	double s = (double)(q->end - q->start + 1) / FAKE_NOCANCEL_RATE;
	uint64_t until = clock_ns() + (uint64_t)(fmin(s * 1e3, FAKE_NOCANCEL_MAX_MS) * 1e6);

	while (clock_ns() < until)
		;
}

static void serve_one(const struct fake *f, int fd)
{
	uint8_t req[PROTO_REQUEST_LEN], rep[PROTO_REPLY_LEN];
	struct proto_request q;

	if (f->mode == FAKE_HANG)
		return; /* left open: the client must give up by itself */
	if (recv(fd, req, sizeof req, MSG_WAITALL) == (ssize_t)sizeof req) {
		proto_decode_request(req, &q);
		usleep(f->delay_ms * 1000);
		if (f->mode == FAKE_SLOWING && q.end - q.start >= 1000000 &&
		    others_seen(f->letter))
			usleep(FAKE_SLOW_MS * 1000);
		if (f->mode == FAKE_NOCANCEL)
			hash_for(&q);
		if (f->mode == FAKE_GARBAGE)
			send(fd, "\xde\xad\xbe", 3, MSG_NOSIGNAL);
		if (f->mode != FAKE_CLOSE && f->mode != FAKE_GARBAGE) {
			proto_encode_reply(answer(f, &q), rep);
			send(fd, rep, sizeof rep, MSG_NOSIGNAL);
		}
		if (f->mode == FAKE_BUSY)
			spin_until = clock_ns() + FAKE_BUSY_MS * 1000000ULL;
	}
	close(fd);
}

static void *fake_serve(void *arg)
{
	struct fake *f = arg;
	int fd;

	while ((fd = accept(f->lfd, NULL, NULL)) >= 0) {
		pthread_mutex_lock(&log_lock);
		if (log_len < sizeof conn_log - 1)
			conn_log[log_len++] = f->letter;
		pthread_mutex_unlock(&log_lock);
		serve_one(f, fd);
	}
	return NULL;
}

void fake_start(struct fake *f)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	pthread_t tid;

	ck_assert_int_ge(f->lfd = socket(AF_INET, SOCK_STREAM, 0), 0);
	ck_assert_int_eq(bind(f->lfd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(f->lfd, 128), 0);
	ck_assert_int_eq(getsockname(f->lfd, (struct sockaddr *)&a, &len), 0);
	f->port = ntohs(a.sin_port);
	if (f->mode == FAKE_BUSY)
		pthread_once(&spinner_once, start_spinner);
	ck_assert_int_eq(pthread_create(&tid, NULL, fake_serve, f), 0);
	pthread_detach(tid);
}

/* --- revhash-bench as a child ------------------------------------------ */

/* What file f holds, into buf; f is closed. */
static void slurp(FILE *f, char *buf, size_t size)
{
	ssize_t n = pread(fileno(f), buf, size - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	fclose(f);
}

void run_bench(const char *const *args, const char *path, struct ran *r)
{
	const char *argv[64] = { th_bench_path() };
	char json[] = "/tmp/revhash-race-json-XXXXXX", opt[64];
	FILE *out = tmpfile(), *err = tmpfile(), *js;
	int n = 1, status, fd = mkstemp(json);
	pid_t pid;

	ck_assert(out && err && fd >= 0);
	ck_assert_ptr_nonnull(js = fdopen(fd, "r"));
	for (; *args && n < 62; args++)
		argv[n++] = *args;
	snprintf(opt, sizeof opt, "--json=%s", json);
	argv[n++] = opt;
	argv[n] = NULL;
	ck_assert((pid = fork()) >= 0);
	if (pid == 0) {
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		if (path)
			setenv("PATH", path, 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	slurp(out, r->out, sizeof r->out);
	slurp(err, r->err, sizeof r->err);
	slurp(js, r->json, sizeof r->json);
	unlink(json);
}

/* jq's lines for filter on r's JSON into buf; fail when it is no JSON. */
static void jq(const struct ran *r, const char *filter, char *buf, size_t size)
{
	if (th_jq(r->json, filter, buf, size))
		fprintf(stderr, "--- JSON\n%s\n--- jq %s refused it\n", r->json, filter);
	ck_assert_int_eq(th_jq(r->json, filter, buf, size), 0);
}

/* The figures of each row of the JSON table jq's filter gives (a line
 * each: the name, then the figures, "n/a" for none) against text's
 * rows of the same names. */
static void rows_agree(const struct ran *r, const char *text, const char *filter)
{
	static char lines[65536];
	char *save = NULL;

	jq(r, filter, lines, sizeof lines);
	ck_assert_int_gt(strlen(lines), 0);
	for (char *l = strtok_r(lines, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		double v[12], j;
		char *f = strchr(l, '\t'), *end;
		int n;

		ck_assert_ptr_nonnull(f);
		*f++ = '\0';
		n = row(text, l, v, 12);
		for (int k = 0; k < n && *f; k++) {
			j = strcmp(f, "n/a") == 0 || strncmp(f, "n/a\t", 4) == 0 ? NAN : strtod(f, &end);
			if (!(isnan(j) ? isnan(v[k]) : fabs(j - v[k]) <= 1e-9 * fabs(j)))
				fprintf(stderr, "--- text\n%s--- JSON\n%s\n--- %s: figure %d: "
					"text %g, JSON %g\n", text, r->json, l, k, v[k], j);
			ck_assert(isnan(j) ? isnan(v[k]) : fabs(j - v[k]) <= 1e-9 * fabs(j));
			f += strcspn(f, "\t");
			f += *f == '\t';
		}
	}
}

/* Every line jq's filter gives is a line of r's text, indent aside. */
static void lines_in_text(const struct ran *r, const char *filter)
{
	static char lines[65536];
	char *save = NULL;

	jq(r, filter, lines, sizeof lines);
	for (char *l = strtok_r(lines, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *at = strstr(r->out, l);

		if (!at)
			fprintf(stderr, "--- text\n%s--- lacks the JSON's line: %s\n", r->out, l);
		ck_assert_ptr_nonnull(at);
		ck_assert(at[strlen(l)] == '\n');
	}
}

/* Into text, the table of n rows that follows from in r's text: its
 * heading, "  server ...", and its rows, the lines after it. */
static void table_from(const struct ran *r, const char *from, unsigned n, char *text)
{
	char *at;

	ck_assert_ptr_nonnull(at = strstr(r->out, from));
	ck_assert_ptr_nonnull(at = strstr(at, "\n  server "));
	strcpy(text, at);
	at = text;
	for (unsigned k = 0; k <= n && at; k++)
		at = strchr(at + 1, '\n');
	if (at)
		at[1] = '\0';
}

void json_agrees(const struct ran *r)
{
	static char text[65536];
	char filter[256];
	unsigned rounds, servers;

	jq(r, ".rounds | length", filter, sizeof filter);
	rounds = (unsigned)atoi(filter);
	jq(r, ".summary | length", filter, sizeof filter);
	servers = (unsigned)atoi(filter);
	ck_assert(rounds > 0 && servers >= 2);
	for (unsigned k = 1; k <= rounds; k++) {
		snprintf(filter, sizeof filter, "round %u of ", k);
		table_from(r, filter, servers, text);
		snprintf(filter, sizeof filter, ".rounds[%u].legs[] | [.server, .rate_mhs, "
			 ".score, .efficiency, .reliability_pct, .p50_ms, .p99_ms, "
			 ".others_cpu] | map(. // \"n/a\") | @tsv", k - 1);
		rows_agree(r, text, filter);
	}
	table_from(r, "\nsummary of ", servers, text);
	rows_agree(r, text, ".summary[] | [.server, .reliability_pct, .median_score, .min, "
		   "\"n/a\", .max, .median_eff, .ratio] | map(. // \"n/a\") | @tsv");
	lines_in_text(r, ".rounds[].notes[], .warnings[], .verdicts[], .machine[]");
}

const char *expect(const struct ran *r, const char *needle)
{
	const char *at = strstr(r->out, needle);

	if (!at)
		fprintf(stderr, "--- stdout\n%s--- stderr\n%s--- lacks: %s\n",
			r->out, r->err, needle);
	ck_assert_ptr_nonnull(at);
	return at;
}

int row(const char *text, const char *name, double *v, int max)
{
	char head[64], line[512], *save = NULL, *word;
	const char *at = NULL;
	int n = 0;

	snprintf(head, sizeof head, "\n  %s ", name);
	for (const char *p = text; (p = strstr(p, head)); p++)
		at = p;
	ck_assert_ptr_nonnull(at);
	at += strlen(head);
	snprintf(line, sizeof line, "%.*s", (int)strcspn(at, "\n"), at);
	for (word = strtok_r(line, " ", &save); word && n < max;
	     word = strtok_r(NULL, " ", &save)) {
		char *end;

		v[n] = strtod(word, &end);
		if (end == word || (*end && strcmp(end, "%") != 0))
			v[n] = NAN;
		n++;
	}
	return n;
}

const char *server(char *buf, size_t size, const char *name, unsigned port)
{
	snprintf(buf, size, "%s=127.0.0.1:%u", name, port);
	return buf;
}
