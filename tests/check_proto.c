/* proto/: request and reply encoding, byte order, field boundaries. */
#include "proto/proto.h"
#include "proto/proxy.h"

#include "tests/check_run.h"
#include "lib/digest.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t edges[] = { 0, 1, 0xff, 0x100, 0xffffffffull,
				  0x100000000ull, 0x0123456789abcdefull,
				  0x7fffffffffffffffull, 0x8000000000000000ull,
				  0xfffffffffffffffeull, 0xffffffffffffffffull };
#define NEDGES (sizeof edges / sizeof edges[0])

START_TEST(request_round_trip)
{
	struct proto_request in, out;
	uint8_t buf[PROTO_REQUEST_LEN];

	for (size_t i = 0; i < NEDGES; i++) {
		for (int b = 0; b < 32; b++)
			in.digest[b] = (uint8_t)(b * 7 + i);
		in.start = edges[i];
		in.end = edges[NEDGES - 1 - i];
		in.priority = (uint8_t)(i * 23);
		proto_encode_request(&in, buf);
		proto_decode_request(buf, &out);
		ck_assert_mem_eq(out.digest, in.digest, 32);
		ck_assert_uint_eq(out.start, in.start);
		ck_assert_uint_eq(out.end, in.end);
		ck_assert_uint_eq(out.priority, in.priority);
	}
}
END_TEST

START_TEST(request_layout_is_big_endian)
{
	uint8_t buf[PROTO_REQUEST_LEN];
	struct proto_request q;

	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	for (int i = 0; i < 8; i++) {
		buf[32 + i] = (uint8_t)(0x10 + i); /* start = 0x1011..17 */
		buf[40 + i] = (uint8_t)(0xf0 + i); /* end = 0xf0f1..f7 */
	}
	buf[48] = 9;
	proto_decode_request(buf, &q);
	ck_assert_uint_eq(q.start, 0x1011121314151617ull);
	ck_assert_uint_eq(q.end, 0xf0f1f2f3f4f5f6f7ull);
	ck_assert_uint_eq(q.priority, 9);
	ck_assert_uint_eq(q.digest[0], 0);
	ck_assert_uint_eq(q.digest[31], 31);
}
END_TEST

START_TEST(reply_round_trip_and_layout)
{
	uint8_t buf[PROTO_REPLY_LEN];

	proto_encode_reply(0x0102030405060708ull, buf);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(buf[i], i + 1);
	for (size_t i = 0; i < NEDGES; i++) {
		proto_encode_reply(edges[i], buf);
		ck_assert_uint_eq(proto_decode_reply(buf), edges[i]);
	}
}
END_TEST

START_TEST(message_is_little_endian)
{
	uint8_t m[8];

	digest_message(0x0102030405060708ull, m);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(m[i], 8 - i);
	digest_message(0xffffffffffffffffull, m);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(m[i], 0xff);
}
END_TEST


START_TEST(priority_is_clamped)
{
	ck_assert_uint_eq(proto_priority(0), 1);
	ck_assert_uint_eq(proto_priority(1), 1);
	ck_assert_uint_eq(proto_priority(7), 7);
	ck_assert_uint_eq(proto_priority(16), 16);
	ck_assert_uint_eq(proto_priority(17), 16);
	ck_assert_uint_eq(proto_priority(255), 16);
}
END_TEST

/* A PROXY v2 header of command cmd and family fam with an address block
 * of rest bytes (the source address first) into buf; its length. */
static size_t proxy_header(uint8_t *buf, uint8_t cmd, uint8_t fam, const uint8_t *src,
			   size_t src_len, size_t rest)
{
	memcpy(buf, proxy_sig, PROXY_SIG_LEN);
	buf[12] = cmd;
	buf[13] = fam;
	buf[14] = (uint8_t)(rest >> 8);
	buf[15] = (uint8_t)rest;
	memset(buf + 16, 0xab, rest);
	memcpy(buf + 16, src, src_len < rest ? src_len : rest);
	return 16 + rest;
}

