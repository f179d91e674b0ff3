/* master/clients.c against a worker forked while connections are open;
 * and the order its timed and waiting lists keep (oldest first).
 *
 * Every fork of a worker copies every client socket of the master into the
 * child, which holds them until it reaches close_inherited(). While a copy
 * lives, close() in the master does not release the socket, and so does not
 * take it out of the epoll set either: that happens only when the last
 * descriptor of the socket is gone. Were clients.c to close a connection
 * without EPOLL_CTL_DEL, and free it after the batch, an event of the closed
 * socket that epoll reports afterwards would carry a pointer to freed memory
 * -- or, as malloc hands the same block to the next connection, to an
 * unrelated live connection, which would then be taken for gone.
 *
 * These tests play the loop (epoll_wait, clients_event, what jobs.c does on
 * CLIENT_GONE) around the real clients.c, with a child that holds the
 * inherited descriptors for a moment, as a worker does between fork() and
 * close_inherited() on a busy machine. */
#include "master/clients.h"
#include "tests/check_run.h"
#include "tests/accept.h"
#include "tests/helpers.h"
#include "master/net.h"
#include "lib/clock.h"

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

static struct clients cl;
static struct seg_stats stats;
static int epfd, lfd;
static unsigned port;
static struct conn_list waiters; /* a job's, in jobs.c */

static void setup(void)
{
	memset(&stats, 0, sizeof stats);
	TAILQ_INIT(&waiters.q);
	port = th_free_port();
	listen_on(port, &lfd);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	ck_assert_int_ge(epfd, 0);
	clients_init(&cl, epfd, &stats, 5000, 1u << 20, 1u << 20);
}

static void teardown(void)
{
	clients_close_all(&cl);
	clients_bury(&cl);
	clients_free(&cl);
	close(epfd);
	close(lfd);
}

/* A client that sends a whole request; the master accepts it (reading the
 * request at accept) and lets it wait on a search, as jobs.c does. */
static struct conn *waiting_client(int *client_fd)
{
	uint8_t d[32] = { 1 };
	struct conn *c;

	*client_fd = th_connect(port);
	ck_assert_int_ge(*client_fd, 0);
	ck_assert_int_eq(th_send_request(*client_fd, d, 0, 1000000, 1), 0);
	c = accept_request(&cl, lfd);
	clients_wait(&cl, c, &waiters); /* in the epoll set for errors and hang-ups */
	return c;
}

/* A worker forked now: it holds a copy of every descriptor of the master
 * until it closes what it inherits (here: for 2 s). The client's end is
 * the test's, not the master's: the child lets go of it. */
static pid_t fork_worker(int client_fd)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(client_fd);
		usleep(2000000); /* a sleep: holding them a while is the point */
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A waiting client resets; the master drops it (CLIENT_GONE) and frees it.
 * epoll must not report that connection again. */
START_TEST(closed_connection_is_not_reported_again)
{
	struct epoll_event ev[8];
	struct conn *c;
	void *gone;
	int fd, n;
	pid_t worker;

	c = waiting_client(&fd);
	worker = fork_worker(fd);
	th_reset(fd);
	n = epoll_wait(epfd, ev, 8, 2000);
	ck_assert_int_eq(n, 1);
	ck_assert_ptr_eq(ev[0].data.ptr, &c->src);
	ck_assert_int_eq(clients_event(&cl, c, ev[0].events), CLIENT_GONE);
	clients_drop(&cl, c); /* jobs_client_gone() */
	gone = c;
	clients_bury(&cl);    /* end of the batch: c is freed */

	n = epoll_wait(epfd, ev, 8, 300);
	reap(worker);
	ck_assert_msg(n == 0 || ev[0].data.ptr != gone,
		      "epoll reported the closed and freed connection %p again "
		      "(events 0x%x): the loop would use freed memory",
		      gone, n > 0 ? ev[0].events : 0);
	ck_assert_int_eq(n, 0);
}
END_TEST

/* The same, and the next client's connection gets the freed block: the
 * stale event of the reset socket is then delivered as an event of the new,
 * healthy connection, which the loop takes for gone and drops unanswered. */
START_TEST(stale_event_does_not_drop_a_healthy_client)
{
	struct epoll_event ev[8];
	struct conn *c, *next;
	void *spare[7];
	int fd, fd2, n, dropped = 0;
	pid_t worker;

	c = waiting_client(&fd);
	worker = fork_worker(fd);
	th_reset(fd);
	ck_assert_int_eq(epoll_wait(epfd, ev, 8, 2000), 1);
	ck_assert_int_eq(clients_event(&cl, c, ev[0].events), CLIENT_GONE);
	clients_drop(&cl, c);
	/* A master that has run a while: malloc's per-size cache (tcache) is
	 * full, so the freed connection goes back to the heap proper, where
	 * the next calloc of a connection finds it. */
	for (int i = 0; i < 7; i++)
		spare[i] = malloc(sizeof *c);
	for (int i = 0; i < 7; i++)
		free(spare[i]);
	clients_bury(&cl);

	next = waiting_client(&fd2); /* healthy: waits for its answer */
	n = epoll_wait(epfd, ev, 8, 300);
	for (int i = 0; i < n; i++)
		if (ev[i].data.ptr == &next->src &&
		    clients_event(&cl, next, ev[i].events) == CLIENT_GONE)
			dropped = 1;
	reap(worker);
	ck_assert_msg(!dropped, "a healthy waiting client (%s block) was taken "
		      "for gone because of another socket's event",
		      (void *)next == (void *)c ? "same" : "other");
	ck_assert_msg(n == 0, "epoll reported %d event(s) though the only live "
		      "client did nothing", n);
	clients_drop(&cl, next);
	clients_bury(&cl);
	close(fd2);
}
END_TEST

