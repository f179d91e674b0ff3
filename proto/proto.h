/* The wire format of revhash: a 49-byte request and an 8-byte reply.
 * Every byte-order conversion of the project lives here, so the rest of the
 * code sees host integers only. */
#ifndef REVHASH_PROTO_H
#define REVHASH_PROTO_H

#include <stdint.h>

#define PROTO_DIGEST_LEN 32
#define PROTO_REQUEST_LEN 49
#define PROTO_REPLY_LEN 8
#define PROTO_PRIORITY_MIN 1
#define PROTO_PRIORITY_MAX 16

/* A decoded request: search [start, end] (inclusive) for digest. */
struct proto_request {
	uint8_t digest[PROTO_DIGEST_LEN];
	uint64_t start;
	uint64_t end;
	uint8_t priority; /* as sent; see proto_priority() */
};

/* Decode the 49 bytes at buf into req (no validation: every value is legal). */
void proto_decode_request(const uint8_t buf[PROTO_REQUEST_LEN],
			  struct proto_request *req);

/* Encode req into 49 bytes at buf (used by clients and tests). */
void proto_encode_request(const struct proto_request *req,
			  uint8_t buf[PROTO_REQUEST_LEN]);

/* Encode the answer x as the 8-byte big-endian reply. */
void proto_encode_reply(uint64_t x, uint8_t buf[PROTO_REPLY_LEN]);

/* Decode an 8-byte reply. */
uint64_t proto_decode_reply(const uint8_t buf[PROTO_REPLY_LEN]);

/* The priority the scheduler uses: 0 counts as 1, above 16 as 16. */
unsigned proto_priority(uint8_t sent);

#endif
