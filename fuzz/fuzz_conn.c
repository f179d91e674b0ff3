/* libFuzzer target: the request parser and the connection state machine fed
 * arbitrary byte streams. The input is cut into pieces (each piece's length
 * comes from the stream itself) that are written one by one into a socket
 * pair and read by conn_read exactly as the master reads a client. Whatever
 * the pieces, the request decoded must be the first 49 bytes of the stream,
 * no byte past the 49th may be consumed as request, the reply written by
 * conn_reply must arrive whole, and the extra bytes are drained after it.
 * An input whose first byte is 'P' is a balancer's connection: a PROXY v2
 * header comes first, and whatever the pieces, it is taken whole and only
 * it (the request is the 49 bytes after it), or refused when it is none. */
#include "master/conn.h"
#include "proto/proto.h"
#include "proto/proxy.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void pipe_pair(int sv[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t stream[4096], reply[PROTO_REPLY_LEN];
	size_t total = 0, skip = 0;
	struct conn c;
	enum conn_io io = CONN_MORE;
	int sv[2];

	memset(&c, 0, sizeof c);
	pipe_pair(sv);
	c.src.fd = sv[0];
	if (size > 0 && data[0] == 'P') {
		c.pp = malloc(PROXY_MAX);
		data++;
		size--;
	}
	while (size > 0 && io == CONN_MORE) {
		size_t piece = 1 + data[0] % 64;
		data++;
		size--;
		if (piece > size)
			piece = size;
		if (piece && total + piece <= sizeof stream) {
			memcpy(stream + total, data, piece);
			total += piece;
			if (write(sv[1], data, piece) != (ssize_t)piece)
				abort();
		}
		data += piece;
		size -= piece;
		io = conn_read(&c);
		if (io == CONN_PROXIED) {
			struct proxy_header h;

			assert(!c.pp && proxy_parse(stream, total, &h) == 0);
			skip = h.len;
			io = conn_read(&c);
		}
		if (c.pp && io != CONN_MORE) { /* no header: refused at once */
			struct proxy_header h;

			assert(proxy_parse(stream, total, &h) < 0);
			free(c.pp);
			close(sv[0]);
			close(sv[1]);
			return 0;
		}
		assert(c.got <= PROTO_REQUEST_LEN);
		if (!c.pp)
			assert(c.got == (total - skip < PROTO_REQUEST_LEN ? total - skip :
					 PROTO_REQUEST_LEN));
	}
	if (c.pp && io == CONN_MORE) { /* the header never came whole */
		free(c.pp);
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	if (io == CONN_DONE) {
		struct proto_request want;
		proto_decode_request(stream + skip, &want);
		assert(memcmp(&want.digest, c.req.digest, 32) == 0);
		assert(want.start == c.req.start && want.end == c.req.end);
		assert(c.prio >= 1 && c.prio <= 16);
		assert(c.got == PROTO_REQUEST_LEN);
		/* Bytes after the 49th were left unread, never taken as
		 * request: the reply says so (linger), and after it they are
		 * drained. */
		assert(conn_reply(&c, want.start) ==
		       (total - skip > PROTO_REQUEST_LEN ? CONN_LINGER : CONN_DONE));
		assert(read(sv[1], reply, sizeof reply) == (ssize_t)sizeof reply);
		assert(proto_decode_reply(reply) == want.start);
	}
	/* A client that leaves is seen as gone. */
	close(sv[1]);
	if (io == CONN_MORE)
		assert(conn_read(&c) == CONN_EOF);
	if (io == CONN_DONE) {
		assert(conn_linger(&c, 1 << 20) == CONN_DONE);
		assert(c.drained == total - skip - PROTO_REQUEST_LEN);
	}
	close(sv[0]);
	return 0;
}
