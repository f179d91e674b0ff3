/* Byte-order code for the wire format: big-endian, by libc's endian.h. */
#include "proto.h"

#include <endian.h>
#include <string.h>

static uint64_t load_be64(const uint8_t *p)
{
	uint64_t x;

	memcpy(&x, p, sizeof x);
	return be64toh(x);
}

static void store_be64(uint64_t x, uint8_t *p)
{
	x = htobe64(x);
	memcpy(p, &x, sizeof x);
}

void proto_decode_request(const uint8_t buf[PROTO_REQUEST_LEN],
			  struct proto_request *req)
{
	memcpy(req->digest, buf, PROTO_DIGEST_LEN);
	req->start = load_be64(buf + 32);
	req->end = load_be64(buf + 40);
	req->priority = buf[48];
}

void proto_encode_request(const struct proto_request *req,
			  uint8_t buf[PROTO_REQUEST_LEN])
{
	memcpy(buf, req->digest, PROTO_DIGEST_LEN);
	store_be64(req->start, buf + 32);
	store_be64(req->end, buf + 40);
	buf[48] = req->priority;
}

void proto_encode_reply(uint64_t x, uint8_t buf[PROTO_REPLY_LEN])
{
	store_be64(x, buf);
}

uint64_t proto_decode_reply(const uint8_t buf[PROTO_REPLY_LEN])
{
	return load_be64(buf);
}

unsigned proto_priority(uint8_t sent)
{
	if (sent < PROTO_PRIORITY_MIN)
		return PROTO_PRIORITY_MIN;
	if (sent > PROTO_PRIORITY_MAX)
		return PROTO_PRIORITY_MAX;
	return sent;
}
