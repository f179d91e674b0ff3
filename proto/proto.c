/* Byte-order code for the wire format. Written with shifts rather than
 * htobe64() so it is the same on every host and obviously endian-neutral. */
#include "proto.h"

#include <string.h>

uint64_t proto_load_be64(const uint8_t *p)
{
	uint64_t x = 0;
	for (int i = 0; i < 8; i++)
		x = (x << 8) | p[i];
	return x;
}

void proto_store_be64(uint64_t x, uint8_t *p)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = (uint8_t)x;
		x >>= 8;
	}
}

void proto_decode_request(const uint8_t buf[PROTO_REQUEST_LEN],
			  struct proto_request *req)
{
	memcpy(req->digest, buf, PROTO_DIGEST_LEN);
	req->start = proto_load_be64(buf + 32);
	req->end = proto_load_be64(buf + 40);
	req->priority = buf[48];
}

void proto_encode_request(const struct proto_request *req,
			  uint8_t buf[PROTO_REQUEST_LEN])
{
	memcpy(buf, req->digest, PROTO_DIGEST_LEN);
	proto_store_be64(req->start, buf + 32);
	proto_store_be64(req->end, buf + 40);
	buf[48] = req->priority;
}

void proto_encode_reply(uint64_t x, uint8_t buf[PROTO_REPLY_LEN])
{
	proto_store_be64(x, buf);
}

uint64_t proto_decode_reply(const uint8_t buf[PROTO_REPLY_LEN])
{
	return proto_load_be64(buf);
}

unsigned proto_priority(uint8_t sent)
{
	if (sent < PROTO_PRIORITY_MIN)
		return PROTO_PRIORITY_MIN;
	if (sent > PROTO_PRIORITY_MAX)
		return PROTO_PRIORITY_MAX;
	return sent;
}
