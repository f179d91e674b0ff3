/* robust_probe: does this system recover a process-shared robust mutex
 * whose holder died? The ring's lock rests on it (a worker may be killed
 * inside the lock). A child takes the mutex and is killed; the parent's
 * lock must then return EOWNERDEAD. Prints what happened; exit 0 when it
 * was recovered, 1 when not (after 2 s).
 *
 * Every Linux kernel recovers it: a thread registers its list of robust
 * mutexes (set_robust_list) and the kernel marks those of a dying thread.
 * qemu-user (7.2, Debian 12) answers set_robust_list with ENOSYS, so under
 * it the lock of a dead holder stays taken for ever; scripts/cross-arm64.sh
 * runs this under the emulator and, when it fails, tells the tests of that
 * recovery to skip (tests/helpers.h, th_no_robust_locks). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	pthread_mutex_t *m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_mutexattr_t a;
	struct timespec until;
	pid_t pid;
	int rc;

	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if ((rc = pthread_mutex_init(m, &a)) != 0) {
		printf("pthread_mutex_init: %s\n", strerror(rc));
		return 1;
	}
	if ((pid = fork()) < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		pthread_mutex_lock(m);
		raise(SIGKILL); /* dies holding it */
	}
	waitpid(pid, NULL, 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	rc = pthread_mutex_timedlock(m, &until);
	if (rc == EOWNERDEAD) {
		printf("a dead holder's robust mutex is recovered (EOWNERDEAD)\n");
		return 0;
	}
	printf("a dead holder's robust mutex is not recovered: pthread_mutex_timedlock: %s\n",
	       rc ? strerror(rc) : "taken, as if nobody had held it");
	return 1;
}
