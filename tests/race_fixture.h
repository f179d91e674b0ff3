/* What the race's tests run against and read: fake servers in threads
 * of a test, each answering as its mode says and logging a letter for
 * each connection; revhash-bench run as a child; its tables read back. */
#ifndef REVHASH_TESTS_RACE_FIXTURE_H
#define REVHASH_TESTS_RACE_FIXTURE_H

#include <stddef.h>

#include "bench/workload.h"

enum fake_mode {
	FAKE_RIGHT,   /* the answer, searched by brute force (small ranges) */
	FAKE_WRONG,   /* END + 1, at once */
	FAKE_CLOSE,   /* reads the request, closes without a reply */
	FAKE_GARBAGE, /* three bytes, then closes */
	FAKE_HANG,    /* accepts, never reads nor replies nor closes */
	FAKE_BUSY,    /* as FAKE_RIGHT, then keeps a CPU busy FAKE_BUSY_MS */
	FAKE_NOCANCEL, /* hashes a request at FAKE_NOCANCEL_RATE, a CPU busy
		        * all the while, whether its client is there or
		        * not, then answers as FAKE_RIGHT */
	FAKE_TABLE,   /* the answer from the table (fake_table) at once,
		       * hashing nothing; as FAKE_RIGHT for a digest not in it */
	FAKE_SLOWING, /* as FAKE_TABLE; but once another fake's connection
		       * is logged, a range too long for the search (a
		       * probe's) takes FAKE_SLOW_MS */
};

#define FAKE_SLOW_MS 500

/* How long a FAKE_BUSY server spins after each answer, as a server that
 * never cancels a search would: long enough to be seen after its run,
 * short enough that the next leg's wait for an idle machine is short. */
#define FAKE_BUSY_MS 1000

/* A FAKE_NOCANCEL server's rate, values a second, and the most it
 * spends on one request: the race's first probe request, 2 million
 * values, takes it 1.6 s. */
#define FAKE_NOCANCEL_RATE 1250000
#define FAKE_NOCANCEL_MAX_MS 3000

struct fake {
	enum fake_mode mode;
	char letter;       /* logged for each connection */
	unsigned delay_ms; /* before a reply */
	int lfd;           /* set by fake_start */
	unsigned port;     /* set by fake_start */
};

/* Start fake f on a loopback port of its own, served by a thread for the
 * rest of the test (Check's assertions abort it on failure). */
void fake_start(struct fake *f);
/* The answers every FAKE_TABLE server knows: t[0 .. n - 1], which
 * stay the caller's, set before the race. */
void fake_table(const struct wl_request *t, size_t n);
/* The letters of every fake's connections so far, in their order. */
const char *fake_log(void);
/* "NAME=127.0.0.1:PORT" into buf, which it returns. */
const char *server(char *buf, size_t size, const char *name, unsigned port);

/* What a run of revhash-bench printed, and how it ended. */
struct ran {
	int status;       /* the exit status, or -1 */
	char out[65536];  /* stdout, cut short if longer */
	char err[16384];  /* stderr */
	char json[65536]; /* what --json=FILE wrote, cut short if longer */
};

/* Run revhash-bench ($REVHASH_BENCH) with args (NULL-terminated) and
 * --json=FILE into r; path, when not NULL, replaces PATH for it. */
void run_bench(const char *const *args, const char *path, struct ran *r);
/* r's JSON says what its text says: every figure of every round's table
 * and of the summary is the same number (or, where the text has "-" or
 * "n/a", none), and every note, warning and verdict is a line of the
 * text; else show both and fail. */
void json_agrees(const struct ran *r);
/* Where r's stdout holds needle; else show all it printed and fail. */
const char *expect(const struct ran *r, const char *needle);
/* The columns of server name's row in the last table of text (a round's
 * or the summary's), as numbers: "-" and "n/a" read NAN, a '%' is
 * dropped. How many there were, up to max. */
int row(const char *text, const char *name, double *v, int max);

#endif
