/* Fake servers in threads of a test, for revhash-bench's race: each
 * answers as its mode says, and logs a letter for each connection. */
#ifndef REVHASH_TESTS_FAKE_SERVER_H
#define REVHASH_TESTS_FAKE_SERVER_H

enum fake_mode {
	FAKE_RIGHT,   /* the answer, searched by brute force (small ranges) */
	FAKE_WRONG,   /* END + 1, at once */
	FAKE_CLOSE,   /* reads the request, closes without a reply */
	FAKE_GARBAGE, /* three bytes, then closes */
	FAKE_HANG,    /* accepts, never reads nor replies nor closes */
};

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
/* The letters of every fake's connections so far, in their order. */
const char *fake_log(void);

#endif
