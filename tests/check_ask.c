/* Tests for revhash-bench --ask (bench/ask.c): the cut of a range into
 * pieces, checked for exact cover (no gap, no overlap, sizes within one)
 * over many ranges and at the ends of the number line; the parsing of its
 * words; and whole questions put to a fake server in a thread, which sees
 * the pieces arrive, answers as told and checks that the pieces left
 * waiting are reset (cancelled), not closed. */
#include "bench/ask.h"
#include "lib/digest.h"
#include "proto/proto.h"
#include "tests/check_run.h"

#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

/* Cut [start, end] into k and check the pieces against the promise. */
static void check_cut(uint64_t start, uint64_t end, uint64_t k)
{
	uint64_t n = ask_pieces(start, end, k), lo, hi, prev_hi = 0;
	uint64_t first_size = 0;

	ck_assert_uint_ge(n, 1);
	ck_assert_uint_le(n, k);
	if (end - start < k - 1)
		ck_assert_uint_eq(n, end - start + 1);
	for (uint64_t i = 0; i < n; i++) {
		ask_piece(start, end, n, i, &lo, &hi);
		ck_assert_uint_le(lo, hi);
		ck_assert_uint_eq(lo, i ? prev_hi + 1 : start);
		if (!i)
			first_size = hi - lo;
		/* Sizes within one of each other, the larger ones first. */
		ck_assert(hi - lo == first_size || hi - lo + 1 == first_size);
		prev_hi = hi;
	}
	ck_assert_uint_eq(prev_hi, end);
}

START_TEST(cut_covers_exactly)
{
	static const uint64_t ks[] = { 1, 2, 3, 4, 7, 16, 1000, 1024 };
	uint64_t s = 0x9e3779b97f4a7c15ULL;

	for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
		for (uint64_t len = 0; len < 40; len++)
			check_cut(1000, 1000 + len, ks[j]);
		for (int r = 0; r < 200; r++) {
			uint64_t a, b;

			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			a = s;
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			b = s >> (s % 64);
			check_cut(a < b ? a : b, a < b ? b : a, ks[j]);
		}
	}
}
END_TEST

START_TEST(cut_at_the_ends_of_the_line)
{
	uint64_t lo, hi;

	for (uint64_t k = 1; k <= 9; k++) {
		check_cut(0, UINT64_MAX, k);
		check_cut(1, UINT64_MAX, k);
		check_cut(0, UINT64_MAX - 1, k);
		check_cut(UINT64_MAX - 5, UINT64_MAX, k);
		check_cut(UINT64_MAX, UINT64_MAX, k);
		check_cut(0, 0, k);
	}
	/* 2^64 values in four: 2^62 each. */
	ck_assert_uint_eq(ask_pieces(0, UINT64_MAX, 4), 4);
	for (uint64_t i = 0; i < 4; i++) {
		ask_piece(0, UINT64_MAX, 4, i, &lo, &hi);
		ck_assert_uint_eq(lo, i << 62);
		ck_assert_uint_eq(hi, (i << 62) + ((1ULL << 62) - 1));
	}
	/* Three values asked in four pieces: three pieces of one. */
	ck_assert_uint_eq(ask_pieces(UINT64_MAX - 2, UINT64_MAX, 4), 3);
	ask_piece(UINT64_MAX - 2, UINT64_MAX, 3, 2, &lo, &hi);
	ck_assert_uint_eq(lo, UINT64_MAX);
	ck_assert_uint_eq(hi, UINT64_MAX);
}
END_TEST

START_TEST(cut_small_and_empty)
{
	uint64_t lo, hi;

	/* 10 values in 4: 3, 3, 2, 2. */
	ask_piece(10, 19, 4, 0, &lo, &hi);
	ck_assert_uint_eq(lo, 10);
	ck_assert_uint_eq(hi, 12);
	ask_piece(10, 19, 4, 1, &lo, &hi);
	ck_assert_uint_eq(lo, 13);
	ck_assert_uint_eq(hi, 15);
	ask_piece(10, 19, 4, 3, &lo, &hi);
	ck_assert_uint_eq(lo, 18);
	ck_assert_uint_eq(hi, 19);
	/* An empty range is one request, sent as it is. */
	ck_assert_uint_eq(ask_pieces(5, 4, 8), 1);
	ask_piece(5, 4, 1, 0, &lo, &hi);
	ck_assert_uint_eq(lo, 5);
	ck_assert_uint_eq(hi, 4);
	ck_assert_uint_eq(ask_pieces(0, 100, 0), 1);
}
END_TEST