/* The peer an address counts as (conn_peer_mask): an IPv4 address is
 * itself; an IPv6 address its /64; but an IPv6 address that is an IPv4
 * host's (IPv4-mapped, NAT64, 6to4, Teredo, IPv4-compatible) is that
 * IPv4 peer, and ::1 is 127.0.0.1's: one host, one share of the caps. */
static const struct {
	const char *addr, *peer;
} peers[] = {
	{ "203.0.113.7", "::ffff:203.0.113.7" },
	{ "::ffff:203.0.113.7", "::ffff:203.0.113.7" },
	{ "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::" },
	{ "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::" },
	{ "::1", "::ffff:127.0.0.1" },
	{ "127.0.0.1", "::ffff:127.0.0.1" },
	{ "127.0.0.2", "::ffff:127.0.0.2" },
	{ "64:ff9b::203.0.113.7", "::ffff:203.0.113.7" },
	{ "2002:cb00:7107:1:2:3:4:5", "::ffff:203.0.113.7" },
	{ "2001:0:4136:e378:8000:63bf:34ff:8ef8", "::ffff:203.0.113.7" },
	{ "::203.0.113.7", "::ffff:203.0.113.7" },
	{ "::", "::" },
	{ "fe80::1:2:3:4", "fe80::" },
};

START_TEST(one_host_is_one_peer_where_its_address_tells)
{
	struct sockaddr_storage sa = { 0 };
	uint8_t got[16], want[16];

	if (inet_pton(AF_INET, peers[_i].addr, &((struct sockaddr_in *)&sa)->sin_addr) == 1) {
		sa.ss_family = AF_INET;
	} else {
		sa.ss_family = AF_INET6;
		ck_assert_int_eq(inet_pton(AF_INET6, peers[_i].addr,
					   &((struct sockaddr_in6 *)&sa)->sin6_addr), 1);
	}
	ck_assert_int_eq(inet_pton(AF_INET6, peers[_i].peer, want), 1);
	conn_addr_of(got, (const struct sockaddr *)&sa);
	conn_peer_mask(got);
	ck_assert_msg(memcmp(got, want, 16) == 0, "%s is not peer %s", peers[_i].addr,
		      peers[_i].peer);
}
END_TEST

/* A client that sends part of its request, accepted: the master times it
 * from now. Returns the client's end; *before and *after bracket the
 * accept on clock_ms(). */
static int partial_client(uint64_t *before, uint64_t *after)
{
	uint8_t part[10] = { 0 };
	unsigned open = cl.open;
	int fd = th_connect(port);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(send(fd, part, sizeof part, MSG_NOSIGNAL), (ssize_t)sizeof part);
	*before = clock_ms();
	ck_assert(TH_WAIT_UNTIL(clients_accept(&cl, lfd) == 0 && cl.open > open, 1000));
	*after = clock_ms();
	return fd;
}

/* The idle timeout reads its lists oldest first and stops at the first
 * connection not yet due: a list kept in any other order would keep the
 * old ones for ever. Two slow senders 30 ms apart, the clock put where
 * only the first is due: the first alone is dropped, and the next deadline
 * is the second's. */
START_TEST(timeouts_take_the_oldest_first)
{
	uint64_t a0, a1, b0, b1, next;
	int a, b;
	char c;

	a = partial_client(&a0, &a1);
	usleep(30000);
	b = partial_client(&b0, &b1);
	ck_assert_uint_gt(b0, a1);
	next = clients_expire(&cl, a1 + 5000);
	ck_assert_uint_eq(stats.timeouts, 1);
	ck_assert_uint_ge(next, b0 + 5000);
	ck_assert_uint_le(next, b1 + 5000);
	ck_assert_int_eq(recv(a, &c, 1, 0), 0); /* closed */
	ck_assert_int_lt(recv(b, &c, 1, MSG_DONTWAIT), 0); /* still open */
	close(a);
	close(b);
}
END_TEST

/* --max-wait closes the connection that has waited longest: two waiting
 * clients 30 ms apart, the clock put where only the first is due. */
START_TEST(max_wait_takes_the_oldest_first)
{
	struct conn *first, *second;
	uint64_t t;
	int a, b;

	cl.max_wait_ms = 1000;
	first = waiting_client(&a);
	t = clock_ms();
	usleep(30000);
	second = waiting_client(&b);
	ck_assert_ptr_eq(clients_overdue(&cl, t + 1000), first);
	ck_assert_ptr_null(clients_overdue(&cl, t + 1000));
	ck_assert_ptr_eq(clients_overdue(&cl, second->since_ms + 1000), second);
	clients_drop(&cl, first); /* jobs_client_gone() */
	clients_drop(&cl, second);
	close(a);
	close(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("clients_fork");
	TCase *t = tcase_create("clients_fork");

	tcase_set_timeout(t, 20);
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, closed_connection_is_not_reported_again);
	tcase_add_test(t, stale_event_does_not_drop_a_healthy_client);
	tcase_add_test(t, timeouts_take_the_oldest_first);
	tcase_add_test(t, max_wait_takes_the_oldest_first);
	tcase_add_loop_test(t, one_host_is_one_peer_where_its_address_tells, 0,
			    (int)(sizeof peers / sizeof peers[0]));
	suite_add_tcase(s, t);
	return check_run(s);
}
