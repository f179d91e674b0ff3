/* A server of the protocol written the plain way, for races against one
 * that is not revhash's own code (docs/race.md): a thread per connection,
 * each reading its request and hashing its range with OpenSSL's EVP SHA-256
 * one value after another, from start to end; no cache, no priorities, no
 * cancelling (a client that leaves does not stop its thread). It shares
 * nothing with revhash but the protocol's byte layout, written out here.
 *
 *   thread-server PORT [WORK]   serves on 127.0.0.1:PORT until killed
 *
 * WORK (default 1, at most 1000) hashes each value that many times over,
 * as a server in a slower language would: at 40, a quarter of a million
 * values a second, the race's first probe request outlasts its bound,
 * and the race sees what a server that never cancels does then.
 *
 * A request that does not arrive whole within 10 s is dropped. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define REQUEST_LEN 49

static EVP_MD *sha256; /* fetched once: a fetch a value costs 3x */
static long work = 1;  /* hashes of each value */

static uint64_t big_endian(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The first x in start..end whose 8 little-endian bytes hash to digest,
 * or 0 (also when the digest cannot be made): one digest context for the
 * thread, set up again for each value with the digest fetched at start. */
static uint64_t search(const unsigned char digest[32], uint64_t start, uint64_t end)
{
	unsigned char in[8], out[EVP_MAX_MD_SIZE];
	EVP_MD_CTX *ctx = sha256 ? EVP_MD_CTX_new() : NULL;
	uint64_t found = 0;
	unsigned len;

	for (uint64_t x = start; ctx && start <= end; x++) {
		for (int i = 0; i < 8; i++)
			in[i] = (unsigned char)(x >> (8 * i));
		for (long k = 0; k < work; k++)
			if (!EVP_DigestInit_ex2(ctx, sha256, NULL) ||
			    !EVP_DigestUpdate(ctx, in, sizeof in) ||
			    !EVP_DigestFinal_ex(ctx, out, &len))
				goto out;
		if (len == 32 && memcmp(out, digest, 32) == 0) {
			found = x;
			break;
		}
		if (x == end)
			break;
	}
out:
	EVP_MD_CTX_free(ctx);
	return found;
}

static void *serve(void *arg)
{
	int fd = (int)(intptr_t)arg;
	unsigned char req[REQUEST_LEN], rep[8];
	size_t got = 0;
	uint64_t x;

	while (got < sizeof req) {
		ssize_t n = read(fd, req + got, sizeof req - got);

		if (n <= 0 && !(n < 0 && errno == EINTR))
			break;
		got += n > 0 ? (size_t)n : 0;
	}
	if (got == sizeof req) {
		x = search(req, big_endian(req + 32), big_endian(req + 40));
		for (int i = 0; i < 8; i++)
			rep[i] = (unsigned char)(x >> (56 - 8 * i));
		if (write(fd, rep, sizeof rep) < 0)
			perror("thread-server: write");
	}
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval limit = { 10, 0 };
	pthread_attr_t attr;
	int one = 1, lfd;
	char *end;
	long port = argc == 2 || argc == 3 ? strtol(argv[1], &end, 10) : 0;

	if (port && argc == 3 && !*end)
		work = strtol(argv[2], &end, 10);
	if (port < 1 || port > 65535 || *end || work < 1 || work > 1000) {
		fprintf(stderr, "usage: thread-server PORT [WORK]\n");
		return 2;
	}
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 512) < 0) {
		perror("thread-server: listen");
		return 1;
	}
	if (!(sha256 = EVP_MD_fetch(NULL, "SHA256", NULL))) {
		fprintf(stderr, "thread-server: no SHA-256 in OpenSSL\n");
		return 1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		pthread_t t;
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0) {
			if (errno != EINTR && errno != ECONNABORTED) {
				perror("thread-server: accept");
				usleep(10000); /* out of descriptors: no hot loop */
			}
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
		if (pthread_create(&t, &attr, serve, (void *)(intptr_t)fd) != 0)
			close(fd);
	}
}
