/* The PROXY protocol's version 2 header, which a balancer (HAProxy's
 * send-proxy-v2) sends ahead of a client's bytes to say whom it forwards:
 * parsed here as bytes, with no socket, so that tests and the fuzzer feed
 * it anything. Only a source the operator named may send one
 * (--proxy-from); the master reads it before the request and from then on
 * knows the client by the address it gives. */
#ifndef REVHASH_PROXY_H
#define REVHASH_PROXY_H

#include <stddef.h>
#include <stdint.h>

#define PROXY_SIG_LEN 12
#define PROXY_FIXED_LEN 16  /* the signature, version and command, family, length */
#define PROXY_REST_MAX 512  /* the longest rest taken (addresses and TLVs) */
#define PROXY_MAX (PROXY_FIXED_LEN + PROXY_REST_MAX)

/* The signature that opens every version 2 header. */
extern const uint8_t proxy_sig[PROXY_SIG_LEN];

/* What a whole header says. */
struct proxy_header {
	size_t len;        /* its bytes in all: the request starts after them */
	int local;         /* LOCAL (the balancer's own check), or a family
			      we do not take the address of: no address */
	uint8_t addr[16];  /* the client's address, IPv4 as IPv4-mapped IPv6 */
};

/* How many bytes of the header are still needed past the n at buf (the
 * stream's first): 0 once it is whole (then parsed into *h), a positive
 * count, or -EPROTO when the bytes are no version 2 header (or one longer
 * than PROXY_MAX). A caller reads no more than it is told, so that no
 * byte of the request is taken as header. */
long proxy_parse(const uint8_t *buf, size_t n, struct proxy_header *h);

#endif
