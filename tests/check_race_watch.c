/* Tests of what the race watches during its runs (bench/race/proctree.c,
 * bench/race/race.c): /proc's files parsed from text, garbage included
 * (random, from the run's seed); the process behind a port the test
 * opens itself; a pid that is gone or reused; and revhash-bench --race
 * against servers that are processes of the test's, one of which has
 * another process burn a CPU while it serves, so that its runs are
 * named and give no verdict, one whose --pid process is gone mid-race,
 * so that its figure is unknown and nothing more, and --pid's
 * mistakes. */
#include "bench/race/machine.h"
#include "bench/race/proctree.h"
#include "lib/os.h"
#include "lib/clock.h"
#include "lib/digest.h"
#include "proto/proto.h"
#include "tests/check_run.h"
#include "tests/helpers.h"
#include "tests/race_fixture.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- /proc's files, as text -------------------------------------------- */

/* A /proc/PID/stat line: pid 4242, parent 17, utime 100, stime 20,
 * cutime 3, cstime 4, start time 987654; comm as given. */
static void stat_text(char *buf, size_t size, const char *comm)
{
	snprintf(buf, size, "4242 (%s) S 17 4242 4242 0 -1 4194304 120 0 0 0 "
		 "100 20 3 4 20 0 1 0 987654 1000000 200 18446744073709551615 "
		 "1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n", comm);
}

START_TEST(stat_lines_parse)
{
	static const char *const comms[] = { "master", "a) S 1 2 (b", "x y", ")", "" };
	struct os_stat s;
	char text[512];

	for (size_t i = 0; i < sizeof comms / sizeof comms[0]; i++) {
		stat_text(text, sizeof text, comms[i]);
		ck_assert_int_eq(os_parse_stat(text, &s), 0);
		ck_assert(s.pid == 4242 && s.ppid == 17 && s.start == 987654 && s.state == 'S');
		ck_assert_uint_eq(s.ticks, 120);
		ck_assert_uint_eq(s.child_ticks, 7);
	}
	/* Cut short, a negative child time, no pid, no name: none parse. */
	stat_text(text, sizeof text, "m");
	text[60] = '\0';
	ck_assert_int_eq(os_parse_stat(text, &s), -EINVAL);
	ck_assert_int_eq(os_parse_stat("4242 (m) S 17 1 1 0 -1 0 0 0 0 0 "
				       "1 1 -3 4 20 0 1 0 5", &s), -EINVAL);
	ck_assert_int_eq(os_parse_stat("(m) S 17", &s), -EINVAL);
	ck_assert_int_eq(os_parse_stat("4242 m S 17", &s), -EINVAL);
	ck_assert_int_eq(os_parse_stat("", &s), -EINVAL);
}
END_TEST

/* Random bytes written over a good line, from the run's seed: each line
 * parses or is refused, and one that parses has a positive pid. */
START_TEST(stat_garbage_is_refused_or_parsed)
{
	struct os_stat s;
	char text[512];

	for (int k = 0; k < 20000; k++) {
		size_t len;

		stat_text(text, sizeof text, "fuzz");
		len = strlen(text);
		for (int n = 1 + (int)(th_rand64() % 4); n > 0; n--)
			text[th_rand64() % len] = (char)(th_rand64() % 255 + 1);
		if (th_rand64() % 4 == 0)
			text[th_rand64() % len] = '\0';
		if (os_parse_stat(text, &s) == 0)
			ck_assert_int_gt(s.pid, 0);
	}
}
END_TEST