START_TEST(digest_words)
{
	const char *good = "00FF10aB" "00000000" "00000000" "00000000"
			   "00000000" "00000000" "00000000" "0000000f";
	uint8_t d[PROTO_DIGEST_LEN];

	ck_assert_int_eq(ask_parse_digest(good, d), 0);
	ck_assert_uint_eq(d[0], 0x00);
	ck_assert_uint_eq(d[1], 0xff);
	ck_assert_uint_eq(d[2], 0x10);
	ck_assert_uint_eq(d[3], 0xab);
	ck_assert_uint_eq(d[31], 0x0f);
	ck_assert_int_eq(ask_parse_digest("", d), -EINVAL);
	ck_assert_int_eq(ask_parse_digest("00ff", d), -EINVAL);
	/* 63 and 65 digits; a 'g'; a space. */
	ck_assert_int_eq(ask_parse_digest(good + 1, d), -EINVAL);
	{
		char buf[80];

		snprintf(buf, sizeof buf, "%s0", good);
		ck_assert_int_eq(ask_parse_digest(buf, d), -EINVAL);
		snprintf(buf, sizeof buf, "%s", good);
		buf[10] = 'g';
		ck_assert_int_eq(ask_parse_digest(buf, d), -EINVAL);
		buf[10] = ' ';
		ck_assert_int_eq(ask_parse_digest(buf, d), -EINVAL);
	}
}
END_TEST

START_TEST(number_words)
{
	char digest[] = "e1543551249113046932741cc28f36b4bbcc542233eb5094874072d3167f160a";
	char *good[3] = { digest, "0", "18446744073709551615" };
	const char *bad[] = { "-1", "1x", " 1", "", "18446744073709551616", "+3" };
	struct ask_params p = { 0 };

	ck_assert_int_eq(ask_parse(good, &p), 0);
	ck_assert_uint_eq(p.start, 0);
	ck_assert_uint_eq(p.end, UINT64_MAX);
	ck_assert_uint_eq(p.digest[0], 0xe1);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *w[3] = { digest, (char *)bad[i], "5" };
		char *v[3] = { digest, "5", (char *)bad[i] };

		ck_assert_int_eq(ask_parse(w, &p), -EINVAL);
		ck_assert_int_eq(ask_parse(v, &p), -EINVAL);
	}
}
END_TEST

/* --- a fake server ---------------------------------------------------- */

enum fake_mode { FAKE_FIND, FAKE_NONE, FAKE_DROP };

struct fake {
	int lfd;
	uint64_t n, x;           /* pieces to expect; the answer */
	enum fake_mode mode;
	struct proto_request req[8];
	int resets, closes;      /* how the pieces left waiting ended */
};

static int fake_listen(struct fake *f)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;

	f->lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(f->lfd, 0);
	ck_assert_int_eq(bind(f->lfd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(f->lfd, 16), 0);
	ck_assert_int_eq(getsockname(f->lfd, (struct sockaddr *)&a, &len), 0);
	return ntohs(a.sin_port);
}

/* The piece the fake answers, or -1: the one holding x (FAKE_FIND). */
static int holder(const struct fake *f)
{
	for (uint64_t i = 0; i < f->n; i++)
		if (f->mode == FAKE_FIND && f->req[i].start <= f->x &&
		    f->x <= f->req[i].end)
			return (int)i;
	return -1;
}

/* Did the client end fd with a reset (1) or a plain close (0)? */
static int was_reset(int fd)
{
	struct timeval tv = { .tv_sec = 5 };
	uint8_t b;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	return recv(fd, &b, 1, 0) < 0 && errno == ECONNRESET;
}