/* IPv4 and IPv6 sources come out whole (IPv4 mapped); TLVs after the
 * addresses are skipped; the bytes needed are told exactly, so a reader
 * never takes a byte of the request as header. */
START_TEST(proxy_headers_give_the_client)
{
	static const uint8_t v4[4] = { 10, 1, 2, 3 };
	static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 7 };
	uint8_t buf[PROXY_MAX], want[16] = { [10] = 0xff, [11] = 0xff, 10, 1, 2, 3 };
	struct proxy_header h;
	size_t n = proxy_header(buf, 0x21, 0x11, v4, 4, 12 + 9);

	for (size_t k = 0; k < n; k++) /* each prefix asks for the rest */
		ck_assert_int_eq(proxy_parse(buf, k, &h), (long)(k < 16 ? 16 - k : n - k));
	ck_assert_int_eq(proxy_parse(buf, n, &h), 0);
	ck_assert_uint_eq(h.len, n);
	ck_assert(!h.local);
	ck_assert_mem_eq(h.addr, want, 16);
	n = proxy_header(buf, 0x21, 0x21, v6, 16, 36);
	ck_assert_int_eq(proxy_parse(buf, n, &h), 0);
	ck_assert(!h.local && h.len == 52);
	ck_assert_mem_eq(h.addr, v6, 16);
	/* LOCAL (the balancer's own check), and a UNIX source: no address. */
	n = proxy_header(buf, 0x20, 0x00, v4, 0, 0);
	ck_assert_int_eq(proxy_parse(buf, n, &h), 0);
	ck_assert(h.local && h.len == 16);
	n = proxy_header(buf, 0x21, 0x31, v4, 4, 216);
	ck_assert_int_eq(proxy_parse(buf, n, &h), 0);
	ck_assert(h.local);
}
END_TEST

/* What is no version 2 header is refused as soon as a byte shows it. */
START_TEST(proxy_parse_refuses_what_is_none)
{
	static const uint8_t v4[4] = { 10, 1, 2, 3 };
	uint8_t buf[PROXY_MAX + 16];
	struct proxy_header h;
	size_t n = proxy_header(buf, 0x21, 0x11, v4, 4, 12);

	buf[3] ^= 1; /* the signature */
	ck_assert_int_eq(proxy_parse(buf, 4, &h), -EPROTO);
	buf[3] ^= 1;
	buf[12] = 0x11; /* version 1 */
	ck_assert_int_eq(proxy_parse(buf, 13, &h), -EPROTO);
	buf[12] = 0x22; /* no such command */
	ck_assert_int_eq(proxy_parse(buf, n, &h), -EPROTO);
	n = proxy_header(buf, 0x21, 0x11, v4, 4, 8); /* too short for IPv4 */
	ck_assert_int_eq(proxy_parse(buf, n, &h), -EPROTO);
	n = proxy_header(buf, 0x21, 0x21, v4, 4, 12); /* too short for IPv6 */
	ck_assert_int_eq(proxy_parse(buf, n, &h), -EPROTO);
	proxy_header(buf, 0x21, 0x11, v4, 4, PROXY_REST_MAX + 1); /* too long */
	ck_assert_int_eq(proxy_parse(buf, 16, &h), -EPROTO);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("proto");
	TCase *t = tcase_create("wire");

	tcase_set_timeout(t, 10);
	tcase_add_test(t, request_round_trip);
	tcase_add_test(t, request_layout_is_big_endian);
	tcase_add_test(t, reply_round_trip_and_layout);
	tcase_add_test(t, message_is_little_endian);
	tcase_add_test(t, priority_is_clamped);
	tcase_add_test(t, proxy_headers_give_the_client);
	tcase_add_test(t, proxy_parse_refuses_what_is_none);
	suite_add_tcase(s, t);
	return check_run(s);
}