START_TEST(listeners_by_port)
{
	static const char tcp[] =
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
		"retrnsmt   uid  timeout inode\n"
		"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 "
		"00000000  1000        0 111 1 0000000000000000 100 0 0 10 0\n"
		"   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 "
		"00000000  1000        0 222 1 0000000000000000 20 4 0 10 -1\n"
		"   2: 00000000:1F91 00000000:0000 0A 00000000:00000000 00:00000000 "
		"00000000  1000        0 333 1 0000000000000000 100 0 0 10 0\n"
		"   3: garbage\n";
	static const char tcp6[] =
		"  sl  local_address                         remote_address"
		"                        st tx_queue rx_queue tr tm->when retrnsmt"
		"   uid  timeout inode\n"
		"   0: 00000000000000000000000000000000:1F90 "
		"00000000000000000000000000000000:0000 0A 00000000:00000000 "
		"00:00000000 00000000  1000        0 444 1 0000000000000000 100 0 0 10 0\n";
	uint64_t ino[4];

	/* Port 8080 listens at 111; 222 is a connection on it. */
	ck_assert_uint_eq(proctree_parse_listeners(tcp, 0, 8080, ino, 4), 1);
	ck_assert_uint_eq(ino[0], 111);
	ck_assert_uint_eq(proctree_parse_listeners(tcp, 0, 8081, ino, 4), 1);
	ck_assert_uint_eq(ino[0], 333);
	ck_assert_uint_eq(proctree_parse_listeners(tcp, 0, 8082, ino, 4), 0);
	/* An IPv6 line is not an IPv4 one. */
	ck_assert_uint_eq(proctree_parse_listeners(tcp6, 0, 8080, ino, 4), 0);
	ck_assert_uint_eq(proctree_parse_listeners(tcp6, 1, 8080, ino, 4), 1);
	ck_assert_uint_eq(ino[0], 444);
	ck_assert_uint_eq(proctree_parse_listeners("", 0, 8080, ino, 4), 0);
}
END_TEST

/* Others' CPUs: busy ticks less the server's and the race's, over the
 * ticks each CPU had; a few ticks of rounding are not a neighbour. */
START_TEST(others_from_ticks)
{
	struct machine_cpu a = { 1000, 5000, 2 }, b = { 1300, 5400, 2 };
	double others;

	/* 200 ticks a CPU passed; 300 busy, 100 of them the server's: one CPU. */
	ck_assert_int_eq(machine_others(&a, &b, 100, &others), 1);
	ck_assert_double_eq_tol(others, 1.0, 1e-12);
	ck_assert_int_eq(machine_others(&a, &b, 300, &others), 0);
	ck_assert_double_eq_tol(others, 0, 1e-12);
	ck_assert_int_eq(machine_others(&a, &b, 1000, &others), 0);
	/* A quarter of a CPU is 50 ticks; 3 more are rounding. */
	ck_assert_int_eq(machine_others(&a, &b, 300 - 53, &others), 0);
	ck_assert_int_eq(machine_others(&a, &b, 300 - 54, &others), 1);
	ck_assert_int_eq(machine_others(&b, &a, 0, &others), 0);
	ck_assert(others < 0);
	b.cpus = 0;
	ck_assert_int_eq(machine_others(&a, &b, 0, &others), 0);
	ck_assert(others < 0);
	b.cpus = 2;
	ck_assert_double_eq_tol(machine_cpus_used(&a, &b, 100), 0.5, 1e-12);
}
END_TEST

/* --- processes of the test's -------------------------------------------- */

/* A listening socket on a loopback port of the kernel's choice: its
 * descriptor, and its port into *port. */
static int listen_any(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(fd, 128), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* Fork a child that dies with the test: 0 in the child, its pid here. */
static pid_t child(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	return pid;
}

static void end_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Spin until clock_ms() reaches until. */
static void spin_until(uint64_t until)
{
	while (clock_ms() < until)
		;
}

/* A child that listens on a port of its own, said through a pipe, and
 * does what body says with the socket; its pid, and the port in *port. */
static pid_t listening_child(unsigned *port, void (*body)(int lfd, void *arg),
			     void *arg)
{
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	if ((pid = child()) == 0) {
		int lfd = listen_any(port);

		close(p[0]);
		if (write(p[1], port, sizeof *port) != sizeof *port)
			_exit(1);
		close(p[1]);
		body(lfd, arg);
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], port, sizeof *port), (ssize_t)sizeof *port);
	close(p[0]);
	return pid;
}

static void sleep_forever(int lfd, void *arg)
{
	(void)lfd;
	(void)arg;
	for (;;)
		pause();
}

/* The process holding a listener is found from its port, its start time
 * tells it from a process that took its pid, and once it is gone its
 * tree is no longer read. A port no one listens on has no process. */