static void *fake_serve(void *arg)
{
	struct fake *f = arg;
	uint8_t buf[PROTO_REQUEST_LEN], rep[PROTO_REPLY_LEN];
	int fds[8], win;

	for (uint64_t i = 0; i < f->n; i++) {
		fds[i] = accept(f->lfd, NULL, NULL);
		if (fds[i] < 0 || recv(fds[i], buf, sizeof buf, MSG_WAITALL) !=
				  (ssize_t)sizeof buf)
			return NULL;
		proto_decode_request(buf, &f->req[i]);
	}
	win = holder(f);
	for (uint64_t i = 0; i < f->n; i++) {
		if (f->mode == FAKE_DROP && i == 0) {
			close(fds[i]);
			continue;
		}
		if (win >= 0 && (int)i != win)
			continue;
		proto_encode_reply(win >= 0 ? f->x : 0, rep);
		send(fds[i], rep, sizeof rep, MSG_NOSIGNAL);
	}
	for (uint64_t i = 0; i < f->n; i++) {
		if (win >= 0 && (int)i != win)
			was_reset(fds[i]) ? f->resets++ : f->closes++;
		close(fds[i]);
	}
	return NULL;
}

/* Ask the fake [start, end] in k pieces; the exit status, and what was
 * printed in out, as text, and in json, as JSON. */
static int ask_fake(struct fake *f, uint64_t start, uint64_t end, uint64_t k,
		    char *out, size_t size, char json[64])
{
	struct ask_params p = { .start = start, .end = end, .priority = 3,
				.split = k };
	struct target t = { 0 };
	FILE *text, *js;
	struct out o;
	pthread_t tid;
	char port[8];
	int status;

	/* fmemopen writes the terminating NUL only with the first write: an
	 * output that stays empty must read as "" all the same. */
	memset(out, 0, size);
	memset(json, 0, 64);
	text = fmemopen(out, size, "w");
	js = fmemopen(json, 64, "w");
	digest_of(f->x, p.digest); /* what a finding fake replies is the answer */
	snprintf(port, sizeof port, "%d", fake_listen(f));
	f->n = ask_pieces(start, end, k);
	ck_assert_int_eq(client_resolve(&t, "127.0.0.1", port), 0);
	ck_assert_int_eq(pthread_create(&tid, NULL, fake_serve, f), 0);
	ck_assert(text && js);
	out_init(&o, text, js);
	status = ask_run(&t, &p, &o);
	ck_assert_int_eq(out_finish(&o), 0);
	fclose(text);
	fclose(js);
	pthread_join(tid, NULL);
	client_free(&t);
	close(f->lfd);
	return status;
}

START_TEST(first_answer_wins_others_reset)
{
	struct fake f = { .mode = FAKE_FIND, .x = 777 };
	char out[64], json[64];

	ck_assert_int_eq(ask_fake(&f, 100, 1099, 4, out, sizeof out, json), 0);
	ck_assert_str_eq(out, "777\n");
	ck_assert_str_eq(json, "{\"answer\":777}\n");
	ck_assert_uint_eq(f.n, 4);
	for (uint64_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(f.req[i].start, 100 + 250 * i);
		ck_assert_uint_eq(f.req[i].end, 349 + 250 * i);
		ck_assert_uint_eq(f.req[i].priority, 3);
	}
	ck_assert_int_eq(f.resets, 3);
	ck_assert_int_eq(f.closes, 0);
}
END_TEST

START_TEST(every_piece_zero_is_zero)
{
	struct fake f = { .mode = FAKE_NONE };
	char out[64], json[64];

	ck_assert_int_eq(ask_fake(&f, 0, UINT64_MAX, 3, out, sizeof out, json), 0);
	ck_assert_str_eq(out, "0\n");
	ck_assert_str_eq(json, "{\"answer\":0}\n");
	ck_assert_uint_eq(f.req[2].end, UINT64_MAX);
}
END_TEST

START_TEST(a_piece_without_reply_fails)
{
	struct fake f = { .mode = FAKE_DROP };
	char out[64], json[64];

	/* One piece closed unanswered, the other 0: no answer can be given. */
	ck_assert_int_eq(ask_fake(&f, 1, 2, 2, out, sizeof out, json), 1);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(json, "{}\n");
}
END_TEST

static Suite *ask_suite(void)
{
	Suite *s = suite_create("ask");
	TCase *t = tcase_create("ask");

	tcase_set_timeout(t, 30);
	tcase_add_test(t, cut_covers_exactly);
	tcase_add_test(t, cut_at_the_ends_of_the_line);
	tcase_add_test(t, cut_small_and_empty);
	tcase_add_test(t, digest_words);
	tcase_add_test(t, number_words);
	tcase_add_test(t, first_answer_wins_others_reset);
	tcase_add_test(t, every_piece_zero_is_zero);
	tcase_add_test(t, a_piece_without_reply_fails);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return check_run(ask_suite());
}
