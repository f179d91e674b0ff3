/* A run's CSV (see runcsv.h). A missing reply is an empty field, and so
 * are unknown ideal latencies, which a rescore computes again and so
 * does not read. */
#include "bench/runcsv.h"
#include "lib/parse.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELDS 10 /* the columns read */

enum { F_INDEX, F_SEND, F_LATENCY, F_PRIORITY, F_START, F_END, F_ANSWER,
       F_REPLY, F_CORRECT, F_COPY_OF };

void runcsv_row(FILE *f, uint64_t i, const struct wl_request *reqs,
		const struct result *res, const double *own_lat,
		const double *best_lat)
{
	const struct wl_request *q = &reqs[i];
	const struct result *r = &res[i];

	fprintf(f, "%" PRIu64 ",%.3f,%.3f,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",", i, r->send_ns / 1e3, r->latency_ns / 1e3, q->priority,
		q->start, q->end, q->answer);
	if (r->outcome != OUT_MISSING)
		fprintf(f, "%" PRIu64, r->reply);
	fprintf(f, ",%d,%" PRId64 ",", r->outcome == OUT_OK, q->copy_of);
	if (own_lat && best_lat)
		fprintf(f, "%.3f,%.3f", own_lat[i], best_lat[i]);
	else
		fputc(',', f);
	fputc('\n', f);
}

int runcsv_write(FILE *f, const char *path, const struct wl_request *reqs,
		 const struct result *res, uint64_t n, const double *own_lat,
		 const double *best_lat)
{
	fprintf(f, RUNCSV_COLUMNS "\n");
	for (uint64_t i = 0; i < n; i++)
		runcsv_row(f, i, reqs, res, own_lat, best_lat);
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "writing %s: %m\n", path);
		return -EIO;
	}
	return 0;
}

static int to_u64(const char *s, uint64_t *v)
{
	return parse_u64(s, 0, UINT64_MAX, v);
}

/* Microseconds with decimals, as written (below 10^15), to the nearest ns. */
static int to_ns(const char *s, int64_t *ns)
{
	double us;

	if (parse_double(s, 0, 999999999999999.0, &us) < 0)
		return -1;
	*ns = llround(us * 1e3);
	return 0;
}

/* One row into *res, if it is request q at index i. */
static int parse_row(char *line, uint64_t i, const struct wl_request *q,
		     struct result *res)
{
	char *f[FIELDS];
	uint64_t index, prio, start, end, answer, correct;

	line[strcspn(line, "\r\n")] = '\0';
	for (int k = 0; k < FIELDS; k++) /* empty fields stay; NULL past the last */
		f[k] = line ? strsep(&line, ",") : NULL;
	if (!f[FIELDS - 1] || to_u64(f[F_INDEX], &index) || index != i ||
	    to_ns(f[F_SEND], &res->send_ns) || to_ns(f[F_LATENCY], &res->latency_ns) ||
	    to_u64(f[F_PRIORITY], &prio) || to_u64(f[F_START], &start) ||
	    to_u64(f[F_END], &end) || to_u64(f[F_ANSWER], &answer) ||
	    to_u64(f[F_CORRECT], &correct) || correct > 1)
		return -EPROTO;
	if (prio != q->priority || start != q->start || end != q->end ||
	    answer != q->answer)
		return -ESRCH;
	res->err = 0;
	if (!*f[F_REPLY]) {
		res->outcome = OUT_MISSING;
		res->reply = 0;
		return 0;
	}
	if (to_u64(f[F_REPLY], &res->reply))
		return -EPROTO;
	res->outcome = correct ? OUT_OK : OUT_WRONG;
	return 0;
}

int runcsv_load(const char *path, const struct wl_request *reqs, uint64_t n,
		struct result *res)
{
	static const char *const why[] = { "not a row of revhash-bench's CSV",
					   "a request of another workload" };
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	uint64_t i = 0;
	int err = 0;

	if (!f) {
		err = -errno;
		fprintf(stderr, "%s: %s\n", path, strerror(-err));
		return err;
	}
	if (getline(&line, &cap, f) < 0 || strncmp(line, "index,", 6) != 0)
		err = -EPROTO; /* the header */
	while (!err && i < n && getline(&line, &cap, f) >= 0) {
		err = parse_row(line, i, &reqs[i], &res[i]);
		i++;
	}
	if (!err && (i < n || getline(&line, &cap, f) >= 0))
		err = -ERANGE;
	free(line);
	fclose(f);
	if (err == -ERANGE)
		fprintf(stderr, "%s: not %" PRIu64 " rows, one per request\n", path, n);
	else if (err)
		fprintf(stderr, "%s: line %" PRIu64 ": %s\n", path, i + 1,
			why[err == -ESRCH]);
	return err;
}
