/* The PROXY protocol version 2 header (see proxy.h). A header is taken only
 * whole and only as the specification lays it out: the 12-byte signature,
 * version 2, command LOCAL or PROXY, and a length that covers the address
 * block of its family. Anything else is a protocol error, never a guess. */
#include "proto/proxy.h"

#include <errno.h>
#include <string.h>

const uint8_t proxy_sig[PROXY_SIG_LEN] = {
	0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a
};

enum { CMD_LOCAL = 0x20, CMD_PROXY = 0x21 };
enum { FAM_INET = 0x1, FAM_INET6 = 0x2 };

/* The address of the client from the rest of a PROXY header of family fam
 * (high nibble of the family byte): 0, 1 (a family without an address we
 * take: the header counts as LOCAL) or -EPROTO (too short for it). */
static int source(const uint8_t *rest, size_t len, unsigned fam, struct proxy_header *h)
{
	memset(h->addr, 0, sizeof h->addr);
	if (fam == FAM_INET) {
		if (len < 12)
			return -EPROTO;
		h->addr[10] = h->addr[11] = 0xff;
		memcpy(h->addr + 12, rest, 4);
		return 0;
	}
	if (fam == FAM_INET6) {
		if (len < 36)
			return -EPROTO;
		memcpy(h->addr, rest, 16);
		return 0;
	}
	return 1; /* UNSPEC or UNIX: nobody's address */
}

long proxy_parse(const uint8_t *buf, size_t n, struct proxy_header *h)
{
	size_t rest;
	int rc;

	if (memcmp(buf, proxy_sig, n < PROXY_SIG_LEN ? n : PROXY_SIG_LEN) != 0)
		return -EPROTO;
	if (n > PROXY_SIG_LEN && buf[12] != CMD_LOCAL && buf[12] != CMD_PROXY)
		return -EPROTO;
	if (n < PROXY_FIXED_LEN)
		return (long)(PROXY_FIXED_LEN - n);
	rest = (size_t)buf[14] << 8 | buf[15];
	if (rest > PROXY_REST_MAX)
		return -EPROTO;
	if (n < PROXY_FIXED_LEN + rest)
		return (long)(PROXY_FIXED_LEN + rest - n);
	h->len = PROXY_FIXED_LEN + rest;
	h->local = 1;
	if (buf[12] == CMD_LOCAL)
		return 0;
	if ((rc = source(buf + PROXY_FIXED_LEN, rest, buf[13] >> 4, h)) < 0)
		return rc;
	h->local = rc;
	return 0;
}
