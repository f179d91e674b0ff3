/* revhash-bench --ask: one question put to a server, or to a cluster as K
 * requests for contiguous pieces of the range at once, the first answer
 * winning and the other searches cancelled. */
#ifndef REVHASH_BENCH_ASK_H
#define REVHASH_BENCH_ASK_H

#include <stdint.h>

#include "bench/client.h"
#include "bench/out.h"
#include "proto/proto.h"

#define ASK_MAX_SPLIT 1024 /* pieces, a connection each */
#define ASK_TIMEOUT_S 3600 /* the wait for an answer (--timeout) */

struct ask_params {
	uint8_t digest[PROTO_DIGEST_LEN];
	uint64_t start, end; /* inclusive, as on the wire */
	uint8_t priority;    /* of every piece, 1..16 */
	uint64_t split;      /* pieces asked for, at least 1 */
	unsigned timeout_ms; /* from the send, the longest wait for the answer
	                        (0: ASK_TIMEOUT_S) */
};

/* Read 64 hex digits (either case, nothing else) into digest. 0 or -EINVAL. */
int ask_parse_digest(const char *hex, uint8_t digest[PROTO_DIGEST_LEN]);
/* Fill p's digest, start and end from the words DIGEST_HEX START END.
 * 0, or -EINVAL after saying on stderr which word is wrong. */
int ask_parse(char *const words[3], struct ask_params *p);
/* How many pieces [start, end] is cut into when k (at least 1) are asked
 * for: k, or the number of values when the range holds fewer; 1 for an
 * empty range (start > end), which is sent as it is. */
uint64_t ask_pieces(uint64_t start, uint64_t end, uint64_t k);
/* Piece i of the n that ask_pieces gave, as [*lo, *hi]: the pieces are
 * contiguous, in order, cover [start, end] exactly and differ in size by
 * at most one value (the first ones are the larger). */
void ask_piece(uint64_t start, uint64_t end, uint64_t n, uint64_t i,
	       uint64_t *lo, uint64_t *hi);
/* Send p's pieces to t at once and print into o the first answer that is
 * not 0, or 0 when every piece replied 0, then reset every connection
 * still open, which cancels its search; give up at p->timeout_ms (sooner
 * on a vanished host: TCP keepalive). The exit status: 0 on an answer, 1
 * when a piece could not be sent or got no reply in time, 2 when out of
 * memory. */
int ask_run(struct target *t, const struct ask_params *p, struct out *o);

#endif