START_TEST(pid_from_port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct proctree t, reused;
	unsigned port, free_port;
	uint64_t ticks;
	pid_t pid;

	close(listen_any(&free_port)); /* a port that was free a moment ago */
	pid = listening_child(&port, sleep_forever, NULL);
	a.sin_port = htons((uint16_t)port);
	ck_assert_int_eq(proctree_is_local((struct sockaddr *)&a), 1);
	ck_assert_int_eq(proctree_find_port((struct sockaddr *)&a, &t), 1);
	ck_assert_int_eq(t.pid[0], pid);
	ck_assert_int_eq(proctree_ticks(&t, &ticks), 0);
	reused = t;
	reused.start[0]++;
	ck_assert_int_eq(proctree_ticks(&reused, &ticks), -ESRCH);
	end_child(pid);
	ck_assert_int_eq(proctree_ticks(&t, &ticks), -ESRCH);
	a.sin_port = htons((uint16_t)free_port);
	ck_assert_int_eq(proctree_find_port((struct sockaddr *)&a, &t), 0);
	a.sin_addr.s_addr = htonl(0xC0000201); /* 192.0.2.1: documentation */
	ck_assert_int_eq(proctree_is_local((struct sockaddr *)&a), 0);
}
END_TEST

/* A holder with a child holding its listener too, as a server's workers
 * may: the child writes its pid on the pipe arg[1], then waits. */
static void holder_with_child(int lfd, void *arg)
{
	const int *g = arg;
	pid_t me;

	(void)lfd;
	if ((me = fork()) == 0) {
		me = getpid();
		if (write(g[1], &me, sizeof me) != sizeof me)
			_exit(1);
	}
	for (;;)
		pause();
}

/* Of the processes holding a port, the topmost is found: a holder whose
 * parent holds it too is below it, not a server of its own. */
START_TEST(pid_from_port_is_the_topmost)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct proctree t;
	unsigned port;
	pid_t pid, below;
	int g[2];

	ck_assert_int_eq(pipe(g), 0);
	pid = listening_child(&port, holder_with_child, g);
	ck_assert_int_eq(read(g[0], &below, sizeof below), (ssize_t)sizeof below);
	a.sin_port = htons((uint16_t)port);
	ck_assert_int_eq(proctree_find_port((struct sockaddr *)&a, &t), 1);
	ck_assert_int_eq(t.pid[0], pid);
	kill(below, SIGKILL);
	end_child(pid);
}
END_TEST

/* A grandchild's CPU is its grandparent's tree's, a pid given twice
 * counts once. The grandchild spins 300 ms of its own CPU time, not of
 * the clock's, so that a loaded machine only makes the test slower. */
START_TEST(tree_counts_its_children)
{
	struct proctree t = { .n = 0 };
	uint64_t before, after = 0;
	pid_t pid;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	if ((pid = child()) == 0) {
		if (fork() == 0) {
			struct timespec cpu;
			char go;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (read(p[0], &go, 1) == 1)
				do
					clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
				while (cpu.tv_sec == 0 && cpu.tv_nsec < 300000000);
			pause(); /* stays in the tree, its ticks with it */
			_exit(0);
		}
		sleep_forever(-1, NULL);
	}
	ck_assert_int_eq(proctree_add(&t, pid), 0);
	ck_assert_int_eq(proctree_add(&t, pid), 0); /* twice is once */
	usleep(50000);
	ck_assert_int_eq(proctree_ticks(&t, &before), 0);
	ck_assert_int_eq(write(p[1], "g", 1), 1);
	ck_assert_msg(TH_WAIT_UNTIL(proctree_ticks(&t, &after) == 0 && after - before >= 15,
				    20000), "%llu ticks", (unsigned long long)(after - before));
	end_child(pid);
}
END_TEST

/* --- races of server processes ------------------------------------------- */

#define SERVE_MS 150 /* each answer's wait; the burner spins meanwhile */

/* What a test server does beside answering. */
struct serve_how {
	int burn;     /* a descriptor to write a byte to for each request,
		       * for another process to spin meanwhile; or -1 */
	pid_t victim; /* a child to kill and reap at the first request, or 0 */
};

/* A server that answers each request after SERVE_MS, by brute force
 * (ranges of a few hundred values), one connection at a time, doing
 * what arg, a struct serve_how, says beside. */
