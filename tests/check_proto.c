/* proto/: request and reply encoding, byte order, field boundaries. */
#include "proto/proto.h"

#include "tests/check_run.h"
#include "lib/digest.h"

#include <check.h>
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

START_TEST(be32_load)
{
	const uint8_t b[4] = { 0xde, 0xad, 0xbe, 0xef };

	ck_assert_uint_eq(proto_load_be32(b), 0xdeadbeefu);
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

int main(void)
{
	Suite *s = suite_create("proto");
	TCase *t = tcase_create("wire");

	tcase_set_timeout(t, 10);
	tcase_add_test(t, request_round_trip);
	tcase_add_test(t, request_layout_is_big_endian);
	tcase_add_test(t, reply_round_trip_and_layout);
	tcase_add_test(t, message_is_little_endian);
	tcase_add_test(t, be32_load);
	tcase_add_test(t, priority_is_clamped);
	suite_add_tcase(s, t);
	return check_run(s);
}
