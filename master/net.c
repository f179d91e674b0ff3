/* The listener and accept(). The reserve descriptor answers EMFILE:
 * without it the waiting connection stays queued, the listener readable,
 * and the loop spins; with it we accept, close, and serve on. */
#include "master/net.h"
#include "lib/log.h"
#include "lib/os.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static int reserve_fd = -1;

/* Bind a new socket to the address a (len bytes). 0 and *out, or -errno.
 * Its options are set before bind: accepted sockets inherit them.
 * TCP_DEFER_ACCEPT hands the master a connection once its first bytes are
 * in: one wake-up per request, not two (docs/performance.md). Keepalive
 * is how the master learns that a waiting client, never read from, is
 * gone. */
static int bind_to(const struct sockaddr_storage *a, socklen_t len, int *out)
{
	int rc, one = 1, zero = 0;
	int fd = socket(a->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (a->ss_family == AF_INET6) /* any IPv6 address: IPv4 too */
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &one, sizeof one); /* 1 s */
	os_keepalive(fd);
	if (bind(fd, (const struct sockaddr *)a, len) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	*out = fd;
	return 0;
}

/* Is ip (16 bytes) an IPv4 address, IPv4-mapped? */
static int mapped_ipv4(const uint8_t ip[16])
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(ip, prefix, sizeof prefix) == 0;
}

/* ip (NULL: every address of family) and port into *a; its length. */
static socklen_t address(const uint8_t *ip, int family, unsigned port,
			 struct sockaddr_storage *a)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)a;
	struct sockaddr_in *a4 = (struct sockaddr_in *)a;

	memset(a, 0, sizeof *a);
	if (ip ? mapped_ipv4(ip) : family == AF_INET) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		if (ip)
			memcpy(&a4->sin_addr, ip + 12, 4);
		else
			a4->sin_addr.s_addr = htonl(INADDR_ANY);
		return sizeof *a4;
	}
	a6->sin6_family = AF_INET6;
	a6->sin6_port = htons((uint16_t)port);
	if (ip)
		memcpy(&a6->sin6_addr, ip, 16);
	else
		a6->sin6_addr = in6addr_any;
	return sizeof *a6;
}

int net_bind(const uint8_t *ip, unsigned port, int *fd)
{
	struct sockaddr_storage a;
	socklen_t len = address(ip, AF_INET6, port, &a);
	int rc = bind_to(&a, len, fd);

	if (!ip && (rc == -EAFNOSUPPORT || rc == -EADDRNOTAVAIL))
		rc = bind_to(&a, address(NULL, AF_INET, port, &a), fd);
	return rc;
}

/* Is the folder of path this user's own, not a link, with no bit for
 * group or others? 0 or -EPERM (said). */
static int private_folder(const char *path)
{
	char copy[sizeof ((struct sockaddr_un *)0)->sun_path];
	const char *dir;
	struct stat st;

	snprintf(copy, sizeof copy, "%s", path);
	dir = dirname(copy);
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077)) {
		log_error("--listen unix:%s: its folder %s is not this user's own, 0700 and no "
			  "link: another local user could reach the socket", path, dir);
		return -EPERM;
	}
	return 0;
}

/* What stands at a's path: nothing (0); a socket of ours nobody listens
 * on, removed (0); else -EADDRINUSE (a master listens) or -EEXIST. */
static int clear_stale(const struct sockaddr_un *a)
{
	struct stat st;
	int fd, rc;

	if (lstat(a->sun_path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
		return -EEXIST;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	rc = connect(fd, (const struct sockaddr *)a, sizeof *a) == 0 || errno == EAGAIN ?
	     -EADDRINUSE : errno == ECONNREFUSED ? 0 : -errno;
	close(fd);
	if (rc == 0 && unlink(a->sun_path) < 0)
		rc = -errno;
	return rc;
}

int net_bind_unix(const char *path, int *fd, uint64_t *ino)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int rc, s;

	if (strlen(path) >= sizeof a.sun_path)
		return -ENAMETOOLONG;
	memcpy(a.sun_path, path, strlen(path) + 1);
	if ((rc = private_folder(path)) < 0 || (rc = clear_stale(&a)) < 0)
		return rc;
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
		return -errno;
	if (bind(s, (const struct sockaddr *)&a, sizeof a) < 0 || chmod(path, 0600) < 0 ||
	    lstat(path, &st) < 0) {
		rc = -errno;
		close(s);
		return rc;
	}
	*fd = s;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

void net_unbind_unix(const char *path, uint64_t ino)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && (uint64_t)st.st_ino == ino)
		unlink(path);
}

void net_address_text(const uint8_t ip[16], char *buf, size_t size)
{
	if (mapped_ipv4(ip))
		inet_ntop(AF_INET, ip + 12, buf, (socklen_t)size);
	else
		inet_ntop(AF_INET6, ip, buf, (socklen_t)size);
}

int net_open(int fd)
{
	return listen(fd, 4096) < 0 ? -errno : 0;
}

long net_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return (long)rl.rlim_cur;
}

void net_reserve_init(void)
{
	if (reserve_fd < 0)
		reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

enum net_accepted net_accept(int listen_fd, int *fd, struct sockaddr_storage *peer,
			     socklen_t *len, int *err)
{
	int c;

	net_reserve_init(); /* again, if it could not be opened before */
	*len = sizeof *peer;
	c = accept4(listen_fd, (struct sockaddr *)peer, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (c >= 0) {
		*fd = c;
		return NET_ACCEPTED;
	}
	*err = errno;
	if (errno == EWOULDBLOCK || errno == EINTR)
		return NET_NONE;
	if (errno != EMFILE && errno != ENFILE)
		return NET_FAILED;
	if (reserve_fd < 0)
		return NET_EXHAUSTED;
	close(reserve_fd);
	reserve_fd = -1;
	c = accept(listen_fd, NULL, NULL);
	if (c >= 0)
		close(c);
	net_reserve_init();
	return NET_TURNED_AWAY;
}