static void serve(int lfd, void *arg)
{
	struct serve_how *how = arg;
	int fd;

	while ((fd = accept(lfd, NULL, NULL)) >= 0) {
		uint8_t req[PROTO_REQUEST_LEN], rep[PROTO_REPLY_LEN], h[DIGEST_LEN];
		struct proto_request q;
		uint64_t x = 0;

		if (recv(fd, req, sizeof req, MSG_WAITALL) == (ssize_t)sizeof req) {
			proto_decode_request(req, &q);
			if (how->burn >= 0 && write(how->burn, "b", 1) != 1)
				_exit(1);
			if (how->victim > 0) {
				kill(how->victim, SIGKILL);
				waitpid(how->victim, NULL, 0);
				how->victim = 0;
			}
			usleep(SERVE_MS * 1000);
			for (uint64_t v = q.start; v <= q.end && q.end - q.start < 100000;
			     v++) {
				digest_of(v, h);
				if (memcmp(h, q.digest, DIGEST_LEN) == 0) {
					x = v;
					break;
				}
			}
			proto_encode_reply(x, rep);
			send(fd, rep, sizeof rep, MSG_NOSIGNAL);
		}
		close(fd);
	}
}

/* A process that spins SERVE_MS for each byte read from fd. */
static pid_t burner(int fd)
{
	pid_t pid = child();
	char b;

	if (pid)
		return pid;
	while (read(fd, &b, 1) == 1)
		spin_until(clock_ms() + SERVE_MS);
	_exit(0);
}

/* The others CPU column of server name in round round's table. */
static double others_in(const struct ran *r, int round, const char *name)
{
	static char text[sizeof r->out];
	char head[32], *table, *end;
	double v[7];

	snprintf(head, sizeof head, "round %d of ", round);
	strcpy(text, r->out);
	ck_assert_ptr_nonnull(table = strstr(text, head));
	end = table;
	for (int line = 0; line < 4 && end; line++) /* heading, titles, 2 rows */
		end = strchr(end + 1, '\n');
	ck_assert_ptr_nonnull(end);
	end[1] = '\0'; /* the notes below name the servers too */
	ck_assert_int_eq(row(table, name, v, 7), 7);
	return v[6];
}

/* A server whose work another process does, no child of it: while it
 * serves, that process burns a CPU. The race finds both servers' pids
 * from their ports, says the other-CPU figure of each run, names the
 * burning server's runs (the burner alone holds a CPU through each, so
 * they show 0.6 CPUs or more of others', whatever the neighbours do),
 * and gives no verdict from its rounds. The calm one may be named too
 * where a neighbour of this machine used a CPU during its run; that is
 * no failure. */
START_TEST(others_burning_during_a_run_are_named)
{
	struct serve_how burning = { -1, 0 }, none = { -1, 0 };
	unsigned bport, cport;
	int p[2];
	pid_t burn, busy, calm;
	char sb[64], sc[64], line[96];
	static struct ran r;

	ck_assert_int_eq(pipe(p), 0);
	burn = burner(p[0]);
	close(p[0]);
	burning.burn = p[1];
	busy = listening_child(&bport, serve, &burning);
	close(p[1]);
	calm = listening_child(&cport, serve, &none);
	{
		const char *args[] = { "--race", server(sb, sizeof sb, "busy", bport),
				       server(sc, sizeof sc, "calm", cport),
				       "5", "3", "0", "300", "0", "1000", "1.5",
				       "--rounds", "1", "--settle", "0.1", "--no-calibrate", NULL };

		run_bench(args, NULL, &r);
	}
	end_child(busy);
	end_child(calm);
	end_child(burn);
	snprintf(line, sizeof line, "busy's process: %d (holding its port), and "
		 "those below it\n", (int)busy);
	expect(&r, line);
	snprintf(line, sizeof line, "calm's process: %d (holding its port)", (int)calm);
	expect(&r, line);
	expect(&r, " p99 ms others CPU\n");
	expect(&r, "\n  busy: other processes used ");
	expect(&r, " CPUs during its run (more than 0.25): its time was not its "
	       "own; no verdict from its rounds\n");
	expect(&r, "\nbusy ran while other processes used the CPUs in 1 of 1 "
	       "rounds: ");
	/* The verdict withheld: for this, or where a neighbour kept the CPUs
	 * busy after a run, for that first. */
	expect(&r, "\nno verdict between busy and calm: ");
	ck_assert_double_ge(others_in(&r, 1, "busy"), 0.6);
	ck_assert_int_eq(r.status, 0);
}
END_TEST

/* A server whose process, named with --pid, is gone after the race's
 * first reading: the run's figure is unknown, and said so under each
 * table, but neither flags the run nor stops the race. The server kills
 * and reaps that process, a child of its own, at its first request. */
static void serve_with_victim(int lfd, void *arg)
{
	struct serve_how how = { -1, fork() };
	int *report = arg;

	if (how.victim == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sleep_forever(-1, NULL);
	}
	if (how.victim < 0 || write(*report, &how.victim, sizeof how.victim) !=
	    sizeof how.victim)
		_exit(1);
	serve(lfd, &how);
}

START_TEST(a_process_gone_is_unknown)
{
	struct serve_how none = { -1, 0 };
	unsigned gport, cport;
	pid_t gone, calm, victim;
	char sg[64], sc[64], pid[32];
	static struct ran r;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	gone = listening_child(&gport, serve_with_victim, &p[1]);
	ck_assert_int_eq(read(p[0], &victim, sizeof victim), (ssize_t)sizeof victim);
	close(p[0]);
	close(p[1]);
	calm = listening_child(&cport, serve, &none);
	snprintf(pid, sizeof pid, "gone=%d", (int)victim);
	{
		const char *args[] = { "--race", server(sg, sizeof sg, "gone", gport),
				       server(sc, sizeof sc, "calm", cport),
				       "5", "1", "0", "300", "0", "1000", "1.5",
				       "--rounds", "1", "--settle", "0.1", "--pid", pid,
				       "--no-calibrate", NULL };

		run_bench(args, NULL, &r);
	}
	end_child(gone);
	end_child(calm);
	snprintf(sg, sizeof sg, "gone's process: %d (given by --pid)", (int)victim);
	expect(&r, sg);
	expect(&r, "\n  gone: the CPU others used during its run is unknown: a "
	       "process of it is gone, or its pid is another process's now\n");
	ck_assert(isnan(others_in(&r, 1, "gone")));
	ck_assert_ptr_null(strstr(r.out, "gone ran while other processes"));
	expect(&r, "\nsummary of 1 round");
	ck_assert_int_eq(r.status, 0);
}
END_TEST

/* How many times c is in text. */
static unsigned count_of(const char *text, char c)
{
	unsigned n = 0;

	for (; *text; text++)
		n += *text == c;
	return n;
}

/* A server that never cancels: it hashes every request it reads to the
 * end on a CPU, its client gone or not. Its first probe request (2
 * million values, 1.6 s of its hashing) times out at the bound of 1 s
 * (--timeout 1), and the race sees its processes search on: it says so,
 * waits for the search to end before the run (within the probe's bound,
 * which it states, and says whether it ended), and probes it no more: in
 * round 2 it has no probe, and no connection beyond its runs' 3 reaches
 * it. The calm one is probed each round. */
START_TEST(a_server_that_never_cancels_is_probed_no_more)
{
	struct fake nocancel = { FAKE_NOCANCEL, 'N', 0, -1, 0 };
	struct fake calm = { FAKE_RIGHT, 'C', 0, -1, 0 };
	char sn[64], sc[64];
	static struct ran r;
	double v[7];

	fake_start(&nocancel);
	fake_start(&calm);
	{
		const char *args[] = { "--race", server(sn, sizeof sn, "nocancel", nocancel.port),
				       server(sc, sizeof sc, "calm", calm.port),
				       "5", "3", "0", "300", "0", "1000", "1.5",
				       "--rounds", "2", "--settle", "0.3", "--timeout", "1",
				       NULL };

		run_bench(args, NULL, &r);
	}
	expect(&r, "\n  nocancel: probe timed out: no reply within its bound");
	expect(&r, "\n  nocancel still searched its closed probe: its processes used ");
	expect(&r, " CPUs in the 0.5 s after: it is probed no more, and raced "
	       "without a probe from here (its efficiency n/a); its search ");
	/* It ends 0.6 s after the close; where others keep the machine
	 * busy the race cannot tell it ended, and says so at its bound. */
	if (!strstr(r.out, "; its search went on past the 1.0 s the race waits "
		    "for it: its rivals' runs may share the machine with it; no "
		    "verdict for it from its rounds\n"))
		expect(&r, " later (the race waits up to 1.0 s)\n");
	expect(&r, "\n  nocancel: not probed: it searched a probe the race had "
	       "closed, in round 1 (efficiency n/a)\n");
	expect(&r, "\nnocancel searched a probe the race had closed: it was probed "
	       "no more, and ran without a probe in 1 of 2 rounds");
	/* Round 2 (the last table before the summary): no rate, no
	 * efficiency for it; the calm one probed. */
	*strstr(r.out, "\nsummary") = '\0';
	ck_assert_int_eq(row(r.out, "nocancel", v, 7), 7);
	ck_assert(isnan(v[0]) && isnan(v[2]) && v[3] == 100);
	ck_assert_int_eq(row(r.out, "calm", v, 7), 7);
	ck_assert(v[0] > 0);
	/* One probe request, then the runs' 3 requests in each round. */
	ck_assert_msg(count_of(fake_log(), 'N') == 1 + 3 + 3, "connections: %s",
		      fake_log());
	ck_assert_int_eq(r.status, 0);
}
END_TEST

/* --pid's mistakes exit 2 before anything is sent, each saying what is
 * wrong; a good --pid names the process in the race's first lines. */
START_TEST(bad_pid_exits_2)
{
#define A "A=127.0.0.1:1"
#define B "B=127.0.0.1:2"
	static const struct {
		const char *args[12];
		const char *says;
	} bad[] = {
		{ { "--race", A, B, "final", "--pid", "C=1" }, "the NAME of a server" },
		{ { "--race", A, B, "final", "--pid", "A=x" }, "a PID from 1 to" },
		{ { "--race", A, B, "final", "--pid", "A=0" }, "a PID from 1 to" },
		{ { "--race", A, B, "final", "--pid", "A=-5" }, "a PID from 1 to" },
		{ { "--race", A, B, "final", "--pid", "A" }, "not NAME=PID" },
		{ { "--race", A, B, "final", "--pid", "A=4194305" }, "no such process" },
		{ { "--race", A, B, "final", "--pid", "A=1", "--settle", "0" },
		  "not watched with --settle 0" },
		{ { "127.0.0.1", "1", "1", "1", "0", "9", "0", "0", "1", "--pid", "A=1" },
		  "--pid belongs to --race" },
	};
	static struct ran r;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		run_bench(bad[i].args, NULL, &r);
		if (r.status != 2 || !strstr(r.err, bad[i].says))
			fprintf(stderr, "case %zu: exit %d, stderr:\n%s", i, r.status, r.err);
		ck_assert_int_eq(r.status, 2);
		ck_assert_ptr_nonnull(strstr(r.err, bad[i].says));
		ck_assert_str_eq(r.out, "");
	}
#undef A
#undef B
}
END_TEST

static Suite *race_watch_suite(void)
{
	Suite *s = suite_create("race_watch");
	TCase *text = tcase_create("text"), *procs = tcase_create("processes");

	tcase_set_timeout(text, 30);
	tcase_add_test(text, stat_lines_parse);
	tcase_add_test(text, stat_garbage_is_refused_or_parsed);
	tcase_add_test(text, listeners_by_port);
	tcase_add_test(text, others_from_ticks);
	suite_add_tcase(s, text);
	tcase_set_timeout(procs, 30);
	tcase_add_test(procs, pid_from_port);
	tcase_add_test(procs, pid_from_port_is_the_topmost);
	tcase_add_test(procs, tree_counts_its_children);
	tcase_add_test(procs, others_burning_during_a_run_are_named);
	tcase_add_test(procs, a_process_gone_is_unknown);
	tcase_add_test(procs, a_server_that_never_cancels_is_probed_no_more);
	tcase_add_test(procs, bad_pid_exits_2);
	suite_add_tcase(s, procs);
	return s;
}

int main(void)
{
	return check_run(race_watch_suite());
}
